"""Corruption written into the live file while a real `zhuoji serve` runs is noticed: the periodic
integrity check (`--integrity-every`) makes `/healthz` answer 503, logs one ERROR line and sets
`zhuoji_db_integrity_ok` to 0; a sound file is checked again at a clean stop."""

from __future__ import annotations

import sqlite3
import urllib.error
import urllib.request
from pathlib import Path

from tests.deadline import poll
from tests.support import serving

DUMP = Path(__file__).parent / "schema_dumps" / "v1-dice.sql"  # written by commit 6911e85


def get(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=10) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as err:
        return err.code, err.read().decode()


def test_corruption_of_the_live_file_is_reported_while_serving(tmp_path: Path) -> None:
    db = tmp_path / "z.db"
    conn = sqlite3.connect(db)
    try:
        conn.executescript(DUMP.read_text(encoding="utf-8"))
        pages = conn.execute("PRAGMA page_count").fetchone()[0]
        size = conn.execute("PRAGMA page_size").fetchone()[0]
    finally:
        conn.close()
    with serving("--db", str(db), "--integrity-every", "0.1") as server:
        base = server.http
        poll(
            lambda: "zhuoji_db_integrity_checks_total 0.0" not in get(base + "/metrics")[1],
            "a first integrity check",
            60,
        )
        assert get(base + "/healthz")[0] == 200
        assert "zhuoji_db_integrity_ok 1.0" in get(base + "/metrics")[1]
        # A disk (or a stray program) writes garbage over the pages behind the first ones.
        with db.open("r+b") as f:
            f.seek(size * (pages // 2))
            f.write(b"\xa5" * size * (pages - pages // 2))
        poll(lambda: get(base + "/healthz")[0] == 503, "/healthz 503", 60)
        status, body = get(base + "/healthz")
        assert body.startswith("database corrupt: "), body
        assert "zhuoji_db_integrity_ok 0.0" in get(base + "/metrics")[1]
    err = server.err
    assert err.count("integrity check failed: ") == 1, err
    assert f"{db} is corrupt" in err


def test_a_sound_file_is_checked_at_a_clean_stop(tmp_path: Path) -> None:
    db = tmp_path / "z.db"
    with serving("--db", str(db), "--integrity-every", "0") as server:
        pass
    err = server.err
    assert server.returncode == 0 and f"integrity check at the stop: {db} is sound" in err, err
