"""A connection's messages after its `hello` are handled in the turn of the event loop that
reads them (`LimitedConnection.take_directly`), not at the next turn, when the handler's task
would have woken for them (issue 26: on a busy server a turn is every table's ready work). What
cannot go directly (a fragmented message) still goes through the queue, in order.

The turns are counted, not timed: a callback that schedules itself again counts each turn."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from server.conn import LimitedConnection
from server.testkit import running_server
from tests.deadline import apoll
from tests.support import connect


class TurnCounter:
    """The event loop's turns since it started: it runs once a turn (`call_soon` from itself)."""

    def __init__(self) -> None:
        self.turn = 0
        self.stopped = False
        asyncio.get_running_loop().call_soon(self._tick)

    def _tick(self) -> None:
        self.turn += 1
        if not self.stopped:
            asyncio.get_running_loop().call_soon(self._tick)


def watched(server: Any, counter: TurnCounter) -> tuple[list[int], list[tuple[int, str]]]:
    """The turns in which the server's only connection read bytes, and in which the server
    handled each frame (with its text): the connection's `data_received` and the server's
    `handle_frame`, wrapped to note the turn and then do what they do."""
    (conn,) = server.conns
    ws = conn.ws
    assert isinstance(ws, LimitedConnection)
    reads: list[int] = []
    handled: list[tuple[int, str]] = []
    read, handle = ws.data_received, server.handle_frame

    def data_received(data: bytes) -> None:
        reads.append(counter.turn)
        read(data)

    def handle_frame(c: Any, raw: str | bytes) -> None:
        handled.append((counter.turn, raw if isinstance(raw, str) else repr(raw)))
        handle(c, raw)

    ws.data_received = data_received  # type: ignore[method-assign]
    server.handle_frame = handle_frame
    return reads, handled


def fragments(text: str, size: int) -> Iterator[str]:
    return (text[i : i + size] for i in range(0, len(text), size))


async def test_a_message_is_handled_in_the_turn_that_reads_it(tmp_path: Path) -> None:
    async with running_server(tmp_path / "d.db", seed="d") as (url, server):
        client = await connect(url, "alice")
        await client.send({"type": "list_tables"})
        await client.recv_type("tables")
        counter = TurnCounter()
        reads, handled = watched(server, counter)
        await client.send({"type": "list_tables"})
        await client.recv_type("tables")
        counter.stopped = True
        assert len(reads) == 1 and len(handled) == 1
        assert handled[0][0] == reads[0]  # the same turn (it was the next one before)
        await client.close()


async def test_a_fragmented_message_goes_through_the_queue_in_order(tmp_path: Path) -> None:
    async with running_server(tmp_path / "f.db", seed="f") as (url, server):
        client = await connect(url, "bob")
        counter = TurnCounter()
        _, handled = watched(server, counter)
        whole: Callable[[dict[str, Any]], str] = json.dumps
        await client.ws.send(fragments(whole({"type": "list_tables"}), 4))
        await client.send({"type": "nonsense"})
        await client.send({"type": "list_tables", "page": 0})
        answers = [await client.recv() for _ in range(3)]
        counter.stopped = True
        assert [a["type"] for a in answers] == ["tables", "error", "tables"]
        assert [json.loads(raw)["type"] for _, raw in handled] == [
            "list_tables",
            "nonsense",
            "list_tables",
        ]
        await client.close()


async def test_a_closed_connection_is_read_no_further(tmp_path: Path) -> None:
    """Over the rate limit: closed (1008), and what it sent after is not handled."""
    async with running_server(tmp_path / "r.db", seed="r", rate_burst=3, rate_per_second=0.01) as (
        url,
        server,
    ):
        client = await connect(url, "eve")
        counter = TurnCounter()
        _, handled = watched(server, counter)
        for _ in range(6):
            await client.send({"type": "list_tables"})
        await apoll(lambda: not server.conns, "the connection closed", 30)
        counter.stopped = True
        assert len(handled) == 3  # the burst; the fourth closed it, the rest were not read
