"""Tables left to the bots, and tables one address keeps starting (issue 22, item 7).

The playing tables no player is connected to (only bots, 托管 and away seats play) share a
configured share of one core (`server.quota.CpuShare`): past it they wait their turn, a player
coming back ends it; each is charged by the events it makes (`server.table.meter.EventCost`),
never by what a step took to decide. And an address's tables count against its cap for a
window after they were made, closed or not (`server.quota.TableQuota`). The budget, the charge
and the window on a fake clock; then both on a real server over loopback."""

from __future__ import annotations

from pathlib import Path

import pytest

from clients.client import Client
from server.quota import OVERHEAD_MAX, OVERHEAD_WINDOW, CpuShare, TableQuota
from server.storage.records import ActionPlayed, EventLogged
from server.table.effects import Write
from server.table.meter import EVENT_COST, EventCost
from server.testkit import running_server
from tests.deadline import apoll
from tests.support import FAST


def test_tables_that_always_want_to_play_get_their_share_of_a_core_and_no_more() -> None:
    share, burst, tables = 0.25, 0.05, 16
    budget = CpuShare(share=share, burst=burst)
    for i in range(tables):
        budget.join(str(i), now=0.0)
    cost = [0.002 + 0.001 * (i % 4) for i in range(tables)]  # some tables cost more a step
    due = [0.0] * tables  # each steps as soon as it may (bot_delay 0)
    spent = [0.0] * tables
    now = 0.0
    while now < 120.0:
        i = min(range(tables), key=due.__getitem__)
        now = due[i]
        ready = budget.ready_at(str(i), now)
        if ready > now:
            due[i] = ready  # waits its turn
            continue
        budget.spend(str(i), cost[i], now)
        spent[i] += cost[i]
    assert budget.spent <= share * now + tables * (burst + max(cost))
    assert budget.spent >= share * now * 0.95, "and the share is used, not wasted"
    assert max(spent) <= min(spent) * 1.05, "each table gets its part, dear or cheap"
    # Half of them get their player back: the others share the same core between them.
    for i in range(tables // 2):
        budget.leave(str(i))
    start, before = now, list(spent)
    while now < start + 120.0:
        i = min(range(tables // 2, tables), key=due.__getitem__)
        now = due[i]
        ready = budget.ready_at(str(i), now)
        if ready > now:
            due[i] = ready
            continue
        budget.spend(str(i), cost[i], now)
        spent[i] += cost[i]
    gained = [spent[i] - before[i] for i in range(tables // 2, tables)]
    assert share * 120 * 0.95 <= sum(gained) <= share * 120 + tables * (burst + max(cost))


def test_a_table_is_charged_by_its_events_not_by_what_its_steps_took() -> None:
    def write(*types: str) -> list[Write]:
        return [Write([EventLogged("1", 1, {"type": t}, 0.0) for t in types])]

    pondered, quick = EventCost(), EventCost()
    # The same public events; one table's bot pondered a claim (a slow step), the other not.
    for meter, claim_cost in ((pondered, 0.05), (quick, 0.0005)):
        charges = [
            meter.step(0.001, write("drew")),
            meter.step(claim_cost, write("discarded")),  # the claim window
            meter.step(
                0.001, [Write([ActionPlayed("1", 1, 0, 0, "pass", None, "claim", True, 0.0)])]
            ),
            meter.step(0.001, write("drew", "discarded")),
        ]
        assert charges == [EVENT_COST, EVENT_COST, 0.0, 2 * EVENT_COST]
    assert pondered.round_cost > quick.round_cost
    # The round ends (every hand is shown): from now on an event costs what it did.
    pondered.step(0.001, write("won", "round_ended"))
    assert pondered.per_event == (0.001 * 4 + 0.05) / 6
    assert pondered.step(0.0, write("drew")) == pondered.per_event


def test_an_address_tables_count_for_the_window_after_they_were_made() -> None:
    q = TableQuota(window=600.0)
    for i in range(3):
        q.opened(str(i), "10.0.0.7", now=float(i))
        q.closed(str(i), now=float(i) + 1)  # made and left at once
    assert q.count("10.0.0.7", now=10.0) == 3, "closed, but made within the window"
    assert q.count("10.0.0.8", now=10.0) == 0
    assert q.count("10.0.0.7", now=601.5) == 1
    q.opened("9", "10.0.0.7", now=700.0)
    assert q.count("10.0.0.7", now=5000.0) == 1, "an open table counts however old"
    q.closed("9", now=5001.0)
    assert q.count("10.0.0.7", now=5001.0) == 0
    assert TableQuota(window=0).count("x", now=0.0) == 0


async def _playing(url: str, name: str) -> tuple[Client, dict[str, object]]:
    """A host and three server bots at a started table (no clock, no claim hold)."""
    host = await Client.connect(url, name)
    await host.recv_type("welcome")
    await host.send({"type": "create_table", "name": name, "rounds": 64, **FAST})
    joined = await host.recv_type("joined")
    for _ in range(3):
        await host.send({"type": "add_bot"})
    seated: set[int] = set()
    while len(seated) < 3:
        frame = await host.recv_type("seat_status")
        if frame["connected"]:
            seated.add(frame["seat"])
    await host.send({"type": "start"})
    await host.recv_type("match_started")
    return host, joined


async def test_a_table_left_to_its_bots_waits_its_turn_until_its_player_is_back(
    tmp_path: Path,
) -> None:
    async with running_server(tmp_path / "z.db", bot_tables_cpu_share=0.01) as (url, server):
        budget = server.bot_budget
        assert budget is not None
        watched, _ = await _playing(url, "在")
        await watched.send({"type": "auto", "on": True})  # 托管, but the player is there
        left, joined = await _playing(url, "走")
        await left.send({"type": "leave"})  # the match plays on: the seat in 托管
        await left.recv_type("left")
        await left.close()
        table = server.tables[str(joined["table"])]
        other = server.tables[next(t for t in server.tables if t != joined["table"])]
        await apoll(lambda: table.deferred >= 3, "the bot table put off", 60)
        assert table.unattended() and not other.unattended()
        assert other.deferred == 0, "a table with its player there never waits"
        assert budget.spent > 0
        # The player comes back (the seat's token): the table plays at once again.
        back = await Client.connect(url, "走", token=str(joined["token"]))
        await back.recv_type("joined")
        await back.send({"type": "auto", "on": True})
        deferred = table.deferred
        assert not table.unattended()
        for _ in range(20):
            await back.recv_type("drew", timeout=30)
        assert table.deferred == deferred
        await back.close()
        await watched.close()


async def test_one_address_cannot_keep_starting_new_tables(tmp_path: Path) -> None:
    async with running_server(
        tmp_path / "z.db", tables_per_address=2, tables_window=3600, address_exempt=[]
    ) as (url, server):
        c = await Client.connect(url, "c")
        await c.recv_type("welcome")
        for i in range(2):  # made and left before the start: closed at once
            await c.send({"type": "create_table", "name": f"t{i}"})
            await c.recv_type("joined")
            await c.send({"type": "leave"})
            await c.recv_type("left")
        assert not server.tables, "no table is open"
        await c.send({"type": "create_table", "name": "t2"})
        refused = await c.recv_type("error")
        assert refused["code"] == "tables_per_address"
        assert "made in the last 60 minutes" in refused["message"]
        await c.close()


def test_tables_closed_out_of_order_stop_counting_when_their_window_ends() -> None:
    """Table 1 made at 0 and table 2 at 3000 close in the other order: at 6500 only table 2
    (made within the hour) still counts."""
    q = TableQuota(window=3600.0)
    q.opened("1", "10.0.0.5", now=0.0)
    q.opened("2", "10.0.0.5", now=3000.0)
    q.closed("2", now=3100.0)
    q.closed("1", now=3200.0)
    assert q.count("10.0.0.5", now=3500.0) == 2
    assert q.count("10.0.0.5", now=6500.0) == 1
    assert q.count("10.0.0.5", now=6601.0) == 0


def test_tables_left_at_once_take_no_burst_over_the_share() -> None:
    """16 tables left to their bots at the same moment: each joins with nothing banked, so
    together they spend the share and one step each over it, not 16 bursts."""
    share, burst, tables, step = 0.05, 0.05, 16, 0.004
    budget = CpuShare(share=share, burst=burst)
    due = [0.0] * tables
    for i in range(tables):
        budget.join(str(i), now=0.0)
    now = 0.0
    while now < 10.0:
        i = min(range(tables), key=due.__getitem__)
        now = due[i]
        ready = budget.ready_at(str(i), now)
        if ready > now:
            due[i] = ready
            continue
        budget.spend(str(i), step, now)
    assert budget.spent <= share * now + tables * step  # was + tables * (burst + step)
    assert budget.spent >= share * now * 0.95


def test_a_refund_banks_no_more_than_a_burst() -> None:
    budget = CpuShare(share=0.1, burst=0.05)
    budget.join("1", now=0.0)
    budget.spend("1", -1.0, now=0.0)  # its round cost less than it was charged
    budget.spend("1", 0.2, now=0.0)
    # 0.05 banked at most: 0.15 s in debt at 0.1 a second
    assert budget.ready_at("1", 0.0) == pytest.approx(1.5)


def _events(*types: str) -> list[Write]:
    return [Write([EventLogged("1", 1, {"type": t}, 0.0) for t in types])]


def test_a_round_end_makes_its_charges_right_and_only_then() -> None:
    """Before its round ends a table is charged the price for its events whatever its steps
    took; the step that ends the round is charged the rest of the round's cost (or refunded
    what was over), so over a round the charges are its cost."""
    dear, cheap = EventCost(), EventCost()
    for meter, took in ((dear, 0.01), (cheap, 0.0001)):
        before = [meter.step(took, _events("drew", "discarded")) for _ in range(5)]
        assert before == [2 * EVENT_COST] * 5, "the same public events, the same charge"
        end = meter.step(took, _events("won", "round_ended"))
        total = sum(before) + end
        assert abs(total - 6 * took) < 1e-12
        assert meter.per_event == pytest.approx(6 * took / 12) and meter.rounds == 1
    assert cheap.step(0.0, _events("drew")) == pytest.approx(0.0001 / 2)
    assert dear.spent == pytest.approx(0.06)


def test_a_new_table_is_charged_the_price_rounds_had_on_the_server() -> None:
    budget = CpuShare(share=0.1)
    assert budget.price is None
    budget.learn(0.004)
    assert budget.price == 0.004
    budget.learn(0.014)
    assert abs(budget.price - 0.005) < 1e-12  # a tenth of the way


def test_the_overhead_is_the_loops_work_no_step_measured_over_what_was_paid() -> None:
    """Whole windows of the loop's CPU: what no step measured, over what the bot tables were
    charged plus what the others' steps measured; half way from the last value each window."""
    b = CpuShare(share=0.1, overhead=0.25)
    b.join("bot", now=0.0)
    b.observe(now=0.0, loop_cpu=0.0)
    # 10 s: the bot table measured 0.4 s (it pondered) and was charged 0.3; a table its
    # players are at measured 0.5; the loop spent 1.1 s: 0.2 s no step measured.
    b.measured(0.4)
    b.spend("bot", 0.3, now=5.0)
    b.measured(0.5, attended=True)
    b.observe(now=OVERHEAD_WINDOW - 0.1, loop_cpu=1.0)
    assert b.overhead == 0.25, "a window counts once it is whole"
    b.observe(now=OVERHEAD_WINDOW, loop_cpu=1.1)
    assert b.overhead == pytest.approx((0.25 + 0.2 / 0.8) / 2)
    # The same window again, but the bot pondered twice as long: the loop spent that too, and
    # the overhead is the same (its steps cancel out: pace never follows a step's time).
    twin = CpuShare(share=0.1, overhead=0.25)
    twin.join("bot", now=0.0)
    twin.observe(now=0.0, loop_cpu=0.0)
    twin.measured(0.8)
    twin.spend("bot", 0.3, now=5.0)
    twin.measured(0.5, attended=True)
    twin.observe(now=OVERHEAD_WINDOW, loop_cpu=1.5)
    assert twin.overhead == pytest.approx(b.overhead)
    # A round's true-up (here a refund: its events were priced over what they cost) is not
    # what the overhead is reckoned against: only the events at their price are.
    refunded = CpuShare(share=0.1, overhead=0.25)
    refunded.join("bot", now=0.0)
    refunded.observe(now=0.0, loop_cpu=0.0)
    refunded.measured(0.4)
    refunded.spend("bot", 0.3, now=4.0)
    refunded.spend("bot", 0.01 - 0.2, now=5.0, priced=0.01)  # the round ends
    refunded.measured(0.5, attended=True)
    refunded.observe(now=OVERHEAD_WINDOW, loop_cpu=1.11)
    assert refunded.overhead == pytest.approx((0.25 + 0.21 / 0.81) / 2)
    # A window in which nobody played shows nothing: the overhead stays.
    before = b.overhead
    b.observe(now=2 * OVERHEAD_WINDOW, loop_cpu=1.2)
    assert b.overhead == before
    # A server busy with something else (the lobby: 5 s unmeasured for 0.1 s paid) slows
    # the bot tables by at most 1 + OVERHEAD_MAX.
    b.spend("bot", 0.1, now=25.0)
    b.measured(0.1)
    for i in range(3, 12):
        b.spend("bot", 0.1, now=i * OVERHEAD_WINDOW - 1)
        b.measured(0.1)
        b.observe(now=i * OVERHEAD_WINDOW, loop_cpu=1.2 + 5.2 * (i - 2))
    assert OVERHEAD_MAX - 0.01 < b.overhead <= OVERHEAD_MAX
    # and none is never below nothing (a loop that measured less than its steps: rounding)
    b.spend("bot", 0.1, now=125.0)
    for i in range(13, 25):
        b.spend("bot", 0.1, now=i * OVERHEAD_WINDOW - 1)
        b.measured(0.2)
        b.observe(now=i * OVERHEAD_WINDOW, loop_cpu=100.0)
    assert 0.0 <= b.overhead < 0.01


def _loop_per_second(share: float, watch: bool, seconds: float = 300.0) -> float:
    """16 tables left to their bots on a fake clock, each step as the shell charges it: the
    meter's price by events (3 ms, learned from each round), the loop's CPU the steps' cost
    plus what no step measures (asyncio's switches, 40 % more for a table 4 spectators watch:
    their frames written). The loop's CPU a second over the last two thirds of the run."""
    tables, events_per_round = 16, 60
    budget = CpuShare(share=share, overhead=0.25)
    meters = [EventCost() for _ in range(tables)]
    cost = [0.002 + 0.0005 * (i % 3) for i in range(tables)]  # CPU a step (one event each)
    extra = [0.0004 + (0.4 * cost[i] if watch and i < 4 else 0.0) for i in range(tables)]
    due, made = [0.0] * tables, [0] * tables
    for i in range(tables):
        budget.join(str(i), now=0.0)
    now = loop_cpu = 0.0
    mark = None
    while now < seconds:
        if mark is None and now >= seconds / 3:
            mark = (now, loop_cpu)
        i = min(range(tables), key=due.__getitem__)
        now = due[i]
        ready = budget.ready_at(str(i), now)
        if ready > now:
            due[i] = ready
            continue
        made[i] += 1
        kind = "round_ended" if made[i] % events_per_round == 0 else "drew"
        meter = meters[i]
        if not meter.learned and budget.price is not None:
            meter.per_event = budget.price
        rounds, priced = meter.rounds, meter.priced
        charge = meter.step(cost[i], _events(kind))
        if meter.rounds > rounds:
            budget.learn(meter.per_event)
        budget.spend(str(i), charge, now, priced=meter.priced - priced)
        budget.measured(cost[i])
        loop_cpu += cost[i] + extra[i]
        budget.observe(now, loop_cpu)
    assert mark is not None
    return (loop_cpu - mark[1]) / (now - mark[0])


@pytest.mark.parametrize("watch", [False, True])
def test_what_no_step_measures_is_paid_too_so_the_loop_stays_within_the_share(
    watch: bool,
) -> None:
    share = 0.05
    assert _loop_per_second(share, watch) <= share * 1.01


async def test_a_bot_table_someone_watches_still_plays_within_the_share(tmp_path: Path) -> None:
    """No seated player connected is "no human connected": a spectator does not take the
    table out of the share. It sees the table play on, put off between its moves, and the
    table is never paused for idleness (someone is connected)."""
    async with running_server(tmp_path / "z.db", bot_tables_cpu_share=0.01) as (url, server):
        host, joined = await _playing(url, "看")
        await host.send({"type": "leave"})
        await host.recv_type("left")
        table = server.tables[str(joined["table"])]
        watcher = await Client.connect(url, "watcher")
        await watcher.recv_type("welcome")
        await watcher.send({"type": "watch", "table": joined["table"]})
        await watcher.recv_type("joined")
        assert table.unattended(), "a spectator is not a seated player"
        await apoll(lambda: table.deferred >= 3, "the watched bot table put off", 60)
        assert table.core.idle.empty_since is None, "someone is connected: no idle pause"
        for _ in range(3):  # and it plays on, at the share's pace, for the spectator to see
            await watcher.recv_type("discarded", timeout=60)
        assert table.unattended()
        await watcher.close()
        await host.close()
