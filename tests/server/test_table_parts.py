"""The table's small values (`server.table.clock`, `window`, `between`, `fanout`, `seating`),
each on its own on a fake clock: none reads a clock or calls back into the core."""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

from server.storage.dbfile import open_database
from server.storage.record_sql import ops_of
from server.storage.records import (
    ActionPlayed,
    EventLogged,
    MatchStarted,
    Record,
    RoundDealt,
    RoundEnded,
    SeatsChanged,
    TableCreated,
    TableEnded,
    TokensChanged,
)
from server.table.between import Between, Wait
from server.table.clock import Idleness, SeatClock
from server.table.fanout import LOG_KEEP, EventLog, SpectatorCount, view_groups
from server.table.seating import Seats, SeatState
from server.table.window import ClaimWindow, HeldAnswer

# ----- a seat's clock -----


def test_a_prompts_clock_starts_when_it_goes_out_not_when_it_is_made() -> None:
    c = SeatClock()
    c.new_round(bank=10.0)
    assert c.prompt(seq=5) is True and c.prompt(seq=5) is False  # the same decision again
    assert c.waiting and c.deadline(turn=3.0) is None
    assert c.deadline(turn=3.0, sending_at=50.0) == 63.0  # what its frame says
    c.started(seq=4, now=60.0)  # an older prompt's stamp: not this one
    assert c.waiting
    c.started(seq=5, now=100.0)
    assert c.deadline(turn=3.0) == 113.0


def test_the_bank_pays_only_for_time_beyond_the_turn_of_the_decision_prompted() -> None:
    c = SeatClock()
    c.new_round(bank=10.0)
    c.prompt(seq=5)
    c.started(seq=5, now=100.0)
    c.spend(answered=5, now=102.0, turn=3.0)
    assert c.bank == 10.0  # within the turn
    c.spend(answered=4, now=120.0, turn=3.0)
    assert c.bank == 10.0  # not the decision it was prompted for
    c.spend(answered=5, now=106.5, turn=3.0)
    assert c.bank == 6.5
    c.spend(answered=5, now=200.0, turn=3.0)
    assert c.bank == 0.0  # never below nothing
    c.new_round(bank=10.0)
    assert (c.bank, c.prompted_seq, c.answered_seq) == (10.0, -1, -1)


def test_a_shift_moves_a_running_clock_and_leaves_a_waiting_one() -> None:
    c = SeatClock()
    c.prompt(seq=1)
    c.shift(30.0)
    assert math.isinf(c.prompt_at)
    c.started(seq=1, now=10.0)
    c.shift(30.0)
    assert c.prompt_at == 40.0


# ----- idleness -----


def test_an_empty_table_pauses_then_closes_and_someone_back_wakes_it() -> None:
    idle = Idleness(pause_after=600.0, close_after=7200.0)
    idle.update(anyone=True, now=0.0)
    assert idle.wakeups() == [] and idle.seconds(5.0) is None
    idle.update(anyone=False, now=100.0)
    idle.update(anyone=False, now=150.0)  # still empty: it counts from the first
    assert idle.empty_since == 100.0 and idle.seconds(160.0) == 60.0
    assert sorted(idle.wakeups()) == [700.0, 7300.0]
    assert idle.check(699.0) == "running" and not idle.paused
    assert idle.check(700.0) == "paused" and idle.paused_at == 700.0
    assert idle.wakeups() == [7300.0]  # paused: only its closing time
    assert idle.wake(1000.0) == 300.0  # every clock moves on by the pause
    assert idle.empty_since is None and not idle.paused
    idle.update(anyone=False, now=2000.0)
    assert idle.check(9200.0) == "close" and not idle.paused


def test_a_limit_of_zero_never_comes() -> None:
    idle = Idleness(pause_after=0.0, close_after=0.0)
    idle.update(anyone=False, now=0.0)
    assert idle.wakeups() == [] and idle.check(1e9) == "running"
    assert idle.wake(5.0) == 0.0


# ----- the claim window -----


