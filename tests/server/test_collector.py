"""The collector's policy (`server.collector`): the pauses timed by generation, the thresholds
and the freeze `zhuoji serve` sets, `/metrics` showing the pauses, and what a connection no
longer keeps once it is open (its handshake's headers)."""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from server import collector
from server.conn import WsConn
from server.testkit import running_server
from tests.deadline import apoll
from tests.server.test_metrics import scrape
from tests.support import connect


class FakeClock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_each_collection_is_timed_under_its_generation() -> None:
    clock = FakeClock()
    pauses = collector.PauseClock(clock=clock)
    for generation, took, freed in ((0, 0.002, 3), (0, 0.005, 0), (1, 0.040, 7), (0, 0.001, 1)):
        pauses("start", {"generation": generation})
        clock.now += took
        pauses("stop", {"generation": generation, "collected": freed, "uncollectable": 0})
    young, middle, old = pauses.generations
    assert (young.count, young.seconds, young.longest, young.collected) == (
        3,
        pytest.approx(0.008),
        pytest.approx(0.005),
        4,
    )
    assert (middle.count, middle.seconds, middle.longest, middle.collected) == (
        1,
        pytest.approx(0.040),
        pytest.approx(0.040),
        7,
    )
    assert old == collector.Pauses()


def test_a_stop_without_its_start_is_not_counted() -> None:
    """Installed while a collection ran: its stop comes without a start, and is left out."""
    pauses = collector.PauseClock(clock=FakeClock())
    pauses("stop", {"generation": 2, "collected": 5, "uncollectable": 0})
    assert pauses.generations[2] == collector.Pauses()


def make_cycles(n: int) -> None:
    for _ in range(n):
        a: list[object] = []
        a.append(a)


def test_installed_it_sees_the_real_collections_and_what_they_freed() -> None:
    pauses = collector.PauseClock().install()
    try:
        assert gc.callbacks.count(pauses) == 1
        pauses.install()
        assert gc.callbacks.count(pauses) == 1  # once, however often installed
        gc.collect()
        make_cycles(50)
        gc.collect(1)
    finally:
        pauses.remove()
    assert pauses not in gc.callbacks
    middle = pauses.generations[1]
    assert middle.count == 1 and middle.collected >= 50 and middle.seconds > 0
    assert pauses.generations[2].count == 1
    gc.collect(1)
    assert pauses.generations[1].count == 1  # removed: no longer counting


@pytest.fixture
def restored_gc() -> Iterator[None]:
    """`tune` changes the process's collector: put it back as it was."""
    thresholds = gc.get_threshold()
    yield
    collector.PAUSES.remove()
    gc.unfreeze()
    gc.set_threshold(*thresholds)


@pytest.mark.usefixtures("restored_gc")
async def test_tune_freezes_what_is_alive_sets_the_thresholds_and_times_the_pauses() -> None:
    kept = [[i] for i in range(100)]  # alive when the server is set up
    gc.unfreeze()
    settler = collector.tune()
    try:
        assert gc.get_threshold() == (collector.YOUNG, collector.MIDDLE, collector.OLD)
        assert gc.get_freeze_count() >= len(kept)
        assert not any(o is kept for o in gc.get_objects())  # frozen: no collection walks it
        assert collector.PAUSES in gc.callbacks and settler in gc.callbacks
        seen = collector.PAUSES.generations[0].count
        gc.collect(0)
        assert collector.PAUSES.generations[0].count == seen + 1
    finally:
        settler.remove()


class FakeCollector:
    """The `gc` calls a `Settler` makes, on a count of frozen objects the test sets."""

    def __init__(self, frozen: int) -> None:
        self.frozen = frozen
        self.made = 0  # tracked objects made since the last freeze or collection
        self.counted = 0  # walks of the frozen heap
        self.calls: list[str] = []
        self.found = 0  # what the next full collection frees

    def freeze(self) -> None:
        self.calls.append("freeze")
        self.frozen += self.made
        self.made = 0

    def unfreeze(self) -> None:
        self.calls.append("unfreeze")

    def collect(self) -> int:
        self.calls.append("collect")
        self.frozen -= self.found
        return self.found

    def get_freeze_count(self) -> int:
        self.counted += 1
        return self.frozen

    def get_count(self) -> tuple[int, int, int]:
        return (self.made, 0, 0)


