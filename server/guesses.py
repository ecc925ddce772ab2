"""How many table passwords one may try: guesses counted per table and per address.

A table password may be short (a 4-digit PIN), and each guess costs the server a PBKDF2 hash
(`server.credentials`, worked out on a thread, never on the event loop). So a key — a table,
an address — has `limit` guesses per `period`; a guess counts from when it is asked until it
proves right (a right one is given back). Past the limit the key is locked: for `period`, and
twice as long each time it is locked again (up to `longest`), until it has been quiet for
`longest`. A locked key is refused at once — even with the right password — with how long to
wait, and no hash is worked out. A value on an injected clock: it is told the time.

>>> g = Guesses(limit=2, period=60.0)
>>> keys = [("table", "1"), ("address", "10.0.0.7")]
>>> g.wait(keys, 0.0)
0.0
>>> g.start(keys, 0.0); g.wrong(keys, 0.0)
False
>>> g.start(keys, 1.0); g.wrong(keys, 1.0)   # the second wrong one: locked for a minute
True
>>> g.wait(keys, 2.0), g.wait([("address", "10.0.0.8")], 2.0)
(59.0, 0.0)
>>> g.start(keys, 61.0); g.wrong(keys, 61.0); g.start(keys, 62.0); g.wrong(keys, 62.0)
False
True
>>> g.wait(keys, 62.0)   # locked again: twice as long
120.0
>>> g.start(keys, 200.0); g.right(keys); g.wait(keys, 200.0)   # a right one is given back
0.0
"""

from __future__ import annotations

from collections import deque
from collections.abc import Hashable, Iterable
from dataclasses import dataclass, field

LIMIT = 5  # guesses per period, per table and per address
PERIOD = 60.0  # seconds
LONGEST = 3600.0  # the longest lock; and how long a key must be quiet to be forgotten
KEEP = 8192  # keys remembered at most (the quiet ones are forgotten first)


@dataclass(slots=True)
class _Key:
    tries: deque[float] = field(default_factory=deque)  # the guesses counted, oldest first
    locked_until: float = 0.0
    locks: int = 0  # how many times it was locked (each lock twice the last)
    last: float = 0.0  # the last guess or lock


@dataclass(slots=True)
class Guesses:
    limit: int = LIMIT
    period: float = PERIOD
    longest: float = LONGEST
    keep: int = KEEP
    keys: dict[Hashable, _Key] = field(default_factory=dict)

    def wait(self, keys: Iterable[Hashable], now: float) -> float:
        """Seconds until a guess on all of `keys` may be tried (0.0: now). The guesses still
        being worked out count, so a burst of them cannot all start at once."""
        if self.limit <= 0:
            return 0.0
        longest = 0.0
        for key in keys:
            k = self.keys.get(key)
            if k is None:
                continue
            self._expire(k, now)
            wait = max(0.0, k.locked_until - now)
            if len(k.tries) >= self.limit:
                wait = max(wait, k.tries[0] + self.period - now)
            longest = max(longest, wait)
        return longest

    def start(self, keys: Iterable[Hashable], now: float) -> None:
        """A guess is being worked out: it counts (as wrong) until it proves right."""
        if self.limit <= 0:
            return
        for key in keys:
            k = self.keys.pop(key, None) or _Key()
            self.keys[key] = k  # last in order: the dict stays the quietest first
            self._expire(k, now)
            k.tries.append(now)
            k.last = now
        if len(self.keys) > self.keep:
            self._forget(now)

    def right(self, keys: Iterable[Hashable]) -> None:
        """The guess was right: it is given back."""
        for key in keys:
            k = self.keys.get(key)
            if k is not None and k.tries:
                k.tries.pop()

    def wrong(self, keys: Iterable[Hashable], now: float) -> bool:
        """The guess was wrong (it stays counted). Whether a key is locked by it."""
        locked = False
        for key in keys:
            k = self.keys.get(key)
            if k is None or len(k.tries) < self.limit:
                continue
            k.locks += 1
            k.locked_until = now + min(self.longest, self.period * 2 ** (k.locks - 1))
            k.tries.clear()
            k.last = now
            locked = True
        return locked

    def recent(self, key: Hashable, now: float) -> int:
        """The guesses counted on `key` in the last period (for the log)."""
        k = self.keys.get(key)
        if k is None:
            return 0
        self._expire(k, now)
        return len(k.tries)

    def _expire(self, k: _Key, now: float) -> None:
        while k.tries and k.tries[0] <= now - self.period:
            k.tries.popleft()
        if k.locks and now >= max(k.locked_until, k.last) + self.longest:
            k.locks = 0  # quiet long enough: the next lock is the shortest again

    def _forget(self, now: float) -> None:
        """Forget the keys with nothing to remember (no guess in the period, no lock that
        counts), then the quietest, down to `keep`."""
        for key in [key for key, k in self.keys.items() if self._idle(k, now)]:
            del self.keys[key]
        while len(self.keys) > self.keep:
            del self.keys[next(iter(self.keys))]

    def _idle(self, k: _Key, now: float) -> bool:
        self._expire(k, now)
        return not k.tries and not k.locks and now >= k.locked_until
