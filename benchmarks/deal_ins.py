"""When a policy deals in against three `normal`: how far from ready it was, into what, and what it cost.

    nice -n 10 python benchmarks/deal_ins.py --deals 600 --seed 77 [--policy strong]
        [--preset guiyang] [--variant '{"NAME": value}'] [--workers 2]

Plays the arena's duplicate deals (`rules.players.arena`: the policy in each seat against three
`normal`) and records every discard the policy makes with what its seat saw then: the exact
shanten after its best discard (`low`: 0 = the hand stays ready), the deal-in estimate of the
tile and of the safest tile it held (`rules.players.danger`), the live wall, whether some
other seat had declared 报听. For each round the policy dealt in, its last discard is the one won
on; the winner's pattern, melds, 报听 and 热炮 are read from the round, and the policy's
payments that round by kind (hand, chickens, 包鸡, ...).

Prints one JSON object: the deal-in rate; the deal-ins split by `low`, by the winner's pattern,
melds (0-3), 报听 and 热炮, by whether the tile had been discarded by anyone before, whether it
was a standing chicken kind (幺鸡/乌骨鸡), by the live wall (tens of tiles) and by the estimate
of the tile; the mean net and payments of a dealt-in round per `low`; and every discard's
deal-in rate per `low`. `--variant` sets constants of `rules.players.bot_strong` in the workers
(as `paired.py`).
"""

from __future__ import annotations

import json
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run from a checkout

from benchmarks.strong_runs import Job, parse_args, run_deals, set_variant  # noqa: E402
from rules.actions import Action  # noqa: E402
from rules.chickens import standing_values  # noqa: E402
from rules.players import shanten as exact  # noqa: E402
from rules.players.arena import (  # noqa: E402
    Diagnostics,
    deal_dealer,
    deal_seed,
    play_round,
    seat_seed,
)
from rules.players.danger import DangerReader  # noqa: E402
from rules.view import SeatView  # noqa: E402


@dataclass(frozen=True, slots=True)
class DiscardSeen:
    """One discard of the policy and what its seat saw when it made it."""

    tile: int
    low: int  # exact shanten after the hand's best discard
    chance: float  # the deal-in estimate of the tile
    safest: float  # the least estimate among the tiles held
    wall: int
    declared_other: bool  # some other seat had declared 报听/天听
    thrown_before: bool  # some seat had discarded the kind before
    chicken: bool  # a standing chicken kind (幺鸡/乌骨鸡)


class Recorder:
    """Wraps a policy: records each discard it makes (`DiscardSeen`) in `seen`."""

    def __init__(self, policy: Any) -> None:
        self.policy = policy
        self.seen: list[DiscardSeen] = []

    def choose_for(self, v: SeatView) -> Action:
        a: Action = self.policy.choose_for(v)
        if v.on_turn and a.act in ("discard", "ready") and a.tile is not None:
            self.seen.append(_seen(v, a.tile))
        return a


def _seen(v: SeatView, k: int) -> DiscardSeen:
    assert v.hand is not None and v.viewer is not None
    low, _ = exact.best_discards(v.hand, len(v.own_melds))
    reader = DangerReader(v)
    held = [t for t in range(len(v.hand)) if v.hand[t]]
    return DiscardSeen(
        tile=k,
        low=low,
        chance=reader.of(k).chance,
        safest=min(reader.of(t).chance for t in held),
        wall=v.wall_left,
        declared_other=any(v.declared[s] for s in range(4) if s != v.viewer),
        thrown_before=any(d.tile == k for row in v.discards for d in row),
        chicken=k in standing_values(v.opts),
    )


