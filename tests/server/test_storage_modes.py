"""The database, its -wal and -shm and its lock file are made 0600 (they hold the hands and the
wall of the round being played), for `zhuoji serve` and for `zhuoji play`'s play.db alike (both
open it through `Store`); an existing database that others can read gets a WARNING line at start
(issue 22 item 8). Real SQLite files."""

from __future__ import annotations

import asyncio
import logging
import stat
from pathlib import Path

import pytest

from server.storage.record_sql import op_insert_table
from server.storage.writer import Store


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_a_new_database_and_its_files_are_made_0600(tmp_path: Path) -> None:
    db = tmp_path / "play.db"
    store = Store(db)
    try:
        row = {
            "id": "1", "name": "t", "preset": "guiyang", "options": {}, "base": 1, "rounds": 1,
            "turn_seconds": 0.0, "bank_seconds": 0.0, "claim_min_ms": 0, "has_password": False,
            "created_at": 0.0,
        }  # fmt: skip

        async def write() -> None:
            await store.write([op_insert_table(row)])

        asyncio.run(write())
        files = [db, db.with_name("play.db-wal"), db.with_name("play.db-shm"), store.lock.path]
        assert {f.name: mode(f) for f in files} == {f.name: 0o600 for f in files}
    finally:
        store.close()


def test_an_existing_database_others_can_read_gets_a_warning(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    db = tmp_path / "z.db"
    Store(db).close()
    db.chmod(0o644)
    with caplog.at_level(logging.WARNING, logger="zhuoji.store"):
        Store(db).close()
    assert f"{db} can be read by other accounts on this machine (mode 644)" in caplog.text
    caplog.clear()
    db.chmod(0o600)
    with caplog.at_level(logging.WARNING, logger="zhuoji.store"):
        Store(db).close()
    assert "can be read by other accounts" not in caplog.text


def test_a_backup_is_made_0600_like_the_database_it_copies(tmp_path: Path) -> None:
    """A backup holds what the live file holds (hands, walls, unrevealed salts)."""
    from server.storage.maintenance import backup

    db = tmp_path / "z.db"
    Store(db).close()
    target = tmp_path / "copy.db"
    backup(db, target)
    assert target.is_file() and mode(target) == 0o600
    assert not list(tmp_path.glob(".copy.db.part-*"))
