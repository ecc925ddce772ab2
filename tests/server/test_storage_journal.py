"""A hot rollback journal and backups: a database a writer was killed on in rollback-journal mode
is rolled back and served (not refused as unreadable), and `zhuoji admin backup` writes its copy
in WAL mode like the live database, as one file.

The database is one the code of commit 6911e85 wrote (tests/server/schema_dumps/v1-dice.sql),
loaded into a real SQLite file; the writer and the server are real processes.
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support import serving
from zhuoji.cli import main

DUMP = Path(__file__).parent / "schema_dumps" / "v1-dice.sql"

KILLED_WRITER = r"""
import os, sqlite3, sys
conn = sqlite3.connect(sys.argv[1], isolation_level=None)
conn.execute("PRAGMA cache_size=2")  # the change spills into the file before the commit
conn.execute("BEGIN IMMEDIATE")
conn.execute("UPDATE events SET data = data || ' '")
conn.execute("UPDATE tables SET scores='[9,9,9,9]'")
os.kill(os.getpid(), 9)
"""


def load(db: Path, journal_mode: str) -> None:
    conn = sqlite3.connect(db)
    try:
        conn.executescript(DUMP.read_text(encoding="utf-8"))
        conn.execute(f"PRAGMA journal_mode={journal_mode}")
    finally:
        conn.close()


def scores(db: Path) -> list[list[int]]:
    conn = sqlite3.connect(db)
    try:
        return [json.loads(r[0]) for r in conn.execute("SELECT scores FROM tables ORDER BY id")]
    finally:
        conn.close()


def serve_once(db: Path) -> tuple[str, str]:
    """A real `zhuoji serve` on `db`: its serving line, then stopped (SIGTERM); its stderr."""
    with serving("--db", str(db)) as server:
        line = server.line
    return line, server.err


def test_a_hot_rollback_journal_is_rolled_back_and_the_database_served(tmp_path: Path) -> None:
    db = tmp_path / "z.db"
    load(db, "DELETE")  # as `admin backup` wrote its copies before
    before = scores(tmp_path / "z.db")
    killed = subprocess.run([sys.executable, "-c", KILLED_WRITER, str(db)], check=False)
    assert killed.returncode == -signal.SIGKILL
    journal = db.with_name("z.db-journal")
    assert journal.stat().st_size > 0  # hot: the killed write's original pages
    line, err = serve_once(db)
    assert "4 unfinished matches resumed" in line, line + err
    assert "not a readable SQLite database" not in err
    assert "rolled back the write a killed writer left unfinished" in err, err
    assert scores(db) == before  # as it was before the killed write, nothing else lost


def test_a_backup_is_in_wal_mode_one_file_and_served(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "z.db"
    load(db, "WAL")
    copy = tmp_path / "backups" / "copy.db"
    copy.parent.mkdir()
    assert main(["admin", "--db", str(db), "backup", str(copy)]) == 0
    capsys.readouterr()
    assert sorted(p.name for p in copy.parent.iterdir()) == ["copy.db"]  # one file
    assert copy.read_bytes()[18:20] == b"\x02\x02"  # the header says WAL (read and write)
    line, err = serve_once(copy)
    assert "4 unfinished matches resumed" in line, line + err


def test_a_killed_backup_leaves_no_part_file_for_ever(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A backup killed midway leaves `.NAME.part-PID`; the next backup to the folder removes
    it (its process is gone), and leaves a running backup's alone."""
    db = tmp_path / "z.db"
    load(db, "WAL")
    folder = tmp_path / "backups"
    folder.mkdir()
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True)  # fmt: skip
    dead = folder / f".monday.db.part-{gone.stdout.strip()}"
    dead.write_bytes(b"half a copy")
    (folder / f"{dead.name}-journal").write_bytes(b"x")
    running = folder / f".tuesday.db.part-{os.getpid()}"
    running.write_bytes(b"being written")
    assert main(["admin", "--db", str(db), "backup", str(folder / "wednesday.db")]) == 0
    capsys.readouterr()
    assert sorted(p.name for p in folder.iterdir()) == [running.name, "wednesday.db"]
