"""One vocabulary on the wire (protocol version 3): the round frames a real server sends name
patterns, bonuses, chickens and 豆 by the identifiers of rules/kinds.py, never by words.

Rounds stored by an older server read in that vocabulary too: their `won` events named the
pattern and bonuses in Chinese and their settlements had `winners` beside `wins`; read back (a
player's `get_rounds`, a table's log after a restart, `zhuoji verify`) they are identifiers only,
valid version-3 frames. The databases are the schema dumps, each written by the old code itself
(tests/server/schema_dumps)."""

from __future__ import annotations

import json
import re
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from clients.testkit import play_to_end
from protocol.events import upgrade_entry
from protocol.messages import ROUND_EVENT_TYPES, Rounds, Won, parse_server
from rules.kinds import BonusKind, DouVoid, PatternKind
from server.history import rounds_for
from server.storage import reads
from server.testkit import running_server

DUMPS = Path(__file__).parent / "schema_dumps"
WITH_WINS = ["v1-seat0.sql", "v1-dice.sql", "v2.sql"]
"""The dumps whose settlements have `wins` (schema version 0 predates it)."""


def load(dump: str, db: Path) -> list[str]:
    """The dump in a real SQLite file; the ids of its tables that ended a round."""
    conn = sqlite3.connect(db)
    try:
        conn.executescript((DUMPS / dump).read_text(encoding="utf-8"))
        return [
            t
            for (t,) in conn.execute(
                "SELECT DISTINCT table_id FROM events WHERE type='round_ended' ORDER BY table_id"
            )
        ]
    finally:
        conn.close()


def stored_words(db: Path) -> set[str]:
    """The pattern names the old code wrote in its `won` events, as stored."""
    conn = sqlite3.connect(db)
    try:
        return {
            json.loads(data)["pattern"]
            for (data,) in conn.execute("SELECT data FROM events WHERE type='won'")
        }
    finally:
        conn.close()


HAN = re.compile(r"[\u4e00-\u9fff]")


def _words(value: Any) -> list[str]:
    """Every string in a frame that holds a Chinese character."""
    if isinstance(value, dict):
        return [w for v in value.values() for w in _words(v)]
    if isinstance(value, list):
        return [w for v in value for w in _words(v)]
    return [value] if isinstance(value, str) and HAN.search(value) else []


async def test_a_real_servers_round_frames_carry_identifiers_only(db: Path) -> None:
    async with running_server(db) as (url, _server):
        done = await play_to_end(url, rounds=4)
    frames = [f for f in done.frames if f["type"] in ROUND_EVENT_TYPES]
    ended = [f for f in frames if f["type"] == "round_ended"]
    assert len(ended) == 4
    assert [w for f in frames for w in _words(f)] == []
    for f in ended:
        result = f["result"]
        assert "winners" not in result
        assert all("detail" not in p for p in result["payments"])
        assert all("tag" not in ln for t in result["chickens"] for ln in t["lines"])
        assert {g["why"] for g in result["dou"]} <= {"", *(k.value for k in DouVoid)}
        for w in result["wins"]:
            assert w["pattern"] in {k.value for k in PatternKind}
    announced: list[dict[str, Any]] = []  # the `won` frames of the round being played
    for f in frames:
        if f["type"] == "won":
            announced.append(f)
        elif f["type"] == "round_ended":
            said = [(w["seat"], w["pattern"], w["bonuses"]) for w in f["result"]["wins"]]
            assert [(w["seat"], w["pattern"], w["bonuses"]) for w in announced] == said
            announced = []


@pytest.mark.parametrize("dump", WITH_WINS)
def test_old_rounds_are_sent_in_identifiers(dump: str, tmp_path: Path) -> None:
    """`get_rounds` on a match an older server stored: every event a valid version-3 frame,
    every pattern and bonus an identifier, no `winners`."""
    db = tmp_path / "old.db"
    tables = load(dump, db)
    assert tables, "the dump has ended rounds"
    zh = {k.zh for k in PatternKind}
    assert stored_words(db) <= zh and stored_words(db), "the old code wrote Chinese names"
    conn = sqlite3.connect(db)
    conn.execute("UPDATE tables SET state='abandoned'")  # killed mid-match: over for get_rounds
    conn.commit()
    conn.close()
    wins = 0
    for table in tables:
        frame = rounds_for(db, table, seat=0, token_key=None)
        parsed = parse_server(json.dumps(frame, ensure_ascii=False))
        assert isinstance(parsed, Rounds)
        for log in parsed.logs:
            for e in log.events:
                if isinstance(e, Won):
                    wins += 1
                    assert isinstance(e.pattern, PatternKind)
                    assert all(isinstance(b, BonusKind) for b in e.bonuses)
        for log in frame["logs"]:
            for e in log["events"]:
                if e["type"] == "won":
                    assert e["pattern"] in {k.value for k in PatternKind}
                if e["type"] == "round_ended":
                    assert "winners" not in e["result"] and "wins" in e["result"]
    assert wins > 0


@pytest.mark.parametrize("dump", WITH_WINS)
def test_a_tables_stored_log_reads_in_identifiers(dump: str, tmp_path: Path) -> None:
    """The log a restarted table is given (and `zhuoji verify` reads): identifiers."""
    db = tmp_path / "old.db"
    tables = load(dump, db)
    for table in tables:
        for e in reads.table_events(db, table):
            if e["type"] == "won":
                assert e["pattern"] in {k.value for k in PatternKind}
                assert set(e["bonuses"]) <= {k.value for k in BonusKind}
            if e["type"] == "round_ended":
                assert "winners" not in e["result"]


def test_an_entry_of_version_3_is_left_as_it_is() -> None:
    new = {"type": "won", "seat": 1, "pattern": "daduizi", "bonuses": ["tianting"]}
    assert upgrade_entry(new) is new
    old = {"type": "won", "seat": 1, "pattern": "大对子", "bonuses": ["天听", "杀报"]}
    assert upgrade_entry(old) == {**old, "pattern": "daduizi", "bonuses": ["tianting", "shabao"]}
    assert old["pattern"] == "大对子", "the stored dict is not changed"


def test_a_settlement_from_before_wins_keeps_its_winners() -> None:
    """Schema version 0 wrote no `wins`: its `winners` is all it says of who won."""
    v0 = {"type": "round_ended", "result": {"outcome": "win", "winners": [{"seat": 2}]}}
    assert upgrade_entry(v0) is v0
