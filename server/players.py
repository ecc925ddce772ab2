"""Who a player is: a player key, not a name.

The client makes a random player key once (`client_tui.player_key`: 32 random bytes, written
`zk1_…`) and sends it with every `hello`. The server keeps only its SHA-256 digest and gives the
player a stable public id (`p-` and 12 hex digits): the name a player says hello with may change
from one evening to the next, the id does not. The key is what proves that a returning player is
the same player (records now; an away seat's owner later).

Why a plain SHA-256 and not a slow password hash: the key has 256 bits of entropy, so nobody can
guess one from its digest however fast the hash is (a slow hash only helps a low-entropy secret,
a password or a PIN), and a fast digest lets `hello` find the player in a dict without spending
CPU on the event loop. The database, a backup or a log never holds a key.

The server's bots are players too, one id per level (`bot-easy`, `bot-normal`, `bot-strong`;
`server.records.bot_player_id`).

>>> import hashlib
>>> reg = Players({})
>>> pid, ops = reg.identify("zk1_" + "a" * 43, "阿明", 0.0)
>>> pid.startswith("p-"), len(pid), len(ops)
(True, 14, 1)
>>> reg.identify("zk1_" + "a" * 43, "阿明", 1.0) == (pid, [])
True
>>> reg.identify("zk1_" + "a" * 43, "Ming", 2.0)[1][0][0].startswith("UPDATE")
True
"""

from __future__ import annotations

import hashlib
import secrets
import sqlite3
from dataclasses import dataclass
from typing import Any

from server.records import Op


def key_digest(key: str) -> str:
    """What the server keeps of a player key: its SHA-256 digest (hex)."""
    return hashlib.sha256(key.encode()).hexdigest()


def new_player_id() -> str:
    return "p-" + secrets.token_hex(6)


@dataclass
class Known:
    id: str
    name: str


class Players:
    """The players the server knows, by key digest (loaded once at start; every change is
    written by the caller through the store with the ops `identify` returns)."""

    def __init__(self, known: dict[str, Known]) -> None:
        self.by_digest = known

    @classmethod
    def load(cls, db: sqlite3.Connection) -> Players:
        rows = db.execute(
            "SELECT key_digest, id, name FROM players WHERE key_digest IS NOT NULL"
        ).fetchall()
        return cls({d: Known(i, n) for d, i, n in rows})

    def identify(self, key: str, name: str, now: float) -> tuple[str, list[Op]]:
        """The player id of `key` (a new player the first time it is seen), and what to write:
        the new player's row, or its new name, or nothing."""
        digest = key_digest(key)
        known = self.by_digest.get(digest)
        if known is None:
            pid = new_player_id()
            self.by_digest[digest] = Known(pid, name)
            return pid, [
                (
                    "INSERT INTO players (id, key_digest, name, kind, created_at, seen_at)"
                    " VALUES (?, ?, ?, 'human', ?, ?)",
                    (pid, digest, name, now, now),
                )
            ]
        if known.name == name:
            return known.id, []
        known.name = name
        return known.id, [
            ("UPDATE players SET name = ?, seen_at = ? WHERE id = ?", (name, now, known.id))
        ]


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
