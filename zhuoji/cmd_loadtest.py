"""`zhuoji loadtest --url ws://HOST:PORT --tables N --rounds R [--chaos P] [--json]`.

Opens N tables of four bot clients against a running server, plays R rounds at each, and prints
rounds_completed, errors, p50_ms / p99_ms (an action sent → its delivery at the other seats) and
zero_sum. With `--chaos P` every client drops its connection with probability P after each event
it receives and reconnects after a short random delay; `reconnects` counts the comebacks and
`mismatches` the reconnected clients whose rebuilt view differed from the server's snapshot of
their seat. Beside the latencies it reports the server's own CPU over the run (its `/metrics`
`process_cpu_seconds_total`, read before and after): `server_cpu_per_action_us` and
`server_cpu_per_frame_us` (per frame the load test's clients received). Exit code 0 when every match finished with no error and no mismatch, and every table
summed to zero.
"""

from __future__ import annotations

import argparse
import sys


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--url", default="ws://127.0.0.1:8765", help="the server's websocket URL")
    parser.add_argument("--tables", type=int, default=10, help="tables played at once")
    parser.add_argument("--rounds", type=int, default=2, help="rounds per table")
    parser.add_argument(
        "--think-ms",
        type=float,
        default=300.0,
        help="bots wait 0.5-1.5 times this before each answer (default 300, quicker than people;"
        " 0: as fast as they can, which measures queueing at saturation, not latency)",
    )
    parser.add_argument(
        "--ramp-ms", type=float, default=5.0, help="delay between starting tables (default 5)"
    )
    parser.add_argument(
        "--claim-min-ms",
        type=int,
        default=0,
        help="the tables' claim-window minimum (default 0: measure the server, not the pacing)",
    )
    parser.add_argument("--timeout", type=float, default=900.0, help="seconds per match at most")
    parser.add_argument(
        "--chaos",
        type=float,
        default=0.0,
        metavar="P",
        help="drop each client's connection with probability P per event received (default 0)",
    )
    parser.add_argument(
        "--reconnect-for",
        type=float,
        default=30.0,
        help="seconds a dropped client keeps trying to reconnect (default 30)",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")


def run(args: argparse.Namespace) -> int:
    import asyncio
    import gc
    import json

    from clients.loadtest import Chaos
    from clients.loadtest import run as run_loadtest

    if not 0 <= args.chaos < 1:
        print("zhuoji loadtest: --chaos must be at least 0 and below 1", file=sys.stderr)
        return 2

    # The measuring process must not add pauses of its own to what it measures: no collector
    # while it runs (a run's garbage cycles are few; memory is given back at exit).
    gc.collect()
    gc.freeze()
    gc.disable()

    report = asyncio.run(
        run_loadtest(
            args.url,
            args.tables,
            args.rounds,
            think=args.think_ms / 1000,
            ramp=args.ramp_ms / 1000,
            table_options={"claim_min_ms": args.claim_min_ms},
            timeout=args.timeout,
            chaos=Chaos(args.chaos),
            reconnect_for=args.reconnect_for,
        )
    )
    result = report.to_dict()
    if args.json:
        print(json.dumps(result, ensure_ascii=False))
    else:
        for key, value in result.items():
            if key not in ("error_samples", "mismatch_samples"):
                print(f"{key:>18}: {value}")
        for sample in result["error_samples"]:
            print(f"  error: {sample}")
        for sample in result["mismatch_samples"]:
            print(f"  mismatch: {sample}")
    ok = (
        result["errors"] == 0
        and result["mismatches"] == 0
        and result["zero_sum"]
        and result["rounds_completed"] == args.tables * args.rounds
    )
    return 0 if ok else 1
