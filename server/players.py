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

A new key costs the server nothing until its player sits down (review: registering at every
`hello` let anyone store infinitely many keys, and kept each digest in memory before its row was
stored). `identify` answers an unknown key with an id it only *offers* (`Pending`, kept on the
connection); the row is written by `register` when that connection takes a seat, creates a
table or takes its seat back. The offered id is the key digest's HMAC under a secret this
process drew at start (`offered_id`): one key said twice, by two connections at once or an hour
apart, is offered one id, with nothing remembered for it (an LRU of offered ids used to forget
one under a flood of new keys, and two connections of one key could then be told two ids and
sit as one). Memory stays bounded: the unknown keys each address said hello with in the last
hour are remembered in an LRU (`ADDRESSES_KEEP` addresses, at most `new_per_address` keys
each); past the cap a new key gets a clear refusal and plays without an id. What stays in
memory otherwise is the stored players' digests, whose rows only seats can now add.

>>> reg = Players({}, new_per_address=2)
>>> me = reg.identify("zk1_" + "a" * 43, "阿明", 0.0, "10.0.0.7")
>>> me.player.startswith("p-"), len(me.player), me.written, me.pending is not None
(True, 14, [], True)
>>> reg.identify("zk1_" + "a" * 43, "阿明", 1.0, "10.0.0.7").player == me.player  # one id
True
>>> pid, written = reg.register(me.pending, 2.0)
>>> pid == me.player, [type(r).__name__ for r in written]
(True, ['PlayerJoined'])
>>> [(type(r).__name__, r.name) for r in reg.identify("zk1_" + "a" * 43, "Ming", 3.0).written]
[('PlayerRenamed', 'Ming')]
>>> reg.identify("zk1_" + "b" * 43, "b", 4.0, "10.0.0.7").refused is None
True
>>> print(reg.identify("zk1_" + "c" * 43, "c", 5.0, "10.0.0.7").refused.split(":")[0])
your address said hello with 2 new player keys in the last hour (the server's limit)
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

from server.storage.records import PlayerJoined, PlayerRenamed, Record


def key_digest(key: str) -> str:
    """What the server keeps of a player key: its SHA-256 digest (hex)."""
    return hashlib.sha256(key.encode()).hexdigest()


def offered_id(secret: bytes, digest: str) -> str:
    """The id offered to an unknown key (its digest) by a process that drew `secret`: the same
    for every `hello` with that key, unlinkable to its id on another server or run."""
    return "p-" + hmac.new(secret, digest.encode(), hashlib.sha256).hexdigest()[:12]


NEW_KEYS_WINDOW = 3600.0  # seconds: the unknown keys an address said hello with are counted over it
ADDRESSES_KEEP = 4096  # addresses whose new keys are counted at most (the quietest forgotten)


@dataclass
class Known:
    id: str
    name: str


@dataclass(frozen=True, slots=True)
class Pending:
    """An unknown key's offered id: stored (`Players.register`) once its player sits down."""

    digest: str
    id: str
    name: str


@dataclass(frozen=True, slots=True)
class Identity:
    """What `hello` learns of a player key: the id to tell (None: refused, with `refused` the
    reason), what to write now (a known player's new name), and for a new key the registration
    that waits for a seat."""

    player: str | None
    written: list[Record] = field(default_factory=list)
    pending: Pending | None = None
    refused: str | None = None


class Players:
    """The players the server knows, by key digest (loaded once at start; every change is
    written by the caller through the store with the records `identify` and `register`
    return). `new_per_address` caps the unknown keys one address may say hello with in an hour
    (0: no cap; the caller passes no address for the exempt ones)."""

    def __init__(
        self,
        known: dict[str, Known],
        *,
        new_per_address: int = 0,
        window: float = NEW_KEYS_WINDOW,
        addresses: int = ADDRESSES_KEEP,
    ) -> None:
        self.by_digest = known
        self.new_per_address = new_per_address
        self.window = window
        self.addresses = addresses
        self.secret = secrets.token_bytes(32)  # the offered ids' (`offered_id`)
        self.fresh: OrderedDict[str, dict[str, float]] = OrderedDict()  # address → digest → when

    @classmethod
    def load(cls, known: list[tuple[str, str, str]], **limits: Any) -> Players:
        """From the stored players (`server.storage.players.known_players`: digest, id, name)."""
        return cls({d: Known(i, n) for d, i, n in known}, **limits)

    def identify(self, key: str, name: str, now: float, address: str | None = None) -> Identity:
        """Who `key` is: a known player (and their new name to write), or a new key's offered
        id, or a refusal when `address` said hello with too many new keys lately."""
        digest = key_digest(key)
        known = self.by_digest.get(digest)
        if known is not None:
            if known.name == name:
                return Identity(known.id)
            known.name = name
            return Identity(known.id, [PlayerRenamed(known.id, name, now)])
        if address is not None and not self._count(address, digest, now):
            cap = self.new_per_address
            return Identity(
                None,
                refused=f"your address said hello with {cap} new player keys in the last hour"
                " (the server's limit): you play without a player id until one of them is known"
                " here",
            )
        pid = offered_id(self.secret, digest)
        return Identity(pid, pending=Pending(digest, pid, name))

    def _count(self, address: str, digest: str, now: float) -> bool:
        """Count a new key said hello with from `address`; False if over the cap."""
        if self.new_per_address <= 0:
            return True
        seen = self.fresh.pop(address, {})
        for d, at in list(seen.items()):
            if at + self.window <= now:
                del seen[d]
        allowed = digest in seen or len(seen) < self.new_per_address
        if allowed:
            seen.setdefault(digest, now)
        if seen:
            self.fresh[address] = seen  # the most recent last
        while len(self.fresh) > self.addresses:
            self.fresh.popitem(last=False)
        return allowed

    def register(self, pending: Pending, now: float) -> tuple[str, list[Record]]:
        """A new key's player sat down: their row is written (or, if the key was stored since
        by another connection, that player's id)."""
        known = self.by_digest.get(pending.digest)
        if known is not None:
            return known.id, []
        self.by_digest[pending.digest] = Known(pending.id, pending.name)
        return pending.id, [PlayerJoined(pending.id, pending.digest, pending.name, now)]