def fake_settler(
    frozen: int = 1000, **kw: Any
) -> tuple[collector.Settler, FakeCollector, list[Callable[[], None]], FakeClock]:
    """A `Settler` whose loop turns are a list the test runs, on a fake collector and clock."""
    fake, turns, clock = FakeCollector(frozen), [], FakeClock()
    settler = collector.Settler(turns.append, clock=clock, collector=fake, **kw)
    settler._base = settler._frozen = frozen  # as `install` would, without the gc
    settler._since = clock.now
    return settler, fake, turns, clock


def stop(generation: int) -> dict[str, int]:
    return {"generation": generation, "collected": 0, "uncollectable": 0}


def test_a_young_collection_asks_for_one_freeze_at_the_next_loop_turn() -> None:
    settler, fake, turns, _ = fake_settler()
    settler("start", stop(0))
    assert turns == []
    settler("stop", stop(0))
    settler("stop", stop(1))  # a second collection before the loop's turn: still one freeze
    assert len(turns) == 1 and fake.calls == []  # nothing frozen inside the callback
    turns.pop()()
    assert fake.calls == ["freeze"]
    settler("stop", stop(1))  # a middle collection's survivors are frozen too
    assert len(turns) == 1


def test_a_full_collection_asks_for_nothing() -> None:
    settler, _, turns, _ = fake_settler()
    settler("stop", stop(2))
    assert turns == []


def test_the_frozen_heap_is_collected_in_full_once_it_has_grown_by_share_and_slack() -> None:
    settler, fake, turns, _ = fake_settler(frozen=1000, growth=0.25, slack=100)
    fake.frozen = 1250  # grown by a quarter: not more
    settler("stop", stop(0))
    turns.pop()()
    assert fake.calls == ["freeze"]
    fake.frozen, fake.found = 1251, 200
    settler("stop", stop(0))
    turns.pop()()
    assert fake.calls == ["freeze", "freeze", "unfreeze", "collect", "freeze"]
    assert settler.full_collections == 1
    fake.frozen = 1051 + 262  # the limit is now 1051 + a quarter of it
    settler("stop", stop(0))
    turns.pop()()
    assert settler.full_collections == 1
    fake.frozen += 1
    settler("stop", stop(0))
    turns.pop()()
    assert settler.full_collections == 2


def test_a_small_heap_waits_for_the_slack_and_a_quiet_one_for_the_timer() -> None:
    settler, fake, turns, clock = fake_settler(frozen=1000, growth=0.25, slack=500, every=60)
    fake.frozen = 1500  # a quarter more, but not 500 more
    settler("stop", stop(0))
    turns.pop()()
    assert settler.full_collections == 0
    clock.now += 60  # a full collection at least every minute (while collections run)
    settler("stop", stop(0))
    turns.pop()()
    assert settler.full_collections == 1


def test_the_loop_freezes_what_was_made_once_there_is_enough_and_walks_nothing() -> None:
    settler, fake, _, _ = fake_settler(frozen=1000, freeze_at=100)
    fake.made = 99
    settler.check()
    assert fake.calls == [] and settler.freezes == 0
    fake.made = 100
    settler.check()
    assert fake.calls == ["freeze"] and settler.freezes == 1
    assert fake.frozen == 1100 and fake.made == 0
    assert fake.counted == 0  # the frozen heap was not counted (a walk of it)


def test_a_freeze_waits_while_a_collections_freeze_is_pending() -> None:
    settler, fake, turns, _ = fake_settler(freeze_at=10)
    settler("stop", stop(0))
    fake.made = 50
    settler.check()
    assert fake.calls == []  # the pending freeze takes it
    turns.pop()()
    assert fake.calls == ["freeze"] and fake.made == 0


