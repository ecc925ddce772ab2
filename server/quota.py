"""What the server lets one address run: the tables it created, counted over a window, and the
share of a core that the tables no player is at may use together. Both are told the time (an
injected clock), so the tests drive them on a fake one.

The per-address table cap used to count open tables only: an address that created a table,
left it to the bots and created the next kept starting new ones as the old closed. A table now
counts against its creator's address while it is open **and** for `window` seconds after it was
created, closed or not:

>>> q = TableQuota(window=3600.0)
>>> q.opened("1", "10.0.0.7", now=0.0); q.opened("2", "10.0.0.7", now=10.0)
>>> q.count("10.0.0.7", now=20.0)
2
>>> q.closed("1", now=30.0)                 # closed, but made within the hour: still counts
>>> q.count("10.0.0.7", now=40.0), q.count("10.0.0.7", now=3600.0)
(2, 1)
"""

from __future__ import annotations

import bisect
from collections import Counter, deque
from dataclasses import dataclass, field


@dataclass(slots=True)
class TableQuota:
    """Each address's tables: those open, and those closed but created within `window`
    seconds (0: open tables only)."""

    window: float = 3600.0
    open_by: dict[str, tuple[str, float]] = field(default_factory=dict)  # id → (address, made)
    open_count: Counter[str] = field(default_factory=Counter)
    recent: dict[str, deque[float]] = field(default_factory=dict)  # address → closed ones' made

    def opened(self, table_id: str, address: str, now: float) -> None:
        self.open_by[table_id] = (address, now)
        self.open_count[address] += 1

    def closed(self, table_id: str, now: float) -> None:
        """A table closed: it counts on until `window` after it was created."""
        entry = self.open_by.pop(table_id, None)
        if entry is None:
            return
        address, made = entry
        self.open_count[address] -= 1
        if self.open_count[address] <= 0:
            del self.open_count[address]
        if made + self.window > now:
            # in order of making (tables close in any order): `count` drops the oldest first
            bisect.insort(self.recent.setdefault(address, deque()), made)

    def count(self, address: str, now: float) -> int:
        """The tables that count against `address` at `now`."""
        made = self.recent.get(address)
        if made is not None:
            while made and made[0] + self.window <= now:
                made.popleft()
            if not made:
                del self.recent[address]
                made = None
        return self.open_count[address] + (len(made) if made else 0)


@dataclass(slots=True)
class _Bucket:
    tokens: float
    stamp: float


# The loop's work that no table's step measures, against what the steps cost, is taken from
# whole windows of this many seconds (`CpuShare.observe`) ...
OVERHEAD_WINDOW = 10.0
# ... and never counted above this: a server busy with something else slows its bot tables
# down at most threefold.
OVERHEAD_MAX = 2.0


