"""What the table's concerns ask of each other, as protocols.

`TableCore` coordinates a table through four concerns, each a small class in its own module:
the round's moves and claim window (`play.Play`), who is at the table and in which seat
(`joining.Joining`), between rounds, the rematch and the end of a match (`ending.Ending`), and
the table stopped, closed, kicked, idle or restarted (`oversight.Oversight`). Each is given the
core as the protocol of exactly what it reads and does there (its own module's `…Table`); when one
concern needs another, it reaches it through the core by the face below, never by importing it,
so the concerns import none of each other and this module is all they share.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Literal, Protocol, TypeVar

from rules.round import Phase
from server.table.seating import SeatState

M = TypeVar("M", bound=Hashable)
M_contra = TypeVar("M_contra", bound=Hashable, contravariant=True)

MatchEnd = Literal["finished", "abandoned", "vote"]


class PlayFace(Protocol):
    """The round as the other concerns move it (`play.Play`)."""

    def start_match(self, now: float) -> None: ...
    def start_round(self, now: float) -> None: ...
    def advance(self, now: float) -> None: ...
    def asked(self) -> list[int]: ...
    def send_prompts(self, now: float, *, resend: int | None = None) -> None: ...


class JoiningFace(Protocol[M]):
    """Seats and members as the other concerns change them (`joining.Joining`)."""

    def issue_token(self, seat: SeatState[M]) -> str: ...
    def drop_token(self, seat: SeatState[M]) -> None: ...
    def welcome(self, member: M, seat: int | None, token: str | None) -> None: ...
    def leave_place(self, member: M) -> None: ...
    def free_reservation(self, index: int, now: float) -> None: ...
    def spectators_changed(self, now: float) -> None: ...


class EndingFace(Protocol[M_contra]):
    """A round's and a match's end as the other concerns reach them (`ending.Ending`)."""

    def round_over(self, now: float) -> None: ...
    def wait_next(self, now: float) -> None: ...
    def send_wait(self, to: tuple[M_contra, ...]) -> None: ...
    def maybe_rematch(self) -> None: ...
    def end_match(self, reason: MatchEnd, now: float) -> None: ...


class OversightFace(Protocol):
    """The table's life as the other concerns end or wake it (`oversight.Oversight`)."""

    def remove_if_idle(self, *, force: bool = False) -> None: ...
    def wake(self, now: float) -> None: ...
    def close_waiting(self, now: float, why: str) -> None: ...


WINDOW_PHASES = (Phase.CLAIM, Phase.ROB)  # a claim window (after a discard, or a 补杠: 抢杠)
FROZEN = "this table stopped after a server fault"
