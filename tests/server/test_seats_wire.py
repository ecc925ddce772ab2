"""Over the wire, a real server on loopback: pings count against the connection's rate limit (a
real websocket client sending ping frames, which the websockets layer answers by itself, below
the handler), and `hand_seat` reaches the table."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from clients.client import Client
from protocol.messages import PROTOCOL_VERSION
from server.testkit import running_server


async def test_a_ping_flood_is_closed_like_any_flood(tmp_path: Path) -> None:
    async with running_server(tmp_path / "z.db", rate_burst=10, rate_per_second=0) as (url, _):
        async with connect(url, ping_interval=None) as ws:
            await ws.send(json.dumps({"type": "hello", "version": PROTOCOL_VERSION, "name": "p"}))
            assert json.loads(await ws.recv(decode=True))["type"] == "welcome"
            for _ in range(30):
                try:
                    ws.protocol.send_ping(b"x")  # a bare ping frame: no pong awaited
                    ws.send_data()
                except ConnectionClosed:
                    break
            frames = []
            with pytest.raises(ConnectionClosed):
                while True:
                    frames.append(json.loads(await ws.recv(decode=True)))
            assert ws.close_code == 1008
            assert [f["code"] for f in frames if f["type"] == "error"] == ["rate_limited"]


async def test_a_few_pings_leave_the_connection_alone(tmp_path: Path) -> None:
    async with running_server(tmp_path / "z.db", rate_burst=10, rate_per_second=0) as (url, _):
        async with connect(url, ping_interval=None) as ws:
            await ws.send(json.dumps({"type": "hello", "version": PROTOCOL_VERSION, "name": "p"}))
            await ws.recv()
            for _ in range(3):
                await (await ws.ping())  # answered
            await ws.send(json.dumps({"type": "list_tables"}))
            assert json.loads(await ws.recv(decode=True))["type"] == "tables"


async def test_over_the_wire_the_creator_hands_an_away_seat_to_a_spectator(tmp_path: Path) -> None:
    """`hand_seat` is routed to the table, and the newcomer plays the seat from its snapshot."""
    from clients.client import Client
    from protocol.messages import parse_server

    fast = {"turn_seconds": 0, "bank_seconds": 0, "claim_min_ms": 0}
    async with running_server(tmp_path / "z.db", seed="hand") as (url, _):
        host = await Client.connect(url, "host")
        await host.recv_type("welcome")
        await host.send({"type": "create_table", "name": "friends", **fast})
        table = (await host.recv_type("joined"))["table"]
        guest = await Client.connect(url, "guest")
        await guest.recv_type("welcome")
        await guest.send({"type": "take_seat", "table": table})
        assert (await guest.recv_type("joined"))["seat"] == 1
        for _ in range(2):
            await host.send({"type": "add_bot"})
        await host.recv_until(lambda f: f["type"] == "seat_status" and f["seat"] == 3)
        await host.send({"type": "start"})
        await host.recv_type("match_started")
        await guest.ws.close()
        await host.recv_until(lambda f: f["type"] == "seat_status" and f["seat"] == 1)
        li = await Client.connect(url, "小李")
        await li.recv_type("welcome")
        await li.send({"type": "watch", "table": table})
        await li.recv_type("snapshot")
        await host.send({"type": "hand_seat", "seat": 1, "to": "小李"})
        joined = await li.recv_type("joined")
        assert joined["seat"] == 1 and joined["token"]
        snapshot = await li.recv_type("snapshot")
        parse_server(json.dumps(snapshot))
        assert snapshot["seat"] == 1 and snapshot["round"]["hand"]
        update = await host.recv_until(
            lambda f: f["type"] == "table" and f["info"]["seats"][1]["name"] == "小李"
        )
        assert update["info"]["seats"][1]["away"] is False
        for c in (host, li):
            await c.ws.close()


async def guest_dropped(
    url: str, password: str | None = None, key: str | None = None
) -> tuple[Client, str, str]:
    """A started match: the host, a guest (with `key`, if given) at seat 1, two bots; the
    guest's connection then drops. The host's client, the table and the guest's token."""
    from tests.support import connect as hello

    fast = {"turn_seconds": 0, "bank_seconds": 0, "claim_min_ms": 0}
    host = await hello(url, "host")
    await host.send({"type": "create_table", "name": "friends", "password": password, **fast})
    table = (await host.recv_type("joined"))["table"]
    guest = await hello(url, "guest", player_key=key)
    await guest.send({"type": "take_seat", "table": table, "password": password})
    token = (await guest.recv_type("joined"))["token"]
    for _ in range(2):
        await host.send({"type": "add_bot"})
    await host.recv_until(lambda f: f["type"] == "seat_status" and f["seat"] == 3)
    await host.send({"type": "start"})
    await host.recv_type("match_started")
    await guest.ws.close()
    await host.recv_until(
        lambda f: f["type"] == "seat_status" and f["seat"] == 1 and not f["connected"]
    )
    return host, table, token


async def test_a_spectator_with_the_password_cannot_take_a_dropped_seat(tmp_path: Path) -> None:
    """Issue 22 item 5, as probed: a guest sat without a player key and dropped; someone who
    knows the password watches, then says `take_seat` under the guest's name — refused with
    `need_token` (a clear error), and the guest's own token still takes the seat back."""
    from tests.support import connect as hello

    async with running_server(tmp_path / "z.db", seed="steal") as (url, _):
        host, table, token = await guest_dropped(url, "芝麻")
        thief = await hello(url, "guest")
        await thief.send({"type": "watch", "table": table, "password": "芝麻"})
        assert (await thief.recv_type("joined"))["seat"] is None
        await thief.send({"type": "leave"})
        await thief.recv_type("left")
        await thief.send({"type": "take_seat", "table": table, "seat": 1, "password": "芝麻"})
        refused = await thief.recv_type("error")
        assert refused["code"] == "need_token", refused
        assert "own player" in refused["message"] and "hand_seat" in refused["message"]
        back = await hello(url, "guest", token=token)
        joined = await back.recv_type("joined")
        assert joined["seat"] == 1 and joined["token"] == token
        for c in (host, thief, back):
            await c.ws.close()


async def test_a_player_key_takes_its_away_seat_back_without_the_password_even_when_locked(
    tmp_path: Path,
) -> None:
    """A seat played under a player key comes back with that key alone: the table's password
    is not asked, so a lock set by someone else's wrong guesses does not keep its player out."""
    from client_tui.player_key import new_key
    from tests.support import connect as hello

    key = new_key()
    async with running_server(tmp_path / "z.db", seed="keyback") as (url, _):
        host, table, _ = await guest_dropped(url, "芝麻", key)
        guesser = await hello(url, "guesser")
        codes = []
        for pin in range(6):
            await guesser.send({"type": "watch", "table": table, "password": f"{pin:04d}"})
            codes.append((await guesser.recv_until(lambda f: f["type"] == "error"))["code"])
        assert codes[-1] == "too_many_attempts", codes
        back = await hello(url, "guest", player_key=key)
        await back.send({"type": "take_seat", "table": table})
        assert (await back.recv_type("joined"))["seat"] == 1
        for c in (host, guesser, back):
            await c.ws.close()
