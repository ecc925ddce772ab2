"""The claim window's minimum, as a value on an injected clock.

After a discard (or a 补杠 declaration) the window stays open `minimum` seconds from when its
event went out, whether or not anyone may claim: the round does not move before, so what a
member can ask and when the answer comes do not depend on who holds what. Answers meanwhile
are checked by the core and held here; the machine's (bots, 托管) come at the window's middle;
all are played, in the order given, when it closes. The window knows nothing of the round: the
core asks it only while the round is in a claim phase.

>>> w = ClaimWindow(minimum=0.6)
>>> w.announced(); w.holds(now=5.0), w.until   # its event waits to go out
(True, None)
>>> w.opened(now=10.0); w.middle(), w.until, w.holds(now=10.5), w.due(now=10.6)
(10.3, 10.6, True, True)
>>> w.hold(2, HeldAnswer("pass", None, 7, "claim")); [a.action for a in w.close()]
['pass']
>>> w.holds(now=10.7), w.held
(False, {})
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Generic, TypeVar

from server.table.clock import EARLY

A = TypeVar("A")


@dataclass(frozen=True, slots=True)
class HeldAnswer(Generic[A]):
    """A seat's answer, checked when it came and played when the window closes."""

    action: A
    reason: str | None  # why the server played it for the seat (None: the seat did)
    answered: int  # the decision (its seq) it answers
    phase: str  # the round's phase then (`Phase.value`)


@dataclass(slots=True)
class ClaimWindow(Generic[A]):
    minimum: float  # seconds the window stays open (0: not held)
    held: dict[int, HeldAnswer[A]] = field(default_factory=dict)  # by seat
    pending: bool = False  # the window's event waits to go out
    open_at: float | None = None  # when it went out
    until: float | None = None  # when it may close (None: not held)

    def reset(self) -> None:
        """A new round: no window."""
        self.held = {}
        self.pending, self.open_at, self.until = False, None, None

    def announced(self) -> None:
        """The window's event is made; its minimum runs once it goes out (`opened`)."""
        self.pending, self.open_at, self.until = True, None, None

    def opened(self, now: float) -> None:
        """Its event went out at `now`."""
        self.pending = False
        self.open_at, self.until = now, now + self.minimum

    def ran_before(self, now: float) -> None:
        """After a restart: its minimum ran in the run before; it may close at once."""
        self.open_at = self.until = now

    def holds(self, now: float) -> bool:
        """Whether answers wait (its event waits to go out, or its minimum runs)."""
        if self.pending:
            return True
        return self.until is not None and now + EARLY < self.until

    def middle(self) -> float:
        """When the machine answers (bots, 托管): after its event has gone out, so that no
        frame waits on a policy's thinking, and before it closes."""
        assert self.open_at is not None
        return self.open_at + self.minimum / 2

    def timed(self) -> bool:
        """Whether its minimum is running (it has a closing time)."""
        return self.until is not None

    def due(self, now: float) -> bool:
        """Whether it may close at `now`."""
        return self.until is not None and self.until <= now + EARLY

    def hold(self, seat: int, answer: HeldAnswer[A]) -> None:
        self.held[seat] = answer

    def close(self) -> list[HeldAnswer[A]]:
        """The minimum is over: the answers held, in the order they came."""
        self.open_at = self.until = None
        held, self.held = self.held, {}
        return list(held.values())

    def wakeups(self, *, machine_waits: bool) -> list[float]:
        """Its closing time, and its middle if the machine has answers to give then."""
        if self.until is None:
            return []
        return [self.until, self.middle()] if machine_waits else [self.until]
