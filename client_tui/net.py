"""The client's connection: connect, say hello (with the seat token and the last `seq` seen, so the
server resumes the seat), read frames, send what the app queues, and when the socket drops, try
again with a growing pause until it is back.

It knows nothing of Textual: the app runs `Link.run()` in a worker and gets every parsed frame and
every connection change through `deliver`.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
from collections.abc import Callable
from typing import Any

from pydantic import ValidationError

from client_tui.local import Connecting, ConnectionClosed, ConnectionLost, LocalMessage, Say
from protocol.codes import Close
from protocol.messages import PROTOCOL_VERSION, SERVER_ADAPTER, UNSAFE_CHARS, ServerMessage

# Close codes after which trying again cannot help (or would fight another client for the seat).
FINAL_CLOSES = {
    Close.BAD_HELLO: "the server refused our hello",
    Close.VERSION: "the server speaks another protocol version",
    Close.REPLACED: "this seat connected again from elsewhere",
}

# Every character names may not hold, but line breaks and tabs.
_UNSAFE_ON_WIRE = re.compile(f"[{UNSAFE_CHARS}](?<![\\n\\t])")

Deliver = Callable[[ServerMessage | LocalMessage], None]


def backoff(attempt: int) -> float:
    """Seconds to wait before retry number `attempt` (1, 2, …): 0.5, 1, 2, 4, then 5.

    >>> [backoff(n) for n in range(1, 7)]
    [0.5, 1.0, 2.0, 4.0, 5.0, 5.0]
    """
    return float(min(5.0, 0.5 * 2 ** (attempt - 1)))


class Link:
    """One server connection that outlives dropped sockets.

    `hello()` is called for every attempt, so it quotes the token and `seq` the view has *then*;
    `send(frame)` queues a frame for the current socket (dropped while disconnected: a move
    answering an old prompt would only be refused as stale)."""

    def __init__(
        self,
        url: str,
        hello: Callable[[], dict[str, Any]],
        deliver: Deliver,
        *,
        open_timeout: float = 5.0,
    ) -> None:
        self.url = url
        self.hello = hello
        self.deliver = deliver
        self.open_timeout = open_timeout
        self.connected = False
        self._out: asyncio.Queue[str] = asyncio.Queue()
        self._stop = False
        self._again = False
        self._ws: Any = None

    def send(self, frame: dict[str, Any]) -> bool:
        """Queue a frame; False (and nothing queued) while disconnected."""
        if not self.connected:
            return False
        self._out.put_nowait(json.dumps(frame, ensure_ascii=False))
        return True

    def stop(self) -> None:
        self._stop = True

    def reconnect(self) -> None:
        """Close the socket and connect again at once, with a new `hello` (the only frame that
        takes a seat back with its token)."""
        ws = self._ws
        if ws is None:
            return
        self._again = True
        asyncio.get_running_loop().create_task(ws.close())

    async def run(self) -> None:
        """Connect and reconnect until stopped or refused for good."""
        from websockets.asyncio.client import connect
        from websockets.exceptions import ConnectionClosed as WsClosed
        from websockets.exceptions import InvalidHandshake, InvalidURI

        attempt = 0
        while not self._stop:
            self.deliver(Connecting(self.url, attempt))
            reason = "connection failed"
            try:
                async with connect(
                    self.url,
                    compression=None,
                    max_size=2**22,
                    open_timeout=self.open_timeout,
                    ping_interval=10,
                    ping_timeout=10,
                    close_timeout=2,
                ) as ws:
                    attempt = 0
                    self._out = asyncio.Queue()
                    self.connected = True
                    self._ws = ws
                    await ws.send(json.dumps(self.hello(), ensure_ascii=False))
                    pump = asyncio.create_task(self._pump(ws))
                    try:
                        async for raw in ws:
                            self._frame(raw)
                    finally:
                        self.connected = False
                        pump.cancel()
                        with contextlib.suppress(asyncio.CancelledError):
                            await pump
                    code = ws.close_code
                    reason = ws.close_reason or "the server closed the connection"
                    if code in FINAL_CLOSES:
                        self.deliver(ConnectionClosed(FINAL_CLOSES[Close(code)], code))
                        return
            except InvalidURI as err:
                self.deliver(ConnectionClosed(f"bad address: {err}", None))
                return
            except WsClosed as err:
                code = err.rcvd.code if err.rcvd is not None else None
                if code in FINAL_CLOSES:
                    self.deliver(ConnectionClosed(FINAL_CLOSES[Close(code)], code))
                    return
                reason = (err.rcvd.reason if err.rcvd is not None else "") or "connection lost"
            except (OSError, TimeoutError, InvalidHandshake) as err:
                reason = str(err) or type(err).__name__
            finally:
                self.connected = False
                self._ws = None
            if self._stop:
                return
            if self._again:  # asked for: no pause, nothing lost to report
                self._again = False
                attempt = 0
                continue
            self.deliver(ConnectionLost(reason))
            attempt += 1
            await asyncio.sleep(backoff(attempt))

    async def _pump(self, ws: Any) -> None:
        while True:
            text = await self._out.get()
            await ws.send(text)

    def _frame(self, raw: str | bytes) -> None:
        try:
            frame = scrub(json.loads(raw))
        except ValueError:
            self.deliver(Say("unreadable frame from the server: not JSON", True))
            return
        try:
            # Parsed once: decoded, scrubbed, validated from the decoded value (issue 23: no
            # second encode and decode per frame).
            msg: ServerMessage = SERVER_ADAPTER.validate_python(frame)
        except ValidationError as err:
            # A frame this client does not understand (a newer server?): say so, go on.
            self.deliver(Say(f"unreadable frame from the server: {err.errors()[0]['msg']}", True))
            return
        self.deliver(msg)


def scrub(value: Any) -> Any:
    """A decoded frame with every control and bidi character in its strings (keys too) replaced
    by U+FFFD: text from the wire never reaches the terminal as an escape sequence or reorders a
    line, whatever the server sends (older servers accepted such names).

    >>> scrub({"name": "a\\x1b[2Jb", "seats": [{"name": "\\u202eevil"}], "n": 1})
    {'name': 'a\ufffd[2Jb', 'seats': [{'name': '\ufffdevil'}], 'n': 1}
    """
    if isinstance(value, str):
        # Line breaks and tabs are harmless (and a message may hold them); names refuse them.
        return _UNSAFE_ON_WIRE.sub("\ufffd", value)
    if isinstance(value, list):
        return [scrub(v) for v in value]
    if isinstance(value, dict):
        return {_UNSAFE_ON_WIRE.sub("\ufffd", k): scrub(v) for k, v in value.items()}
    return value


def hello_frame(name: str, token: str | None, last_seq: int | None) -> dict[str, Any]:
    """The `hello` that opens every connection (with the seat token when the client has one)."""
    frame: dict[str, Any] = {"type": "hello", "version": PROTOCOL_VERSION, "name": name}
    if token is not None:
        frame["token"] = token
        if last_seq is not None:
            frame["last_seq"] = last_seq
    return frame
