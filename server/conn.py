"""One client connection as the server sees it: where it sits, its rate limit, how frames leave.

Sending never waits. Frames go into the `Outbox`, which at the next turn of the event loop writes
each connection's frames into its transport buffer in one write (one system call for the two or
three frames a table step sends each seat), without waiting for the socket to drain. So a table
never stalls on a slow reader: the slow client falls behind alone, and once more than
`MAX_BUFFERED` bytes wait for it, nothing more is sent and it is closed (4003) and may reconnect
for a snapshot. TCP keeps order, so the close frame comes after what the client has not read
yet: a client that does not read it within the close timeout (5 s) is dropped without it, and
sees 1006 (docs/PROTOCOL.md, Close codes). A frame several connections get alike is encoded
once (`send_many`), and framed once (`text_frame`: a server's websocket frames are unmasked,
and the server negotiates no extension, so the bytes on the wire are the same for every
connection).

The server's own bots have no connection: their tables play them (`server.table.core`).
"""

from __future__ import annotations

import asyncio
import itertools
import struct
import time
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any, Protocol

from websockets.asyncio.server import ServerConnection
from websockets.datastructures import Headers
from websockets.frames import Frame, Opcode
from websockets.protocol import Event, State

from protocol.codes import Close

if TYPE_CHECKING:
    from websockets.asyncio.server import ServerConnection

    from server.players import Pending


class Place(Protocol):
    """What a connection knows of the table it is at or joining (`server.table.shell.Table`):
    its id, and where to post what the connection does there (no import of the table: the
    table imports this)."""

    @property
    def id(self) -> str: ...

    def post(self, item: Any, /) -> None:
        """Queue one of `server.table.inputs` for the table's task."""
        ...


MAX_BUFFERED = 1 << 20  # bytes waiting for one client before it is closed as too slow
POLICY_CLOSE_TIMEOUT = 0.5  # seconds a client closed for flooding has to finish the close

_ids = itertools.count(1)


class RateLimit:
    """A token bucket: `burst` messages at once, `per_second` sustained."""

    __slots__ = ("burst", "per_second", "tokens", "stamp")

    def __init__(self, burst: float, per_second: float) -> None:
        self.burst = burst
        self.per_second = per_second
        self.tokens = burst
        self.stamp = time.monotonic()

    def refund(self) -> None:
        """Give back the token a message took (a move the table accepted)."""
        self.tokens = min(self.burst, self.tokens + 1)

    def take(self) -> bool:
        now = time.monotonic()
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.per_second)
        self.stamp = now
        if self.tokens >= 1:
            self.tokens -= 1
            return True
        return False


