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
test machine. So young collections run after `YOUNG` = 50,000 allocations, not 10,000: five
times fewer, each a little longer (what survived since the last one is walked too). Measured
at 500 tables x 1 round (benchmarks/README.md, a loaded machine): 36-42 young collections,
0.46-0.91 s of CPU in all, with 10,000; 5, 0.22-0.28 s, with 50,000.

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
"""

from __future__ import annotations

import asyncio
import gc
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

YOUNG = 50_000  # allocations (less deallocations) of tracked objects between young collections
MIDDLE = 2  # young collections between middle ones
OLD = 50  # middle collections between full ones (Python also waits for 25 % more old objects)
GROWTH = 0.25  # a full collection once the frozen heap has grown by this share (Python's rule)
SLACK = 250_000  # ... and by at least this many objects, however small it was
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
    settler = Settler(asyncio.get_running_loop().call_soon_threadsafe)
    return settler.install()


class Collector(Protocol):
    """What the `Settler` uses of the `gc` module (a fake one in tests)."""

    def freeze(self) -> None: ...
    def unfreeze(self) -> None: ...
    def collect(self) -> int: ...
    def get_freeze_count(self) -> int: ...


@dataclass(eq=False)
class Settler:
    """Freezes the survivors of each young (or middle) collection at the event loop's next turn,
    and collects the frozen heap in full when it has grown by `growth` or `every` seconds have
    passed (see the module's docstring for why). `schedule` runs a function at the loop's next
    turn from any thread (`loop.call_soon_threadsafe`)."""

    schedule: Callable[[Callable[[], None]], object]
    clock: Callable[[], float] = time.monotonic
    collector: Collector = field(default_factory=lambda: gc)
    growth: float = GROWTH
    slack: int = SLACK
    every: float = FULL_EVERY
    full_collections: int = 0  # run by this settler
    collected: int = 0  # unreachable objects they found
    _pending: bool = False  # a freeze is scheduled and has not run yet
    _base: int = 0  # frozen objects just after the last full collection (or the start)
    _since: float = 0.0  # the clock then

    def install(self) -> Settler:
        """Start from what is frozen now, and follow the collector's callbacks."""
        self._base = self.collector.get_freeze_count()
        self._since = self.clock()
        _hook(self)
        return self

    def remove(self) -> None:
        _unhook(self)

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
        """Freeze what is alive and not frozen; collect in full if it is time."""
        self._pending = False
        self.collector.freeze()
        if self.due():
            self.collect_all()

    def due(self) -> bool:
        """Whether the frozen heap has grown by `growth` and by `slack` objects since the last
        full collection, or `every` seconds have passed since it."""
        limit = self._base + max(int(self._base * self.growth), self.slack)
        grown = self.collector.get_freeze_count() > limit
        return grown or self.clock() - self._since >= self.every

    def collect_all(self) -> int:
        """One full collection of everything, the frozen heap too; what it leaves is frozen
        again. Returns the unreachable objects it found."""
        self.collector.unfreeze()
        found = self.collector.collect()
        self.collector.freeze()
        self._base = self.collector.get_freeze_count()
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
