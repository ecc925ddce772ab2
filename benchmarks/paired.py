"""Tune the strong bot: two variants of its constants, each against three `normal`, on the same deals.

    python benchmarks/paired.py '{"LEADERS": 4}' '{}' --deals 1000 --seed 50
    python benchmarks/paired.py '{"HAZARD": 0.04}' '{"HAZARD": 0.09}' '{}' --deals 300   # each vs the last

Each variant sets module constants of `rules.players.bot_strong` (by name, JSON) in the worker processes,
then plays `rules.players.arena.play_deals` (every deal four times, the strong seat in each seat, the same
walls and the same opponents for both variants). The difference is taken per deal, so the luck of
the deal cancels and a change that alters few games is measured sharply (`changed`: deals whose
points differ). Prints one JSON object: both variants' points/round, deal-in rates and the differences, each as
[mean, 95 % low, 95 % high] clustered by deal; with more than two variants, one such object per
line for each variant against the last (which is played once). Use seeds other than the
measurement's (1).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from multiprocessing import Pool
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run from a checkout

Job = tuple[dict[str, Any], str, int, list[int]]


def _play(job: Job) -> list[tuple[int, float, float]]:
    variant, preset, seed, deals = job
    import rules.players.bot_strong as strong

    for name, value in variant.items():
        setattr(strong, name, value)
    from rules.options import make_options
    from rules.players.arena import play_deals
    from rules.players.levels import policy_for

    results = play_deals(
        make_options(preset), seed, deals, policy_for, "strong", "normal", time.process_time
    )
    return [
        (r.deal, r.challenger_points, r.diag["challenger"].deal_ins / len(r.seats)) for r in results
    ]


Played = tuple[list[float], list[float]]


def points(variant: dict[str, Any], preset: str, seed: int, deals: int, workers: int) -> Played:
    """The strong seat's points/round and its deal-ins per seat-round, per deal (deals 0 …
    deals-1), under `variant`."""
    chunks = [list(range(i, deals, 4 * workers)) for i in range(4 * workers)]
    with Pool(workers) as pool:
        parts = pool.map(_play, [(variant, preset, seed, c) for c in chunks])
    by_deal = {d: (p, i) for part in parts for d, p, i in part}
    return [by_deal[d][0] for d in range(deals)], [by_deal[d][1] for d in range(deals)]


def estimate(xs: list[float]) -> list[float]:
    """[mean, low, high]: the mean with its 95 % interval (normal approximation)."""
    n = len(xs)
    mean = sum(xs) / n
    sd = math.sqrt(sum((x - mean) ** 2 for x in xs) / (n - 1))
    half = 1.96 * sd / math.sqrt(n)
    return [mean, mean - half, mean + half]


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument(
        "a", help='variant A: JSON of rules.players.bot_strong constants, e.g. {"LEADERS": 4}'
    )
    p.add_argument("b", help="variant B (the committed bot: {})")
    p.add_argument("more", nargs="*", help="more variants: then each is compared with the last")
    p.add_argument("--preset", default="guiyang")
    p.add_argument("--seed", type=int, default=50)
    p.add_argument("--deals", type=int, default=1000)
    p.add_argument("--workers", type=int, default=2)
    args = p.parse_args()
    variants = [json.loads(x) for x in (args.a, args.b, *args.more)]
    import rules.players.bot_strong as strong

    names = {name for v in variants for name in v}
    unknown = sorted(name for name in names if not name.isupper() or not hasattr(strong, name))
    if unknown:
        p.error(f"rules.players.bot_strong has no constant {', '.join(unknown)}")
    b = variants[-1]
    pb = points(b, args.preset, args.seed, args.deals, args.workers)
    for a in variants[:-1]:
        compare(a, b, pb, args)


def compare(
    a: dict[str, Any], b: dict[str, Any], played_b: Played, args: argparse.Namespace
) -> None:
    """Play variant `a` and print it against `b` (whose per-deal points and deal-ins are
    `played_b`)."""
    start = time.monotonic()
    pa, ia = points(a, args.preset, args.seed, args.deals, args.workers)
    pb, ib = played_b
    diff = [x - y for x, y in zip(pa, pb, strict=True)]
    out = {
        "a": a,
        "b": b,
        "preset": args.preset,
        "seed": args.seed,
        "deals": args.deals,
        "a_points": estimate(pa),
        "b_points": estimate(pb),
        "difference": estimate(diff),
        "a_deal_in_rate": estimate(ia),
        "b_deal_in_rate": estimate(ib),
        "deal_in_difference": estimate([x - y for x, y in zip(ia, ib, strict=True)]),
        "changed": sum(1 for d in diff if d != 0),
        "elapsed_s": round(time.monotonic() - start),
    }
    print(json.dumps(out), flush=True)


if __name__ == "__main__":
    main()
