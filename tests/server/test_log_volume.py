"""One client cannot flood the log or the server (issue 22 items 6 and 10): connections are
capped per address, this machine's included; a refusal is logged at most once a minute per
kind and address, the next line telling how many were held back; a table created and left
before its start is no "abandoned" match. A real server on loopback, its log captured."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path

import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus

from clients.client import Client
from server.testkit import running_server
from server.throttle import AcceptFailures, LogThrottle
from tests.deadline import apoll
from tests.server.test_metrics import scrape


async def _hello(url: str, name: str) -> Client:
    client = await Client.connect(url, name)
    await client.recv_type("welcome")
    return client


def _lines(caplog: pytest.LogCaptureFixture, text: str) -> list[str]:
    return [r.getMessage() for r in caplog.records if text in r.getMessage()]


async def test_connections_per_address_are_capped_loopback_included(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="zhuoji")
    async with running_server(tmp_path / "c.db", connections_per_address=2) as (url, server):
        a, b = await _hello(url, "a"), await _hello(url, "b")
        for _ in range(5):
            with pytest.raises(InvalidStatus) as refused:
                async with connect(url, open_timeout=20):
                    pass
            assert refused.value.response.status_code == 429
            assert b"too many connections from 127.0.0.1" in refused.value.response.body
        # Monitoring is not a connection: /metrics still answers at the cap.
        got = await scrape(url)
        assert got["zhuoji_refused_total", {"code": "connections_per_address"}] == 5
        assert got["zhuoji_connections"] == 2
        # One line for the five, not one each.
        assert len(_lines(caplog, "refused a connection from 127.0.0.1")) == 1
        # A connection closed frees its place.
        await a.close()
        await apoll(  # the server's side of the close sends no frame
            lambda: server.conns_by_address["127.0.0.1"] < 2, "the closed connection freed", 10
        )
        c = await _hello(url, "c")
        await c.send({"type": "list_tables"})
        assert (await c.recv_type("tables"))["type"] == "tables"
        await b.close()
        await c.close()


async def test_refusals_are_logged_once_a_minute_per_kind_and_address(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="zhuoji")
    async with running_server(tmp_path / "r.db") as (url, server):
        one, two = await _hello(url, "one"), await _hello(url, "two")
        for client in (one, two, one):
            for _ in range(10):
                await client.send_raw("{")
                assert (await client.recv())["code"] == "bad_json"
        await two.send({"type": "act", "seq": 1, "act": "pass"})
        assert (await two.recv())["code"] == "not_at_table"
        got = await scrape(url)
        await one.close()
        await two.close()
    assert got["zhuoji_refused_total", {"code": "bad_json"}] == 30, "every one is counted"
    assert len(_lines(caplog, ": bad_json")) == 1, "30 refusals, one line"
    assert len(_lines(caplog, ": not_at_table")) == 1, "another kind has its own line"


def test_the_line_after_a_quiet_minute_tells_how_many_were_held_back() -> None:
    throttle = LogThrottle(every=60.0, keep=3)
    key = ("refused", "bad_json", "10.0.0.1")
    assert throttle.allow(key, now=0.0) == 0
    assert [throttle.allow(key, now=t) for t in (1.0, 59.0)] == [None, None]
    assert throttle.allow(key, now=60.0) == 2
    assert throttle.allow(key, now=61.0) is None
    # Many addresses: it remembers `keep` keys at most (a flood of addresses costs no memory).
    for i in range(10):
        assert throttle.allow(("refused", "bad_json", f"10.0.1.{i}"), now=62.0) == 0
    assert len(throttle.seen) <= 3


async def test_a_table_left_before_its_start_is_no_abandoned_match(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG, logger="zhuoji")
    async with running_server(tmp_path / "a.db") as (url, server):
        host = await _hello(url, "host")
        for i in range(5):
            await host.send({"type": "create_table", "name": f"t{i}"})
            await host.recv_type("joined")
            await host.send({"type": "leave"})
            await host.recv_type("left")
        got = await scrape(url)
        await host.close()
    assert not _lines(caplog, "abandoned")
    assert len(_lines(caplog, "closed (before its start)")) == 5
    assert got["zhuoji_matches_ended_total", {"reason": "abandoned"}] == 0
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING]


async def test_failed_accepts_are_logged_once_a_minute(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Out of file descriptors, asyncio reports each failed accept() (once a second per
    listening socket, with a traceback): the server lets one line through a minute."""
    caplog.set_level(logging.ERROR, logger="asyncio")
    async with running_server(tmp_path / "f.db") as (url, server):
        loop = asyncio.get_running_loop()
        for _ in range(5):
            loop.call_exception_handler(
                {"message": AcceptFailures.MESSAGE, "exception": OSError(24, "Too many open files")}
            )
        loop.call_exception_handler({"message": "something else"})
    lines = [r for r in caplog.records if r.name == "asyncio"]
    assert [r.getMessage().splitlines()[0] for r in lines] == [
        AcceptFailures.MESSAGE,
        "something else",
    ]
