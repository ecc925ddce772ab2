"""The table's life outside play: a restart's resumption, a freeze after a fault, the host's
close and kick, a table nobody is at pausing and waking, and a table going away.

`Oversight` works on the table through `OversightTable`, the part of `TableCore` it needs.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any, Generic, Protocol, TypeVar

from pydantic import BaseModel

from protocol import codes, frames
from rules.actions import Action
from rules.match import Match
from rules.round import Round
from server.storage.records import Record, TableAbandoned, TableEnded, TokensChanged
from server.table.between import Between
from server.table.clock import Idleness
from server.table.effects import Remove, Send, Unbind, Write
from server.table.fanout import Outbox, Pacer
from server.table.policies import Policies
from server.table.projection import ErrorItem
from server.table.seams import FROZEN, WINDOW_PHASES, EndingFace, JoiningFace, PlayFace
from server.table.seating import Members, Seats
from server.table.settings import Settings, Timing
from server.table.vote import EndVote
from server.table.window import ClaimWindow

M = TypeVar("M", bound=Hashable)


class OversightTable(Protocol[M]):
    """What `Oversight` reads and does of the table (`TableCore` is one)."""

    # The table's parts it holds (taken once, at its making).
    @property
    def between(self) -> Between: ...
    @property
    def id(self) -> str: ...
    @property
    def idle(self) -> Idleness: ...
    @property
    def match(self) -> Match: ...
    @property
    def members(self) -> Members[M]: ...
    @property
    def outbox(self) -> Outbox[M]: ...
    @property
    def pacer(self) -> Pacer[Send[M]]: ...
    @property
    def policies(self) -> Policies: ...
    @property
    def s(self) -> Settings: ...
    @property
    def seats(self) -> Seats[M]: ...
    @property
    def timing(self) -> Timing: ...
    @property
    def vote(self) -> EndVote: ...
    @property
    def window(self) -> ClaimWindow[Action]: ...

    # What it reads of the table's state.
    @property
    def creator(self) -> M | None: ...
    @property
    def keep_stored_standings(self) -> bool: ...
    @property
    def round(self) -> Round | None: ...
    @property
    def round_no(self) -> int: ...
    @property
    def rounds_played(self) -> int: ...
    @property
    def scores(self) -> list[int]: ...
    @property
    def seq(self) -> int: ...
    @property
    def spectators(self) -> list[M]: ...
    @property
    def wall(self) -> float: ...

    # What of the table's state it changes.
    frozen: bool
    linger_until: float | None
    state: str

    # What it asks of the core (its numbered events, frames and errors).
    def commit(
        self,
        events: list[dict[str, Any]],
        records: list[Record],
        now: float,
        *,
        round_no: int,
        exclude: M | None = None,
    ) -> None: ...
    def error(self, member: M, code: str, message: str, ref: str | None) -> None: ...
    def info(self) -> dict[str, Any]: ...
    def kick_problem(self, index: int) -> str | None: ...
    def logged(self, frame: BaseModel) -> dict[str, Any]: ...
    def seat_changed(self, index: int, now: float) -> None: ...

    # The other concerns it reaches (`seams`).
    @property
    def ending(self) -> EndingFace[M]: ...
    @property
    def joining(self) -> JoiningFace[M]: ...
    @property
    def play(self) -> PlayFace: ...


class Oversight(Generic[M]):
    """One table's restart, freeze, host's close and kick, idleness and removal."""

    def __init__(self, core: OversightTable[M]) -> None:
        self.core = core
        self.between = core.between
        self.id = core.id
        self.idle = core.idle
        self.match = core.match
        self.members = core.members
        self.outbox = core.outbox
        self.pacer = core.pacer
        self.policies = core.policies
        self.s = core.s
        self.seats = core.seats
        self.timing = core.timing
        self.vote = core.vote
        self.window = core.window

    def resumed(self, now: float) -> None:
        """Go on after a restart: everyone is told the seats wait, the server's bots come back
        at the next tick, and the match continues where it stood."""
        event = self.core.logged(frames.table_update(self.id, self.core.seq + 1, self.core.info()))
        self.core.commit([event], [], now, round_no=0)
        for index, seat in enumerate(self.seats):
            if seat.kind == "bot":
                seat.restored_seq = None
                seat.bot_arrives = now
                self.policies.seat_bot(index, seat.level or "normal", since=self.core.seq)
        if self.core.round is not None:
            self.core.round.hold_empty_windows = self.s.holds_claims
            if self.core.round.phase in WINDOW_PHASES:
                self.window.ran_before(now)
            if any(seat.awaits_return for seat in self.seats):
                # Nothing plays until the first player is back, or for as long as a dropped
                # player is waited for: a restart is the server's doing, and the round must not
                # move on (a window close, a bot's turn) before anyone could see it. Whether
                # the table waits depends on its seats' kinds only, never on what they hold.
                self.idle.pause(now, now + self.timing.disconnect_grace)
            self.core.play.advance(now)
        elif self.match.over:
            self.core.ending.end_match("finished", now)
        elif self.core.round_no == 0:
            self.core.play.start_round(now)
        else:
            # Between rounds: the wait begins again (the players are coming back; each is
            # waited for up to `disconnect_grace`, as ever).
            self.core.ending.wait_next(now)

    def remove_if_idle(self, *, force: bool = False) -> None:
        """A table that is not playing and has nobody at it (no human, no spectator, no player
        whose connection dropped during the match and who has not seen its end) goes away; a
        finished one goes anyway after `finished_linger` (`force`)."""
        if self.core.state == "playing" and not force:
            return
        people = any(s.kind == "human" and (s.member is not None or s.away) for s in self.seats)
        if force or not (people or self.core.spectators):
            self.core.linger_until = None
            if self.core.state == "waiting":  # never started: recorded as abandoned
                self.core.state = "abandoned"
                self.outbox.emit(
                    Write([TableEnded(self.id, "abandoned", [0] * 4, 0, self.core.wall)])
                )
            self.outbox.emit(Remove())

    def freeze(self, now: float) -> None:
        """After a broken invariant or a refused write: stop the match, keep its log, tell
        everyone. The first effect is the write of the table's end, so that the record and the
        players agree: nobody is told of an end that is not stored (if that write fails too,
        the shell sends nothing more). The core dropped the frames still waiting first."""
        self.core.frozen = True
        self.core.state = "abandoned"
        self.between.end()
        self.vote.cancel()
        end: Record = (
            TableAbandoned(self.id, self.core.wall)
            if self.core.keep_stored_standings
            else TableEnded(
                self.id,
                "abandoned",
                list(self.core.scores),
                self.core.rounds_played,
                self.core.wall,
            )
        )
        self.outbox.emit(Write([end]))
        for member, viewer in list(self.members.items()):
            error = ErrorItem(codes.TABLE_FROZEN, FROZEN, None, self.id, self.core.seq)
            self.outbox.view(member, viewer, error)
        event = self.core.logged(
            frames.match_ended(
                self.id, self.core.seq + 1, self.core.scores, self.core.rounds_played, "abandoned"
            )
        )
        self.outbox.broadcast(event, self.members, stored=False)  # unlogged: with the errors
        self.core.linger_until = now + self.timing.finished_linger

    def stands_idle(self, now: float) -> bool:
        """Whether the table is paused for want of anyone connected (it may close here)."""
        if self.core.state != "playing":
            return False
        verdict = self.idle.check(now)
        if verdict == "close":
            self.core.ending.end_match("abandoned", now)
        elif verdict == "resume":
            self.wake(now)
            return False
        return verdict != "running"

    def wake(self, now: float) -> None:
        """Someone is back: a paused table goes on, every clock as it stood at the pause."""
        paused = self.idle.wake(now)
        if paused:
            self._shift(paused)

    def _shift(self, seconds: float) -> None:
        """Push every deadline standing `seconds` later (the time nobody's clock ran)."""
        self.seats.shift(seconds, arrivals=True)
        self.between.shift(seconds)
        self.vote.shift(seconds)
        self.pacer.hold_until += seconds

    def close_waiting(self, now: float, why: str) -> None:
        """A table that never started closes: everyone at it is told and it is removed (once
        what it still has to say is out)."""
        for member in list(self.members):
            self.core.error(member, codes.TABLE_CLOSED, why, None)
        for seat in self.seats:
            self.core.joining.drop_token(seat)
        self.core.state = "abandoned"
        self.outbox.emit(Write([TableEnded(self.id, "abandoned", [0] * 4, 0, self.core.wall)]))
        self.core.linger_until = now

    def close_by_host(self, now: float) -> None:
        """`zhuoji admin close`: the match ends as abandoned (stored, then everyone is told:
        an `error` `table_closed` and `match_ended`), and the table is removed."""
        why = "the server's host closed this table"
        if self.core.state == "waiting":
            self.close_waiting(now, why)
        elif self.core.state == "playing" and not self.core.frozen:
            for member in list(self.members):
                self.core.error(member, codes.TABLE_CLOSED, why, None)
            self.idle.paused_at = None
            self.core.ending.end_match("abandoned", now)
            self.core.linger_until = now
        else:
            self.core.linger_until = now

    def kick(self, index: int, now: float) -> None:
        """`zhuoji admin kick`: the player in seat `index` is told and sent away, and their
        token no longer takes the seat back. Before the start the seat is freed (the creator
        kicked closes the table); during a match it is played by the server (托管)."""
        if self.core.kick_problem(index) is not None:
            return
        seat = self.seats[index]
        member = seat.member
        if member is not None:
            self.core.error(
                member, codes.KICKED, f"the server's host removed you from seat {index}", None
            )
            self.outbox.to(member, frames.left(self.id))
            self.members.pop(member, None)
            self.outbox.emit(Unbind(member))
            seat.member = None
        if self.core.state == "waiting":
            if member is not None and member == self.core.creator:
                self.close_waiting(now, "the table's creator was removed: the table is closed")
                return
            self.core.joining.free_reservation(index, now)
            self.remove_if_idle()
            return
        self.core.joining.drop_token(seat)
        seat.kicked(now)
        self.outbox.emit(Write([TokensChanged(self.id, self.seats.token_keys())]))
        self.core.seat_changed(index, now)
        self.core.play.advance(now)
