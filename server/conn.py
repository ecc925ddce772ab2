"""One client connection as the server sees it: a send queue, a rate limit, where it sits.

Frames go out through a per-connection queue and writer task, so a slow client falls behind alone
and never stalls a table; a client that falls too far behind is closed (4003) and can come back
for a snapshot. Two transports share this: a websocket (`WsConn`) and an in-process pipe
(`PipeConn`) for the server's own bots, which speak the same protocol through the same handler.
"""

from __future__ import annotations

import asyncio
import itertools
import time
from collections import deque
from typing import TYPE_CHECKING, Any

from protocol.codes import Close

if TYPE_CHECKING:
    from websockets.asyncio.server import ServerConnection

    from server.table import Table

MAX_BACKLOG = 2000  # frames queued for one client before it is closed as too slow

_ids = itertools.count(1)


class RateLimit:
    """A token bucket: `burst` messages at once, `per_second` sustained."""

    __slots__ = ("burst", "per_second", "tokens", "stamp")

    def __init__(self, burst: float, per_second: float) -> None:
        self.burst = burst
        self.per_second = per_second
        self.tokens = burst
        self.stamp = time.monotonic()

    def take(self) -> bool:
        now = time.monotonic()
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.per_second)
        self.stamp = now
        if self.tokens >= 1:
            self.tokens -= 1
            return True
        return False


class Conn:
    """A connection: who it is, where it sits, and its outgoing queue."""

    def __init__(self, peer: str) -> None:
        self.id = next(_ids)
        self.peer = peer
        self.name: str | None = None
        self.hello = False
        self.table: Table | None = None  # set by the table task once it accepts the join
        self.joining: Table | None = None  # a join is queued at this table
        self.seat: int | None = None
        self.closed = False
        self.closing: asyncio.Task[None] | None = None
        self._queue: deque[str] = deque()
        self._wake = asyncio.Event()

    # ----- sending -----

    def send(self, text: str) -> None:
        """Queue a frame; never waits. A client too far behind is closed."""
        if self.closed:
            return
        if len(self._queue) >= MAX_BACKLOG:
            self.close(Close.TOO_SLOW, "too far behind; reconnect for a snapshot")
            return
        self._queue.append(text)
        self._wake.set()

    async def writer(self) -> None:
        """Drain the queue to the transport until closed."""
        while True:
            while not self._queue:
                if self.closed:
                    return
                self._wake.clear()
                await self._wake.wait()
            text = self._queue.popleft()
            try:
                await self._transmit(text)
            except Exception:
                self.closed = True
                return

    async def _transmit(self, text: str) -> None:
        raise NotImplementedError

    def close(self, code: int = Close.NORMAL, reason: str = "") -> None:
        """Close after the frames already queued are sent."""
        if self.closed:
            return
        self.closed = True
        self._wake.set()
        self.closing = asyncio.get_running_loop().create_task(self._close_after_drain(code, reason))

    async def _close_after_drain(self, code: int, reason: str) -> None:
        while self._queue:
            text = self._queue.popleft()
            try:
                await self._transmit(text)
            except Exception:
                break
        await self._shutdown(code, reason)

    async def _shutdown(self, code: int, reason: str) -> None:
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"<Conn {self.id} {self.name!r} {self.peer}>"


class WsConn(Conn):
    """A websocket client."""

    def __init__(self, ws: ServerConnection) -> None:
        addr = ws.remote_address
        super().__init__(f"{addr[0]}:{addr[1]}" if isinstance(addr, tuple) else str(addr))
        self.ws = ws

    async def _transmit(self, text: str) -> None:
        await self.ws.send(text)

    async def _shutdown(self, code: int, reason: str) -> None:
        await self.ws.close(code, reason[:120])


class PipeConn(Conn):
    """An in-process client (the server's bots): frames go straight into its inbox."""

    def __init__(self, name: str) -> None:
        super().__init__(f"pipe:{name}")
        self.inbox: asyncio.Queue[str | None] = asyncio.Queue()
        self.close_code: int | None = None

    def send(self, text: str) -> None:
        if not self.closed:
            self.inbox.put_nowait(text)

    async def writer(self) -> None:  # nothing to drain: `send` delivers at once
        return

    def close(self, code: int = Close.NORMAL, reason: str = "") -> None:
        if self.closed:
            return
        self.closed = True
        self.close_code = code
        self.inbox.put_nowait(None)

    async def _transmit(self, text: str) -> None:  # pragma: no cover - not used
        self.inbox.put_nowait(text)

    async def _shutdown(self, code: int, reason: str) -> None:  # pragma: no cover - not used
        return


def describe(conn: Conn | None) -> dict[str, Any]:
    """For logs."""
    if conn is None:
        return {}
    return {"conn": conn.id, "name": conn.name, "peer": conn.peer}
