"""The garbage collector in the serving process: its thresholds, and its pauses measured.

Every collection stops the one event loop, so a pause stalls every table at once: at 500
tables it is the tail of the move latency (issue 26). What a collection costs is the number of
tracked objects it walks: a young collection walks the objects made since the last one that are
still alive, a middle one those plus what the young ones left behind since it last ran, a full
one every tracked object not frozen. The server keeps each table's state alive for the whole
match, so nearly everything a move leaves behind survives every collection it is in; walking it
again and again finds nothing.

So: everything alive once the server is set up is frozen out of collection (`gc.freeze`). A
young collection walks the objects made since the last one and still alive, and at 500 tables
most of those are the 2,000 connections' coroutines, futures and timer handles waiting for their
next frame: some 20,000-30,000 objects whatever the threshold, 13-18 ms of CPU each on the shared
test machine. So young collections ran after 50,000 allocations, not 10,000 (session 9): five
times fewer, each a little longer (what survived since the last one is walked too). Measured
at 500 tables x 1 round (benchmarks/README.md, a loaded machine): 36-42 young collections,
0.46-0.91 s of CPU in all, with 10,000; 5, 0.22-0.28 s, with 50,000 (now `YOUNG` is a safety
net behind the loop's freezes: see the last paragraphs).

What a young collection leaves alive is frozen too (`Settler`), so no middle collection walks it
again: under load those collections free a few per cent of what they walk (benchmarks/README.md,
"Freezing what survives"), yet the one middle collection of a 500-table ramp walked some 157,000
objects, every table's and connection's state built since start, and was the longest pause
(157-220 ms). The freeze is not done inside the collector's callback (which runs in the middle
of the collector's own bookkeeping, on whichever thread allocated): the callback asks the event
loop for a turn, and the freeze runs there. The frozen heap then stands in for the old
generation, and is collected in full (`gc.unfreeze`, `gc.collect`, `gc.freeze` again) once it
has grown by `GROWTH` and by `SLACK` objects since the last full collection, or `FULL_EVERY`
seconds after it: a closed connection's cycles that were frozen while it was open are freed then
(some 45 objects per connection). `SLACK` keeps a small heap from being walked in full every few
young collections: at 500 tables the heap grows from some 48,000 frozen objects at start to
220,000, and a full collection of it costs about 1 us of CPU per object. So what the frozen heap
holds beyond what is alive stays below `SLACK` or `GROWTH` of it, whichever is more, plus one
young collection's survivors. `gc.freeze` also sets the generation counts to zero, so the middle
and old collections Python would start (after `MIDDLE` young ones, `OLD` middle ones) do not
come while the loop freezes: every collection is a young one, or a full one the `Settler` runs.
`PauseClock` times every collection by generation (`gc.callbacks`), for `/metrics`
(`zhuoji_gc_pause_seconds_total`, `zhuoji_gc_pause_longest_seconds`) and the benchmarks; the
full collections the `Settler` runs are collections like any other, timed under generation 2.

Session 11 (issue 26, 500 tables): the young collections themselves are mostly gone. Each one
walked 40,000-60,000 objects for 35-80 ms of CPU and freed almost nothing (43 to 3,783 objects in
all the young collections of a 500-table run), and such a pause stalls every table: the moves that
arrive meanwhile queue behind it, and on a server half busy the queue takes about as long again
to drain. Freezing needs no walk, so the loop now freezes what was made before the collector
would walk it: every `CHECK_EVERY` seconds, once `FREEZE_AT` tracked objects (allocations less
deallocations, `gc.get_count()`, O(1)) have been made since the last freeze. The collector's own
young threshold (`YOUNG`) stays as a safety net for a burst within one turn of the loop; its
survivors are frozen as before. Cyclic garbage made by young objects is then freed by the full
collections alone, as the frozen survivors' garbage already was: memory stays bounded by the same
`SLACK` / `GROWTH` rule. And the rule is checked without walking the frozen heap: counting it
(`gc.get_freeze_count`) walks its list, 30-37 ms at 500 tables, a second pause right after each
collection; the heap's growth is now summed from the counts frozen, and counted for real only
when that sum says a full collection is due (or after a collection, which is rare).
`SLACK` is 500,000 (was 250,000): at its peak a 500-table server keeps some 300,000 objects
alive, so the old slack started a full collection of a heap that was nearly all alive (one run:
285 ms of CPU, 580 ms of wall on a loaded machine, 13,714 objects freed of some 300,000); one such
pause holds every table long enough to set the 500-table p99 by itself. What the frozen heap can
hold beyond what is alive is at most 500,000 objects then (some 11,000 closed connections'
cycles), and a server that makes objects still collects in full at least every `FULL_EVERY`.
"""

