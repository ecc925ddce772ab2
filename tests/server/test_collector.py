"""The collector's policy (`server.collector`): the pauses timed by generation, the thresholds
and the freeze `zhuoji serve` sets, `/metrics` showing the pauses, and what a connection no
longer keeps once it is open (its handshake's headers)."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from pathlib import Path

import pytest

from server import collector
from server.conn import WsConn
from server.testkit import running_server
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
def test_tune_freezes_what_is_alive_sets_the_thresholds_and_times_the_pauses() -> None:
    kept = [[i] for i in range(100)]  # alive when the server is set up
    gc.unfreeze()
    collector.tune()
    assert gc.get_threshold() == (collector.YOUNG, collector.MIDDLE, collector.OLD)
    assert gc.get_freeze_count() >= len(kept)
    assert not any(o is kept for o in gc.get_objects())  # frozen: no collection walks it
    assert collector.PAUSES in gc.callbacks
    seen = collector.PAUSES.generations[0].count
    gc.collect(0)
    assert collector.PAUSES.generations[0].count == seen + 1


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
