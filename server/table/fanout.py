"""The order and pace of a table's outgoing frames: the claim window's minimum as a deadline.

Frames go out in the order they were made. An event's frames wait for the next tick, which the
shell gives only once the event is written: so what a player sees is on disk, and the time an
event goes out is the time it really went. After a claim-hold event (a discard, a 补杠
declaration) the next event goes out no sooner than `claim_min` seconds later, whether or not
anyone could claim, so the pace gives no hands away; whatever was made meanwhile waits behind it
in order. A frame may carry a *stamp* (a prompt: its seat and decision), handed back when it goes
out, so that a prompt's clock starts when the player is sent it.

>>> p = Pacer(0.5)
>>> p.add(["discarded"], event=True, claim=True), p.add(["error"], event=False)
(False, False)
>>> p.release(10.0), p.due(10.0)
((['discarded', 'error'], []), None)
>>> p.add(["drew"], event=True), p.add(["prompt"], event=False, stamp=(1, 9))
(False, False)
>>> p.due(10.1), p.release(10.2), p.release(10.5)
(10.5, ([], []), (['drew', 'prompt'], [(1, 9)]))
"""

from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass
from typing import Generic, TypeVar

T = TypeVar("T")
Stamp = tuple[int, int]  # (seat, decision seq) of a prompt

EARLY = 0.001  # a deadline this close is due (timers may fire a little early)


@dataclass(slots=True)
class _Waiting(Generic[T]):
    items: list[T]  # the frames of one item (one per group of viewers); may be none
    event: bool
    claim: bool
    stamp: Stamp | None


class Pacer(Generic[T]):
    def __init__(self, claim_min: float) -> None:
        self.claim_min = claim_min
        self.hold_until = -math.inf  # no event goes out before this
        self.queue: deque[_Waiting[T]] = deque()
        # Items offered to `add` so far, and of those the ones gone (released or dropped): the
        # shell learns from them when the frames of one step have gone out (its metrics).
        self.added = 0
        self.gone = 0

    def add(
        self, items: list[T], *, event: bool, claim: bool = False, stamp: Stamp | None = None
    ) -> bool:
        """Whether `items` may go at once (not an event, nothing waiting); if not, they wait
        for `release`. An event nobody is shown still counts (it starts a hold)."""
        self.added += 1
        if not event and not self.queue:
            self.gone += 1
            return True
        self.queue.append(_Waiting(items, event, claim, stamp))
        return False

    def due(self, now: float) -> float | None:
        """When `release` next has something to give (`now`: at once), or None."""
        if not self.queue:
            return None
        return max(now, self.hold_until) if self.queue[0].event else now

    def release(self, now: float) -> tuple[list[T], list[Stamp]]:
        """What goes out at `now`, in order, and the stamps of the prompts among it."""
        out: list[T] = []
        stamps: list[Stamp] = []
        while self.queue:
            head = self.queue[0]
            if head.event and now + EARLY < self.hold_until:
                break
            self.queue.popleft()
            self.gone += 1
            out += head.items
            if head.stamp is not None:
                stamps.append(head.stamp)
            if head.claim and self.claim_min > 0:
                self.hold_until = now + self.claim_min
        return out, stamps

    def clear(self) -> None:
        """Drop what waits (a frozen table: it may be of a write that failed)."""
        self.queue.clear()
        self.gone = self.added
        self.hold_until = -math.inf
