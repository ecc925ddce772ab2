"""Spectators (issue 22 item 6) on a real server over loopback: a table takes at most the
server's `spectators_per_table`, a clear error past it; a spectator that stops reading is closed
by the keepalive as any connection is (its pings go unanswered), and leaves the count."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from urllib.parse import urlsplit

from websockets.client import ClientProtocol
from websockets.uri import parse_uri

from protocol.messages import PROTOCOL_VERSION
from server.testkit import running_server
from tests.support import FAST, connect


async def test_a_table_takes_the_servers_cap_of_spectators(tmp_path: Path) -> None:
    async with running_server(tmp_path / "z.db", seed="cap", spectators_per_table=2) as (url, _):
        host = await connect(url, "host")
        await host.send({"type": "create_table", "name": "watched", **FAST})
        table = (await host.recv_type("joined"))["table"]
        watchers = [await connect(url, f"w{i}") for i in range(3)]
        for w in watchers[:2]:
            await w.send({"type": "watch", "table": table})
            assert (await w.recv_type("joined"))["seat"] is None
        late = watchers[2]
        await late.send({"type": "watch", "table": table})
        refused = await late.recv_type("error")
        assert refused["code"] == "spectators_full", refused
        assert "2 spectators" in refused["message"] and refused["table"] == table
        # A seat is still free to take (the cap is on watching), and one leaving makes room.
        await late.send({"type": "take_seat", "table": table})
        assert (await late.recv_type("joined"))["seat"] == 1
        await watchers[0].send({"type": "leave"})
        await watchers[0].recv_type("left")
        await watchers[0].send({"type": "watch", "table": table})
        assert (await watchers[0].recv_type("joined"))["seat"] is None
        for c in [host, *watchers]:
            await c.close()


async def _silent_spectator(url: str, table: str) -> asyncio.StreamWriter:
    """A websocket client that says hello, watches `table`, and then never reads again (a
    frozen process): the server's pings and frames pile up unread."""
    parts = urlsplit(url)
    reader, writer = await asyncio.open_connection(parts.hostname, parts.port)
    proto = ClientProtocol(parse_uri(url))
    proto.send_request(proto.connect())
    for chunk in proto.data_to_send():
        writer.write(chunk)
    head = await reader.readuntil(b"\r\n\r\n")
    assert b" 101 " in head.split(b"\r\n")[0], head
    proto.receive_data(head)  # the handshake's answer: open
    hello = {"type": "hello", "version": PROTOCOL_VERSION, "name": "frozen"}
    for frame in (hello, {"type": "watch", "table": table}):
        proto.send_text(json.dumps(frame).encode())
    for chunk in proto.data_to_send():
        writer.write(chunk)
    await writer.drain()
    return writer  # never read from again


async def test_a_spectator_that_stops_reading_is_closed_by_the_keepalive(tmp_path: Path) -> None:
    keepalive = {"ping_interval": 0.2, "ping_timeout": 0.5}
    async with running_server(tmp_path / "z.db", seed="ka", **keepalive) as (url, server):
        host = await connect(url, "host")
        await host.send({"type": "create_table", "name": "watched", **FAST})
        table = (await host.recv_type("joined"))["table"]
        writer = await _silent_spectator(url, table)
        # The host's own client answers pings; it sees the spectator come, then go.
        await host.recv_until(lambda f: f["type"] == "spectators" and f["count"] == 1, timeout=30)
        await host.recv_until(lambda f: f["type"] == "spectators" and f["count"] == 0, timeout=30)
        assert server.tables[table].core.spectators == []
        assert host.ws.close_code is None, "the host, who reads, stays"
        writer.close()
        await host.close()


async def test_a_full_table_still_lets_a_seats_own_player_in_to_be_handed_the_seat(
    tmp_path: Path,
) -> None:
    """The guest dropped and comes back on a new machine (no key, no token) to watch until
    the creator hands the seat back; the spectators' cap (1) is reached. The guest is let in
    (called as the away seat's player is), one such per seat: a second "guest" is refused,
    and so is anyone else; the creator then hands the seat to the guest."""
    from tests.server.test_seats_wire import guest_dropped

    async with running_server(tmp_path / "z.db", seed="back", spectators_per_table=1) as (
        url,
        _,
    ):
        host, table, _ = await guest_dropped(url)
        first = await connect(url, "someone")
        await first.send({"type": "watch", "table": table})
        assert (await first.recv_type("joined"))["seat"] is None
        stranger = await connect(url, "stranger")
        await stranger.send({"type": "watch", "table": table})
        assert (await stranger.recv_type("error"))["code"] == "spectators_full"
        back = await connect(url, "guest")  # a new machine: no player key, no token
        await back.send({"type": "watch", "table": table})
        assert (await back.recv_type("joined"))["seat"] is None
        twin = await connect(url, "guest")
        await twin.send({"type": "watch", "table": table})
        assert (await twin.recv_type("error"))["code"] == "spectators_full", "one per seat"
        await host.send({"type": "hand_seat", "seat": 1, "to": "guest"})
        handed = await back.recv_type("joined")
        assert handed["seat"] == 1 and handed["token"]
        for c in (host, first, stranger, back, twin):
            await c.close()
