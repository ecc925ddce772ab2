"""`zhuoji admin prune` on a full disk (a real process whose file size limit is set below the
database's size with `setrlimit(RLIMIT_FSIZE)`, so that writes past it fail as on a full disk):
it removes what it can, lists exactly what it removed, says what is not done and what is needed,
exits 1, and leaves a sound file; run again with room, it finishes. The database is one the code
of commit 6911e85 wrote (tests/server/schema_dumps/v1-dice.sql)."""

from __future__ import annotations

import os
import resource
import sqlite3
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DUMP = Path(__file__).parent / "schema_dumps" / "v1-dice.sql"


def prune(db: Path, limit: int | None) -> subprocess.CompletedProcess[str]:
    def limited() -> None:
        if limit is not None:
            resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    return subprocess.run(
        [sys.executable, "-m", "zhuoji", "admin", "--db", str(db), "prune", "--older-than", "1d"],
        preexec_fn=limited,
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )


def left(db: Path) -> list[str]:
    conn = sqlite3.connect(db)
    try:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        return [r[0] for r in conn.execute("SELECT id FROM tables ORDER BY id")]
    finally:
        conn.close()


def test_prune_on_a_full_disk_says_exactly_what_it_did_and_what_is_needed(tmp_path: Path) -> None:
    db = tmp_path / "z.db"
    conn = sqlite3.connect(db)
    try:
        conn.executescript(DUMP.read_text(encoding="utf-8"))
        conn.execute("UPDATE tables SET state='finished', ended_at=1000 WHERE id IN ('1','2','3')")
        conn.commit()
        conn.execute("PRAGMA journal_mode=WAL")
    finally:
        conn.close()
    full = prune(db, int(os.path.getsize(db) * 0.5))
    assert full.returncode == 1, full.stdout + full.stderr
    assert "internal error" not in full.stderr and "Traceback" not in full.stderr
    out = full.stdout
    removed = [line.split()[1] for line in out.splitlines() if line.startswith("  table ")]
    assert out.startswith(f"removed {len(removed)} matches that ended before ")
    assert "NOT DONE: stopped after" in out and "free some room on the disk" in out, out
    remaining = left(db)
    assert not set(removed) & set(remaining)  # what it listed is gone, and only that
    assert sorted(removed + remaining) == ["1", "2", "3", "4"]
    again = prune(db, None)
    assert again.returncode == 0 and "compacted" in again.stdout, again.stdout + again.stderr
    assert left(db) == ["4"]  # the playing match is never removed
