"""The database file at start: what `zhuoji serve` refuses (in one line, the file left as it
was), the schema version and migrations, the write-ahead log kept small, `zhuoji verify` on a file
it cannot read, and `zhuoji play` started twice on one database."""

from __future__ import annotations

import asyncio
import hashlib
import json
import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest

from server.storage.dbfile import APPLICATION_ID, SCHEMA_VERSION, DatabaseInUse, DatabaseRefused
from server.storage.reads import table_row
from server.storage.record_sql import op_insert_event, op_insert_table
from server.storage.writer import Store
from zhuoji.cli import main


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _table_row(table_id: str) -> dict[str, object]:
    return {
        "id": table_id,
        "name": "t",
        "preset": "guiyang",
        "options": {},
        "base": 1,
        "rounds": 1,
        "turn_seconds": 0.0,
        "bank_seconds": 0.0,
        "claim_min_ms": 0,
        "has_password": False,
        "created_at": 0.0,
    }


def _refusal(capsys: pytest.CaptureFixture[str], db: Path) -> str:
    """Run `zhuoji serve --db db`; it must exit 1 with one line on stderr, which is returned."""
    capsys.readouterr()
    assert main(["serve", "--host", "127.0.0.1", "--port", "0", "--db", str(db)]) == 1
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("zhuoji serve: "), captured.err
    assert "Traceback" not in captured.err
    return lines[0]


def test_a_directory_an_empty_file_and_a_file_that_is_not_sqlite_are_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert "is a directory" in _refusal(capsys, tmp_path)
    empty = tmp_path / "empty.db"
    empty.touch()
    assert "is empty (0 bytes)" in _refusal(capsys, empty)
    assert empty.stat().st_size == 0
    junk = tmp_path / "junk.db"
    junk.write_bytes(b"this is not a database, it is a shopping list\n" * 200)
    before = _digest(junk)
    assert "not a readable SQLite database" in _refusal(capsys, junk)
    assert _digest(junk) == before
    assert not (tmp_path / "junk.db-wal").exists()


def test_a_corrupt_database_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "z.db"
    store = Store(db)

    async def fill() -> None:
        await store.write([op_insert_table(_table_row("1"))])
        for seq in range(1, 400):
            event = {"type": "table", "seq": seq, "table": "1", "info": {"pad": "x" * 300}}
            await store.write([op_insert_event("1", 0, event, 0.0)])

    asyncio.run(fill())
    store.close()
    with db.open("r+b") as f:  # a page of the events' tree overwritten
        f.seek(4096 * 2)
        f.write(b"\xff" * 4096)
    before = _digest(db)
    line = _refusal(capsys, db)
    assert "is corrupt (" in line and "restore it from a backup" in line, line
    assert _digest(db) == before
    assert main(["verify", "--db", str(db), "--table", "1"]) == 2


