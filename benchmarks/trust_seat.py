"""A seat in 托管 among three `normal` server bots (issue 24): points per round with a 95 % CI.

The seats are played as a server table plays them (`server.table.policies.Policies`): three
server bots added at level `normal`, and one player's seat the server plays for, whose policy is
the server's `auto_level` (`server.table.settings.AUTO_LEVEL`, `strong`) seeded by the table and
the seat. Each move is the policy's, or the round's default when the policy raises or picks an
illegal move (counted as a fallback), as `server.table.core` does. The deals are the arena's
duplicate deals (`rules.players.arena`: the 托管 seat in each seat of every deal in turn), so the
CI is clustered by deal as `zhuoji arena` reports it. No clock, no network: the choice of moves is
all that differs between a 托管 seat and a bot seat, and that is what is measured.

    nice -n 10 python benchmarks/trust_seat.py [--deals 500] [--seed 1] [--preset guiyang]
        [--workers 1] [--json]
"""

from __future__ import annotations

import argparse
import json
import time
from multiprocessing import Pool
from typing import Any

from rules.actions import IllegalAction
from rules.options import make_options
from rules.players.arena import Diagnostics, clustered_estimate, deal_dealer, deal_seed, tally
from rules.round import Phase, Round
from server.table.policies import Policies
from server.table.settings import AUTO_LEVEL

MAX_ACTIONS = 2000


def play(preset: str, seed: int, deal: int, trust: int) -> tuple[list[int], int, Round]:
    """One game of a deal with seat `trust` in 托管: (the nets, fallbacks, the round)."""
    r = Round.deal(make_options(preset, {}), seed=deal_seed(seed, deal), dealer=deal_dealer(deal))
    policies = Policies(f"trust:{seed}:{deal}", AUTO_LEVEL)
    for s in range(4):
        if s != trust:
            policies.seat_bot(s, "normal")
    for _ in range(MAX_ACTIONS):
        if r.phase is Phase.OVER:
            break
        seat = r.awaiting()[0]
        action = policies.choose(r, seat)
        if action is not None:
            try:
                r.apply(action)
                continue
            except IllegalAction:
                pass
        policies.fell_back()
        r.apply(r.default_action(seat))
    assert r.result is not None, f"deal {deal} did not end"
    return list(r.result.net), policies.fallbacks, r


def _play_deals(
    job: tuple[str, int, list[int]],
) -> tuple[list[tuple[int, float]], int, Diagnostics, Diagnostics, float]:
    """The games of `deals`: (deal, the 托管 seat's points/round) each, fallbacks, the 托管
    and the normal seats' diagnostics, and the CPU seconds taken."""
    preset, seed, deals = job
    cpu = time.process_time()
    per_deal: list[tuple[int, float]] = []
    fallbacks = 0
    trust, bots = Diagnostics(), Diagnostics()
    for deal in deals:
        points = 0.0
        for seat in range(4):
            net, fell, r = play(preset, seed, deal, seat)
            points += net[seat] / 4
            fallbacks += fell
            for s in range(4):
                tally(r, s, trust if s == seat else bots)
        per_deal.append((deal, points))
    return per_deal, fallbacks, trust, bots, time.process_time() - cpu


def run(preset: str, seed: int, deals: int, workers: int = 1) -> dict[str, Any]:
    started = time.monotonic()
    chunks = [list(range(i, deals, 4 * workers)) for i in range(4 * workers)]
    jobs = [(preset, seed, c) for c in chunks if c]
    if workers > 1:
        with Pool(workers) as pool:
            parts = pool.map(_play_deals, jobs)
    else:
        parts = [_play_deals(j) for j in jobs]
    by_deal: dict[int, float] = {}
    fallbacks = 0
    trust, bots = Diagnostics(), Diagnostics()
    cpu_s = 0.0
    for per_deal, fell, t, b, cpu in parts:
        cpu_s += cpu
        by_deal.update(per_deal)
        fallbacks += fell
        trust.merge(t)
        bots.merge(b)
    est = clustered_estimate([by_deal[d] for d in sorted(by_deal)])
    return {
        "preset": preset,
        "seed": seed,
        "deals": deals,
        "auto_level": AUTO_LEVEL,
        "points_per_round": est.to_dict(),
        "fallbacks": fallbacks,
        "trust": trust.summary(),
        "normal": bots.summary(),
        "cpu_s": round(cpu_s, 1),  # summed over the workers
        "elapsed_s": round(time.monotonic() - started, 1),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deals", type=int, default=500)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--preset", default="guiyang")
    ap.add_argument("--workers", type=int, default=1, help="processes (1)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    out = run(args.preset, args.seed, args.deals, args.workers)
    if args.json:
        print(json.dumps(out))
        return
    e = out["points_per_round"]
    lo, hi = e["ci95"]
    print(
        f"托管 ({out['auto_level']}) among three normal, {out['preset']}, {out['deals']} deals × 4: "
        f"{e['mean']:+.2f} points/round (95 % CI {lo:+.2f} … {hi:+.2f}), "
        f"deal-in {out['trust']['deal_in_rate']:.1%} (normal {out['normal']['deal_in_rate']:.1%}), "
        f"fallbacks {out['fallbacks']}"
    )


if __name__ == "__main__":
    main()
