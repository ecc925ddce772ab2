"""Between rounds, and the rematch vote, as a value on an injected clock.

While the settlement sheet is up the next round waits until no seat holds it up or
`next_round_seconds` have passed (0: no limit). A seat holds it up only if a player is at it
and has not sent `next_round`; bots, 托管 seats and players away longer than the grace never
do. After the match, a rematch starts once every player has asked for it (and is there).
`Wait` is what the `between_rounds` frame says; the core sends it when it changes.

>>> b = Between(grace=20.0)
>>> b.begin(now=100.0, limit=30.0); b.next_round_at
130.0
>>> from types import SimpleNamespace as Seat
>>> player = Seat(kind="human", member="conn", auto=False, gone_at=None)
>>> bot = Seat(kind="bot", member=None, auto=False, gone_at=None)
>>> seats = [player, bot, bot, bot]
>>> b.all_ready(seats, now=101.0, playing=True), b.due(seats, now=101.0)
(False, False)
>>> b.mark_ready(0), b.due(seats, now=101.0)
(True, True)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol

from protocol import frames
from protocol.messages import BetweenRounds
from server.table.clock import EARLY


class Seated(Protocol):
    """What readiness reads of a seat (`core.SeatState` is one)."""

    @property
    def kind(self) -> str: ...

    @property
    def member(self) -> object | None: ...

    @property
    def auto(self) -> bool: ...

    @property
    def gone_at(self) -> float | None: ...


@dataclass(frozen=True, slots=True)
class Wait:
    """What `between_rounds` says: the round to come (1 for a rematch), which seats let it
    start, when it starts anyway (None: no limit), and whether it is the rematch vote."""

    round_no: int
    ready: tuple[bool, ...]
    deadline: float | None
    rematch: bool

    def frame(self, table: str, seq: int, now: float) -> BetweenRounds:
        """The `between_rounds` frame at `now` (`seq`: the table's latest; its time left in
        milliseconds, never below nothing).

        >>> Wait(3, (True, False, True, True), 130.0, False).frame("7", 41, 100.5).deadline_ms
        29500
        """
        left = None if self.deadline is None else max(0, int((self.deadline - now) * 1000))
        return frames.between_rounds(table, seq, self.round_no, self.ready, left, self.rematch)


@dataclass(slots=True)
class Between:
    grace: float  # how long an away player still holds the round up
    active: bool = False  # the settlement sheet is up (a match being played)
    next_round_at: float | None = None  # when the round starts anyway (None: no limit)
    ready_seats: set[int] = field(default_factory=set)  # sent `next_round`
    votes: set[int] = field(default_factory=set)  # asked for a rematch
    sent: Wait | None = None  # the last wait announced

    def begin(self, now: float, limit: float) -> None:
        """A round ended (not the last): wait at most `limit` seconds (0: no limit)."""
        self.active = True
        self.next_round_at = now + limit if limit > 0 else None
        self.ready_seats.clear()

    def end(self) -> None:
        self.active, self.next_round_at = False, None

    def mark_ready(self, seat: int) -> bool:
        """The seat sent `next_round`; whether that is news."""
        if not self.active or seat in self.ready_seats:
            return False
        self.ready_seats.add(seat)
        return True

    def ready(self, index: int, seat: Seated, now: float, *, playing: bool) -> bool:
        """Whether seat `index` lets the next round (`playing`) or the rematch start."""
        if seat.kind != "human":
            return True
        if not playing:  # the rematch: each player asks for it
            return index in self.votes and seat.member is not None
        if seat.auto:
            return True
        if seat.member is None:
            gone = seat.gone_at
            return gone is None or gone + self.grace <= now + EARLY
        return index in self.ready_seats

    def all_ready(self, seats: Sequence[Seated], now: float, *, playing: bool) -> bool:
        return all(self.ready(i, s, now, playing=playing) for i, s in enumerate(seats))

    def due(self, seats: Sequence[Seated], now: float) -> bool:
        """Whether the next round starts at `now`."""
        if not self.active:
            return False
        at = self.next_round_at
        return (at is not None and at <= now + EARLY) or self.all_ready(seats, now, playing=True)

    def wakeups(self, seats: Sequence[Seated], now: float) -> list[float]:
        """When the wait may end by itself: its limit, at once if nobody holds it up, and
        when each away player stops holding it up."""
        if not self.active:
            return []
        times = [] if self.next_round_at is None else [self.next_round_at]
        if self.all_ready(seats, now, playing=True):
            times.append(now)
        for seat in seats:
            if seat.kind == "human" and seat.member is None and seat.gone_at is not None:
                at = seat.gone_at + self.grace
                if at > now + EARLY:
                    times.append(at)
        return times

    def wait(
        self, seats: Sequence[Seated], now: float, *, round_no: int, state: str
    ) -> Wait | None:
        """What `between_rounds` says now at a table in `state` (None: no wait)."""
        if state == "playing" and self.active:
            ready = tuple(self.ready(i, s, now, playing=True) for i, s in enumerate(seats))
            return Wait(round_no + 1, ready, self.next_round_at, False)
        if state == "finished" and self.votes:
            ready = tuple(self.ready(i, s, now, playing=False) for i, s in enumerate(seats))
            return Wait(1, ready, None, True)
        return None

    def changed(self, wait: Wait | None) -> bool:
        """Whether `wait` differs from the last one announced (it is then the last)."""
        if wait == self.sent:
            return False
        self.sent = wait
        return True

    def shift(self, seconds: float) -> None:
        if self.next_round_at is not None:
            self.next_round_at += seconds