def test_another_programs_sqlite_file_is_refused_and_left_untouched(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    other = tmp_path / "photos.db"
    with sqlite3.connect(other) as conn:
        conn.execute("CREATE TABLE albums (id INTEGER PRIMARY KEY, title TEXT)")
        conn.execute("INSERT INTO albums (title) VALUES ('summer')")
    conn.close()
    before = _digest(other)
    assert "is not a zhuoji database (its tables: albums)" in _refusal(capsys, other)
    tagged = tmp_path / "tagged.db"
    with sqlite3.connect(tagged) as conn:
        conn.execute("PRAGMA application_id=1234")
        conn.execute("CREATE TABLE tables (id TEXT)")
    conn.close()
    assert "another program's SQLite file, application_id 0x4d2" in _refusal(capsys, tagged)
    assert _digest(other) == before
    with sqlite3.connect(other) as conn:
        names = [r[0] for r in conn.execute("SELECT name FROM sqlite_master")]
        assert names == ["albums"]
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "delete"
    conn.close()


def test_a_read_only_database_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "z.db"
    Store(db).close()
    db.chmod(0o444)
    before = _digest(db)
    assert "is read-only" in _refusal(capsys, db)
    assert _digest(db) == before


def test_a_newer_schema_is_refused_and_an_older_one_migrated(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    newer = tmp_path / "newer.db"
    Store(newer).close()
    with sqlite3.connect(newer) as conn:
        conn.execute(f"PRAGMA user_version={SCHEMA_VERSION + 1}")
    conn.close()
    before = _digest(newer)
    line = _refusal(capsys, newer)
    assert f"has schema version {SCHEMA_VERSION + 1}, newer than this zhuoji knows" in line
    assert "upgrade zhuoji" in line and _digest(newer) == before

    # A file from before schema versions: the first release's tables, without the columns
    # added since (match seed, password digest, token digests, fair-deal salt and commitment).
    older = tmp_path / "older.db"
    with sqlite3.connect(older) as conn:
        conn.executescript(
            """
            CREATE TABLE tables (id TEXT PRIMARY KEY, name TEXT NOT NULL, preset TEXT NOT NULL,
              options TEXT NOT NULL, base INTEGER NOT NULL, rounds INTEGER NOT NULL,
              turn_seconds REAL NOT NULL, bank_seconds REAL NOT NULL,
              claim_min_ms INTEGER NOT NULL, has_password INTEGER NOT NULL,
              created_at REAL NOT NULL, started_at REAL, ended_at REAL, state TEXT NOT NULL,
              seats TEXT, scores TEXT, rounds_played INTEGER NOT NULL DEFAULT 0);
            CREATE TABLE rounds (table_id TEXT NOT NULL, round_no INTEGER NOT NULL,
              seed TEXT NOT NULL, dealer INTEGER NOT NULL, streak INTEGER NOT NULL,
              base INTEGER NOT NULL, hands TEXT NOT NULL, wall TEXT NOT NULL,
              started_at REAL NOT NULL, ended_at REAL, result TEXT, net TEXT,
              PRIMARY KEY (table_id, round_no)) WITHOUT ROWID;
            CREATE TABLE actions (table_id TEXT NOT NULL, round_no INTEGER NOT NULL,
              idx INTEGER NOT NULL, seat INTEGER NOT NULL, act TEXT NOT NULL, tile TEXT,
              phase TEXT NOT NULL, auto INTEGER NOT NULL, at REAL NOT NULL,
              PRIMARY KEY (table_id, round_no, idx)) WITHOUT ROWID;
            CREATE TABLE events (table_id TEXT NOT NULL, seq INTEGER NOT NULL,
              round_no INTEGER NOT NULL, type TEXT NOT NULL, data TEXT NOT NULL,
              at REAL NOT NULL, PRIMARY KEY (table_id, seq)) WITHOUT ROWID;
            INSERT INTO tables VALUES ('7', 'old', 'guiyang', '{}', 1, 2, 30, 60, 300, 0, 1.0,
              2.0, 3.0, 'finished', '[]', '[4,-4,0,0]', 2);
            """
        )
    conn.close()
    store = Store(older)
    assert store.max_table_number() == 7
    store.close()
    with sqlite3.connect(older) as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        assert conn.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID
        columns = {r[1] for r in conn.execute("PRAGMA table_info(rounds)")}
        assert {"salt", "commitment", "weekday"} <= columns
        columns = {r[1] for r in conn.execute("PRAGMA table_info(tables)")}
        assert {"seed", "password_hash", "tokens"} <= columns
    conn.close()
    row = table_row(older, "7")
    assert row is not None and row["scores"] == [4, -4, 0, 0] and row["state"] == "finished"


def test_a_new_database_is_made_with_its_version_and_a_lock_names_its_holder(
    tmp_path: Path,
) -> None:
    db = tmp_path / "deep" / "er" / "z.db"
    store = Store(db)
    try:
        store.lock.note(url="ws://127.0.0.1:1")
        with pytest.raises(DatabaseInUse) as refused:
            Store(db)
        assert refused.value.holder["url"] == "ws://127.0.0.1:1"
        assert f"{db} is in use by another zhuoji server (pid " in str(refused.value)
    finally:
        store.close()
    with sqlite3.connect(db) as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        assert conn.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID
    conn.close()
    Store(db).close()  # free again once the first one closed
    with pytest.raises(DatabaseRefused, match="is a directory"):
        Store(tmp_path)


def test_the_write_ahead_log_is_cut_back_when_idle(tmp_path: Path) -> None:
    store = Store(tmp_path / "z.db", checkpoint_every=3600)

    async def write() -> None:
        await store.write([op_insert_table(_table_row("1"))])
        for seq in range(1, 2001):
            event = {"type": "table", "seq": seq, "table": "1", "info": {"pad": "x" * 200}}
            await store.write([op_insert_event("1", 0, event, 0.0)])

    try:
        asyncio.run(write())
        grown = store.wal_bytes()
        assert grown > 1 << 20
        assert store.checkpoint()  # PASSIVE: copied into the database, the log not cut
        assert store.wal_bytes() == grown
        assert store.checkpoint(truncate=True)
        assert store.wal_bytes() == 0
    finally:
        store.close()
    with sqlite3.connect(tmp_path / "z.db") as conn:
        assert conn.execute("SELECT COUNT(*) FROM events").fetchone()[0] == 2000
    conn.close()


def test_verify_on_a_file_it_cannot_read_is_an_error_not_a_mismatch(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    junk = tmp_path / "junk.db"
    junk.write_bytes(b"\x00garbage" * 1000)
    assert main(["verify", "--db", str(junk), "--table", "1"]) == 2
    assert "cannot read" in capsys.readouterr().err
    assert main(["verify", "--db", str(tmp_path), "--table", "1"]) == 2


def test_play_started_twice_on_one_database_offers_its_own(tmp_path: Path) -> None:
    from zhuoji.cmd_play import local_server, settle_local

    db = tmp_path / "play.db"
    asked: list[str] = []

    def spare(name: str) -> Callable[[], Path]:
        def path() -> Path:
            asked.append(name)
            return tmp_path / name

        return path

    first, url1, note1 = settle_local(local_server(db), spare("spare1.db"))
    try:
        assert note1 is None and asked == [], "no spare database while the first is free"
        second, url2, note2 = settle_local(local_server(db), spare("spare2.db"))
        try:
            assert url2 != url1 and note2 is not None
            assert "a match is already open in another window" in note2
            assert str(tmp_path / "spare2.db") in note2 and f"zhuoji join {url1}" in note2
            assert (tmp_path / "spare2.db").exists() and asked == ["spare2.db"]
        finally:
            second.stop()
    finally:
        first.stop()
    assert json.loads((tmp_path / "play.db.lock").read_text() or "{}") == {}


async def _waiting_table(db: Path) -> str:
    from clients.client import Client
    from server.testkit import running_server

    async with running_server(db) as (url, _):
        client = await Client.connect(url, "host")
        await client.send({"type": "create_table", "name": "t"})
        table = str((await client.recv_type("joined"))["table"])
        await client.close()
    return table


def test_a_server_that_cannot_listen_changes_nothing_in_its_database(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import socket

    db = tmp_path / "z.db"
    table = asyncio.run(_waiting_table(db))
    row = table_row(db, table)
    assert row is not None and row["state"] == "waiting"
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        capsys.readouterr()
        assert main(["serve", "--host", "127.0.0.1", "--port", str(port), "--db", str(db)]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(f"zhuoji serve: cannot listen on 127.0.0.1:{port}")
    row = table_row(db, table)
    assert row is not None and row["state"] == "waiting", "restore ran before the bind"