from __future__ import annotations

import asyncio
import gc
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

YOUNG = 100_000  # allocations (less deallocations) of tracked objects between young collections
FREEZE_AT = 10_000  # ... and between the loop's freezes, which come first (no walk)
CHECK_EVERY = 0.1  # seconds between the loop's looks at the count
MIDDLE = 2  # young collections between middle ones
OLD = 50  # middle collections between full ones (Python also waits for 25 % more old objects)
GROWTH = 0.25  # a full collection once the frozen heap has grown by this share (Python's rule)
SLACK = 500_000  # ... and by at least this many objects, however small it was
FULL_EVERY = 3600.0  # seconds: a full collection at least this often while anything is made


def tune() -> Settler:
    """Freeze what is alive now (modules, the rules' tables, the server's set-up) out of
    collection, set the thresholds, time the pauses (`PAUSES`) and from now on freeze what each
    young collection leaves alive (the `Settler` returned, on the running loop). Called once,
    when the server is ready to serve, from its event loop."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(YOUNG, MIDDLE, OLD)
    PAUSES.install()
    loop = asyncio.get_running_loop()
    settler = Settler(loop.call_soon_threadsafe)
    return settler.install().watch(loop.call_later)


class Collector(Protocol):
    """What the `Settler` uses of the `gc` module (a fake one in tests)."""

    def freeze(self) -> None: ...
    def unfreeze(self) -> None: ...
    def collect(self) -> int: ...
    def get_freeze_count(self) -> int: ...
    def get_count(self) -> tuple[int, int, int]: ...


@dataclass(eq=False)
class Settler:
    """Freezes what the loop has made once there are `freeze_at` new objects (`check`, every
    `CHECK_EVERY` seconds once `watch`ed), and the survivors of each young (or middle) collection
    at the event loop's next turn; collects the frozen heap in full when it has grown by `growth`
    or `every` seconds have passed (see the module's docstring for why). `schedule` runs a
    function at the loop's next turn from any thread (`loop.call_soon_threadsafe`)."""

    schedule: Callable[[Callable[[], None]], object]
    clock: Callable[[], float] = time.monotonic
    collector: Collector = field(default_factory=lambda: gc)
    growth: float = GROWTH
    slack: int = SLACK
    every: float = FULL_EVERY
    freeze_at: int = FREEZE_AT
    full_collections: int = 0  # run by this settler
    collected: int = 0  # unreachable objects they found
    freezes: int = 0  # the loop's, without a collection (`check`)
    recounts: int = 0  # of the frozen heap (a walk of it), when the sum said it had grown
    _pending: bool = False  # a freeze is scheduled and has not run yet
    _base: int = 0  # frozen objects just after the last full collection (or the start)
    _frozen: int = 0  # frozen objects now, as far as known without counting them
    _recount_at: int = 0  # ... and the sum at which they are counted again
    _since: float = 0.0  # the clock then
    _watch: asyncio.TimerHandle | None = None

    def install(self) -> Settler:
        """Start from what is frozen now, and follow the collector's callbacks."""
        self._base = self._frozen = self.collector.get_freeze_count()
        self._since = self.clock()
        _hook(self)
        return self

    def watch(
        self, call_later: Callable[[float, Callable[[], None]], asyncio.TimerHandle]
    ) -> Settler:
        """`check` every `CHECK_EVERY` seconds (`loop.call_later`) until removed."""

        def tick() -> None:
            self.check()
            self._watch = call_later(CHECK_EVERY, tick)

        self._watch = call_later(CHECK_EVERY, tick)
        return self

    def remove(self) -> None:
        _unhook(self)
        if self._watch is not None:
            self._watch.cancel()
            self._watch = None

    def check(self) -> None:
        """Freeze what was made since the last freeze, if it is `freeze_at` objects or more,
        before a young collection walks it (a freeze walks nothing)."""
        made = self.collector.get_count()[0]
        if made < self.freeze_at or self._pending:
            return
        self.collector.freeze()
        self.freezes += 1
        self._frozen += made  # allocations less deallocations since the last freeze
        if self.due():
            self.collect_all()

    def __call__(self, phase: str, info: dict[str, Any]) -> None:
        """The collector's callback: after a young or middle collection, ask for a freeze.
        Only a flag and one call here, never a freeze or a collection."""
        if phase != "stop" or info["generation"] == 2 or self._pending:
            return
        self._pending = True
        try:
            self.schedule(self.settle)
        except RuntimeError:  # the loop is closed: the server has stopped
            self._pending = False

    def settle(self) -> None:
        """Freeze what is alive and not frozen (what a collection left); collect in full if it
        is time. Counted for real: a collection's survivors are not in `get_count`, and a
        collection is rare now (`check` freezes first)."""
        self._pending = False
        self.collector.freeze()
        self._frozen = self.collector.get_freeze_count()
        if self.due(counted=True):
            self.collect_all()

    def due(self, *, counted: bool = False) -> bool:
        """Whether the frozen heap has grown by `growth` and by `slack` objects since the last
        full collection, or `every` seconds have passed since it. Unless it was just `counted`,
        the heap is counted (a walk of it) only when the sum of what was frozen says it has
        grown that much: objects frozen and freed since leave the sum above the count."""
        limit = self._base + max(int(self._base * self.growth), self.slack)
        if not counted and self._frozen > limit and self._frozen >= self._recount_at:
            self._frozen = self.collector.get_freeze_count()
            self.recounts += 1
            counted = True
        if counted:
            if self._frozen > limit:
                return True
            # Not grown enough: the next freezes would take the sum past the limit at once.
            self._recount_at = self._frozen + self.slack // 10
        return self.clock() - self._since >= self.every

    def collect_all(self) -> int:
        """One full collection of everything, the frozen heap too; what it leaves is frozen
        again. Returns the unreachable objects it found."""
        self.collector.unfreeze()
        found = self.collector.collect()
        self.collector.freeze()
        self._base = self._frozen = self.collector.get_freeze_count()
        self._since = self.clock()
        self.full_collections += 1
        self.collected += found
        return found


@dataclass(slots=True)
class Pauses:
    """One generation's collections so far."""

    count: int = 0
    seconds: float = 0.0  # their pauses in all
    longest: float = 0.0
    collected: int = 0  # unreachable objects freed


@dataclass(eq=False)
class PauseClock:
    """Times each collection, by the generation collected, from the collector's own start and
    stop callbacks. Only plain numbers are updated inside a callback (no locks, no allocation
    that could start another collection's bookkeeping): `/metrics` reads them when scraped."""

    clock: Callable[[], float] = time.perf_counter
    generations: list[Pauses] = field(default_factory=lambda: [Pauses() for _ in range(3)])
    _began: float | None = None

    def __call__(self, phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            self._began = self.clock()
            return
        if self._began is None:  # installed during a collection: its start was not seen
            return
        took = self.clock() - self._began
        self._began = None
        pauses = self.generations[info["generation"]]
        pauses.count += 1
        pauses.seconds += took
        pauses.collected += info["collected"]
        if took > pauses.longest:
            pauses.longest = took

    def install(self) -> PauseClock:
        _hook(self)
        return self

    def remove(self) -> None:
        _unhook(self)


def _hook(callback: Callable[[str, dict[str, Any]], None]) -> None:
    """Follow the collector's collections with `callback` (once, however often asked)."""
    if callback not in gc.callbacks:
        gc.callbacks.append(callback)


def _unhook(callback: Callable[[str, dict[str, Any]], None]) -> None:
    while callback in gc.callbacks:
        gc.callbacks.remove(callback)


PAUSES = PauseClock()  # the process's: installed by `tune`, read by `/metrics`
