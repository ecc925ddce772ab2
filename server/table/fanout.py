"""A table's fan-out: its numbered event log, the order and pace of its outgoing frames, the
view groups an event is projected for, and the coalesced spectator count. Values on an
injected clock; none calls back into the core.

The log. Every event of the table is numbered (`seq`) and the last `LOG_KEEP` are kept for a
reconnect's catch-up; an older gap gets a snapshot.

>>> log = EventLog("7")
>>> log.number({"type": "table"}), log.number({"type": "seat_status"})["seq"]
({'type': 'table', 'table': '7', 'seq': 1}, 2)
>>> log.keep([{"seq": 1}, {"seq": 2}]); [e["seq"] for e in log.since(1)], log.since(2)
([2], [])

The pace: the claim window's minimum as a deadline.

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
from collections.abc import Hashable, Mapping
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from server.table.effects import Effect, Send
from server.table.projection import Frame, Item, Viewer, view_for, view_key

T = TypeVar("T")
M = TypeVar("M", bound=Hashable)
LOG_KEEP = 4096  # events kept in memory for reconnect catch-up; older gaps get a snapshot
SPECTATORS_EVERY = 0.5  # seconds: at most one `spectators` count frame per table this often
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


class Outbox(Generic[M]):
    """What the core answers one input with, in order: its effects, the frames among them
    paced (`Pacer`: an event's frames wait for its write and the claim hold, and what comes
    after waits behind them). `begin` starts an input with the frames whose time has come,
    `take` ends it.

    >>> box: Outbox[str] = Outbox(claim_min=0.5)
    >>> box.begin(now=0.0), box.to("ann", "welcome"), box.take()
    ([], None, [Send(to=('ann',), frame='welcome')])
    >>> box.broadcast({"type": "x"}, {}, claim=True), box.to("ann", "error"), box.take()
    (False, None, [])
    >>> box.begin(now=1.0), box.take()
    ([], [Send(to=('ann',), frame='error')])
    """

    def __init__(self, claim_min: float) -> None:
        self.pacer: Pacer[Send[M]] = Pacer(claim_min)
        self.effects: list[Effect] = []

    def begin(self, now: float) -> list[Stamp]:
        """A new input: the frames due by `now` go first; the stamps of the prompts among
        them (their clocks start now)."""
        self.effects = []
        sends, stamps = self.pacer.release(now)
        self.effects.extend(sends)
        return stamps

    def take(self) -> list[Effect]:
        """The input's effects, in order (and a fresh list for the next)."""
        out, self.effects = self.effects, []
        return out

    def emit(self, effect: Effect) -> None:
        self.effects.append(effect)

    def paced(
        self, sends: list[Send[M]], *, event: bool, claim: bool = False, stamp: Stamp | None = None
    ) -> bool:
        """`sends` in order behind whatever waits; whether they went at once (then the
        `stamp`, if any, is the caller's to start)."""
        if self.pacer.add(sends, event=event, claim=claim, stamp=stamp):
            self.effects.extend(sends)
            return True
        return False

    def to(self, member: M, frame: Frame) -> None:
        """A frame for one member (a reply): in order behind the others."""
        self.paced([Send((member,), frame)], event=False)

    def view(self, member: M, viewer: Viewer, item: Item) -> None:
        """One member's view of `item` (nothing if it shows that viewer nothing)."""
        frame = view_for(item, viewer)
        if frame is not None:
            self.to(member, frame)

    def broadcast(
        self,
        item: Item,
        members: Mapping[M, Viewer],
        *,
        exclude: M | None = None,
        claim: bool = False,
        stored: bool = True,
        stamp: Stamp | None = None,
    ) -> bool:
        """Every member its view of an event, each distinct view made once (`view_groups`).
        A `stored` event's frames wait for its write (the next tick) and any claim hold."""
        sends = [Send(to, frame) for frame, to in view_groups(item, members, exclude)]
        return self.paced(sends, event=stored, claim=claim, stamp=stamp)


class EventLog:
    """The table's numbered events, the last `LOG_KEEP` of them kept."""

    def __init__(self, table_id: str) -> None:
        self.table_id = table_id
        self.seq = 0  # the last event's number
        self.events: deque[dict[str, Any]] = deque(maxlen=LOG_KEEP)

    def number(self, event: dict[str, Any]) -> dict[str, Any]:
        """The next number, and the table, on `event` (a logged dict)."""
        self.seq += 1
        event["table"] = self.table_id
        event["seq"] = self.seq
        return event

    def keep(self, events: list[dict[str, Any]]) -> None:
        self.events.extend(events)

    def since(self, last_seq: int) -> list[dict[str, Any]] | None:
        """The events after `last_seq`, or None if the log no longer holds them all (or
        `last_seq` is not one it gave): a snapshot instead."""
        if last_seq == self.seq:
            return []
        if self.events and self.events[0]["seq"] - 1 <= last_seq < self.seq:
            return [e for e in self.events if e["seq"] > last_seq]
        return None


def view_groups(
    item: Item, members: Mapping[M, Viewer], exclude: M | None = None
) -> list[tuple[Frame, tuple[M, ...]]]:
    """Each distinct view of `item` once, with the members who see it (none for a view that
    shows nothing): an event's frame is made once per class of viewer, not per member."""
    groups: dict[object, tuple[Viewer, list[M]]] = {}
    for member, viewer in members.items():
        if member != exclude:
            key = view_key(item, viewer)
            if key in groups:
                groups[key][1].append(member)
            else:
                groups[key] = (viewer, [member])
    out = []
    for viewer, who in groups.values():
        frame = view_for(item, viewer)
        if frame is not None:
            out.append((frame, tuple(who)))
    return out


@dataclass(slots=True)
class SpectatorCount:
    """The spectator count, unstored and coalesced: it goes out once the last one is old
    enough (`every`), and only if it changed.

    >>> c = SpectatorCount(every=0.5)
    >>> c.changed(now=10.0); c.due
    10.0
    >>> c.take(now=10.0, count=1), c.take(now=10.1, count=1)
    (True, False)
    >>> c.changed(now=10.1); c.due
    10.5
    """

    every: float = SPECTATORS_EVERY
    shown: int = 0  # the count last sent
    due: float | None = None  # when the count goes out next (None: nothing changed)
    sent_at: float = -math.inf

    def changed(self, now: float) -> None:
        """A spectator came or went."""
        if self.due is None:
            self.due = max(now, self.sent_at + self.every)

    def take(self, now: float, count: int) -> bool:
        """The count is due: whether `count` is news (it is then the one shown)."""
        self.due = None
        if count == self.shown:
            return False
        self.shown, self.sent_at = count, now
        return True
