"""`zhuoji bench [--json]`: hand analysis against the `mahjong` package, and bot-played rounds.

Measured in one run, side by side on the same seeded hands:

- `is_win` on complete 14-tile hands (three suits) against `Agari().is_agari` on the same hands
  as its 34-count arrays;
- `waits` on random 13-tile hands against 27 calls of `is_agari` (one per added tile kind);
- whole bot-played rounds through the real round engine and settlement (`Round.deal`,
  `Bot.choose`, `Round.apply`), one core, with how they ended (自摸, a discard win, 荒庄).

Every timing is the median over `--repeat` repetitions, with the garbage collector paused while
a loop runs (as `timeit` does). Both analyses are also checked to agree before they are timed.
This is a tool, not the rules core: it reads the clock and draws its sample hands from a seeded
`random.Random`.
"""

from __future__ import annotations

import argparse
import gc
import json
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any

NUM_KINDS = 27


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--hands", type=int, default=2000, metavar="N", help="sample hands (2000)")
    p.add_argument("--rounds", type=int, default=2000, metavar="N", help="bot rounds (2000)")
    p.add_argument("--seed", type=int, default=1, help="seed of hands, walls and bots (1)")
    p.add_argument("--repeat", type=int, default=7, metavar="R", help="repetitions (7)")
    p.add_argument("--ruleset", default="guiyang", help="preset for the rounds (guiyang)")


def run(args: argparse.Namespace) -> int:
    if args.hands < 0 or args.rounds < 0 or args.repeat < 1:
        print("zhuoji bench: --hands and --rounds must be ≥ 0, --repeat ≥ 1", file=sys.stderr)
        return 2
    result: dict[str, Any] = {
        "python": sys.version.split()[0],
        "seed": args.seed,
        "repeat": args.repeat,
    }
    if args.hands:
        result.update(bench_hands(args.hands, args.seed, args.repeat))
    if args.rounds:
        try:
            result.update(bench_rounds(args.rounds, args.seed, args.repeat, args.ruleset))
        except BenchError as err:
            print(f"zhuoji bench: {err}", file=sys.stderr)
            return 1
    if result.get("is_agari_us") and result.get("rounds_per_s"):
        # rounds/s × µs per is_agari on this machine: a figure to compare across machines
        result["rounds_x_agari"] = round(result["rounds_per_s"] * result["is_agari_us"])
    if args.json:
        print(json.dumps(result, ensure_ascii=False))
    else:
        print(_readable(result))
    return 0


class BenchError(Exception):
    """A round that could not be played to its end (the message says which)."""


# --- sample hands ------------------------------------------------------------------------------


def complete_hands(rng: Any, n: int) -> list[list[int]]:
    """`n` complete 14-tile hands over three suits: four sets (pung or run) and a pair, sorted."""
    hands: list[list[int]] = []
    while len(hands) < n:
        counts = [0] * NUM_KINDS
        for _ in range(4):
            if rng.random() < 0.3:
                counts[rng.randrange(NUM_KINDS)] += 3
            else:
                start = rng.randrange(3) * 9 + rng.randrange(7)
                for k in range(start, start + 3):
                    counts[k] += 1
        counts[rng.randrange(NUM_KINDS)] += 2
        if max(counts) <= 4:
            hands.append([k for k in range(NUM_KINDS) for _ in range(counts[k])])
    return hands


def random_hands(rng: Any, n: int, size: int) -> list[list[int]]:
    """`n` hands of `size` tiles drawn from a full 108-tile wall, sorted."""
    wall = [k for k in range(NUM_KINDS) for _ in range(4)]
    return [sorted(rng.sample(wall, size)) for _ in range(n)]


def to_34(tiles: Sequence[int]) -> list[int]:
    """Our kinds 0–26 (1m…9s) are the `mahjong` package's first 27 of 34 in the same order."""
    counts = [0] * 34
    for t in tiles:
        counts[t] += 1
    return counts


