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
0.46-0.91 s of CPU in all, with 10,000; 5, 0.22-0.28 s, with 50,000. A middle collection walks what the young ones left
since the last one: one after every `MIDDLE` = 2 young ones keeps that to two young
collections' survivors, which then go to the old generation, walked only by a full collection
(after `OLD` middle ones, and only once the old generation has grown by a quarter: Python's own
rule). `PauseClock` times every collection by generation (`gc.callbacks`), for `/metrics`
(`zhuoji_gc_pause_seconds_total`, `zhuoji_gc_pause_longest_seconds`) and the benchmarks.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

YOUNG = 50_000  # allocations (less deallocations) of tracked objects between young collections
MIDDLE = 2  # young collections between middle ones
OLD = 50  # middle collections between full ones (Python also waits for 25 % more old objects)


def tune() -> None:
    """Freeze what is alive now (modules, the rules' tables, the server's set-up) out of
    collection, set the thresholds and time the pauses (`PAUSES`). Called once, when the
    server is ready to serve."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(YOUNG, MIDDLE, OLD)
    PAUSES.install()


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
        if self not in gc.callbacks:
            gc.callbacks.append(self)
        return self

    def remove(self) -> None:
        while self in gc.callbacks:
            gc.callbacks.remove(self)


PAUSES = PauseClock()  # the process's: installed by `tune`, read by `/metrics`
