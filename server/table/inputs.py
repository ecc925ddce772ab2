"""What a table's shell is told (`Table.post`): one small value per kind of input, matched by
the shell's task (`match`), each handed to the core with the time.

A *member* is the shell's connection type (`server.conn.Conn`); the inputs only carry it.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Generic, TypeVar

from protocol.messages import (
    Act,
    AddBot,
    Auto,
    HandSeat,
    NextRound,
    ProposeEnd,
    Rematch,
    RemoveBot,
    Start,
    Sync,
    TakeSeat,
    VoteEnd,
    Watch,
)
from server.table.effects import RematchSeat

M = TypeVar("M", bound=Hashable)

# The messages a member sends to its table (routed by the server to `Command`).
TableCommand = (
    Act
    | AddBot
    | Auto
    | HandSeat
    | NextRound
    | Rematch
    | RemoveBot
    | Start
    | Sync
    | ProposeEnd
    | VoteEnd
)


@dataclass(frozen=True, slots=True)
class Create(Generic[M]):
    """The member created the table: it takes seat 0."""

    member: M


@dataclass(frozen=True, slots=True)
class Join(Generic[M]):
    """`take_seat` or `watch`; `password_ok`: the table's password was given (or it has none),
    checked by the server on a thread before (`server.password_gate`)."""

    member: M
    msg: TakeSeat | Watch
    password_ok: bool


@dataclass(frozen=True, slots=True)
class Resume(Generic[M]):
    """A seat's token came back in a `hello` (`key` is its `token_key`)."""

    member: M
    key: str
    token: str
    last_seq: int | None


@dataclass(frozen=True, slots=True)
class Gone(Generic[M]):
    """The member's connection closed."""

    member: M


@dataclass(frozen=True, slots=True)
class Leave(Generic[M]):
    """The member asked to leave the table."""

    member: M


@dataclass(frozen=True, slots=True)
class Command(Generic[M]):
    """A table command; `received` is when its frame arrived (loop time: a move's latency)."""

    member: M
    msg: TableCommand
    received: float


@dataclass(frozen=True, slots=True)
class OpenRematch(Generic[M]):
    """This new table is a rematch of another's seats (`StartRematch`), watched by the old
    table's spectators (`watchers`, with their names)."""

    seats: tuple[RematchSeat[M], ...]
    watchers: tuple[tuple[M, str | None], ...] = ()


@dataclass(frozen=True, slots=True)
class Tick:
    """The timer for the core's `next_wakeup` fired."""


@dataclass(frozen=True, slots=True)
class Resumed:
    """The table was rebuilt after a restart: the match goes on."""


@dataclass(frozen=True, slots=True)
class Freeze:
    """The table could not be rebuilt: it is frozen, its record kept."""


@dataclass(frozen=True, slots=True)
class HostClose:
    """`zhuoji admin close`; `done` is called once it is performed."""

    done: Callable[[], None]


@dataclass(frozen=True, slots=True)
class HostKick:
    """`zhuoji admin kick` of `seat`; `done` is called once it is performed."""

    seat: int
    done: Callable[[], None]


@dataclass(frozen=True, slots=True)
class Stop:
    """The server forgot the table: its task ends."""


Input = (
    Create[M]
    | Join[M]
    | Resume[M]
    | Gone[M]
    | Leave[M]
    | Command[M]
    | OpenRematch[M]
    | Tick
    | Resumed
    | Freeze
    | HostClose
    | HostKick
    | Stop
)