def _timed(fn: Callable[[Any], object], inputs: Sequence[Any], loops: int = 1) -> float:
    """CPU µs per call of `fn` over `inputs`, `loops` passes, the garbage collector paused.
    CPU time of this process, as `rounds_per_s`: on a busy machine the time other programs
    had the core does not count on either side of `rounds_x_agari`."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        start = time.process_time_ns()
        for _ in range(loops):
            for x in inputs:
                fn(x)
        elapsed = time.process_time_ns() - start
    finally:
        if was_enabled:
            gc.enable()
    return elapsed / 1000 / (len(inputs) * loops)


def _loops_for(fn: Callable[[Any], object], inputs: Sequence[Any], at_least_s: float) -> int:
    """Passes over `inputs` that make one timing last `at_least_s` (after one warm-up pass)."""
    per_pass = _timed(fn, inputs) * len(inputs) / 1e6
    return max(1, round(at_least_s / per_pass)) if per_pass > 0 else 1


def _is_dragon_completion(counts: Sequence[int], kind: int) -> bool:
    """Adding `kind` makes seven pairs with a four: 龙七对, which `mahjong` does not count."""
    c = list(counts)
    c[kind] += 1
    return all(x % 2 == 0 for x in c) and 4 in c


def bench_hands(n: int, seed: int, repeat: int) -> dict[str, Any]:
    import random

    from rules.hand import is_win, is_win_counts, wait_kinds, waits
    from rules.tiles import to_counts

    rng = random.Random(seed)
    wins = complete_hands(rng, n)
    thirteens = random_hands(rng, n, 13)
    win_counts = [to_counts(h) for h in wins]
    thirteen_counts = [to_counts(h) for h in thirteens]

    try:
        from mahjong.agari import Agari
    except ImportError:  # the `bench` extra is not installed: our numbers only
        agari = None
    else:
        agari = Agari()

    out: dict[str, Any] = {"hands": n, "mahjong": None}
    if agari is not None:
        from importlib.metadata import version

        out["mahjong"] = version("mahjong")
        is_agari = agari.is_agari
        wins_34 = [to_34(h) for h in wins]
        thirteens_34 = [to_34(h) for h in thirteens]

        def agari_waits(tiles_34: list[int]) -> list[int]:
            """What `waits` computes, from `is_agari`: one call per tile kind, 27 in all."""
            found = []
            for k in range(NUM_KINDS):
                tiles_34[k] += 1
                if is_agari(tiles_34):
                    found.append(k)
                tiles_34[k] -= 1
            return found

        # The two agree (up to 龙七对 and the impossible fifth tile) before either is timed.
        for h, a in zip(wins, wins_34, strict=True):
            if not (is_win(h) and is_agari(a)):
                raise AssertionError(f"is_win and is_agari disagree on {h}")
        for c, a in zip(thirteen_counts, thirteens_34, strict=True):
            ours = set(wait_kinds(c))
            theirs = {k for k in agari_waits(a) if c[k] < 4}
            if any(not _is_dragon_completion(c, k) for k in ours ^ theirs):
                raise AssertionError(f"wait_kinds and is_agari disagree on {c}")

    # Each timing covers enough passes over the sample to last ≥ 20 ms, so that a small --hands
    # is not timing noise; the passes are counted once, after a warm-up pass of every function.
    timed: list[tuple[str, Callable[[Any], object], Sequence[Any]]] = [
        ("is_win_us", is_win, wins),
        ("is_win_counts_us", is_win_counts, win_counts),
        ("waits_us", waits, thirteens),
        ("wait_kinds_us", wait_kinds, thirteen_counts),
    ]
    if agari is not None:
        timed += [
            ("is_agari_us", is_agari, wins_34),
            ("is_agari_x27_us", agari_waits, thirteens_34),
        ]
    loops = {name: _loops_for(fn, inputs, 0.02) for name, fn, inputs in timed}
    runs: dict[str, list[float]] = {name: [] for name, _, _ in timed}
    for _ in range(repeat):
        # interleaved, so that a slow moment of the machine hits both sides alike
        for name, fn, inputs in timed:
            runs[name].append(_timed(fn, inputs, loops[name]))
    for name, values in runs.items():
        out[name] = round(statistics.median(values), 3)
    if agari is not None:
        out["is_win_speedup"] = round(out["is_agari_us"] / out["is_win_us"], 2)
        out["waits_speedup"] = round(out["is_agari_x27_us"] / out["waits_us"], 2)
    return out


# --- rounds --------------------------------------------------------------------------------------


WARMUP_ROUNDS = 500


def bench_rounds(n: int, seed: int, repeat: int, ruleset: str) -> dict[str, Any]:
    """Play `n` rounds with four bots, in `repeat` timed chunks; rate is the chunks' median."""
    from rules.options import OptionsError, make_options
    from rules.players.bot import Bot
    from rules.round import Phase, Round

    try:
        opts = make_options(ruleset, {})
    except OptionsError as err:
        raise BenchError(str(err)) from None
    tally = {"zimo": 0, "discard": 0, "rob": 0, "draw": 0}
    multi = 0
    chunks = min(repeat, n)
    rates: list[float] = []  # per CPU second of this process: "on one core"
    wall_rates: list[float] = []  # per elapsed second, which other processes can slow
    done = 0
    # Warm-up, untimed: the bot's per-suit caches fill in the first few hundred rounds, and a
    # server plays for hours; the rate asked for is the steady one.
    for i in range(min(n, WARMUP_ROUNDS)):
        w = Round.deal(opts, seed=f"bench-warmup-{seed}-{i}", dealer=i % 4)
        warm_bots = [Bot(f"bench-warmup-{seed}-{i}-{s}") for s in range(4)]
        while w.phase is not Phase.OVER:
            seat = w.awaiting()[0]
            w.apply(warm_bots[seat].choose(w, seat))
    for c in range(chunks):
        size = n * (c + 1) // chunks - done
        start = time.perf_counter_ns()
        cpu_start = time.process_time_ns()
        for i in range(done, done + size):
            r = Round.deal(opts, seed=f"bench-{seed}-{i}", dealer=i % 4)
            bots = [Bot(f"bench-{seed}-{i}-{s}") for s in range(4)]
            try:
                while r.phase is not Phase.OVER:
                    seat = r.awaiting()[0]
                    r.apply(bots[seat].choose(r, seat))
            except Exception as err:
                raise BenchError(
                    f"round {i} (wall seed 'bench-{seed}-{i}') failed: {type(err).__name__}: {err}"
                ) from err
            if r.winners:
                tally[r.winners[0].how] += 1
                multi += len(r.winners) > 1
            else:
                tally["draw"] += 1
        elapsed = (time.perf_counter_ns() - start) / 1e9
        cpu = (time.process_time_ns() - cpu_start) / 1e9
        rates.append(size / cpu)
        wall_rates.append(size / elapsed)
        done += size
    return {
        "ruleset": ruleset,
        "rounds": n,
        "rounds_per_s": round(statistics.median(rates), 1),
        "rounds_per_s_wall": round(statistics.median(wall_rates), 1),
        "zimo_share": round(tally["zimo"] / n, 4),
        "discard_win_share": round(tally["discard"] / n, 4),
        "rob_share": round(tally["rob"] / n, 4),  # 抢杠: neither 自摸 nor a discard
        "draw_share": round(tally["draw"] / n, 4),
        "multi_win_share": round(multi / n, 4),  # 一炮多响 (within discard_win and rob)
    }


