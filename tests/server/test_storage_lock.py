"""One server per database, whatever the path: a second real `zhuoji serve` reaching the file a
first one serves through a symlink, a hardlink, or after the lock file was deleted, is refused in
one line (exit 1) and touches nothing; the first one's matches go on.

The database is one the code of commit 6911e85 wrote with four unfinished matches
(tests/server/schema_dumps/v1-dice.sql), loaded into a real SQLite file.
"""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import urllib.request
from collections.abc import Callable
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DUMP = Path(__file__).parent / "schema_dumps" / "v1-dice.sql"


def serve(db: Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "zhuoji", "serve", "--host", "127.0.0.1", "--port", "0",
         "--db", str(db)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
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
    first = serve(db)
    try:
        assert first.stdout is not None
        line = first.stdout.readline()
        assert "4 unfinished matches resumed" in line, line
        url = line.split()[3].replace("ws://", "http://")
        second = serve(other_path(db))
        out, err = second.communicate(timeout=60)
        assert second.returncode == 1, out + err
        assert "is in use by another zhuoji server through another path" in err, err
        assert not out  # it never served
        if other_path is symlink:
            assert f"pid {first.pid}" in err  # the holder is found beside the real file
        with urllib.request.urlopen(url + "/healthz", timeout=10) as r:
            assert r.status == 200 and r.read().decode().startswith("ok 4 tables")
    finally:
        first.send_signal(signal.SIGTERM)
        _, err = first.communicate(timeout=60)
    assert first.returncode == 0, err
    conn = sqlite3.connect(db)
    try:
        states = [r[0] for r in conn.execute("SELECT state FROM tables")]
    finally:
        conn.close()
    assert states == ["playing"] * 4  # nothing abandoned, nobody told table_frozen
