"""The players' table read back: the known player keys' digests (loaded once at start), every
player's latest name, a player found by id or name (`zhuoji stats --player`). What the server
writes of a player is a record (`PlayerJoined`, `PlayerRenamed`)."""

from __future__ import annotations

import sqlite3
from typing import Any


def known_players(db: sqlite3.Connection) -> list[tuple[str, str, str]]:
    """Every keyed player: its key digest, id and latest name."""
    rows = db.execute(
        "SELECT key_digest, id, name FROM players WHERE key_digest IS NOT NULL"
    ).fetchall()
    return [(d, i, n) for d, i, n in rows]


def player_names(db: sqlite3.Connection) -> dict[str, str]:
    """Every player's latest name, by id."""
    return {i: n for i, n in db.execute("SELECT id, name FROM players")}


def find_player(db: sqlite3.Connection, who: str) -> list[dict[str, Any]]:
    """The players `who` names: an id, else every player whose latest name it is."""
    rows = db.execute("SELECT id, name, kind FROM players WHERE id = ?", (who,)).fetchall()
    if not rows:
        rows = db.execute(
            "SELECT id, name, kind FROM players WHERE name = ? ORDER BY seen_at DESC", (who,)
        ).fetchall()
    return [{"id": i, "name": n, "kind": k} for i, n, k in rows]
