"""Ending a match together (解散, issue 25 item 6): the vote as a value the table core asks, on
its injected clock (like the claim window and the wait between rounds). Not wired into the core
yet: the core is being restructured; wiring it is `propose` on a `dissolve` message, `answer` on
a `dissolve_vote`, `seat_gone` when a seat goes away past the grace, `tick` at `next_wakeup()`,
and on `PASSED` the match ends as "ended by vote" with the scores so far.

The rules: a seated player proposes; every connected human seat must agree within 30 s (the
proposer agrees by proposing; bots and seats away past the grace do not block); one refusal ends
the vote; a player proposes at most once every 5 minutes (by player id, else by seat).

>>> d = Dissolving()
>>> d.propose(0, "p-a", voters={0, 2}, now=0.0) is None
True
>>> d.answer(2, True, now=3.0)
'passed'
>>> d.propose(0, "p-a", voters={0, 2}, now=60.0)
('vote_too_soon', 'you proposed to end the match 60 s ago: again in 240 s')
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

WINDOW = 30.0  # seconds every connected human has to agree
COOLDOWN = 300.0  # seconds between two proposals of one player

Outcome = Literal["passed", "refused", "expired"]
PASSED: Outcome = "passed"
Refusal = tuple[str, str]  # an error code and its message


@dataclass
class Vote:
    """A vote in progress: who proposed, who must agree, who has, and until when."""

    proposer: int
    voters: set[int]
    until: float
    agreed: set[int] = field(default_factory=set)

    @property
    def waiting_for(self) -> set[int]:
        return self.voters - self.agreed


@dataclass
class Dissolving:
    """The table's 解散 state: the vote in progress (if any) and when each player last
    proposed one."""

    vote: Vote | None = None
    proposed_at: dict[str, float] = field(default_factory=dict)

    def propose(self, seat: int, who: str | None, voters: set[int], now: float) -> Refusal | None:
        """`seat` (player `who`, None: anonymous) proposes; `voters` are the connected human
        seats now. None if the vote opened (or passed at once: see `outcome`), else why not."""
        if self.vote is not None:
            return "vote_in_progress", "a vote to end the match is already open"
        key = who or f"seat-{seat}"
        last = self.proposed_at.get(key)
        if last is not None and now - last < COOLDOWN:
            ago, wait = int(now - last), int(COOLDOWN - (now - last) + 0.999)
            return "vote_too_soon", f"you proposed to end the match {ago} s ago: again in {wait} s"
        self.proposed_at[key] = now
        self.vote = Vote(seat, set(voters) | {seat}, now + WINDOW, {seat})
        return None

    def outcome(self) -> Outcome | None:
        """`passed` once nobody is left to agree (the vote then closes), else None."""
        if self.vote is not None and not self.vote.waiting_for:
            self.vote = None
            return PASSED
        return None

    def answer(self, seat: int, yes: bool, now: float) -> Outcome | None:
        """A voter's answer; the outcome if it decided the vote."""
        vote = self.vote
        if vote is None or seat not in vote.voters:
            return None
        if now >= vote.until:
            return self.tick(now)
        if not yes:
            self.vote = None
            return "refused"
        vote.agreed.add(seat)
        return self.outcome()

    def seat_gone(self, seat: int) -> Outcome | None:
        """A voter went away past the grace (or a bot took the seat): it no longer blocks."""
        if self.vote is not None and seat != self.vote.proposer:
            self.vote.voters.discard(seat)
        return self.outcome()

    def tick(self, now: float) -> Outcome | None:
        if self.vote is not None and now >= self.vote.until:
            self.vote = None
            return "expired"
        return None

    def next_wakeup(self) -> float | None:
        return None if self.vote is None else self.vote.until