def _readable(r: dict[str, Any]) -> str:
    lines = [f"python {r['python']}, seed {r['seed']}, median of {r['repeat']} repetitions"]
    if "hands" in r:
        lines.append(f"hand analysis on {r['hands']} hands (CPU µs per call):")
        lines.append(
            f"  is_win {r['is_win_us']}  (is_win_counts {r['is_win_counts_us']})"
            + (
                f"   mahjong {r['mahjong']} is_agari {r['is_agari_us']}"
                f"   → {r['is_win_speedup']}× faster"
                if r["mahjong"]
                else "   (mahjong not installed)"
            )
        )
        lines.append(
            f"  waits  {r['waits_us']}  (wait_kinds {r['wait_kinds_us']})"
            + (
                f"   27 × is_agari {r['is_agari_x27_us']}   → {r['waits_speedup']}× faster"
                if r["mahjong"]
                else ""
            )
        )
    if "rounds" in r:
        lines.append(
            f"{r['rounds']} bot-played {r['ruleset']} rounds: {r['rounds_per_s']} rounds/s; "
            f"自摸 {r['zimo_share']:.1%}, discard win {r['discard_win_share']:.1%}, "
            f"抢杠 {r['rob_share']:.1%}, 荒庄 {r['draw_share']:.1%} "
            f"(一炮多响 {r['multi_win_share']:.1%})"
        )
    if "rounds_x_agari" in r:
        lines.append(
            f"normalised: {r['rounds_x_agari']} = rounds/s × is_agari µs "
            "(compares machines: higher is faster)"
        )
    return "\n".join(lines)