class LimitedConnection(ServerConnection):
    """A websocket whose pings (and pongs) count against its client's rate limit like any
    message: the websockets layer answers a ping by itself, so a ping flood would otherwise
    cost the server a pong each without ever reaching the handler. `on_control` (set by the
    handler) is called for each; it closes a flooding client. It also notes when its bytes
    were read (`read_at`).

    And it can hand each message to the server as it is read (`take_directly`), in the turn of
    the event loop that read it, instead of queueing it for the handler's task, which runs at
    the loop's next turn: on a busy server a turn is all the tables' steps that were ready, and a
    move takes five of them from its bytes to its frames, so one fewer is a fifth of the wait
    (issue 26). Only whole messages go directly, in the order read; anything else (a fragment,
    text that is not UTF-8) ends the direct hand-off and goes to the queue as before, for the
    handler to read with `recv`, which is the only reader while anything is queued."""

    on_control: Callable[[], None] | None = None
    # Loop time its last bytes were read from the socket: when a move arrived, for its latency
    # (`zhuoji_action_latency_seconds`). The handler gets the frame later, after the loop has
    # run whatever was ready before it (other tables' steps, a garbage collection).
    read_at = 0.0
    on_message: Callable[[str | bytes], None] | None = None  # during `take_directly`
    _direct: asyncio.Future[None] | None = None

    def data_received(self, data: bytes) -> None:
        self.read_at = self.loop.time()
        super().data_received(data)

    def process_event(self, event: Event) -> None:
        if isinstance(event, Frame):
            if event.opcode in (Opcode.PING, Opcode.PONG):
                if self.on_control is not None:
                    self.on_control()
            elif self.on_message is not None and self._deliver(event, self.on_message):
                return
        super().process_event(event)

    def _deliver(self, frame: Frame, on_message: Callable[[str | bytes], None]) -> bool:
        """Hand a whole message to `on_message`; for anything else end the direct hand-off
        (False: the frame is queued as before)."""
        if frame.fin and frame.opcode is Opcode.BINARY:
            on_message(bytes(frame.data))
            return True
        if frame.fin and frame.opcode is Opcode.TEXT:
            try:
                text = bytes(frame.data).decode()
            except UnicodeDecodeError:
                pass  # `recv` fails the connection as it always did
            else:
                on_message(text)
                return True
        self.stop_direct()
        return False

    def may_take_directly(self) -> bool:
        """Open, and nothing queued for `recv` (which must read that first, in order)."""
        return self.state is State.OPEN and not len(self.recv_messages.frames)

    async def take_directly(self, on_message: Callable[[str | bytes], None]) -> None:
        """Hand each message to `on_message` as it is read, until `stop_direct` (called by
        `on_message`, or for a message that must be queued) or the connection is lost. Only
        when `may_take_directly`."""
        done = self.loop.create_future()
        self.on_message, self._direct = on_message, done
        try:
            await done
        finally:
            self.on_message = self._direct = None

    def stop_direct(self) -> None:
        self.on_message = None
        if self._direct is not None and not self._direct.done():
            self._direct.set_result(None)

    def connection_lost(self, exc: Exception | None) -> None:
        super().connection_lost(exc)
        self.stop_direct()


class Conn:
    """A connection: who it is and where it sits."""

    def __init__(self, peer: str) -> None:
        self.id = next(_ids)
        self.peer = peer
        self.address = peer  # the peer's address without its port (what per-address caps count)
        self.name: str | None = None
        self.player: str | None = None  # the public player id of `hello`'s player key
        # A new key's registration, performed when the player sits down (`server.players`).
        self.pending_player: Pending | None = None
        self.hello = False
        self.table: Place | None = None  # set by the table task once it accepts the join
        self.joining: Place | None = None  # a join is queued at this table
        self.seat: int | None = None
        self.closed = False
        self.closing: asyncio.Task[None] | None = None
        self.rate: RateLimit | None = None  # None: not limited; `rate.stamp`: its last frame
        self.freed_at = 0.0  # when it was last sent back to the lobby (time.monotonic())
        self.received_at = 0.0  # when its last frame arrived (loop time): a move's latency
        self.refusals = 0  # error frames it was sent (logged at most once a minute per code)

    def send(self, text: str) -> None:
        """Hand a frame to the transport; never waits."""
        raise NotImplementedError

    def close(self, code: int = Close.NORMAL, reason: str = "") -> None:
        """Close after the frames already sent; further sends are dropped."""
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.id} {self.name!r} {self.peer}>"


class Outbox:
    """Frames for websocket clients, written once per turn of the event loop."""

    def __init__(self) -> None:
        self.pending: dict[WsConn, list[bytes]] = {}
        self.scheduled = False

    def add(self, conn: WsConn, data: bytes) -> None:
        frames = self.pending.get(conn)
        if frames is None:
            self.pending[conn] = [data]
            if not self.scheduled:
                self.scheduled = True
                asyncio.get_running_loop().call_soon(self.flush)
        else:
            frames.append(data)

    def flush(self) -> None:
        self.scheduled = False
        pending, self.pending = self.pending, {}
        framed: dict[int, bytes] = {}  # id of a payload (alive in `pending`) → its frame
        for conn, payloads in pending.items():
            ws = conn.ws
            protocol, transport = ws.protocol, ws.transport
            if protocol.state is not State.OPEN or transport is None:
                continue
            if protocol.extensions:  # pragma: no cover - the server negotiates none
                for data in payloads:
                    protocol.send_text(data)
                payloads = []
            # Whatever the protocol has queued goes first (normally nothing: the connection
            # writes its own control frames as it makes them).
            chunks = [chunk for chunk in protocol.data_to_send() if chunk]
            for data in payloads:
                frame = framed.get(id(data))
                if frame is None:
                    frame = framed[id(data)] = text_frame(data)
                chunks.append(frame)
            if chunks:
                transport.write(b"".join(chunks))
            if transport.get_write_buffer_size() > MAX_BUFFERED:
                # Too far behind: closed now, not at its next frame (there may be none). The
                # close frame waits behind what was written; see `WsConn.writable`.
                conn.close(Close.TOO_SLOW, "too far behind; reconnect for a snapshot")


