"""What the server reads of its own file before it serves, on the writer's connection (nothing
writes beside it yet): the next table number, the tables a previous run left waiting or playing,
and every unfinished match as stored (`unfinished`: what the tables resume from). The `Store`
runs these (`Store.unfinished`, `Store.close_waiting`, …)."""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from protocol.events import upgrade_entry
from server.storage.record_sql import Op
from server.storage.stored import StoredRound, StoredTable


def max_table_number(db: sqlite3.Connection) -> int:
    """The highest numeric table id so far (ids are room numbers 1, 2, 3, …)."""
    row = db.execute(
        "SELECT MAX(CAST(id AS INTEGER)) FROM tables WHERE id GLOB '[0-9]*'"
    ).fetchone()
    return int(row[0] or 0)


def waiting_tables(db: sqlite3.Connection) -> list[str]:
    """The tables whose match never began."""
    return [r[0] for r in db.execute("SELECT id FROM tables WHERE state='waiting'")]


def op_close_waiting(now: float) -> Op:
    """Every waiting table closed as abandoned."""
    return ("UPDATE tables SET state='abandoned', ended_at=? WHERE state='waiting'", (now,))


def playing_tables(db: sqlite3.Connection, name: str) -> list[str]:
    """The tables named `name` whose match is being played."""
    return [
        r[0] for r in db.execute("SELECT id FROM tables WHERE state='playing' AND name=?", (name,))
    ]


def unfinished(
    db: sqlite3.Connection, log_keep: int = 4096, *, ended_since: float | None = None
) -> list[StoredTable]:
    """Every match a previous run left playing, as stored: what `Table.restore` resumes;
    with `ended_since`, also the matches that ended since then (a player who dropped just
    before the end may still come back to see it).

    Read with the writer's connection before the server serves, so nothing writes beside it.
    A row that cannot be decoded is returned with `error` set (its table is frozen)."""
    db.row_factory = sqlite3.Row
    try:
        rows = db.execute(
            "SELECT * FROM tables WHERE state='playing' OR (state IN ('finished', 'abandoned',"
            " 'voted')"
            " AND started_at IS NOT NULL AND ended_at >= ?) ORDER BY CAST(id AS INTEGER), id",
            (float("inf") if ended_since is None else ended_since,),
        ).fetchall()
        return [_stored(db, dict(row), log_keep) for row in rows]
    finally:
        db.row_factory = None


def _stored(db: sqlite3.Connection, row: dict[str, Any], log_keep: int) -> StoredTable:
    table_id = row["id"]
    stored = StoredTable(table_id, row)
    try:
        for key in ("options", "seats", "scores", "tokens"):
            if row.get(key) is not None:
                row[key] = json.loads(row[key])
        for r in db.execute(
            "SELECT * FROM rounds WHERE table_id=? ORDER BY round_no", (table_id,)
        ).fetchall():
            stored.rounds.append(StoredRound.of_row(r))
        if stored.rounds:
            last = stored.rounds[-1].round_no
            stored.actions = [
                (a["seat"], a["act"], a["tile"], a["phase"])
                for a in db.execute(
                    "SELECT seat, act, tile, phase FROM actions WHERE table_id=? AND"
                    " round_no=? ORDER BY idx",
                    (table_id, last),
                )
            ]
            stored.round_events = [
                upgrade_entry(json.loads(e["data"]))
                for e in db.execute(
                    "SELECT data FROM events WHERE table_id=? AND round_no=? ORDER BY seq",
                    (table_id, last),
                )
            ]
        stored.log = [
            upgrade_entry(json.loads(e["data"]))
            for e in db.execute(
                "SELECT data FROM events WHERE table_id=? ORDER BY seq DESC LIMIT ?",
                (table_id, log_keep),
            )
        ][::-1]
        top = db.execute("SELECT MAX(seq) FROM events WHERE table_id=?", (table_id,))
        stored.seq = int(top.fetchone()[0] or 0)
    except (sqlite3.Error, ValueError, TypeError, KeyError) as err:
        stored.error = f"unreadable record: {type(err).__name__}: {err}"
    return stored
