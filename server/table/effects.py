"""What a table's core asks its shell to do (`TableCore`'s outputs), in order.

`Write` stores records (nothing after it may be performed unless it succeeded); `Send` is one
frame, already projected for its viewers, to some members; `Bind`/`Unbind` a member's place at
the table (the shell keeps it for routing); `Close` a connection; `IssueToken`/`DropToken` the
server's token registry; `Accepted` a move that answered a prompt (no rate-limit token);
`Remove` the table is done; `StartRematch` open a new table for these seats. A *member* is
whatever the shell uses for a connection: hashable, only compared and handed back.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from server.storage.records import Record
from server.table.projection import Frame
from server.table.settings import Settings

M = TypeVar("M", bound=Hashable)


@dataclass(frozen=True, slots=True)
class Write:
    """Store these statements in one transaction before performing any later effect."""

    records: list[Record]


@dataclass(frozen=True, slots=True)
class Send(Generic[M]):
    """One frame (a projected dict, the same for each of them) to these members."""

    to: tuple[M, ...]
    frame: Frame


@dataclass(frozen=True, slots=True)
class Bind(Generic[M]):
    """The member is now at this table, in `seat` (None: watching)."""

    member: M
    seat: int | None


@dataclass(frozen=True, slots=True)
class Unbind(Generic[M]):
    """The member is no longer at this table."""

    member: M


@dataclass(frozen=True, slots=True)
class Close(Generic[M]):
    member: M
    code: int
    reason: str


@dataclass(frozen=True, slots=True)
class IssueToken:
    """A seat token (its `token_key`) now leads to this table."""

    key: str


@dataclass(frozen=True, slots=True)
class DropToken:
    key: str


@dataclass(frozen=True, slots=True)
class Accepted(Generic[M]):
    """The member's move answered its prompt (it does not count against its rate limit).
    `shown`: an event showed the move (a claim window's pass or held answer shows nothing,
    so the metrics do not time it)."""

    member: M
    shown: bool = True


@dataclass(frozen=True, slots=True)
class Remove:
    """The table is done: the server forgets it (its record stays in the database)."""


@dataclass(frozen=True, slots=True)
class StartRematch(Generic[M]):
    """Every player asked to play again: the server opens a new table with these `settings`
    and seats (`RematchSeat`, seats 0–3) and hands it to `TableCore.rematch`. The members are
    no longer at this table (they were unbound just before), nor are its spectators
    (`watchers`, with their names): they follow the table to its rematch and watch it there."""

    settings: Settings
    seats: tuple[RematchSeat[M], ...]
    watchers: tuple[tuple[M, str | None], ...] = ()


@dataclass(frozen=True, slots=True)
class RematchSeat(Generic[M]):
    name: str | None
    kind: str  # human | bot
    member: M | None  # a human's connection (None: it went meanwhile)
    level: str | None = None  # a bot's level: the same bot comes along


Effect = (
    Write
    | Send[Any]
    | Bind[Any]
    | Unbind[Any]
    | Close[Any]
    | IssueToken
    | DropToken
    | Accepted[Any]
    | Remove
    | StartRematch[Any]
)
