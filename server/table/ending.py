"""Between rounds, the rematch and the end of a match: the wait for `next_round`, the rematch
vote and its hand-over, the match's end, and the vote to end it together (解散).

`Ending` works on the table through `EndingTable`, the part of `TableCore` it needs.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any, Generic, Literal, Protocol, TypeVar

from pydantic import BaseModel

from protocol import codes, frames
from rules.match import Match
from server.storage.records import Record, TableEnded
from server.table.between import Between, Wait
from server.table.clock import Idleness
from server.table.effects import Accepted, Bind, RematchSeat, Send, StartRematch, Unbind, Write
from server.table.fanout import Outbox
from server.table.policies import Policies
from server.table.seams import JoiningFace, OversightFace, PlayFace
from server.table.seating import Members, Seats
from server.table.settings import Settings, Timing
from server.table.vote import EndVote

M = TypeVar("M", bound=Hashable)


class EndingTable(Protocol[M]):
    """What `Ending` reads and does of the table (`TableCore` is one)."""

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
    def policies(self) -> Policies: ...
    @property
    def s(self) -> Settings: ...
    @property
    def seats(self) -> Seats[M]: ...
    @property
    def seed(self) -> str: ...
    @property
    def timing(self) -> Timing: ...
    @property
    def vote(self) -> EndVote: ...

    # What it reads of the table's state.
    @property
    def frozen(self) -> bool: ...
    @property
    def now(self) -> float: ...
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
    ended_as: str | None
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
    def logged(self, frame: BaseModel) -> dict[str, Any]: ...
    def seat_changed(self, index: int, now: float) -> None: ...
    def seated(self, member: M, ref: str) -> int | None: ...

    # The other concerns it reaches (`seams`).
    @property
    def joining(self) -> JoiningFace[M]: ...
    @property
    def oversight(self) -> OversightFace: ...
    @property
    def play(self) -> PlayFace: ...


class Ending(Generic[M]):
    """Between rounds, the rematch and the end of one table's match."""

    def __init__(self, core: EndingTable[M]) -> None:
        self.core = core
        self.between = core.between
        self.id = core.id
        self.idle = core.idle
        self.match = core.match
        self.members = core.members
        self.outbox = core.outbox
        self.policies = core.policies
        self.s = core.s
        self.seats = core.seats
        self.seed = core.seed
        self.timing = core.timing
        self.vote = core.vote

    def ready(self, member: M, ref: str) -> None:
        """`next_round`: the seat no longer holds the next round up."""
        index = self.core.seated(member, ref)
        if index is not None and self.between.mark_ready(index):
            self.outbox.emit(Accepted(member))  # it answers the wait, as a move its prompt

    def round_over(self, now: float) -> None:
        if self.match.over:
            self.end_match("finished", now)
        else:
            self.wait_next(now)

    def wait_next(self, now: float) -> None:
        """The settlement sheet is up: wait for the players (`next_round`), at most
        `next_round_seconds`. The round starts at a tick, never inside the input that ended
        the last one (a table of bots and 托管 seats plays one round per step)."""
        self.between.begin(now, self.s.next_round_seconds)

    def _all_ready(self, now: float) -> bool:
        """Whether no seat holds up the next round (or the rematch, after the match)."""
        return self.between.all_ready(self.seats, now, playing=self.core.state == "playing")

    def _wait_state(self, now: float) -> Wait | None:
        """What `between_rounds` says now (None: no wait)."""
        if self.core.frozen:
            return None
        return self.between.wait(
            self.seats, now, round_no=self.core.round_no, state=self.core.state
        )

    def send_wait(self, to: tuple[M, ...]) -> None:
        """The wait as it stands, to these members (one who just came in)."""
        state = self._wait_state(self.core.now)
        if state is not None and to:
            self.outbox.paced(
                [Send(to, state.frame(self.id, self.core.seq, self.core.now))], event=False
            )
        ballot = self.vote.ballot(self.core.now)
        if ballot is not None and ballot.outcome == "open" and to:
            self.outbox.paced(
                [Send(to, ballot.frame(self.id, self.core.seq, self.core.now))], event=False
            )

    def wait_changed(self) -> None:
        """After every input: everyone at the table is told when the wait changed."""
        state = self._wait_state(self.core.now)
        if not self.between.changed(state):
            return
        if state is not None and self.members:
            self.outbox.paced(
                [Send(tuple(self.members), state.frame(self.id, self.core.seq, self.core.now))],
                event=False,
            )

    def rematch_vote(self, member: M) -> None:
        index = self.core.seated(member, "rematch")
        if index is None:
            return
        if self.core.state != "finished":
            self.core.error(member, codes.NOT_FINISHED, "the match is not over", "rematch")
            return
        self.between.votes.add(index)
        self.maybe_rematch()

    def maybe_rematch(self) -> None:
        """Once every player has asked (and is here), they all move to the rematch."""
        if self.core.state != "finished" or not self._all_ready(self.core.now):
            return
        # Everyone asked: they move to a new table with the same seats and settings.
        seats = self.seats.hand_over()
        for was in seats:
            if was.member is not None:
                self.members.pop(was.member, None)
                self.outbox.emit(Unbind(was.member))
        # The spectators follow the table to its rematch (issue 23: a watcher was left behind
        # on the finished table); they are welcomed there as spectators.
        watchers = tuple((m, self.members.names.get(m)) for m in self.core.spectators)
        for m, _ in watchers:
            self.core.joining.leave_place(m)
            self.outbox.emit(Unbind(m))
        self.between.votes.clear()
        self.outbox.emit(StartRematch(self.s, seats, watchers))
        self.core.oversight.remove_if_idle()

    def rematch(
        self,
        seats: list[RematchSeat[M]],
        now: float,
        *,
        watchers: tuple[tuple[M, str | None], ...] = (),
    ) -> None:
        """A new table for a rematch (`StartRematch`): the row is stored, the seats are taken
        as they were (each player gets `joined` with a new token; 托管 is off: they asked to
        play), the old table's spectators watch it (`joined` without a seat), and the match
        starts."""
        self.outbox.emit(Write([self.s.created(self.id, self.seed, self.core.wall)]))
        tokens: list[tuple[M, int, str]] = []
        for index, (seat, was) in enumerate(zip(self.seats, seats, strict=True)):
            seat.take_over(was, now)
            if was.kind == "bot":
                self.policies.seat_bot(index, was.level or "normal")
                continue
            token = self.core.joining.issue_token(seat)
            if was.member is None:
                continue  # nobody holds its token: 托管
            self.members[was.member] = index
            self.outbox.emit(Bind(was.member, index))
            tokens.append((was.member, index, token))
        for member, index, token in tokens:
            self.core.joining.welcome(member, index, token)
        for member, name in watchers:
            self.members.watch(member, name)
            self.outbox.emit(Bind(member, None))
            self.core.joining.spectators_changed(now)
            self.core.joining.welcome(member, None, None)
        self.core.play.start_match(now)

    def end_match(self, reason: Literal["finished", "abandoned", "vote"], now: float) -> None:
        """The match is over: every round played, abandoned, or ended by vote (a finished
        match for the table — the result stays up, a rematch may follow —, stored as `voted`:
        the scores so far, the round cut short counting for nothing)."""
        self.core.state = "abandoned" if reason == "abandoned" else "finished"
        self.between.end()
        if reason != "vote":
            self.vote.cancel()
        event = self.core.logged(
            frames.match_ended(
                self.id, self.core.seq + 1, self.core.scores, self.core.rounds_played, reason
            )
        )
        stored = self.core.ended_as = "voted" if reason == "vote" else self.core.state
        end = TableEnded(
            self.id, stored, list(self.core.scores), self.core.rounds_played, self.core.wall
        )
        self.core.commit([event], [end], now, round_no=0)
        # The server's bots are done and leave their seats; humans may look at the result
        # until they leave.
        for index, seat in enumerate(self.seats):
            if seat.kind == "bot" and seat.bot_here:
                seat.bot_here, seat.gone_at = False, now
                self.core.seat_changed(index, now)
        self.core.linger_until = now + self.timing.finished_linger
        self.core.oversight.remove_if_idle()

    def propose_end(self, member: M, now: float) -> None:
        index = self.core.seated(member, "propose_end")
        if index is None:
            return
        if self.core.state != "playing":
            self.core.error(
                member, codes.NOT_PLAYING, "the match is not being played", "propose_end"
            )
            return
        refusal = self.vote.propose(index, self.seats[index].player, now)
        if refusal is not None:
            self.core.error(member, *refusal, "propose_end")

    def vote_end(self, member: M, agree: bool, now: float) -> None:
        index = self.core.seated(member, "vote_end")
        if index is None:
            return
        refusal = self.vote.answer(index, agree, now) if self.core.state == "playing" else None
        if self.core.state != "playing" or refusal is not None:
            code, message = refusal or (codes.NO_VOTE, "no vote to end the match is open")
            self.core.error(member, code, message, "vote_end")

    def settle_vote(self) -> None:
        """After every input: who must agree now; the match ends if the vote passed; everyone
        at the table is told when the vote changed."""
        if self.core.state == "playing" and not self.core.frozen and not self.idle.paused:
            if self.vote.update(self.seats, self.core.now) == "passed":
                self.end_match("vote", self.core.now)
        ballot = self.vote.changed(self.core.now)
        if ballot is not None and self.members:
            frame = ballot.frame(self.id, self.core.seq, self.core.now)
            self.outbox.paced([Send(tuple(self.members), frame)], event=False)
