"""How often the log may speak of one thing: one line per key (a refusal's kind and the
address it came from) per period, the lines held back counted and told with the next one.
A client that floods the server with refused messages or connections costs one log line a
minute, not one per attempt. A value on an injected clock: it is told the time.

>>> t = LogThrottle(every=60.0)
>>> t.allow(("bad_json", "10.0.0.7"), now=0.0)   # the first: logged, nothing held back
0
>>> t.allow(("bad_json", "10.0.0.7"), now=1.0) is None, t.allow(("bad_json", "10.0.0.8"), now=1.0)
(True, 0)
>>> t.allow(("bad_json", "10.0.0.7"), now=30.0) is None
True
>>> t.allow(("bad_json", "10.0.0.7"), now=60.0)   # a minute on: logged, telling the 2 held back
2
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field

KEEP = 4096  # keys remembered at most (the oldest quiet ones are forgotten first)


@dataclass(slots=True)
class _Seen:
    logged_at: float
    held: int = 0


@dataclass(slots=True)
class LogThrottle:
    every: float = 60.0  # seconds between two lines about one key
    keep: int = KEEP
    seen: dict[Hashable, _Seen] = field(default_factory=dict)

    def allow(self, key: Hashable, now: float) -> int | None:
        """Whether to log about `key` at `now`: None to hold the line back (it is counted),
        else how many were held back since the last line about it."""
        seen = self.seen.get(key)
        if seen is not None and now < seen.logged_at + self.every:
            seen.held += 1
            return None
        held = 0 if seen is None else seen.held
        self.seen.pop(key, None)
        self.seen[key] = _Seen(now)  # last in order: the dict stays oldest line first
        if len(self.seen) > self.keep:
            self._forget(now)
        return held

    def _forget(self, now: float) -> None:
        """Forget the keys whose period is over (their held-back count is lost, as a line
        would have told it), then the oldest, down to `keep`."""
        for key in [k for k, s in self.seen.items() if now >= s.logged_at + self.every]:
            del self.seen[key]
        while len(self.seen) > self.keep:
            del self.seen[next(iter(self.seen))]


class AcceptFailures(logging.Filter):
    """asyncio logs every failed `accept()` (out of file descriptors: a connection flood) with
    a traceback, once a second per listening socket. This filter on the `asyncio` logger lets
    one through a minute, telling how many were held back; other records pass untouched."""

    MESSAGE = "socket.accept() out of system resource"

    def __init__(self, throttle: LogThrottle, clock: Callable[[], float] = time.monotonic) -> None:
        super().__init__()
        self.throttle = throttle
        self.clock = clock

    def filter(self, record: logging.LogRecord) -> bool:
        if not str(record.msg).startswith(self.MESSAGE):
            return True
        held = self.throttle.allow(("accept_failed",), self.clock())
        if held is None:
            return False
        if held and not record.args:
            record.msg = f"{record.msg}\n({held} more in the last minute, not logged)"
        return True
