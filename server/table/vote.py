"""Ending a match together (解散, issue 25 item 6): the vote as a value on the table's injected
clock, like the claim window and the wait between rounds. It never reads a clock nor calls back
into the core: the core tells it the seats and the time after every input (`update`) and sends
what `ballot` says whenever it changed (`changed`).

The rules. A seated player proposes (`propose_end`) while the match is played, between rounds
included; the proposer agrees by proposing. Every connected human seat must agree (`vote_end`)
within `WINDOW` seconds. Who must agree is read again at every update, not fixed at the
proposal: a bot never blocks, a player who left (`leave`: 托管) or whose connection dropped
longer ago than the disconnect grace no longer blocks, and a player who comes back blocks again
until they agree. One refusal ends the vote; so does the window running out. A player proposes
at most once every `COOLDOWN` seconds (by player id, else by seat), whatever became of the vote.
Once nobody is left to agree the vote has passed: the core ends the match as "ended by vote"
with the scores so far (the round in play, if any, is cut short and counts for nothing).

>>> from types import SimpleNamespace as Seat
>>> me = Seat(kind="human", member="a", away=False, gone_at=None)
>>> friend = Seat(kind="human", member="b", away=False, gone_at=None)
>>> bot = Seat(kind="bot", member=None, away=False, gone_at=None)
>>> v = EndVote(grace=20.0)
>>> v.propose(0, "p-a", now=0.0) is None, v.update([me, friend, bot, bot], now=0.0)
(True, None)
>>> v.ballot(now=0.0).voters, v.ballot(now=0.0).agreed
((True, True, False, False), (True, False, False, False))
>>> v.answer(1, True, now=3.0) is None, v.update([me, friend, bot, bot], now=3.0)
(True, 'passed')
>>> v.propose(0, "p-a", now=60.0)
('vote_too_soon', 'you proposed to end the match 60 s ago: again in 240 s')
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal, Protocol

from protocol import frames
from protocol.messages import EndVote as EndVoteFrame
from server.table.clock import EARLY

WINDOW = 30.0  # seconds every connected human has to agree
COOLDOWN = 300.0  # seconds between two proposals of one player

Outcome = Literal["passed", "refused", "expired"]
Refusal = tuple[str, str]  # an error code and its message

# Error codes (protocol.codes re-exports them).
VOTE_IN_PROGRESS = "vote_in_progress"
VOTE_TOO_SOON = "vote_too_soon"
NO_VOTE = "no_vote"


class Voter(Protocol):
    """What the vote reads of a seat (`core.SeatState` is one)."""

    @property
    def kind(self) -> str: ...

    @property
    def member(self) -> object | None: ...

    @property
    def away(self) -> bool: ...

    @property
    def gone_at(self) -> float | None: ...


def blocks(seat: Voter, now: float, grace: float) -> bool:
    """Whether the seat's player must agree: a human connected, or whose connection dropped
    less than `grace` ago (they may be back in time). Not a bot, not a player who left."""
    if seat.kind != "human":
        return False
    if seat.member is not None:
        return True
    gone = seat.gone_at
    return seat.away and gone is not None and gone + grace > now + EARLY


@dataclass(frozen=True, slots=True)
class Ballot:
    """What the `end_vote` frame says: who proposed, whose agreement is needed now, who has
    agreed, until when (open only), and how it stands (`refused_by`: the seat that refused)."""

    proposer: int
    voters: tuple[bool, ...]
    agreed: tuple[bool, ...]
    until: float | None
    outcome: Literal["open", "passed", "refused", "expired"]
    refused_by: int | None = None

    def frame(self, table: str, seq: int, now: float) -> EndVoteFrame:
        """The `end_vote` frame at `now` (`seq`: the table's latest; the time left in
        milliseconds, never below nothing).

        >>> Ballot(0, (True,) * 4, (True,) + (False,) * 3, 130.0, "open").frame("7", 9, 100.5).deadline_ms
        29500
        """
        left = None if self.until is None else max(0, int((self.until - now) * 1000))
        return frames.end_vote(
            table,
            seq,
            self.proposer,
            self.voters,
            self.agreed,
            left,
            self.outcome,
            self.refused_by,
        )


@dataclass(slots=True)
class _Open:
    proposer: int
    until: float
    agreed: set[int]
    voters: set[int] = field(default_factory=set)  # as of the last update


@dataclass(slots=True)
class EndVote:
    """A table's 解散 state: the vote open (if any), its last result to announce, and when each
    player last proposed one."""

    grace: float  # how long a dropped player still must agree
    vote: _Open | None = None
    result: Ballot | None = None  # how the last vote ended (announced once)
    proposed_at: dict[str, float] = field(default_factory=dict)
    sent: Ballot | None = None  # the last ballot announced

    @property
    def open(self) -> bool:
        return self.vote is not None

    def propose(self, seat: int, who: str | None, now: float) -> Refusal | None:
        """`seat` (player `who`; None: a seat without a player key) proposes; None if the vote
        opened (it may pass at the next `update`: nobody else to ask), else why not."""
        if self.vote is not None:
            return VOTE_IN_PROGRESS, "a vote to end the match is already open: answer it"
        key = who or f"seat-{seat}"
        last = self.proposed_at.get(key)
        if last is not None and now - last < COOLDOWN - EARLY:
            ago, wait = int(now - last), int(COOLDOWN - (now - last) + 0.999)
            return VOTE_TOO_SOON, f"you proposed to end the match {ago} s ago: again in {wait} s"
        self.proposed_at[key] = now
        self.vote = _Open(seat, now + WINDOW, {seat})
        self.result = None
        return None

    def answer(self, seat: int, agree: bool, now: float) -> Refusal | None:
        """A seated player's answer (None: taken; it decides at the next `update`). Anyone
        seated at a human seat may answer: a player who came back is asked like the others."""
        vote = self.vote
        if vote is None or vote.until <= now + EARLY:
            return NO_VOTE, "no vote to end the match is open"
        if agree:
            vote.agreed.add(seat)
        else:
            self._close("refused", now, refused_by=seat)
        return None

    def reseated(self, seat: int) -> None:
        """`seat` has a new player (handed by the creator): what its last player agreed to is
        not theirs, so they are asked afresh."""
        if self.vote is not None:
            self.vote.agreed.discard(seat)

    def update(self, seats: Sequence[Voter], now: float) -> Outcome | None:
        """After every input: who must agree now; the outcome if the vote ended by it."""
        vote = self.vote
        if vote is None:
            return None
        vote.voters = {i for i, s in enumerate(seats) if blocks(s, now, self.grace)}
        vote.voters.add(vote.proposer)
        if vote.voters <= vote.agreed:
            self._close("passed", now)
            return "passed"
        if vote.until <= now + EARLY:
            self._close("expired", now)
            return "expired"
        return None

    def _close(
        self,
        outcome: Literal["passed", "refused", "expired"],
        now: float,
        *,
        refused_by: int | None = None,
    ) -> None:
        vote = self.vote
        assert vote is not None
        self.result = Ballot(
            vote.proposer,
            _flags(vote.voters),
            _flags(vote.agreed & vote.voters if outcome == "passed" else vote.agreed),
            None,
            outcome,
            refused_by,
        )
        self.vote = None

    def cancel(self) -> None:
        """The match ended otherwise (its last round, a close): the vote is moot, unannounced."""
        self.vote = self.result = None

    def ballot(self, now: float) -> Ballot | None:
        """The vote as it stands (open), else how the last one ended (until announced)."""
        vote = self.vote
        if vote is None:
            return self.result
        return Ballot(vote.proposer, _flags(vote.voters), _flags(vote.agreed), vote.until, "open")

    def changed(self, now: float) -> Ballot | None:
        """The ballot to announce to everyone, if it changed since the last one (a closed
        vote's result is announced once, then forgotten)."""
        ballot = self.ballot(now)
        if ballot == self.sent:
            return None
        self.sent = ballot
        if self.vote is None:
            self.result = None
        return ballot

    def wakeups(self, seats: Sequence[Voter], now: float) -> list[float]:
        """When the vote may end by itself: its deadline, and when each dropped player stops
        having to agree."""
        vote = self.vote
        if vote is None:
            return []
        times = [vote.until]
        for i in vote.voters - vote.agreed:
            gone = seats[i].gone_at
            if seats[i].member is None and gone is not None and gone + self.grace > now + EARLY:
                times.append(gone + self.grace)
        return times

    def shift(self, seconds: float) -> None:
        """Nobody's clock ran for `seconds` (a pause): the deadline moves on by as much."""
        if self.vote is not None:
            self.vote.until += seconds


def _flags(seats: set[int]) -> tuple[bool, ...]:
    return tuple(i in seats for i in range(4))
