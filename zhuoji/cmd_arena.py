"""`zhuoji arena`: two bot policies on duplicate deals, with confidence intervals.

`--policies strong,normal` puts the challenger (`strong`) in each seat of every deal in turn,
the baseline (`normal`) in the other three (rules/players/arena.py has the method). The deals are
spread over `--workers` processes; a progress bar goes to stderr, the result to stdout (a
readable table, or one JSON object with `--json`). Interrupted (SIGINT, Ctrl-C, or SIGTERM), it
reports the deals finished so far, marked `"interrupted": true`.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
import time
from multiprocessing import Pool
from typing import Any


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--deals", type=int, default=1000, metavar="N", help="deals (1000); 4 rounds each"
    )
    p.add_argument("--seed", type=int, default=1, help="seed of the deal list and the bots (1)")
    p.add_argument("--preset", default="guiyang", help="ruleset preset (guiyang, chuan, anshun)")
    p.add_argument(
        "--options",
        default=None,
        metavar="JSON",
        help="option overrides as a JSON object, e.g. '{\"zimo_bonus\": 2}'",
    )
    p.add_argument(
        "--policies",
        default="strong,normal",
        metavar="A,B",
        help="challenger,baseline (strong,normal); levels: easy, normal, strong",
    )
    p.add_argument(
        "--workers",
        type=int,
        default=None,
        metavar="W",
        help="processes (default: the number of cores)",
    )
    p.add_argument("--json", action="store_true", help="print one JSON object")


class ArgError(Exception):
    """A flag with a bad value; the message says which and why."""


def _parse(args: argparse.Namespace) -> tuple[Any, str, str, int]:
    from rules.options import OptionsError, make_options
    from rules.players.levels import LEVELS

    if args.deals < 1:
        raise ArgError(f"--deals must be at least 1, got {args.deals}")
    workers = args.workers if args.workers is not None else (os.cpu_count() or 1)
    if workers < 1:
        raise ArgError(f"--workers must be at least 1, got {workers}")
    overrides: Any = {}
    if args.options is not None:
        try:
            overrides = json.loads(args.options)
        except json.JSONDecodeError as err:
            raise ArgError(f"--options is not valid JSON: {err}") from err
        if not isinstance(overrides, dict):
            raise ArgError("--options must be a JSON object of option names to values")
    try:
        make_options(args.preset, overrides)
    except OptionsError as err:
        raise ArgError(str(err)) from err
    names = [n.strip() for n in args.policies.split(",")]
    if len(names) != 2 or not all(names):
        raise ArgError(f"--policies takes two names, challenger,baseline; got {args.policies!r}")
    for n in names:
        if n not in LEVELS:
            raise ArgError(f"unknown policy {n!r} in --policies: choose from {', '.join(LEVELS)}")
    return overrides, names[0], names[1], workers


def _work(
    preset: str, overrides: dict[str, Any], seed: int, deals: list[int], a: str, b: str
) -> list[Any]:
    """One chunk of deals, in a worker process."""
    from rules.options import make_options
    from rules.players.arena import play_deals
    from rules.players.levels import policy_for

    return play_deals(
        make_options(preset, overrides), seed, deals, policy_for, a, b, time.process_time
    )


def _work_job(job: tuple[str, dict[str, Any], int, list[int], str, str]) -> list[Any]:
    return _work(*job)


def _stop(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def _ignore_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _chunks(n: int, workers: int) -> list[list[int]]:
    """Deal indexes in chunks small enough for a smooth progress bar and an even spread."""
    size = max(1, min(25, n // (workers * 8) or 1))
    return [list(range(i, min(n, i + size))) for i in range(0, n, size)]


def run(args: argparse.Namespace) -> int:
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn

    from rules.players.arena import report

    try:
        overrides, a, b, workers = _parse(args)
    except ArgError as err:
        print(f"zhuoji arena: {err}", file=sys.stderr)
        return 2
    started = time.perf_counter()
    results: list[Any] = []
    console = Console(stderr=True)
    columns = (
        "[progress.description]{task.description}",
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
    )
    jobs = [
        (args.preset, overrides, args.seed, chunk, a, b) for chunk in _chunks(args.deals, workers)
    ]
    interrupted = False
    # The workers ignore SIGINT: Ctrl-C (or SIGTERM) stops the parent, which reports the deals
    # finished so far; leaving the `with` terminates the workers.
    with (
        Progress(*columns, console=console, transient=False) as progress,
        Pool(workers, initializer=_ignore_sigint) as pool,
    ):
        task = progress.add_task(f"{a} vs {b} ({args.preset})", total=args.deals)
        # Set after the workers started, so they keep the default SIGTERM (terminate() uses
        # it); and SIGINT even where it was ignored (a background job of a shell script).
        handlers = {sig: signal.signal(sig, _stop) for sig in (signal.SIGINT, signal.SIGTERM)}
        try:
            for chunk in pool.imap_unordered(_work_job, jobs):
                results.extend(chunk)
                progress.advance(task, len(chunk))
        except KeyboardInterrupt:
            interrupted = True
        finally:
            for sig, handler in handlers.items():
                signal.signal(sig, handler)
    if interrupted and not results:
        print("zhuoji arena: interrupted before any deal finished", file=sys.stderr)
        return 130
    out = report(results, a, b)
    out = {
        "preset": args.preset,
        "options": overrides,
        "seed": args.seed,
        "workers": workers,
        "elapsed_s": time.perf_counter() - started,
        "interrupted": interrupted,
        "deals_asked": args.deals,
        **out,
    }
    if args.json:
        print(json.dumps(out, ensure_ascii=False))
    else:
        print(readable(out))
    return 0


def _ci(e: dict[str, Any]) -> str:
    lo, hi = e["ci95"]
    return f"{e['mean']:+.3f}  (95 % CI {lo:+.3f} … {hi:+.3f})"


def readable(out: dict[str, Any]) -> str:
    a, b = out["challenger"], out["baseline"]
    ppr = out["points_per_round"]
    lines = [
        f"arena: {a} (challenger) vs three {b}, {out['preset']}, {out['deals']} deals × 4 seatings"
        f" = {out['rounds']} rounds, seed {out['seed']}, {out['elapsed_s']:.1f} s"
        + (
            f" (interrupted: {out['deals']} of {out['deals_asked']} deals)"
            if out["interrupted"]
            else ""
        ),
        f"  {a:<10} points/round {_ci(ppr['challenger'])}",
        f"  {b:<10} points/round {_ci(ppr['baseline'])}",
        f"  difference {a} − {b}: {_ci(out['difference'])}",
        f"  荒庄 rate {out['draw_rate']:.1%}",
        "",
        f"  {'':<22}{'challenger':>12}{'baseline':>12}",
    ]
    ch, bl = out["diagnostics"]["challenger"], out["diagnostics"]["baseline"]
    rows = [
        ("win rate", "win_rate", "{:.1%}"),
        ("自摸 rate", "zimo_rate", "{:.1%}"),
        ("deal-in rate", "deal_in_rate", "{:.1%}"),
        ("ready at 荒庄", "ready_at_draw_rate", "{:.1%}"),
        ("冲锋鸡 (count)", "chongfeng", "{}"),
        ("责任鸡 paid (count)", "zeren", "{}"),
        ("包鸡 paid (rounds)", "baoji", "{}"),
        ("decision ms mean", "decision_ms_mean", "{:.2f}"),
        ("decision ms p95", "decision_ms_p95", "{:.2f}"),
    ]
    for label, key, fmt in rows:
        pad = 22 - sum(2 if ord(c) > 0x2E80 else 1 for c in label) + len(label)
        lines.append(f"  {label:<{pad}}{fmt.format(ch[key]):>12}{fmt.format(bl[key]):>12}")
    return "\n".join(lines)
