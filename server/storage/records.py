"""The records a table writes, one small value per kind of change. A table's core says what
happened (`Write(records)`); `server.storage.record_sql` alone knows the SQL each becomes, so
the core's tests assert on records, and no SQL lives anywhere else in the server but the store.

The times are wall-clock seconds (`time.time()`: what the records say); everything is as the
table knows it (tiles by name, seats 0-3).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class TableCreated:
    """A table opened (`create_table`, or a rematch): its settings and its match's seed."""

    id: str
    name: str
    preset: str
    options: dict[str, Any]  # the rule options that differ from the preset's
    base: int
    rounds: int
    turn_seconds: float
    bank_seconds: float
    claim_min_ms: int
    bot_delay: float | None
    next_round_seconds: float
    password_hash: str | None
    seed: str
    created_at: float


@dataclass(frozen=True, slots=True)
class MatchStarted:
    """The match started: its seats, and the digests of their tokens (so a restarted server
    knows them again; the tokens themselves are never stored)."""

    table_id: str
    seats: list[dict[str, Any]]  # name, kind, and a bot's level
    tokens: list[str | None]
    at: float


@dataclass(frozen=True, slots=True)
class SeatsChanged:
    """A started match's seats changed hands (taken back, handed on)."""

    table_id: str
    seats: list[dict[str, Any]]
    tokens: list[str | None]


@dataclass(frozen=True, slots=True)
class TokensChanged:
    """New token digests (a seat kicked: its token no longer takes it)."""

    table_id: str
    tokens: list[str | None]


@dataclass(frozen=True, slots=True)
class TableEnded:
    """The match is over: `finished`, `voted` (ended by its players' vote: 解散) or `abandoned`
    (never started, closed, frozen)."""

    table_id: str
    state: str
    scores: list[int]
    rounds_played: int
    at: float


@dataclass(frozen=True, slots=True)
class TableAbandoned:
    """The match ends as abandoned with its stored standings kept as they are: the freeze of
    a table that could not be restored, whose core never summed them."""

    table_id: str
    at: float


@dataclass(frozen=True, slots=True)
class RoundDealt:
    """A round was dealt: enough to deal it again (its seed, the hands and the wall) and its
    fair-deal commitment."""

    table_id: str
    round_no: int
    seed: str
    dealer: int
    streak: int
    base: int
    hands: list[list[str]]
    wall: list[str]
    at: float
    salt: str | None
    commitment: str | None
    weekday: int | None


@dataclass(frozen=True, slots=True)
class RoundEnded:
    """A round's settlement, and the match's running scores after it."""

    table_id: str
    round_no: int
    result: dict[str, Any]
    net: list[int]
    scores: list[int]
    at: float


@dataclass(frozen=True, slots=True)
class RoundTallied:
    """What the players' records need of a round that ended (`server.records`): its dealer and
    连庄 count, who declared ready, the settlement, and the seats with their players."""

    table_id: str
    dealer: int
    streak: int
    declared: list[bool]
    result: dict[str, Any]
    seats: list[dict[str, Any]]
    at: float


@dataclass(frozen=True, slots=True)
class ActionPlayed:
    """One move, numbered within the table's rounds (`idx`); `auto`: the server played it."""

    table_id: str
    round_no: int
    idx: int
    seat: int
    act: str
    tile: str | None  # on the seat's own turn only (a claim's tile is the discard's)
    phase: str
    auto: bool
    at: float


@dataclass(frozen=True, slots=True)
class EventLogged:
    """One numbered table event, as the log keeps it (private fields included)."""

    table_id: str
    round_no: int
    event: dict[str, Any]
    at: float


@dataclass(frozen=True, slots=True)
class PlayerJoined:
    """A player key seen for the first time (`server.players`): its digest and public id."""

    id: str
    key_digest: str
    name: str
    at: float


@dataclass(frozen=True, slots=True)
class PlayerRenamed:
    """A known player said hello with another name."""

    id: str
    name: str
    at: float


Record = (
    TableCreated
    | MatchStarted
    | SeatsChanged
    | TokensChanged
    | TableEnded
    | TableAbandoned
    | RoundDealt
    | RoundEnded
    | RoundTallied
    | ActionPlayed
    | EventLogged
    | PlayerJoined
    | PlayerRenamed
)
