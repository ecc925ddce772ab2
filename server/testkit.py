"""A real server on loopback for tests and tools: an ephemeral port and a real SQLite file.

async with running_server(tmp_path / "z.db", seed="t") as (url, server):
    ...
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from server.app import Server
from server.conn import Conn
from server.storage.writer import Store


@contextlib.asynccontextmanager
async def running_server(db: Path, **options: Any) -> AsyncIterator[tuple[str, Server]]:
    """Start a `Server` on 127.0.0.1 with an ephemeral port; yield its URL and the server."""
    store = Store(db)
    server = Server(store, **options)
    try:
        async with server.listen("127.0.0.1", 0) as ws_server:
            sock = next(iter(ws_server.sockets))
            port = sock.getsockname()[1]
            yield f"ws://127.0.0.1:{port}", server
    finally:
        store.close()


class InProcessConn(Conn):
    """A connection with no socket, for tests and benchmarks that drive the real server
    in-process (`Server.handle_frame`, the path every websocket frame takes): it keeps the
    frames it is sent. Many tables are made this way in a fraction of the time websockets
    would take."""

    def __init__(self, address: str = "10.0.0.1") -> None:
        super().__init__(f"{address}:1")
        self.address = address
        self.frames: list[str] = []

    def send(self, text: str) -> None:
        if not self.closed:
            self.frames.append(text)

    def close(self, code: int = 1000, reason: str = "") -> None:
        self.closed = True
