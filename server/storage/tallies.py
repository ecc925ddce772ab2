"""The derived table `records` (a group's records, 战绩): one row per match and seat, summed from
the tallies `server.records` computes. The server adds each round's tallies in the round's own
commit (`round_record_ops`, the SQL of a `RoundTallied` record); `rebuild` recomputes the table
from the stored events (`zhuoji admin rebuild-records`, the upgrade to schema version 3). A test
holds the two equal.
"""

from __future__ import annotations

import json
import logging
import sqlite3
from collections.abc import Mapping, Sequence
from dataclasses import astuple
from typing import Any

from server.records import COLUMNS, Tally, match_tallies, round_tally, seat_players
from server.storage.schema import RECORDS_SCHEMA_SQL

Op = tuple[str, Sequence[Any]]


def upgrade(db: sqlite3.Connection) -> None:
    """Schema step 2 → 3, inside the migration's transaction: the tables, the bots, and the
    records of every match already stored, rebuilt from its events."""
    for statement in RECORDS_SCHEMA_SQL.split(";"):
        db.execute(statement)
    rebuild(db)


_SUMS = ", ".join(
    f"{c} = MAX({c}, excluded.{c})" if c in Tally.MAXED else f"{c} = {c} + excluded.{c}"
    for c in COLUMNS
)
_UPSERT = (
    "INSERT INTO records (table_id, seat, player_id, preset, at, "
    + ", ".join(COLUMNS)
    + ") VALUES (?, ?, ?, (SELECT preset FROM tables WHERE id = ?), ?, "
    + ", ".join("?" for _ in COLUMNS)
    + ") ON CONFLICT (table_id, seat) DO UPDATE SET player_id = excluded.player_id,"
    " at = excluded.at, " + _SUMS
)


def round_record_ops(
    table_id: str,
    dealer: int,
    streak: int,
    declared: Sequence[bool],
    result: Mapping[str, Any],
    seats: Sequence[Mapping[str, Any]],
    now: float,
) -> list[Op]:
    """The derived table's update for a round just stored (in the round's own commit): each
    seat's tally added to its match row. `seats` are the stored seat rows (`tables.seats`)."""
    players = seat_players(seats)
    return [
        (_UPSERT, (table_id, s, players[s], table_id, now, *astuple(t)))
        for s, t in enumerate(round_tally(dealer, streak, declared, result))
    ]


def rebuild(conn: sqlite3.Connection, table_id: str | None = None) -> int:
    """Recompute the derived table from the stored events (every match, or one), inside the
    caller's transaction; returns the number of match rows written."""
    where, args = ("WHERE t.id = ?", (table_id,)) if table_id is not None else ("", ())
    if table_id is None:
        conn.execute("DELETE FROM records")
    else:
        conn.execute("DELETE FROM records WHERE table_id = ?", (table_id,))
    written = 0
    tables = conn.execute(f"SELECT t.id, t.preset, t.seats FROM tables t {where}", args).fetchall()
    for tid, preset, seats_json in tables:
        # Only the discards that declared ready matter: SQLite picks them out of the JSON.
        rows = conn.execute(
            "SELECT data, at, type FROM events WHERE table_id = ? AND (type IN"
            " ('round_started', 'round_ended') OR (type = 'discarded' AND"
            " json_extract(data, '$.declared'))) ORDER BY seq",
            (tid,),
        ).fetchall()
        ended = [at for _, at, kind in rows if kind == "round_ended"]
        if not ended:
            continue
        try:
            players = seat_players(json.loads(seats_json) if seats_json else None)
            tallies = match_tallies(json.loads(data) for data, _, _ in rows)
        except (ValueError, KeyError, TypeError, AttributeError, IndexError) as err:
            # Records are derived: a match whose stored events they cannot read is left out
            # (one line), never a reason to refuse an upgrade or a rebuild of the others.
            logging.getLogger("zhuoji.store").warning(
                "records: match %s left out, its stored events cannot be read (%s: %s)",
                tid,
                type(err).__name__,
                err,
                extra={"event": "records_skipped"},
            )
            continue
        conn.executemany(
            "INSERT INTO records (table_id, seat, player_id, preset, at, "
            + ", ".join(COLUMNS)
            + ") VALUES (?, ?, ?, ?, ?, "
            + ", ".join("?" for _ in COLUMNS)
            + ")",
            [(tid, s, players[s], preset, max(ended), *astuple(t)) for s, t in enumerate(tallies)],
        )
        written += 1
    return written


def record_rows(conn: sqlite3.Connection) -> list[tuple[Any, ...]]:
    """The whole derived table in key order (to compare an incremental one with a rebuilt one)."""
    return conn.execute(
        "SELECT table_id, seat, player_id, preset, at, "
        + ", ".join(COLUMNS)
        + " FROM records ORDER BY table_id, seat"
    ).fetchall()


def rebuild_all(conn: sqlite3.Connection) -> int:
    """`rebuild` of every match in one transaction of its own (`zhuoji admin rebuild-records`,
    on a writing connection in autocommit mode); returns the number of match rows written."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        matches = rebuild(conn)
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")
    return matches
