"""The admin endpoint on a real server over loopback: the token is required; `prune` run by the
live server never removes a table it still holds; `tables` and `stats` show the live state."""

from __future__ import annotations

import json
import sqlite3
import time
from pathlib import Path
from typing import Any

import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus

from clients.client import Client
from server.admin import ensure_token, is_loopback, read_token, token_path
from server.testkit import running_server

TOKEN = "t0ken-for-the-tests-only"


async def ask(url: str, request: dict[str, Any], token: str = TOKEN) -> dict[str, Any]:
    async with connect(
        f"{url}/admin", additional_headers={"Authorization": f"Bearer {token}"}
    ) as ws:
        await ws.send(json.dumps(request))
        reply: dict[str, Any] = json.loads(await ws.recv())
        return reply


async def test_the_endpoint_needs_its_token_and_a_server_without_one_has_none(
    tmp_path: Path,
) -> None:
    async with running_server(tmp_path / "z.db", admin_token=TOKEN) as (url, _):
        with pytest.raises(InvalidStatus) as err:
            await ask(url, {"cmd": "stats"}, token="wrong-token-wrong-token")
        assert err.value.response.status_code == 401
        assert (await ask(url, {"cmd": "nope"})) == {"ok": False, "error": "unknown command 'nope'"}
        stats = await ask(url, {"cmd": "stats"})
        assert stats["ok"] and stats["stats"]["live"]["connections"] == 0
    async with running_server(tmp_path / "y.db") as (url, _):
        with pytest.raises(InvalidStatus) as err:
            await ask(url, {"cmd": "stats"})
        assert err.value.response.status_code == 403


def test_loopback_peers_only_and_the_token_file_is_private(tmp_path: Path) -> None:
    assert is_loopback(("127.0.0.1", 5)) and is_loopback(("::1", 5, 0, 0))
    assert is_loopback(("::ffff:127.0.0.1", 5))
    assert not is_loopback(("192.168.1.10", 5)) and not is_loopback(("::", 5))
    db = tmp_path / "z.db"
    token = ensure_token(db)
    assert ensure_token(db) == token, "made once, then reused"
    path = token_path(db)
    assert path.stat().st_mode & 0o777 == 0o600
    path.chmod(0o644)
    with pytest.raises(ValueError, match="readable by others"):
        read_token(path)


async def test_a_live_prune_keeps_the_tables_the_server_holds(tmp_path: Path) -> None:
    db = tmp_path / "z.db"
    async with running_server(db, admin_token=TOKEN) as (url, server):
        host = await Client.connect(url, "房主")
        await host.recv_type("welcome")
        await host.send({"type": "create_table", "name": "快", "rounds": 1})
        table = (await host.recv_type("joined"))["table"]
        for _ in range(3):
            await host.send({"type": "add_bot"})
        await host.send({"type": "auto", "on": True})
        arrived: set[int] = set()
        while len(arrived) < 3:
            f = await host.recv_type("seat_status")
            if f["connected"]:
                arrived.add(f["seat"])
        await host.send({"type": "start"})
        assert (await host.recv_type("match_ended", timeout=60))["reason"] == "finished"
        assert table in server.tables, "it lingers while its player looks at the result"
        conn = sqlite3.connect(str(db), timeout=30)
        with conn:
            conn.execute("UPDATE tables SET ended_at=?", (time.time() - 90 * 86400,))
        conn.close()
        listing = await ask(url, {"cmd": "tables"})
        assert [r["id"] for r in listing["tables"]] == [table]
        assert listing["tables"][0]["state"] == "finished"
        kept = await ask(url, {"cmd": "prune", "older_than": 30 * 86400})
        assert kept["ok"] and kept["pruned"]["tables"] == []
        await host.send({"type": "leave"})
        await host.recv_type("left")
        assert table not in server.tables
        gone = await ask(url, {"cmd": "prune", "older_than": 30 * 86400})
        assert [t["id"] for t in gone["pruned"]["tables"]] == [table]
        assert gone["pruned"]["rounds"] == 1 and gone["pruned"]["events"] > 10
        await host.close()