def text_frame(data: bytes) -> bytes:
    """`data` (UTF-8 text) as one websocket text frame from a server (RFC 6455 section 5.2):
    FIN, opcode 1, no mask, the payload length in 7, 16 or 64 bits; the bytes websockets'
    `Frame.serialize` makes without a mask or extensions.

    >>> from websockets.frames import Frame, Opcode
    >>> all(text_frame(b"x" * n) == Frame(Opcode.TEXT, b"x" * n).serialize(mask=False)
    ...     for n in (0, 125, 126, 65535, 65536))
    True
    """
    n = len(data)
    if n < 126:
        return bytes((0x81, n)) + data
    if n < 65536:
        return struct.pack("!BBH", 0x81, 126, n) + data
    return struct.pack("!BBQ", 0x81, 127, n) + data


class WsConn(Conn):
    """A websocket client."""

    def __init__(self, ws: ServerConnection, outbox: Outbox) -> None:
        addr = ws.remote_address
        super().__init__(f"{addr[0]}:{addr[1]}" if isinstance(addr, tuple) else str(addr))
        if isinstance(addr, tuple):
            self.address = str(addr[0])
        self.ws = ws
        self.outbox = outbox
        forget_headers(ws)

    def writable(self) -> bool:
        """Open and not too far behind; a client too far behind is closed here."""
        if self.closed:
            return False
        transport = self.ws.transport
        if transport is not None and transport.get_write_buffer_size() > MAX_BUFFERED:
            self.close(Close.TOO_SLOW, "too far behind; reconnect for a snapshot")
            return False
        return True

    def send(self, text: str) -> None:
        if self.writable():
            self.outbox.add(self, text.encode())

    def close(self, code: int = Close.NORMAL, reason: str = "") -> None:
        """Close once the frames already queued are written."""
        if self.closed:
            return
        self.closed = True
        self.closing = asyncio.get_running_loop().create_task(self._close(code, reason[:120]))

    async def _close(self, code: int, reason: str) -> None:
        self.outbox.flush()
        if code == Close.POLICY:
            # A flooding client is not waited on for the closing handshake (the server has
            # stopped reading it): it gets the error and the close frame, then is dropped.
            self.ws.close_timeout = POLICY_CLOSE_TIMEOUT
        await self.ws.close(code, reason)


def forget_headers(ws: ServerConnection) -> None:
    """Empty the opening handshake's request and response headers, read by nothing once the
    connection is open: a `Headers` keeps a list per header, some thirty objects per connection
    that would live as long as it and that every garbage collection would walk again
    (`server.collector`; a sixth of what 500 tables keep). The request and response stay
    (websockets reads whether there was a request)."""
    if ws.request is not None:
        ws.request.headers = Headers()
    if ws.response is not None:
        ws.response.headers = Headers()


def send_many(conns: Iterable[Conn], text: str) -> None:
    """Send one frame to several connections, encoding it once for the websockets."""
    data: bytes | None = None
    for conn in conns:
        if isinstance(conn, WsConn):
            if conn.writable():
                if data is None:
                    data = text.encode()
                conn.outbox.add(conn, data)
        else:
            conn.send(text)
