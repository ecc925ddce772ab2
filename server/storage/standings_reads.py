"""The reads the standings make (`server.standings`): the players, the ended matches and the sums
of the derived `records` table, over a period and a preset. The arithmetic (placements, ratings)
is `server.standings`; the SQL is here."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from server.records import COLUMNS, Tally

Connection = sqlite3.Connection
"""A connection to a database file (read-only is enough): what the standings read through."""

ENDED = (
    "state IN ('finished', 'abandoned', 'voted') AND started_at IS NOT NULL AND seats IS NOT NULL"
)
"""A started match that ended."""

_AGG = ", ".join(f"MAX({c})" if c in Tally.MAXED else f"SUM({c})" for c in COLUMNS)


def connect_read_only(db: str | Path) -> Connection:
    """A read-only connection to the file at `db` (WAL mode: beside a serving writer)."""
    return sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=30)


def keeps_records(conn: Connection) -> bool:
    """Whether the file has the players' and records' tables (a file from before schema
    version 3 has not, until a server of this version opens it)."""
    have = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    return {"records", "players"} <= have


def file_of(conn: Connection) -> str:
    """The file `conn` reads ("" for a database in memory)."""
    return next((row[2] for row in conn.execute("PRAGMA database_list") if row[1] == "main"), "")


def players(conn: Connection) -> list[tuple[str, str, str]]:
    """Every player: id, latest name, kind."""
    return [(i, n, k) for i, n, k in conn.execute("SELECT id, name, kind FROM players")]


def ended_state(conn: Connection) -> tuple[int, float | None]:
    """How many matches have ended, and the latest end."""
    row = conn.execute(f"SELECT COUNT(*), MAX(ended_at) FROM tables WHERE {ENDED}").fetchone()
    return int(row[0]), row[1]


def _since(since: float | None) -> tuple[str, tuple[Any, ...]]:
    return ("", ()) if since is None else (" AND ended_at >= ?", (since,))


def ended_seats(conn: Connection, since: float | None) -> list[tuple[str, int, str | None]]:
    """Who held each seat (the derived table's `player_id`) of the matches that ended at or
    after `since`: table, seat, player."""
    after, args = _since(since)
    return conn.execute(
        "SELECT table_id, seat, player_id FROM records WHERE table_id IN"
        f" (SELECT id FROM tables WHERE {ENDED}{after})",
        args,
    ).fetchall()


def ended_matches(conn: Connection, since: float | None) -> list[tuple[Any, ...]]:
    """The matches that ended at or after `since`, in the order they ended: id, name, preset,
    state, ended_at, rounds_played, seats (JSON), scores (JSON)."""
    after, args = _since(since)
    return conn.execute(
        "SELECT id, name, preset, state, ended_at, rounds_played, seats, scores FROM tables"
        f" WHERE {ENDED}{after} ORDER BY ended_at, CAST(id AS INTEGER), id",
        args,
    ).fetchall()


def _filters(since: float | None, preset: str | None) -> tuple[str, list[Any]]:
    where: list[str] = ["player_id IS NOT NULL"]
    args: list[Any] = []
    if since is not None:
        where.append("at >= ?")
        args.append(since)
    if preset is not None:
        where.append("preset = ?")
        args.append(preset)
    return " AND ".join(where), args


def sums(
    conn: Connection, since: float | None, preset: str | None, player: str | None = None
) -> list[tuple[Any, ...]]:
    """Each player's sums (maxima for `Tally.MAXED`) over the derived rows counted: the player
    id, then one value per `COLUMNS`."""
    where, args = _filters(since, preset)
    if player is not None:
        where += " AND player_id = ?"
        args.append(player)
    return conn.execute(
        f"SELECT player_id, {_AGG} FROM records WHERE {where} GROUP BY player_id", args
    ).fetchall()


def latest(
    conn: Connection, pid: str, since: float | None, preset: str | None, limit: int
) -> list[tuple[str, int, int]]:
    """A player's latest `limit` match rows counted, newest first: table, seat, net."""
    where, args = _filters(since, preset)
    return conn.execute(
        f"SELECT table_id, seat, net FROM records WHERE {where} AND player_id = ?"
        " ORDER BY at DESC LIMIT ?",
        [*args, pid, limit],
    ).fetchall()
