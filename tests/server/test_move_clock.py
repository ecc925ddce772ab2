"""A move's latency starts when its bytes were read from the socket (`LimitedConnection.read_at`),
not when its connection's handler got round to it: under load the loop runs other tables'
steps and the collector before the handler, and that wait is the server's too."""

from __future__ import annotations

from pathlib import Path

from server.conn import LimitedConnection, WsConn
from server.testkit import running_server
from tests.support import connect


async def test_a_frame_is_timed_from_when_its_bytes_were_read(tmp_path: Path) -> None:
    async with running_server(tmp_path / "c.db", seed="c") as (url, server):
        client = await connect(url, "alice")
        (conn,) = server.conns
        assert isinstance(conn, WsConn) and isinstance(conn.ws, LimitedConnection)
        first = conn.ws.read_at
        assert first > 0 and conn.received_at == first  # the hello
        await client.send({"type": "list_tables"})
        await client.recv_type("tables")
        assert conn.ws.read_at > first
        assert conn.received_at == conn.ws.read_at
        await client.close()