def test_the_heap_is_counted_when_the_sum_of_freezes_passes_the_limit_and_then_collected() -> None:
    """What was frozen is summed; the heap is counted only when the sum passes the limit
    (objects frozen and freed since make the sum too high), and collected in full if the
    count passes it too."""
    settler, fake, _, _ = fake_settler(frozen=1000, growth=0.0, slack=100, freeze_at=1)
    fake.made = 60
    settler.check()
    assert fake.counted == 0  # the sum, 1060, is within the limit of 1100
    fake.frozen -= 50  # frozen objects freed (by their references): the sum does not see it
    fake.made = 60
    settler.check()  # the sum is 1120: counted, 1070, not due
    assert fake.counted == 1 and settler.full_collections == 0
    fake.made = 20
    settler.check()  # the sum is 1090: within the limit, not counted
    assert fake.counted == 1
    fake.made = 20
    settler.check()  # the sum, 1110, passes it: counted, 1110, due
    assert fake.counted >= 2 and settler.full_collections == 1
    assert fake.calls[-3:] == ["unfreeze", "collect", "freeze"]


def test_a_sum_just_over_the_limit_is_not_recounted_at_every_freeze() -> None:
    """A count just under the limit: the next freezes push the sum over it again, but the heap
    is counted again only once a tenth of the slack more has been frozen."""
    settler, fake, _, _ = fake_settler(frozen=1000, growth=0.0, slack=100, freeze_at=1)
    fake.frozen -= 51  # frozen objects freed: the sum does not see it
    fake.made = 150
    settler.check()  # the sum is 1150: counted, 1099, not due
    assert fake.counted == 1 and settler.full_collections == 0
    for _ in range(8):  # the sum 1100, ..., 1107, over the limit, the count still 1099
        fake.frozen -= 1
        fake.made = 1
        settler.check()
    assert fake.counted == 1
    fake.made = 2
    settler.check()  # the sum is 1109, a tenth of the slack past the count: 1101, due
    assert fake.counted >= 2 and settler.full_collections == 1


class FakeTimers:
    """`loop.call_later` as a list the test runs."""

    def __init__(self) -> None:
        self.due: list[tuple[float, Callable[[], None], FakeHandle]] = []

    def __call__(self, delay: float, fn: Callable[[], None]) -> FakeHandle:
        handle = FakeHandle()
        self.due.append((delay, fn, handle))
        return handle

    def run_next(self) -> None:
        delay, fn, handle = self.due.pop(0)
        assert delay == collector.CHECK_EVERY and not handle.cancelled
        fn()


class FakeHandle:
    cancelled = False

    def cancel(self) -> None:
        self.cancelled = True


def test_a_watched_settler_checks_every_so_often_until_removed() -> None:
    settler, fake, _, _ = fake_settler(freeze_at=10)
    timers = FakeTimers()
    settler.watch(timers)  # type: ignore[arg-type]
    fake.made = 10
    timers.run_next()
    assert fake.calls == ["freeze"] and len(timers.due) == 1
    timers.run_next()  # nothing made since: nothing frozen
    assert fake.calls == ["freeze"]
    settler.remove()
    assert timers.due[0][2].cancelled


@pytest.mark.usefixtures("restored_gc")
def test_the_loops_freeze_takes_what_was_made_out_of_collection_without_one() -> None:
    gc.collect()
    gc.freeze()
    pauses = collector.PauseClock().install()
    settler = collector.Settler(lambda _: None, freeze_at=200)
    settler.install()
    try:
        made = [[i] for i in range(500)]
        settler.check()
    finally:
        settler.remove()
        pauses.remove()
    assert settler.freezes == 1
    assert not any(o is made for o in gc.get_objects())  # frozen: no collection walks it
    assert [g.count for g in pauses.generations] == [0, 0, 0]  # and none ran


