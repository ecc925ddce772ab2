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
    """

    share: float = 0.25
    burst: float = 0.05
    buckets: dict[str, _Bucket] = field(default_factory=dict)  # the tables sharing it
    spent: float = 0.0  # CPU seconds charged in all (the tests)
    deferred: int = 0  # times a table waited its turn
    # What an event cost over the rounds that ended lately, on any table (`learn`): the price
    # a table is charged before a round of its own has ended. None: none has ended yet.
    price: float | None = None

    def learn(self, per_event: float) -> None:
        """A round ended on some table at `per_event` CPU seconds an event (public: every hand
        is shown then): the server's price moves a tenth of the way to it."""
        self.price = per_event if self.price is None else 0.9 * self.price + 0.1 * per_event

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

    def spend(self, key: str, seconds: float, now: float) -> None:
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
