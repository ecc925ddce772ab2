"""`zhuoji loadtest` reads each seat's socket all along (`clients.loadtest._pump`): a frame is
timed when it arrives, not when its bot is done thinking about the frame before."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator

import pytest
from websockets.exceptions import ConnectionClosedError

from clients.loadtest import _pump


class Socket:
    """Frames as a websocket's `async for` gives them, then the connection's end."""

    def __init__(self, frames: list[str], end: BaseException | None = None) -> None:
        self.frames = frames
        self.end = end

    async def __aiter__(self) -> AsyncIterator[str]:
        for frame in self.frames:
            yield frame
        if self.end is not None:
            raise self.end


@pytest.mark.parametrize("end", [None, ConnectionClosedError(None, None)])
async def test_a_seat_reads_its_socket_while_it_thinks(end: BaseException | None) -> None:
    """Frames are taken off the socket and timed as they come, whether or not the seat has
    handled the one before (a thinking bot used to leave them unread, and their latency then
    counted its think time); the end of the connection, closed or cut, comes after them."""
    inbox: asyncio.Queue[tuple[float, str | bytes] | None] = asyncio.Queue()
    before = time.perf_counter()
    await _pump(Socket(['{"seq": 1}', '{"seq": 2}'], end), inbox)
    got = [inbox.get_nowait() for _ in range(3)]
    assert got[2] is None and inbox.empty()
    assert [item[1] for item in got[:2] if item is not None] == ['{"seq": 1}', '{"seq": 2}']
    stamps = [item[0] for item in got[:2] if item is not None]
    assert before <= stamps[0] <= stamps[1] <= time.perf_counter()