def test_a_window_holds_answers_from_its_event_until_its_minimum_is_over() -> None:
    w: ClaimWindow[str] = ClaimWindow(minimum=0.5)
    assert not w.holds(0.0) and not w.timed() and w.wakeups(machine_waits=True) == []
    w.announced()
    assert w.holds(0.0) and w.holds(1e9), "its minimum has not started: it waits to go out"
    w.opened(100.0)
    assert w.wakeups(machine_waits=False) == [100.5]
    assert w.wakeups(machine_waits=True) == [100.5, 100.25]  # the machine answers mid-way
    assert w.holds(100.49) and not w.due(100.49)
    w.hold(2, HeldAnswer("peng", None, 7, "claim"))
    w.hold(1, HeldAnswer("pass", "auto", 7, "claim"))
    assert w.due(100.5) and not w.holds(100.5)
    assert [(a.action, a.reason) for a in w.close()] == [("peng", None), ("pass", "auto")]
    assert w.held == {} and not w.timed()


def test_after_a_restart_a_window_may_close_at_once_and_a_new_round_has_none() -> None:
    w: ClaimWindow[str] = ClaimWindow(minimum=0.5)
    w.ran_before(10.0)
    assert w.due(10.0) and w.middle() == 10.25
    w.hold(0, HeldAnswer("pass", None, 3, "claim"))
    w.reset()
    assert (w.held, w.pending, w.open_at, w.until) == ({}, False, None, None)


# ----- between rounds and the rematch vote -----


@dataclass
class _Seat:
    kind: str
    member: object | None = "conn"
    auto: bool = False
    gone_at: float | None = None


def test_the_next_round_waits_for_players_at_their_seats_only() -> None:
    b = Between(grace=20.0)
    player, away, auto = _Seat("human"), _Seat("human", None, gone_at=100.0), _Seat("human")
    auto.auto = True
    seats = [player, away, auto, _Seat("bot", None)]
    b.begin(now=100.0, limit=0.0)
    assert b.next_round_at is None  # no limit
    assert [b.ready(i, s, 101.0, playing=True) for i, s in enumerate(seats)] == [
        False,  # at the table, has not said
        False,  # away, within the grace
        True,  # 托管
        True,  # a bot
    ]
    assert b.wakeups(seats, 101.0) == [120.0]  # when the away player stops holding it up
    assert b.mark_ready(0) and not b.mark_ready(0)  # news once
    assert not b.due(seats, 119.0) and b.due(seats, 120.0)
    b.end()
    assert not b.active and not b.due(seats, 1e9) and b.wakeups(seats, 1e9) == []
    assert not b.mark_ready(1), "no wait: nothing to be ready for"


def test_the_wait_has_a_limit_and_is_announced_when_it_changes() -> None:
    b = Between(grace=20.0)
    seats = [_Seat("human"), _Seat("bot"), _Seat("bot"), _Seat("bot")]
    b.begin(now=100.0, limit=30.0)
    assert b.wakeups(seats, 100.0) == [130.0] and b.due(seats, 130.0)
    wait = b.wait(seats, 100.0, round_no=2, state="playing")
    assert wait == Wait(3, (False, True, True, True), 130.0, False)
    assert b.changed(wait) and not b.changed(wait)
    b.shift(5.0)
    assert b.next_round_at == 135.0
    b.end()
    assert b.wait(seats, 100.0, round_no=2, state="playing") is None


def test_a_rematch_needs_every_player_asking_and_there() -> None:
    b = Between(grace=20.0)
    seats = [_Seat("human"), _Seat("human"), _Seat("bot"), _Seat("bot")]
    assert b.wait(seats, 0.0, round_no=4, state="finished") is None  # nobody asked
    b.votes.add(0)
    assert b.wait(seats, 0.0, round_no=4, state="finished") == Wait(
        1, (True, False, True, True), None, True
    )
    b.votes.add(1)
    assert b.all_ready(seats, 0.0, playing=False)
    seats[1].member = None  # asked, then went
    assert not b.all_ready(seats, 0.0, playing=False)


# ----- the fan-out -----


def test_the_log_numbers_events_and_catches_up_only_what_it_still_holds() -> None:
    log = EventLog("7")
    events = [log.number({"type": "seat_status"}) for _ in range(LOG_KEEP + 10)]
    assert [e["seq"] for e in events[:2]] == [1, 2] and events[0]["table"] == "7"
    log.keep(events)
    assert log.seq == LOG_KEEP + 10
    assert log.since(log.seq) == []
    assert [e["seq"] for e in log.since(log.seq - 2) or []] == [log.seq - 1, log.seq]
    assert log.since(10) is not None and log.since(9) is None, "older than the log: a snapshot"
    assert log.since(log.seq + 1) is None, "a seq it never gave"


