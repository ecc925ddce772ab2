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
