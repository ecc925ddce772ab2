"""A WAL index (`<db>-shm`) cut short under a real `zhuoji serve` (as a failing or full disk, or
another program, leaves it) no longer kills the server with SIGBUS: it is a storage fault (one
log line, the tables wait), the index is given its length back, and the server goes on.
The database is one the code of commit 6911e85 wrote (tests/server/schema_dumps/v1-dice.sql)."""

from __future__ import annotations

import asyncio
import os
import sqlite3
from pathlib import Path

from clients.client import Client
from tests.deadline import poll
from tests.support import serving

DUMP = Path(__file__).parent / "schema_dumps" / "v1-dice.sql"


def stored_events(db: Path) -> int:
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        return int(conn.execute("SELECT COUNT(*) FROM events").fetchone()[0])
    finally:
        conn.close()


async def create_table(url: str) -> dict[str, object]:
    client = await Client.connect(url, "host")
    try:
        await client.recv_type("welcome")
        await client.send({"type": "create_table", "name": "after", "claim_min_ms": 0})
        return await client.recv_until(lambda f: f["type"] == "joined", timeout=30)
    finally:
        await client.close()


def test_a_wal_index_cut_short_is_a_storage_fault_not_a_crash(tmp_path: Path) -> None:
    db = tmp_path / "z.db"
    conn = sqlite3.connect(db)
    try:
        conn.executescript(DUMP.read_text(encoding="utf-8"))
    finally:
        conn.close()
    events = stored_events(db)
    with serving("--db", str(db), "--retry-max", "0.2") as server:
        url = server.url
        # The resumed tables each write one event as they come back: once the four are
        # stored the server is idle, so the cut does not land inside a commit (the one window
        # the check before each commit cannot cover).
        poll(lambda: stored_events(db) >= events + 4, "the resumed tables' events", 60)
        shm = db.with_name("z.db-shm")
        assert shm.stat().st_size > 0  # the resumed tables wrote through the log
        os.truncate(shm, 0)
        # Found within a second (the checkpoint thread looks before it touches the index),
        # then repaired at the first retry.
        seen = server.stderr_until("was given its length back", 60)
        assert "storage fault: the WAL index" in seen and "was cut to 0 bytes" in seen, seen
        joined = asyncio.run(create_table(url))  # a write after the repair: stored
        assert joined["seat"] == 0
        assert server.proc.poll() is None  # alive: no SIGBUS
    assert server.returncode == 0, server.err
    conn = sqlite3.connect(db)
    try:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        names = [r[0] for r in conn.execute("SELECT name FROM tables ORDER BY CAST(id AS INT)")]
    finally:
        conn.close()
    assert names[-1] == "after"