def test_an_event_is_projected_once_per_class_of_viewer() -> None:
    members = {"a": 0, "b": None, "c": None, "d": 1}
    item = {"type": "seat_status", "table": "7", "seq": 3, "seat": 0, "connected": True}
    item["auto"] = False
    groups = view_groups(item, members, exclude="d")
    # A public event: the same frame for everyone but the one excluded.
    assert [sorted(to) for _, to in groups] == [["a", "b", "c"]]
    assert groups[0][0]["type"] == "seat_status"


def test_the_spectator_count_is_coalesced_and_sent_only_when_it_changed() -> None:
    c = SpectatorCount(every=0.5)
    c.changed(now=10.0)
    c.changed(now=10.2)
    assert c.due == 10.0
    assert c.take(now=10.0, count=2) and c.due is None
    c.changed(now=10.1)
    assert c.due == 10.5  # no sooner than `every` after the last one
    assert not c.take(now=10.5, count=2), "the same count again is no news"


# ----- the records a table writes -----


def test_every_record_becomes_statements_a_real_database_takes(tmp_path: Path) -> None:
    db = open_database(tmp_path / "records.db")
    tokens: list[str | None] = ["k" * 64, None, None, None]
    seats = [{"name": "host", "kind": "human"}] + [{"name": "Bot", "kind": "bot"}] * 3
    event = {"type": "seat_status", "table": "7", "seq": 1, "seat": 0}
    records: list[Record] = [
        TableCreated("7", "t", "guiyang", {}, 1, 2, 0.0, 0.0, 0, None, 30.0, None, "s", 1.0),
        MatchStarted("7", seats, tokens, 2.0),
        SeatsChanged("7", seats, tokens),
        TokensChanged("7", [None] * 4),
        RoundDealt("7", 1, "9", 0, 0, 1, [["1m"]] * 4, ["2m"], 3.0, "5a", "c0", 3),
        ActionPlayed("7", 1, 0, 0, "discard", "1m", "turn", False, 4.0),
        EventLogged("7", 1, event, 4.0),
        RoundEnded("7", 1, {"outcome": "draw"}, [0, 0, 0, 0], [0, 0, 0, 0], 5.0),
        TableEnded("7", "finished", [0, 0, 0, 0], 1, 6.0),
    ]
    with db:
        db.execute("BEGIN")
        for sql, params in ops_of(records):
            db.execute(sql, params)
    table = db.execute("SELECT state, tokens, rounds_played, ended_at FROM tables").fetchone()
    assert table == ("finished", "[null, null, null, null]", 1, 6.0)
    assert db.execute("SELECT seat, act, tile, auto FROM actions").fetchall() == [
        (0, "discard", "1m", 0)
    ]
    assert db.execute("SELECT seq, type FROM events").fetchall() == [(1, "seat_status")]
    assert db.execute("SELECT weekday, net FROM rounds").fetchone() == (3, "[0, 0, 0, 0]")
    db.close()


# ----- the seats -----


def test_seats_find_a_free_one_say_why_not_and_find_a_token() -> None:
    seats: Seats[str] = Seats()
    assert len(seats) == 4 and seats.free(None) == 0 and seats.free(3) == 3
    for i in range(4):
        seats[i].kind, seats[i].name = ("bot", f"Bot-{i + 1}") if i else ("human", "host")
    seats[1].level = None  # a bot stored before levels: normal
    seats[0].token_key = "k" * 64
    assert seats.free(None) is None and seats.refusal(None)[0] == "table_full"
    assert seats.free(2) is None and seats.refusal(2) == ("seat_taken", "seat 2 is taken")
    assert seats.holding("k" * 64) == 0 and seats.holding("x" * 64) is None
    assert seats.rows()[:2] == [
        {"name": "host", "kind": "human"},
        {"name": "Bot-2", "kind": "bot", "level": "normal"},
    ]
    assert seats.token_keys() == ["k" * 64, None, None, None]
    seats.vacate(2)
    assert seats.free(None) == 2 and seats[2] == SeatState()
