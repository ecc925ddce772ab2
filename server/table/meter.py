"""What a table's steps are charged against the server's share of a core for the tables no
player is at (`server.quota.CpuShare`, `Table.unattended`)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from server.storage.records import EventLogged
from server.table.effects import Write

# CPU seconds an event is charged before any round has ended here (benchmarks: 2.3–2.7 ms)
EVENT_COST = 0.003
ROUND_OVER = frozenset({"round_ended", "match_ended"})


@dataclass(slots=True)
class EventCost:
    """What a table's steps are charged against the `CpuShare`: its stored events times the
    CPU an event cost it over the round before — not each step's own time. A step's time
    depends on what the bots and 托管 had to decide (a bot that can claim ponders), and a
    table put off by what it spent would show a spectator who could claim; the number of
    events and when they come are public, and a round's cost is once it has ended (every hand
    is shown then).

    When a round ends its charges are made right: the step that ends it is also charged what
    the round cost less what its events were charged (a refund if less), so over the rounds
    the charges are what the table spent, not only from its second round on. `learned` says
    whether the price is from a finished round yet (else it is the server's, `CpuShare.price`,
    or `EVENT_COST`)."""

    per_event: float = EVENT_COST
    round_cost: float = 0.0  # CPU seconds spent since the last round ended
    round_events: int = 0
    round_charged: float = 0.0  # what those events were charged
    learned: bool = False
    rounds: int = 0  # rounds ended
    spent: float = 0.0  # every step's cost in all (the benchmark)
    priced: float = 0.0  # what its events were charged in all, without the rounds' true-ups

    def step(self, cost: float, effects: Iterable[Any]) -> float:
        """A step that took `cost` seconds and did `effects`: what to charge for it."""
        events = 0
        over = False
        for effect in effects:
            if isinstance(effect, Write):
                for record in effect.records:
                    if isinstance(record, EventLogged):
                        events += 1
                        over = over or record.event.get("type") in ROUND_OVER
        charge = events * self.per_event
        self.round_cost += cost
        self.spent += cost
        self.round_events += events
        self.round_charged += charge
        self.priced += charge
        if over and self.round_events:
            self.per_event = self.round_cost / self.round_events
            self.learned = True
            self.rounds += 1
            charge += self.round_cost - self.round_charged  # the round is public now
            self.round_cost, self.round_events, self.round_charged = 0.0, 0, 0.0
        return charge
