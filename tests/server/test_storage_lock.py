"""One server per database, whatever the path: a second real `zhuoji serve` reaching the file a
first one serves through a symlink, a hardlink, or after the lock file was deleted, is refused in
one line (exit 1) and touches nothing; the first one's matches go on.

The database is one the code of commit 6911e85 wrote with four unfinished matches
(tests/server/schema_dumps/v1-dice.sql), loaded into a real SQLite file.
"""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.support import ROOT, serving

DUMP = Path(__file__).parent / "schema_dumps" / "v1-dice.sql"


def serve_refused(db: Path) -> subprocess.CompletedProcess[str]:
    """A second `zhuoji serve` on `db`, expected to refuse at once (it is run to its end)."""
    return subprocess.run(
        [sys.executable, "-m", "zhuoji", "serve", "--host", "127.0.0.1", "--port", "0",
         "--db", str(db)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )  # fmt: skip


def symlink(db: Path) -> Path:
    other = db.parent / "elsewhere" / "link.db"
    other.parent.mkdir()
    other.symlink_to(db)
    return other


def hardlink(db: Path) -> Path:
    other = db.parent / "hard.db"
    os.link(db, other)
    return other


def lock_deleted(db: Path) -> Path:
    db.with_name(db.name + ".lock").unlink()
    return db


@pytest.mark.parametrize("other_path", [symlink, hardlink, lock_deleted])
def test_a_second_server_on_the_same_file_by_another_path_is_refused(
    tmp_path: Path, other_path: Callable[[Path], Path]
) -> None:
    db = tmp_path / "z.db"
    conn = sqlite3.connect(db)
    try:
        conn.executescript(DUMP.read_text(encoding="utf-8"))
    finally:
        conn.close()
    with serving("--db", str(db)) as first:
        assert "4 unfinished matches resumed" in first.line, first.line
        second = serve_refused(other_path(db))
        out, err = second.stdout, second.stderr
        assert second.returncode == 1, out + err
        assert "is in use by another zhuoji server through another path" in err, err
        assert not out  # it never served
        if other_path is symlink:
            assert f"pid {first.pid}" in err  # the holder is found beside the real file
        status, body = first.health()
        assert status == 200 and body.startswith("ok 4 tables"), body
    assert first.returncode == 0, first.err
    conn = sqlite3.connect(db)
    try:
        states = [r[0] for r in conn.execute("SELECT state FROM tables")]
    finally:
        conn.close()
    assert states == ["playing"] * 4  # nothing abandoned, nobody told table_frozen
