"""Upgrading: a database written by the code of each earlier schema version is served by this code
with every unfinished match resumed (none frozen, no standing changed), its stored options pinned
to what they meant when they were written, and `zhuoji verify` judging its rounds on what the
rules decided, not on how an older zhuoji worded the settlement.

The databases are in tests/server/schema_dumps as SQL text (`iterdump`), each made by the old
code itself (`make_dump.py`: the old `zhuoji serve` and `zhuoji loadtest`, the server killed
mid-round); each file's first line names the commit that made it:

- v0.sql: commit 4ee4564 (the first that resumes matches; no schema version yet), first dealer
  seat 0 (options `{}` then meant it);
- v1-seat0.sql: commit 5bf0ad9 (schema version 1, before the first dealer became `dice`);
- v1-dice.sql: commit 6911e85 (schema version 1, after it: `{}` means dice);
- v2.sql: commit d7c0dd4 (schema version 2, before the players and records of version 3), made
  with make_dump.py less its `--round-pause 0` (a flag that code no longer has).
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from rules.match import first_dealer
from server.storage.dbfile import SCHEMA_VERSION
from server.storage.migrations import STEPS
from tests.support import serving
from zhuoji.cli import main

DUMPS = Path(__file__).parent / "schema_dumps"
VERSIONS = {"v0.sql": 0, "v1-seat0.sql": 1, "v1-dice.sql": 1, "v2.sql": 2}


def load(dump: str, db: Path) -> None:
    """The dump into a real SQLite file (WAL mode, as the old server had it)."""
    conn = sqlite3.connect(db)
    try:
        conn.executescript((DUMPS / dump).read_text(encoding="utf-8"))
        conn.execute("PRAGMA journal_mode=WAL")
    finally:
        conn.close()


def rows(db: Path) -> dict[str, dict[str, Any]]:
    conn = sqlite3.connect(db)
    conn.row_factory = sqlite3.Row
    try:
        return {
            r["id"]: {
                **dict(r),
                "options": json.loads(r["options"]),
                "scores": json.loads(r["scores"]),
            }
            for r in conn.execute("SELECT * FROM tables")
        }
    finally:
        conn.close()


def first_rounds(db: Path) -> dict[str, int]:
    conn = sqlite3.connect(db)
    try:
        return dict(conn.execute("SELECT table_id, dealer FROM rounds WHERE round_no=1"))
    finally:
        conn.close()


def test_every_schema_version_has_a_dump_and_a_step() -> None:
    """A new schema version needs a step and a dump made by the code before it (so that a
    later change of a default is tested on a file the old code wrote)."""
    assert sorted(STEPS) == list(range(1, SCHEMA_VERSION + 1))
    made = {VERSIONS[p.name] for p in DUMPS.glob("*.sql")}
    assert made == set(range(SCHEMA_VERSION)), "a dump of every earlier schema version"
    for dump, version in VERSIONS.items():
        head = (DUMPS / dump).read_text(encoding="utf-8").splitlines()[:2]
        assert head[0].startswith("-- made by ") and f"user_version={version};" in head[1]


@pytest.mark.parametrize("dump", sorted(VERSIONS))
def test_an_upgraded_server_resumes_every_unfinished_match_of_an_older_database(
    tmp_path: Path, dump: str
) -> None:
    db = tmp_path / "old.db"
    load(dump, db)
    before = rows(db)
    dealt = first_rounds(db)
    playing = sorted(t for t, r in before.items() if r["state"] == "playing")
    assert len(playing) == 4 and all(r["options"] == {} for r in before.values())
    with serving("--db", str(db)) as server:
        line = server.line
    err = server.err
    assert server.returncode == 0, err
    assert f"{len(playing)} unfinished matches resumed" in line, line + err
    assert "cannot resume" not in err and "0 could not be resumed" in err, err
    restored = next(ln for ln in err.splitlines() if "could not be resumed" in ln)
    assert " INFO " in restored, restored  # nothing lost: not a warning (issue 23 item 10)
    after = rows(db)
    for tid in playing:
        was, now = before[tid], after[tid]
        # Still playing, the standings as they were: nothing lost, nothing zeroed.
        assert now["state"] == "playing", (tid, err)
        assert (now["scores"], now["rounds_played"]) == (was["scores"], was["rounds_played"])
        # The options mean what they meant: the first dealer as the old code dealt it.
        fd = now["options"].get("first_dealer", "dice")
        seed = now["seed"]
        expect = 0 if fd == "seat0" or seed is None else first_dealer(seed)
        assert expect == dealt[tid], (tid, now["options"], dealt[tid])
        if dump == "v0.sql":
            assert now["options"] == {"first_dealer": "seat0"}  # before versions: before dice
        if dump == "v1-dice.sql":
            assert now["options"] == {}  # written after the dice: nothing to pin
    if dump == "v1-seat0.sql":
        # The old code dealt seat 0 where the dice give another seat: that table is pinned.
        pinned = [t for t in playing if first_dealer(before[t]["seed"]) != 0]
        assert pinned and all(after[t]["options"] == {"first_dealer": "seat0"} for t in pinned)
    conn = sqlite3.connect(db)
    try:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    finally:
        conn.close()


@pytest.mark.parametrize("dump", sorted(VERSIONS))
def test_verify_judges_an_older_database_on_decisions_not_wording(
    tmp_path: Path, dump: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """The old settlements are worded otherwise (a chicken line's tag, a payment's detail):
    every honest round checks out; a payment's amount changed is still a MISMATCH."""
    db = tmp_path / "old.db"
    load(dump, db)
    tables = sorted(rows(db))
    for tid in tables:
        code = main(["verify", "--db", str(db), "--table", tid, "--json"])
        report = json.loads(capsys.readouterr().out)
        assert code == 0 and report["ok"], report
    conn = sqlite3.connect(db)
    try:
        tid, round_no, seq, data = conn.execute(
            "SELECT table_id, round_no, seq, data FROM events WHERE type='round_ended'"
            " ORDER BY table_id, seq LIMIT 1"
        ).fetchone()
        event = json.loads(data)
        event["result"]["payments"][0]["amount"] += 1
        conn.execute(
            "UPDATE events SET data=? WHERE table_id=? AND seq=?", (json.dumps(event), tid, seq)
        )
        conn.commit()
    finally:
        conn.close()
    code = main(["verify", "--db", str(db), "--table", tid, "--round", str(round_no)])
    out = capsys.readouterr().out
    assert code == 1 and "MISMATCH" in out and ".payments[0]" in out, out