def test_a_closed_loop_leaves_no_freeze_pending() -> None:
    def closed(_: Callable[[], None]) -> None:
        raise RuntimeError("Event loop is closed")

    settler = collector.Settler(closed, collector=FakeCollector(10))
    settler("stop", stop(0))
    assert not settler._pending


@pytest.mark.usefixtures("restored_gc")
def test_the_full_collections_are_timed_under_generation_2() -> None:
    pauses = collector.PauseClock().install()
    settler = collector.Settler(lambda _: None)
    try:
        settler.collect_all()
    finally:
        pauses.remove()
    assert pauses.generations[2].count == 1 and pauses.generations[2].seconds > 0
    assert gc.get_freeze_count() > 0  # left frozen again


@pytest.mark.usefixtures("restored_gc")
async def test_connections_opened_and_closed_leave_the_frozen_heap_bounded(
    tmp_path: Path,
) -> None:
    """Many connections, each frozen while open (a young collection and the loop's turn),
    then closed: what they leave in the frozen heap is freed by the full collections, and the
    frozen heap stays within `slack` (and a round) of its size at the start. Without the full
    collections it grows by some 50 objects per connection (measured: 16 rounds of 10 grow it by
    7,800)."""
    gc.collect()
    gc.freeze()
    turns: list[Callable[[], None]] = []
    slack = 1000
    settler = collector.Settler(turns.append, growth=0.0, slack=slack).install()
    sizes: list[int] = []

    def young_collection() -> None:
        gc.collect(0)
        while turns:
            turns.pop()()
        sizes.append(gc.get_freeze_count())

    try:
        async with running_server(tmp_path / "m.db", seed="m") as (url, server):
            for _ in range(16):
                clients = [await connect(url, f"p{i}") for i in range(10)]
                for client in clients:
                    await client.send({"type": "list_tables"})
                    await client.recv_type("tables")
                young_collection()  # their state is frozen while they are open
                for client in clients:
                    await client.close()
                await apoll(lambda: not server.conns, "the connections closed", 30)
                young_collection()
    finally:
        settler.remove()
    start = sizes[0]
    assert settler.full_collections >= 2
    assert settler.collected > 0  # the closed connections' cycles, frozen while they were open
    assert max(sizes) <= start + 3 * slack  # without them: some 50 objects per connection


@pytest.mark.usefixtures("restored_gc")
async def test_metrics_show_the_pauses_by_generation(tmp_path: Path) -> None:
    async with running_server(tmp_path / "g.db", seed="g") as (url, _server):
        before = await scrape(url)
        assert before.types["zhuoji_gc_pause_seconds"] == "counter"
        assert before.types["zhuoji_gc_pause_longest_seconds"] == "gauge"
        collector.PAUSES.install()
        young = before["zhuoji_gc_pauses_total", {"generation": "0"}]
        middle = before["zhuoji_gc_pauses_total", {"generation": "1"}]
        gc.collect(1)
        gc.collect(1)
        after = await scrape(url)
    assert after["zhuoji_gc_pauses_total", {"generation": "1"}] >= middle + 2
    assert after["zhuoji_gc_pauses_total", {"generation": "0"}] >= young
    spent = after["zhuoji_gc_pause_seconds_total", {"generation": "1"}]
    longest = after["zhuoji_gc_pause_longest_seconds", {"generation": "1"}]
    assert 0 < longest <= spent


async def test_an_open_connection_keeps_no_handshake_headers(tmp_path: Path) -> None:
    """The headers of the opening handshake (a list per header, both ways) are emptied once
    the connection is open: it goes on working without them."""
    async with running_server(tmp_path / "h.db", seed="h") as (url, server):
        client = await connect(url, "alice")
        await client.send({"type": "list_tables"})
        await client.recv_type("tables")
        (conn,) = server.conns
        assert isinstance(conn, WsConn)
        request, response = conn.ws.request, conn.ws.response
        assert request is not None and response is not None
        assert list(request.headers.raw_items()) == []
        assert list(response.headers.raw_items()) == []
        assert request.path == "/"
        await client.close()
