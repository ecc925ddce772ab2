"""Time at a table, as values on an injected clock: each seat's move clock, and the table's
idleness. Neither reads a clock nor calls back into the core: they are told the time.

A seat's clock. A prompt's time is `turn_seconds` plus what is left of the seat's bank for the
round; the bank pays for what a move took beyond `turn_seconds`. The clock starts when the
prompt goes out (`started`), not when it is made: a prompt waiting behind a claim window's
minimum costs the seat nothing.

>>> c = SeatClock()
>>> c.new_round(bank=10.0)
>>> c.prompt(seq=5), c.deadline(turn=3.0)   # made, not out yet: no deadline
(True, None)
>>> c.started(seq=5, now=100.0); c.deadline(turn=3.0)
113.0
>>> c.spend(answered=5, now=105.0, turn=3.0); c.bank   # 2 s over the turn come off the bank
8.0

Idleness. A playing table with nobody connected pauses after `pause_after` seconds (nothing is
played, no clock runs) and closes after `close_after`; the first one back wakes it, every clock
pushed back by the pause.

>>> idle = Idleness(pause_after=600.0, close_after=7200.0)
>>> idle.update(anyone=False, now=0.0); idle.wakeups()
[7200.0, 600.0]
>>> idle.check(now=600.0), idle.paused, idle.wakeups()
('paused', True, [7200.0])
>>> idle.wake(now=900.0), idle.empty_since
(300.0, None)
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

EARLY = 0.001  # a deadline this close is due (timers may fire a little early)


@dataclass(slots=True)
class SeatClock:
    """One seat's move clock for the round being played."""

    bank: float = 0.0
    prompted_seq: int = -1  # the decision (its seq) this seat was last prompted for
    prompt_at: float = 0.0  # when that prompt went out (inf: it waits to go out)
    answered_seq: int = -1  # the decision (its seq) this seat last answered

    def new_round(self, bank: float) -> None:
        self.bank = bank
        self.answered_seq = self.prompted_seq = -1

    def prompt(self, seq: int) -> bool:
        """The seat is asked decision `seq`; whether that is new (its clock waits to start)."""
        if self.prompted_seq == seq:
            return False
        self.prompted_seq, self.prompt_at = seq, math.inf
        return True

    def started(self, seq: int, now: float) -> None:
        """The prompt for `seq` went out at `now` (if it is still the seat's)."""
        if self.prompted_seq == seq:
            self.prompt_at = now

    @property
    def waiting(self) -> bool:
        """The prompt is made but has not gone out: no clock runs yet."""
        return math.isinf(self.prompt_at)

    def deadline(self, turn: float, *, sending_at: float | None = None) -> float | None:
        """When the prompt's time runs out; None while it has not gone out (unless it goes
        out at `sending_at`: the deadline its frame says)."""
        start = self.prompt_at
        if self.waiting:
            if sending_at is None:
                return None
            start = sending_at
        return start + turn + self.bank

    def spend(self, answered: int, now: float, turn: float) -> None:
        """The seat answered `answered`: what it took beyond `turn` comes off its bank."""
        elapsed = now - self.prompt_at
        if self.prompted_seq == answered and elapsed > turn:
            self.bank = max(0.0, self.bank - (elapsed - turn))

    def shift(self, seconds: float) -> None:
        """Nobody's clock ran for `seconds` (a pause, a storage fault)."""
        if not self.waiting:
            self.prompt_at += seconds


@dataclass(slots=True)
class Idleness:
    """A playing table's time with nobody connected (0 for a limit: never)."""

    pause_after: float
    close_after: float
    empty_since: float | None = None  # playing with nobody connected since then
    paused_at: float | None = None  # paused since then (nothing plays)
    resume_at: float | None = None  # a pause that ends by itself then (after a restart)

    @property
    def paused(self) -> bool:
        return self.paused_at is not None

    def update(self, *, anyone: bool, now: float) -> None:
        """After each input: whether anyone is connected to the playing table (`anyone` True
        also for a table not playing: it never idles)."""
        if anyone:
            self.empty_since = self.paused_at = self.resume_at = None
        elif self.empty_since is None:
            self.empty_since = now  # the last one left: the limits count from now

    def check(self, now: float) -> Literal["running", "paused", "close", "resume"]:
        """What the idleness says at `now`: go on, stay paused, close the table, or end a
        pause that ends by itself (`resume`: the caller wakes the table)."""
        if self.empty_since is None:
            return "running"
        if self.paused_at is not None and self.resume_at is not None:
            if self.resume_at <= now + EARLY:
                return "resume"
        if self.close_after > 0 and self.empty_since + self.close_after <= now + EARLY:
            self.paused_at = None
            return "close"
        if self.paused_at is None and self.pause_after > 0:
            if self.empty_since + self.pause_after <= now + EARLY:
                self.paused_at = now
        return "paused" if self.paused_at is not None else "running"

    def pause(self, now: float, until: float) -> None:
        """Paused from `now` until someone comes or `until`, whichever is first (a table
        restored after a restart waits for its players as long as a dropped one is waited
        for, then plays on)."""
        self.empty_since = self.paused_at = now
        self.resume_at = until

    def wake(self, now: float) -> float:
        """Someone is back: how long the table was paused (every clock moves on by that)."""
        paused = 0.0 if self.paused_at is None else max(0.0, now - self.paused_at)
        self.empty_since = self.paused_at = self.resume_at = None
        return paused

    def wakeups(self) -> list[float]:
        """The times the idleness has something to decide."""
        if self.empty_since is None:
            return []
        times = []
        if self.close_after > 0:
            times.append(self.empty_since + self.close_after)
        if self.paused_at is None and self.pause_after > 0:
            times.append(self.empty_since + self.pause_after)
        if self.paused_at is not None and self.resume_at is not None:
            times.append(self.resume_at)
        return times

    def seconds(self, now: float) -> float | None:
        """How long nobody has been connected (None: someone is)."""
        return None if self.empty_since is None else max(0.0, now - self.empty_since)
