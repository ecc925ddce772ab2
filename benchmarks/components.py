"""Where one policy gains or loses against three `normal`: each seat's net split by item, paired.

    nice -n 10 python benchmarks/components.py --deals 300 --seed 77 [--policy strong]
        [--preset guiyang] [--variant '{"NAME": value}'] [--workers 2]

Every deal is played five times: once with four `normal` seats (the reference), and once with
the policy in each seat (the arena's duplicate deals, `rules.players.arena`: the same wall, the
same opponents' seeds). For each seat the policy's net in its game is compared with what
`normal` made in that seat of the reference game, item by item, so the luck of the deal cancels:
a component's difference says what playing that seat by the policy instead of `normal` won or
lost there. The per-deal mean over the four seats is the unit of the 95 % interval.

Components (units per seat-round, each a net: received minus paid):
- `hand_won`: hand payments received (牌型 + bonuses, 热炮, 包牌, 抢杠's 包三家);
- `hand_dealt_in`: hand payments made on the seat's own discard (or a robbed 补杠);
- `hand_zimo_paid`: hand payments made on another's 自摸;
- `dou`, `chicken` (standing, 翻牌, 冲锋 included), `baoji` (包鸡 paid), `zeren` (责任鸡 net),
  `chajiao` (查叫 at 荒庄).
Counts per seat-round besides: wins, deal-ins, 冲锋鸡 released, 包鸡 paid, ready at 荒庄.
`--variant` sets constants of `rules.players.bot_strong` in the workers (as `paired.py`).
"""

from __future__ import annotations

import json
import math
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run from a checkout

from benchmarks.strong_runs import Job, parse_args, run_deals, set_variant  # noqa: E402
from rules.players.arena import (  # noqa: E402
    Diagnostics,
    deal_dealer,
    deal_seed,
    play_round,
    seat_seed,
    tally,
)
from rules.round import Round  # noqa: E402

HAND_KINDS = ("hand", "repao", "baopai")
COMPONENTS = (
    "hand_won",
    "hand_dealt_in",
    "hand_zimo_paid",
    "dou",
    "chicken",
    "baoji",
    "zeren",
    "chajiao",
    "other",
)
COUNTS = ("wins", "deal_ins", "chongfeng", "baoji_rounds", "ready_at_draw")


def components(r: Round, seat: int) -> dict[str, float]:
    """The seat's net in a finished round, split into `COMPONENTS` (they sum to its net)."""
    assert r.result is not None
    out = dict.fromkeys(COMPONENTS, 0.0)
    zimo = bool(r.winners) and r.winners[0].how == "zimo"
    for p in r.result.payments:
        if seat not in (p.payer, p.payee):
            continue
        sign = 1 if p.payee == seat else -1
        if p.kind in HAND_KINDS:
            if sign > 0:
                key = "hand_won"
            else:
                key = "hand_zimo_paid" if zimo else "hand_dealt_in"
        elif p.kind in ("dou", "baodou"):
            key = "dou"
        elif p.kind in ("chicken", "baoji", "zeren", "chajiao"):
            key = p.kind
        else:
            key = "other"
        out[key] += sign * p.amount
    assert math.isclose(sum(out.values()), r.result.net[seat]), (out, r.result.net[seat])
    return out


def counts(r: Round, seat: int) -> dict[str, float]:
    d = Diagnostics()
    tally(r, seat, d)
    return {
        "wins": d.wins,
        "deal_ins": d.deal_ins,
        "chongfeng": d.chongfeng,
        "baoji_rounds": d.baoji,
        "ready_at_draw": d.ready_at_draw,
    }


def _deal_rows(job: Job) -> list[dict[str, float]]:
    """Per deal: the policy's seat minus `normal` in the same seat, per key, averaged over seats."""
    variant, policy, preset, seed, deals = job
    set_variant(variant)
    from rules.options import make_options
    from rules.players.levels import policy_for

    opts = make_options(preset)
    rows = []
    for deal in deals:

        def game(challenger_seat: int | None, deal: int = deal) -> Round:
            names = [policy if s == challenger_seat else "normal" for s in range(4)]
            pols = [policy_for(names[s], seat_seed(seed, deal, s)) for s in range(4)]
            timings = [Diagnostics() for _ in range(4)]
            return play_round(
                opts, deal_seed(seed, deal), deal_dealer(deal), pols, time.process_time, timings
            )

        ref = game(None)
        row = dict.fromkeys((*COMPONENTS, *COUNTS, "net"), 0.0)
        for s in range(4):
            r = game(s)
            a, b = components(r, s), components(ref, s)
            ca, cb = counts(r, s), counts(ref, s)
            for k in COMPONENTS:
                row[k] += (a[k] - b[k]) / 4
            for k in COUNTS:
                row[k] += (ca[k] - cb[k]) / 4
                row["ref_" + k] = row.get("ref_" + k, 0.0) + cb[k] / 4
            assert r.result is not None and ref.result is not None
            row["net"] += (r.result.net[s] - ref.result.net[s]) / 4
        rows.append(row)
    return rows


def estimate(xs: list[float]) -> list[float]:
    """[mean, 95 % low, 95 % high] (normal approximation)."""
    n = len(xs)
    mean = sum(xs) / n
    sd = math.sqrt(sum((x - mean) ** 2 for x in xs) / (n - 1)) if n > 1 else math.inf
    half = 1.96 * sd / math.sqrt(n)
    return [round(mean, 4), round(mean - half, 4), round(mean + half, 4)]


def main() -> None:
    args = parse_args(__doc__.split("\n")[0], deals=300)
    variant = args.variant
    start = time.monotonic()
    rows = run_deals(_deal_rows, args)
    keys = [*COMPONENTS, "net", *COUNTS]
    out: dict[str, Any] = {
        "policy": args.policy,
        "preset": args.preset,
        "seed": args.seed,
        "deals": len(rows),
        "variant": variant,
        "minus_normal_same_seat": {k: estimate([r[k] for r in rows]) for k in keys},
        "normal_rates": {k: round(sum(r["ref_" + k] for r in rows) / len(rows), 4) for k in COUNTS},
        "elapsed_s": round(time.monotonic() - start),
    }
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
