"""The database's schema versions and the steps between them.

A file records its version in `PRAGMA user_version` (0: a file from before versions). Opening an
older one runs each step from its version up to `SCHEMA_VERSION`, in one transaction: a step adds
what its version added (columns, tables) and, when the code of its version changed what a stored
value means, rewrites the stored values so that they mean what they meant when they were written.

Defaults are the case that matters: a table stores only the options its creator changed
(`tables.options`, the overrides of its preset), so a default that changes would silently change
every stored match read with the new code (a different first dealer, a different 清七对 value):
a match in progress would not rebuild and would be lost, a finished one would replay to other
payments. So every change of a default gets a step that pins the old default into each stored
table that did not choose it (`pin_options`), and a test replays a database the code of each
earlier version wrote (tests/server/schema_dumps).

To add a version: write `_to_vN(db)`, add it to `STEPS`, raise `SCHEMA_VERSION`, and keep the
`SCHEMA` text (`server.storage.schema`) at the newest shape (a new file is made from it directly).
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from typing import Any

from rules.match import first_dealer
from server.storage import tallies
from server.storage.schema import APPLICATION_ID, SCHEMA, SCHEMA_VERSION

# What the options a table left out meant before commit f6d3c6d (2026-12-01 09:05 UTC), which made
# the first dealer `dice` in every preset, gave chuan and anshun no 憨包豆 and made chuan's 清七对
# 50: the first dealer was seat 0, a late 豆 was a 憨包豆 everywhere, chuan's 清七对 was 90.
BEFORE_DICE: dict[str, dict[str, Any]] = {
    "guiyang": {"first_dealer": "seat0"},
    "chuan": {"first_dealer": "seat0", "hanbao_dou": True, "patterns": {"qingqidui": 90}},
    "anshun": {"first_dealer": "seat0", "hanbao_dou": True},
}
DICE_SINCE = 1_796_115_906.0  # the time of commit f6d3c6d: 2026-12-01 09:05:06 UTC


def pinned(options: dict[str, Any], pins: dict[str, Any]) -> dict[str, Any]:
    """`options` with every value of `pins` it does not set itself (`patterns` key by key)."""
    out = dict(options)
    for name, value in pins.items():
        if name == "patterns" and isinstance(value, dict):
            mine = out.get("patterns")
            mine = dict(mine) if isinstance(mine, dict) else {}
            dotted = {k.split(".", 1)[1] for k in out if k.startswith("patterns.")}
            pins = {k: v for k, v in value.items() if k not in dotted}
            out["patterns"] = {**pins, **mine}
        elif name not in out:
            out[name] = value
    return out


def pin_options(
    db: sqlite3.Connection, pins_for: Callable[[sqlite3.Connection, dict[str, Any]], dict[str, Any]]
) -> None:
    """Rewrite every table's stored options with the pins `pins_for(db, row)` gives it (a row
    whose options cannot be read is left as it is: its table is refused when resumed)."""
    db.row_factory = sqlite3.Row
    try:
        rows = [dict(r) for r in db.execute("SELECT * FROM tables")]
    finally:
        db.row_factory = None
    for row in rows:
        try:
            options = json.loads(row["options"] or "{}")
        except ValueError:
            continue
        if not isinstance(options, dict):
            continue
        pins = pins_for(db, row)
        if not pins:
            continue
        new = pinned(options, pins)
        if new != options:
            db.execute(
                "UPDATE tables SET options=? WHERE id=?",
                (json.dumps(new, ensure_ascii=False), row["id"]),
            )


def _add_columns(db: sqlite3.Connection, added: dict[str, list[tuple[str, str]]]) -> None:
    for table, columns in added.items():
        have = {row[1] for row in db.execute(f"PRAGMA table_info({table})")}
        for name, kind in columns:
            if name not in have:
                db.execute(f"ALTER TABLE {table} ADD COLUMN {name} {kind}")


def _written_before_dice(db: sqlite3.Connection, row: dict[str, Any]) -> bool:
    """Whether a version-1 table was written by the code before the first dealer became `dice`
    (version 1 spans that change). The evidence is its first round: dealt by seat 0 where the
    dice give another seat, it is the older code's; dealt by the seat the dice give (not 0),
    the newer's. With no round, or dice that give seat 0 too (both codes deal alike), the
    time it was made decides."""
    first = db.execute(
        "SELECT dealer FROM rounds WHERE table_id=? AND round_no=1", (row["id"],)
    ).fetchone()
    if first is not None and row.get("seed"):
        dice = first_dealer(row["seed"])
        if dice != 0:
            return bool(first[0] == 0)
    return float(row.get("created_at") or 0.0) < DICE_SINCE


def _to_v1(db: sqlite3.Connection) -> None:
    """0 → 1 (commit 1275845): the columns added after the first release (the match seed, the
    password and token digests, the fair deal); the options pinned to that code's defaults
    (it was before the dice)."""
    _add_columns(
        db,
        {
            "tables": [("seed", "TEXT"), ("password_hash", "TEXT"), ("tokens", "TEXT")],
            "rounds": [("salt", "TEXT"), ("commitment", "TEXT")],
        },
    )
    pin_options(db, lambda _db, row: BEFORE_DICE.get(str(row["preset"]), {}))


def _to_v2(db: sqlite3.Connection) -> None:
    """1 → 2 (commit 9bf11df): a table's own `bot_delay`, the wait between rounds and the
    weekday of each round's deal (星期鸡); the options of a table the code before the dice
    wrote are pinned to that code's defaults."""
    _add_columns(
        db,
        {
            "tables": [("bot_delay", "REAL"), ("next_round_seconds", "REAL")],
            "rounds": [("weekday", "INTEGER")],
        },
    )
    pin_options(
        db,
        lambda db, row: (
            BEFORE_DICE.get(str(row["preset"]), {}) if _written_before_dice(db, row) else {}
        ),
    )


def _to_v3(db: sqlite3.Connection) -> None:
    """2 → 3 (issue 25): the players (each player key's SHA-256 digest and public id; one row
    per bot level) and the records derived from the events (`server.records`, `server.storage.tallies`), filled from the
    matches already stored. No default changed: nothing to pin."""
    tallies.upgrade(db)


# version → the step that brings a file of the version before it up to it.
STEPS: dict[int, Callable[[sqlite3.Connection], None]] = {1: _to_v1, 2: _to_v2, 3: _to_v3}
assert sorted(STEPS) == list(range(1, SCHEMA_VERSION + 1))


def migrate(db: sqlite3.Connection, version: int, *, new: bool = False) -> None:
    """Bring a database at `version` to `SCHEMA_VERSION` in one transaction: a `new` file is
    made at the newest schema; an older one goes through every step after its version."""
    db.execute("BEGIN IMMEDIATE")
    try:
        for statement in SCHEMA.split(";"):  # a new file's tables (an old file has them)
            if statement.strip():
                db.execute(statement)
        if not new:
            for step in range(version + 1, SCHEMA_VERSION + 1):
                STEPS[step](db)
        db.execute(f"PRAGMA application_id={APPLICATION_ID}")
        db.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
    except BaseException:
        db.execute("ROLLBACK")
        raise
    db.execute("COMMIT")
