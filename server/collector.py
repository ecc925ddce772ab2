"""The garbage collector in the serving process: its thresholds, and its pauses measured.

Every collection stops the one event loop, so a pause stalls every table at once: at 500
tables it is the tail of the move latency (issue 26). What a collection costs is the number of
tracked objects it walks: a young collection walks the objects made since the last one that are
still alive, a middle one those plus what the young ones left behind since it last ran, a full
one every tracked object not frozen. The server keeps each table's state alive for the whole
match, so nearly everything a move leaves behind survives every collection it is in; walking it
again and again finds nothing.

So: everything alive once the server is set up is frozen out of collection (`gc.freeze`), young
collections run after `YOUNG` allocations, and a middle collection after every `MIDDLE` young
ones, which bounds what a middle collection walks to about `MIDDLE` young collections' survivors.
`PauseClock` times every collection by generation (`gc.callbacks`), for `/metrics`
(`zhuoji_gc_pause_seconds_total`, `zhuoji_gc_pause_longest_seconds`) and the benchmarks.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

YOUNG = 10_000  # allocations (less deallocations) of tracked objects between young collections
MIDDLE = 20  # young collections between middle ones
OLD = 20  # middle collections between full ones (Python also waits for 25 % more old objects)


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
