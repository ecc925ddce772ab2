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
>>> pid, written = reg.identify("zk1_" + "a" * 43, "阿明", 0.0)
>>> pid.startswith("p-"), len(pid), [type(r).__name__ for r in written]
(True, 14, ['PlayerJoined'])
>>> reg.identify("zk1_" + "a" * 43, "阿明", 1.0) == (pid, [])
True
>>> [(type(r).__name__, r.name) for r in reg.identify("zk1_" + "a" * 43, "Ming", 2.0)[1]]
[('PlayerRenamed', 'Ming')]
"""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass

from server.storage.records import PlayerJoined, PlayerRenamed, Record


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
    def load(cls, known: list[tuple[str, str, str]]) -> Players:
        """From the stored players (`server.storage.players.known_players`: digest, id, name)."""
        return cls({d: Known(i, n) for d, i, n in known})

    def identify(self, key: str, name: str, now: float) -> tuple[str, list[Record]]:
        """The player id of `key` (a new player the first time it is seen), and what to write:
        the new player, or its new name, or nothing."""
        digest = key_digest(key)
        known = self.by_digest.get(digest)
        if known is None:
            pid = new_player_id()
            self.by_digest[digest] = Known(pid, name)
            return pid, [PlayerJoined(pid, digest, name, now)]
        if known.name == name:
            return known.id, []
        known.name = name
        return known.id, [PlayerRenamed(known.id, name, now)]