@dataclass(slots=True)
class CpuShare:
    """A share of one core (`share` CPU seconds a second) for the tables no player is
    connected to, split evenly among those there are now: each has a bucket refilled at
    `share / n`, holding at most `burst` seconds. A table spends what it is charged; while its
    bucket is empty it waits (`ready_at`) instead of playing, so together they never take more
    than `share` of a core for long, and no one of them starves the others.

    A table joins with nothing banked: it may take one step, and from then on only what its
    part refills. (Joining with a full bucket, 16 tables left at once took 16 bursts over the
    share before the first of them waited.)

    >>> b = CpuShare(share=0.5, burst=0.25)
    >>> b.join("1", now=0.0); b.join("2", now=0.0)    # two tables: a quarter core each
    >>> b.ready_at("1", 0.0)                          # not in debt: go now
    0.0
    >>> b.spend("1", 0.5, now=0.0); b.ready_at("1", 0.0)   # 0.5 s in debt: 2 s
    2.0
    >>> b.leave("2"); b.ready_at("1", 0.5)            # alone now: half a core
    1.0

    What a table is charged is what its meter says (`server.table.meter.EventCost`: its events
    at a price from finished rounds) times `1 + overhead`. The overhead is the loop's work that
    no table's step measured — asyncio's own between the steps, the frames written to sockets
    (spectators' included), the lobby — over what the steps cost, the tables no player is at
    counted at what they were charged and the others at what they measured; on the whole
    server, over the last `OVERHEAD_WINDOW` seconds (`observe`). The bot tables' steps are in
    both the loop's CPU and what was measured, so what they took to decide cancels out: their
    pace follows their events, never what one of them pondered.

    >>> b = CpuShare(share=0.1, overhead=0.5)
    >>> b.join("1", now=0.0); b.spend("1", 0.1, now=0.0); round(b.ready_at("1", 0.0), 6)
    1.5
    >>> b.observe(now=0.0, loop_cpu=0.0)              # the first window begins
    >>> b.measured(0.3); b.spend("1", 0.2, now=1.0)   # a bot table: 0.3 s, charged 0.2 (+ 0.1)
    >>> b.measured(0.5, attended=True)                # a table its players are at
    >>> b.observe(now=10.0, loop_cpu=0.91)            # 0.11 s that no step measured
    >>> round(b.overhead, 6)                          # half way from 0.5 to 0.11 / (0.2 + 0.5)
    0.328571
    """

    share: float = 0.25
    burst: float = 0.05
    # The loop's CPU beyond what the steps measured per second of theirs (`observe`); the
    # value given is the one used until a window has been measured.
    overhead: float = 0.0
    buckets: dict[str, _Bucket] = field(default_factory=dict)  # the tables sharing it
    spent: float = 0.0  # CPU seconds charged in all, the overhead included (the tests)
    deferred: int = 0  # times a table waited its turn
    # What an event cost over the rounds that ended lately, on any table (`learn`): the price
    # a table is charged before a round of its own has ended. None: none has ended yet.
    price: float | None = None
    steps: float = 0.0  # what every table's steps measured in all (`measured`)
    others: float = 0.0  # of which the tables a player is at
    charged: float = 0.0  # what the bot tables' events were charged in all (`spend`'s `priced`)
    _window: tuple[float, float, float, float, float] | None = None  # now, loop, the three above

    def learn(self, per_event: float) -> None:
        """A round ended on some table at `per_event` CPU seconds an event (public: every hand
        is shown then): the server's price moves a tenth of the way to it."""
        self.price = per_event if self.price is None else 0.9 * self.price + 0.1 * per_event

    def measured(self, seconds: float, attended: bool = False) -> None:
        """A step of some table measured `seconds` (`attended`: a player is at it)."""
        self.steps += seconds
        if attended:
            self.others += seconds

    def observe(self, now: float, loop_cpu: float) -> None:
        """The loop thread's CPU time is `loop_cpu` at `now`: once a window of
        `OVERHEAD_WINDOW` seconds is complete, the overhead moves half way to what it shows
        (one busy window does not stop the tables)."""
        window = self._window
        mark = (now, loop_cpu, self.steps, self.others, self.charged)
        if window is None or now < window[0]:
            self._window = mark
            return
        began, cpu, steps, others, charged = window
        if now - began < OVERHEAD_WINDOW:
            return
        self._window = mark
        paid = (self.charged - charged) + (self.others - others)
        if paid < 1e-3 * (now - began):
            return  # the tables hardly played (all waiting, or none): nothing to go by
        unmeasured = (loop_cpu - cpu) - (self.steps - steps)
        shown = min(OVERHEAD_MAX, max(0.0, unmeasured / paid))
        self.overhead = (self.overhead + shown) / 2

    def join(self, key: str, now: float) -> None:
        """A table has nobody at it now (idempotent)."""
        if key not in self.buckets:
            self.buckets[key] = _Bucket(0.0, now)

    def leave(self, key: str) -> None:
        """A player is back, or the table closed (idempotent)."""
        self.buckets.pop(key, None)

    def _refill(self, b: _Bucket, now: float) -> None:
        """Credit since its last look at the rate of now (the tables there are now)."""
        if now > b.stamp:
            rate = self.share / max(1, len(self.buckets))
            b.tokens = min(self.burst, b.tokens + (now - b.stamp) * rate)
            b.stamp = now

    def spend(self, key: str, seconds: float, now: float, priced: float | None = None) -> None:
        """Charge a table what its meter charged, `seconds` (a refund if negative), with the
        overhead; `priced`: the part of it that is its events at their price, what the
        overhead is reckoned against (a round's true-up would make a window's look tiny or
        huge). None: all of it."""
        self.charged += seconds if priced is None else priced
        seconds *= 1.0 + self.overhead
        self.spent += seconds
        bucket = self.buckets.get(key)
        if bucket is not None:
            self._refill(bucket, now)
            bucket.tokens = min(self.burst, bucket.tokens - seconds)  # a refund banks no more

    def ready_at(self, key: str, now: float) -> float:
        """When that table may take its next step (`now` if it may now)."""
        bucket = self.buckets.get(key)
        if bucket is None:
            return now
        self._refill(bucket, now)
        if bucket.tokens >= 0:
            return now
        return now - bucket.tokens * max(1, len(self.buckets)) / self.share
