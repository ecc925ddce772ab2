"""How much memory the strong bot keeps in a long-running process (issue 24: ≤ 60 MB above a
process whose bots are all `normal`, after 1,000 strong-bot rounds).

One process plays `--warm` rounds of four `normal` bots and reads its resident set size (RSS,
from /proc/self/status); then `--rounds` rounds with one `strong` seat (rotating) among three
`normal`, reading RSS every `--every` rounds. The strong bot's caches are process-wide (as in a
server, whose strong bots and 托管 seats share them), so the growth is what a server pays. Also
prints the caches' entry counts and the strong seat's decision-time quantiles (CPU time).

    nice -n 10 python benchmarks/strong_memory.py --rounds 1000 > strong_memory.json
"""

from __future__ import annotations

import argparse
import gc
import json
import sys
import time
from typing import Any

from rules.options import make_options
from rules.players.arena import Diagnostics, play_round
from rules.players.bot_strong import cache_sizes
from rules.players.levels import policy_for


def rss_mb() -> float:
    """This process's resident set size in MB (Linux)."""
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--preset", default="guiyang")
    p.add_argument("--warm", type=int, default=200, help="normal-only rounds first (200)")
    p.add_argument("--rounds", type=int, default=1000, help="rounds with a strong seat (1000)")
    p.add_argument("--every", type=int, default=100, help="RSS sample period in rounds (100)")
    args = p.parse_args()
    opts = make_options(args.preset)
    normal_only = [Diagnostics() for _ in range(4)]
    for i in range(args.warm):
        policies = [policy_for("normal", f"mem:{i}:{s}") for s in range(4)]
        play_round(opts, f"mem:warm:{i}", i % 4, policies, time.process_time, normal_only)
    gc.collect()
    base = rss_mb()
    samples: list[dict[str, Any]] = []
    strong = Diagnostics()
    others = Diagnostics()
    for i in range(args.rounds):
        seat = i % 4
        policies = [
            policy_for("strong" if s == seat else "normal", f"mem:{i}:{s}") for s in range(4)
        ]
        timings = [strong if s == seat else others for s in range(4)]
        play_round(opts, f"mem:{i}", i % 4, policies, time.process_time, timings)
        if (i + 1) % args.every == 0:
            gc.collect()
            samples.append({"rounds": i + 1, "rss_mb": round(rss_mb(), 1)})
            # progress on stderr (a long run on a busy machine can be cut short)
            print(
                json.dumps({"base_mb": round(base, 1), **samples[-1]}), file=sys.stderr, flush=True
            )
    gc.collect()
    end = rss_mb()
    summary = strong.summary()
    print(
        json.dumps(
            {
                "preset": args.preset,
                "normal_only_rss_mb": round(base, 1),
                "after_rss_mb": round(end, 1),
                "growth_mb": round(end - base, 1),
                "strong_rounds": args.rounds,
                "samples": samples,
                "caches": cache_sizes(),
                "strong_decisions": {k: v for k, v in summary.items() if k.startswith("decision")},
            },
            indent=1,
        )
    )


if __name__ == "__main__":
    main()
