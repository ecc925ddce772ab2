"""The pauses of a table left to its bots tell nobody who could claim (issue 22, items 2 and 7).

A table no player is at plays within its part of `bot_tables_cpu_share`: past it the shell puts
its next step off (`Table._wakeup_at`). If what a table were charged followed what its steps
took, a bot that ponders a claim would make the table pause longer, and a spectator would see
who could claim. The table is charged by its events at a price from finished rounds
(`server.table.meter.EventCost`), times the whole server's overhead (`server.quota.CpuShare`),
so its pauses follow its events only.

The side-channel test's table core on a fake clock (`tests.server.test_side_channels.Table`: the
host in 托管 and three bots at a 1 s pace, a spectator timing each claim window), stepped as
the shell steps it under a share so small that nearly every step waits its turn; each step is
given a cost ten times higher when some seat could claim (the worst case of a pondering bot),
and the loop's CPU is those costs plus a fixed amount per step that no step measures.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from rules.round import Phase
from server.quota import CpuShare
from server.table.effects import Effect
from server.table.meter import EventCost
from tests.server.test_side_channels import (
    CLAIM_MIN_MS,
    LIMIT,
    Table,
    bots_table,
)
from tests.support import volume

SHARE = 0.002  # a core's fifth of a per cent: ~1.5 s a step at 3 ms an event
PONDER, QUICK, UNMEASURED = 0.03, 0.003, 0.0004  # CPU seconds a step (fake)


@dataclass
class SharedTable(Table):
    """The table as the shell runs it when no player is at it: charged, and put off."""

    by_time: bool = False  # charge what each step took instead (the leak the test must see)
    budget: CpuShare = field(default_factory=lambda: CpuShare(share=SHARE, overhead=0.25))
    meter: EventCost = field(default_factory=EventCost)
    loop_cpu: float = 0.0
    put_off: int = 0  # wakeups put off for the share

    def charge(self, effects: list[Effect]) -> None:
        """After a step, as `Table._charge` does: a pondering step costs more."""
        r = self.core.round
        could = r is not None and r.phase in (Phase.CLAIM, Phase.ROB) and bool(r.claim_options)
        cost = PONDER if could else QUICK
        priced = self.meter.priced
        charge = self.meter.step(cost, effects)
        self.budget.join("7", self.now)
        if self.by_time:
            self.budget.spend("7", cost, self.now)
        else:
            self.budget.spend("7", charge, self.now, priced=self.meter.priced - priced)
        self.budget.measured(cost)
        self.loop_cpu += cost + UNMEASURED
        self.budget.observe(self.now, self.loop_cpu)

    def play(self) -> None:
        """Each tick at the core's wakeup, or later when the share says so."""
        limit = self.now + 36000.0 * self.rounds
        while self.core.state in ("waiting", "playing"):
            wake = self.core.next_wakeup()
            assert wake is not None, "nothing more happens"
            ready = self.budget.ready_at("7", self.now)
            if ready > wake:
                wake = ready
                self.put_off += 1
            self.now = max(self.now, wake)
            effects = self.core.tick(self.now)
            self.step(effects)
            self.charge(effects)
            assert self.now < limit, "the match does not end"


def _played(by_time: bool, rounds: int) -> SharedTable:
    base = bots_table(f"share-{by_time}", rounds)
    t = SharedTable(base.seed, base.rounds, base.watched, by_time=by_time)
    # the same table as `bots_table` makes it, with the share's accounting
    t.create("host")
    t.add_bots(3)
    t.command("host", type="auto", on=True)
    t.start()
    t.play()
    return t


def test_a_bot_tables_pauses_under_the_share_tell_nobody_who_could_claim() -> None:
    rounds = volume(10, 40)
    t = _played(False, rounds)
    timing, _, windows, could = t.scores()
    print(f"share: {windows} windows, {could} claimable, {t.put_off} put off; {timing:.2f}")
    assert windows >= 20 * rounds and could >= 10, (windows, could)
    waited = [w for w in t.windows if w.closed is not None and w.seconds > CLAIM_MIN_MS / 1000]
    assert len(waited) >= windows // 2, "the share put most windows off (else nothing to see)"
    assert timing <= LIMIT, f"the pauses tell who could claim ({timing:.2f})"


def test_charging_what_the_steps_took_would_tell_and_the_test_sees_it() -> None:
    """The yardstick: the same table charged by each step's time shows who could claim."""
    t = _played(True, 4)
    timing, _, windows, could = t.scores()
    assert windows >= 40 and could >= 10, (windows, could)
    assert timing > 0.9, timing
