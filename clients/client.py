"""A small websocket client of the protocol: what `zhuoji loadtest` and the tests drive.

    async with await Client.connect("ws://127.0.0.1:8765", "阿明") as c:
        tables = await c.list_tables()        # every page of the lobby's rows

Frames are plain dicts (decoded JSON): the server is the authority, and validating every frame
with the pydantic models would cost a load test more CPU than the server spends. Tests validate
them with `protocol.parse_server`.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable
from types import TracebackType
from typing import Any

from websockets.asyncio.client import ClientConnection, connect

from clients.bot_player import BotPlayer
from protocol.messages import PROTOCOL_VERSION


class ClientError(RuntimeError):
    """The server sent an error where the client expected something else."""


class Client:
    def __init__(self, ws: ClientConnection, name: str) -> None:
        self.ws = ws
        self.name = name
        self.received: list[dict[str, Any]] = []

    @classmethod
    async def connect(
        cls,
        url: str,
        name: str,
        *,
        token: str | None = None,
        last_seq: int | None = None,
        version: int = PROTOCOL_VERSION,
        open_timeout: float = 20,
        player_key: str | None = None,
    ) -> Client:
        ws = await connect(
            url,
            compression=None,
            max_size=4 * 2**20,
            open_timeout=open_timeout,
            ping_interval=None,
        )
        client = cls(ws, name)
        hello: dict[str, Any] = {"type": "hello", "version": version, "name": name}
        if token is not None:
            hello["token"] = token
        if last_seq is not None:
            hello["last_seq"] = last_seq
        if player_key is not None:
            hello["player_key"] = player_key
        await client.send(hello)
        return client

    async def __aenter__(self) -> Client:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.ws.close()

    async def send(self, frame: dict[str, Any]) -> None:
        await self.ws.send(json.dumps(frame, ensure_ascii=False))

    async def send_raw(self, raw: str | bytes) -> None:
        await self.ws.send(raw)

    async def recv(self, timeout: float = 10) -> dict[str, Any]:
        async with asyncio.timeout(timeout):
            raw = await self.ws.recv()
        frame: dict[str, Any] = json.loads(raw)
        self.received.append(frame)
        return frame

    async def recv_until(
        self, pred: Callable[[dict[str, Any]], bool], timeout: float = 10
    ) -> dict[str, Any]:
        """Read frames until one satisfies `pred`; return it."""
        deadline = time.monotonic() + timeout
        while True:
            frame = await self.recv(max(0.01, deadline - time.monotonic()))
            if pred(frame):
                return frame

    async def recv_type(self, kind: str, timeout: float = 10) -> dict[str, Any]:
        """Read until a frame of `kind`; an unexpected error frame raises ClientError."""

        def match(f: dict[str, Any]) -> bool:
            if f["type"] == "error" and kind != "error":
                raise ClientError(f"{f['code']}: {f['message']}")
            return bool(f["type"] == kind)

        return await self.recv_until(match, timeout)

    async def list_tables(self, timeout: float = 10) -> list[dict[str, Any]]:
        """Every row of the lobby: its pages, each asked for in turn (a `tables` frame holds
        what fits in 16 KiB; docs/PROTOCOL.md, The lobby)."""
        rows: list[dict[str, Any]] = []
        page, pages = 0, 1
        while page < pages:
            await self.send({"type": "list_tables", "page": page})
            frame = await self.recv_type("tables", timeout)
            rows += frame["tables"]
            pages = frame.get("pages", 1)
            page += 1
        return rows

    async def close(self) -> None:
        await self.ws.close()


async def play(
    client: Client,
    player: BotPlayer,
    *,
    think: float | Callable[[], float] = 0.0,
    on_frame: Callable[[dict[str, Any]], None] | None = None,
    on_send: Callable[[dict[str, Any]], None] | None = None,
    timeout: float = 120,
) -> dict[str, Any]:
    """Play the client's seat with `player` until the match ends; return `match_ended`.

    `think` is the time taken before each answer: seconds, or a function drawing them."""
    async with asyncio.timeout(timeout):
        async for raw in client.ws:
            frame = json.loads(raw)
            if on_frame is not None:
                on_frame(frame)
            reply = player.on_frame(frame)
            if reply is not None:
                delay = think() if callable(think) else think
                if delay > 0:
                    await asyncio.sleep(delay)
                if on_send is not None:
                    on_send(reply)
                await client.send(reply)
            if frame["type"] == "match_ended":
                return frame
    raise ClientError("the connection closed before the match ended")
