"""`zhuoji loadtest --url ws://HOST:PORT --tables N --rounds R [--json]`.

Opens N tables of four bot clients against a running server, plays R rounds at each, and prints
rounds_completed, errors, p50_ms / p99_ms (an action sent → its delivery at the other seats) and
zero_sum. Exit code 0 when every match finished with no error and every table summed to zero.
"""

from __future__ import annotations

import argparse


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
    parser.add_argument("--json", action="store_true", help="print one JSON object")


def run(args: argparse.Namespace) -> int:
    import asyncio
    import gc
    import json

    from server.loadtest import run as run_loadtest

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
        )
    )
    result = report.to_dict()
    if args.json:
        print(json.dumps(result, ensure_ascii=False))
    else:
        for key, value in result.items():
            if key != "error_samples":
                print(f"{key:>18}: {value}")
        for sample in result["error_samples"]:
            print(f"  error: {sample}")
    ok = (
        result["errors"] == 0
        and result["zero_sum"]
        and result["rounds_completed"] == args.tables * args.rounds
    )
    return 0 if ok else 1