def _rounds(job: Job) -> list[dict[str, Any]]:
    """Per round of the policy (each deal × each seat): its discards and, if it dealt in, the
    win and its payments."""
    variant, policy, preset, seed, deals = job
    set_variant(variant)
    from rules.options import make_options
    from rules.players.levels import policy_for

    opts = make_options(preset)
    out: list[dict[str, Any]] = []
    for deal in deals:
        for seat in range(4):
            names = [policy if s == seat else "normal" for s in range(4)]
            pols: list[Any] = [policy_for(names[s], seat_seed(seed, deal, s)) for s in range(4)]
            rec = Recorder(pols[seat])
            pols[seat] = rec
            timings = [Diagnostics() for _ in range(4)]
            r = play_round(
                opts, deal_seed(seed, deal), deal_dealer(deal), pols, time.process_time, timings
            )
            assert r.result is not None
            first = r.winners[0] if r.winners else None
            dealt = first is not None and first.how != "zimo" and first.from_seat == seat
            row: dict[str, Any] = {"lows": [d.low for d in rec.seen], "dealt": dealt}
            if dealt and rec.seen:
                assert first is not None
                pay: dict[str, int] = defaultdict(int)
                for p in r.result.payments:
                    if seat in (p.payer, p.payee):
                        pay[str(p.kind)] += p.amount if p.payee == seat else -p.amount
                row.update(
                    last=rec.seen[-1],
                    pattern=first.pattern.name,
                    winner_melds=len(r.melds[first.seat]),
                    winner_declared=first.declared,
                    hot=first.hot,
                    net=r.result.net[seat],
                    pay=dict(pay),
                )
            out.append(row)
    return out


def _split(rows: list[dict[str, Any]], key: Callable[[dict[str, Any]], object]) -> dict[str, int]:
    c = Counter(str(key(r)) for r in rows)
    return dict(sorted(c.items()))


def summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """The deal-ins of `rows` (one per round of the policy) split as the module says."""
    dealt = [r for r in rows if r["dealt"] and "last" in r]
    discards = Counter(low for r in rows for low in r["lows"])
    by_low: dict[str, dict[str, float]] = {}
    for low in sorted({r["last"].low for r in dealt}):
        some = [r for r in dealt if r["last"].low == low]
        kinds = {k for r in some for k in r["pay"]}
        by_low[str(low)] = {
            "deal_ins": len(some),
            "net": round(sum(r["net"] for r in some) / len(some), 2),
            **{k: round(sum(r["pay"].get(k, 0) for r in some) / len(some), 2) for k in kinds},
        }
    return {
        "rounds": len(rows),
        "deal_ins": len(dealt),
        "deal_in_rate": round(len(dealt) / len(rows), 4),
        "by_low": _split(dealt, lambda r: r["last"].low),
        "by_pattern": _split(dealt, lambda r: r["pattern"]),
        "by_winner_melds": _split(dealt, lambda r: r["winner_melds"]),
        "winner_declared": _split(dealt, lambda r: r["winner_declared"]),
        "hot": _split(dealt, lambda r: r["hot"]),
        "tile_thrown_before": _split(dealt, lambda r: r["last"].thrown_before),
        "tile_chicken": _split(dealt, lambda r: r["last"].chicken),
        "another_declared": _split(dealt, lambda r: r["last"].declared_other),
        "wall_tens": _split(dealt, lambda r: min(r["last"].wall // 10, 5)),
        "estimate": _split(dealt, lambda r: _bucket(r["last"].chance)),
        "safest_held_estimate": _split(dealt, lambda r: _bucket(r["last"].safest)),
        "dealt_in_round_by_low": by_low,
        "discard_deal_in_rate_by_low": {
            str(low): round(sum(1 for r in dealt if r["last"].low == low) / n, 4)
            for low, n in sorted(discards.items())
        },
    }


def _bucket(chance: float) -> str:
    for limit in (0.02, 0.05, 0.10, 0.20):
        if chance < limit:
            return f"<{limit:.2f}"
    return ">=0.20"


def main() -> None:
    args = parse_args(__doc__.split("\n")[0], deals=600)
    variant = args.variant
    start = time.monotonic()
    rows = run_deals(_rounds, args)
    out = {
        "policy": args.policy,
        "preset": args.preset,
        "seed": args.seed,
        "deals": args.deals,
        "variant": variant,
        **summary(rows),
        "elapsed_s": round(time.monotonic() - start),
    }
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
