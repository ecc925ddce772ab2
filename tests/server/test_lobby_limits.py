"""The lobby and the server's limits on a real server over loopback websockets: tables left
waiting never hide a new table or a match being played; caps on the tables one connection /
one address opens; a silent connection at no table is closed; `create_table` defaults."""

from __future__ import annotations

import asyncio
import contextlib
import time
from pathlib import Path
from typing import Any

from websockets.exceptions import ConnectionClosed

from clients.client import Client
from server.config import TableSection
from server.testkit import running_server


async def _hello(url: str, name: str) -> Client:
    client = await Client.connect(url, name)
    await client.recv_type("welcome")
    return client


async def _bots(host: Client) -> None:
    """Three server bots added, and arrived at their seats."""
    for _ in range(3):
        await host.send({"type": "add_bot"})
    arrived: set[int] = set()
    while len(arrived) < 3:
        frame = await host.recv_type("seat_status")
        if frame["connected"]:
            arrived.add(frame["seat"])


async def _playing_table(url: str, name: str) -> tuple[Client, str]:
    """A connected host and three server bots at a started table."""
    host = await _hello(url, name)
    await host.send({"type": "create_table", "name": name, "rounds": 64})
    table = (await host.recv_type("joined"))["table"]
    await _bots(host)
    await host.send({"type": "start"})
    await host.recv_type("match_started")
    return host, table


async def test_two_hundred_squatters_hide_neither_a_new_table_nor_a_playing_one(
    tmp_path: Path,
) -> None:
    async with running_server(tmp_path / "z.db", bot_delay=5.0) as (url, server):
        played = [await _playing_table(url, f"对局{i}") for i in range(3)]
        squatters: list[Client] = []

        async def squat(i: int) -> Client:
            c = await _hello(url, f"s{i}")
            await c.send({"type": "create_table", "name": f"squat {i}"})
            await c.recv_type("joined")
            return c

        for start in range(0, 200, 50):
            squatters += await asyncio.gather(*(squat(i) for i in range(start, start + 50)))
        newcomer = await _hello(url, "新人")
        await newcomer.send({"type": "create_table", "name": "新桌"})
        new_id = (await newcomer.recv_type("joined"))["table"]
        looker = await _hello(url, "看看")
        rows = await looker.list_tables()
        ids = {r["id"] for r in rows}
        states = [r["state"] for r in rows]
        assert {t for _, t in played} <= ids, "every playing table is listed"
        assert new_id in ids, "and the newest waiting one"
        assert sum(s == "waiting" for s in states) == 201
        assert states == sorted(states, key=["waiting", "playing", "finished"].index)
        assert len(server.tables) == 204
        for c in [*squatters, newcomer, looker, *(h for h, _ in played)]:
            await c.close()


async def _create(c: Client, name: str) -> dict[str, Any]:
    await c.send({"type": "create_table", "name": name, "rounds": 64})
    return await c.recv_until(lambda f: f["type"] in ("joined", "error"))


async def _start_and_leave(c: Client) -> None:
    await _bots(c)
    await c.send({"type": "start"})
    await c.recv_type("match_started")
    await c.send({"type": "leave"})
    await c.recv_type("left")


async def test_tables_per_connection_and_per_address_are_capped(tmp_path: Path) -> None:
    async with running_server(
        tmp_path / "z.db", bot_delay=5.0, tables_per_connection=2, tables_per_address=3
    ) as (url, server):
        a = await _hello(url, "a")
        for i in range(2):
            assert (await _create(a, f"a{i}"))["type"] == "joined"
            await _start_and_leave(a)  # the match plays on without its creator
        refused = await _create(a, "a2")
        assert refused["code"] == "tables_per_connection" and "2 open tables" in refused["message"]
        b = await _hello(url, "b")
        assert (await _create(b, "b0"))["type"] == "joined"
        await _start_and_leave(b)
        refused = await _create(b, "b1")
        assert refused["code"] == "tables_per_address", "three from 127.0.0.1 already"
        # A closed table frees its place under the caps.
        first = min(server.tables, key=int)
        await server.tables[first].ask("close")
        assert first not in server.tables
        assert (await _create(b, "b1"))["type"] == "joined"
        await a.close()
        await b.close()

    async with running_server(
        tmp_path / "y.db", tables_per_address=1, address_exempt=["127.0.0.1"]
    ) as (url, _):
        c, d = await _hello(url, "c"), await _hello(url, "d")
        assert (await _create(c, "c"))["type"] == "joined"
        assert (await _create(d, "d"))["type"] == "joined", "an exempt address is not capped"
        await c.close()
        await d.close()


async def test_a_silent_connection_at_no_table_is_closed_and_one_at_a_table_is_not(
    tmp_path: Path,
) -> None:
    async with running_server(tmp_path / "z.db", lobby_timeout=0.3) as (url, _):
        seated = await _hello(url, "坐着")
        await seated.send({"type": "create_table", "name": "t"})
        await seated.recv_type("joined")
        idle = await _hello(url, "发呆")
        got: list[dict[str, Any]] = []
        with contextlib.suppress(ConnectionClosed):
            async with asyncio.timeout(30):
                while True:
                    got.append(await idle.recv(timeout=30))
        assert idle.ws.close_code == 4004
        assert got[-1]["code"] == "idle_timeout"
        # As silent as long, but at a table: still open.
        await seated.send({"type": "sync"})
        assert (await seated.recv_type("snapshot"))["type"] == "snapshot"
        await seated.close()


async def test_the_lobby_clock_starts_when_a_connection_is_sent_back_to_the_lobby(
    tmp_path: Path,
) -> None:
    timeout = 1.0
    async with running_server(tmp_path / "z.db", lobby_timeout=timeout) as (url, _):
        host = await _hello(url, "房主")
        await host.send({"type": "create_table", "name": "t"})
        table = (await host.recv_type("joined"))["table"]
        watcher = await _hello(url, "看客")
        await watcher.send({"type": "watch", "table": table})
        await watcher.recv_type("joined")
        idle = await _hello(url, "发呆")  # silent from the start: its close marks the time
        with contextlib.suppress(ConnectionClosed):
            while True:
                await idle.recv(timeout=30)
        # The watcher has been silent longer than the timeout; its table now closes.
        await host.send({"type": "leave"})
        closed = await watcher.recv_type("error")
        assert closed["code"] == "table_closed"
        await watcher.recv_type("left")
        back = time.monotonic()
        with contextlib.suppress(ConnectionClosed):
            while True:
                await watcher.recv(timeout=30)
        assert watcher.ws.close_code == 4004
        assert time.monotonic() - back >= 0.9 * timeout, "its clock started in the lobby"
        await host.close()


async def test_create_table_takes_the_servers_defaults_for_what_it_leaves_out(
    tmp_path: Path,
) -> None:
    defaults = TableSection(rounds=4, turn_seconds=0.0, bank_seconds=0.0, claim_min_ms=0)
    async with running_server(tmp_path / "z.db", table_defaults=defaults) as (url, _):
        c = await _hello(url, "c")
        await c.send({"type": "create_table", "name": "t", "rounds": 2})
        info = (await c.recv_type("snapshot"))["info"]
        assert (info["rounds"], info["turn_seconds"], info["claim_min_ms"]) == (2, 0, 0)
        await c.close()
