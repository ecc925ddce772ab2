"""`zhuoji verify --db PATH --table T [--round N] [--json]`: check a table's stored rounds.

For each round (or round N): the fair-deal commitment is stored and is the one the players were
sent at the deal; the stored salt and the deal (dealt again from its seed, and equal to the stored
hands and wall) open it; for a finished round the order and salt revealed to the players are those;
and every stored action replays through the rules engine to exactly the stored events and result.

Exit codes: 0 every round checked is good; 1 a round failed a check; 2 bad usage, no such
database, table or round, or a database that cannot be read (not SQLite, corrupt, not zhuoji's).
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--db", help="the server's SQLite database")
    parser.add_argument("--table", help="the table id")
    parser.add_argument(
        "--round", type=int, dest="round_no", default=None, help="one round (default: every one)"
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")


def check_round(opts: Any, rnd: Any, actions: list[Any], events: list[dict[str, Any]]) -> list[str]:
    """What is wrong with one stored round ([] when it checks out)."""
    from rules.fairdeal import verify
    from rules.tiles import tile_name
    from server.resume import RebuildError, rebuild_round

    if rnd.commitment is None or rnd.salt is None:
        return ["no fair-deal commitment is stored (a round from before fair deals)"]
    problems: list[str] = []
    started = next((e for e in events if e["type"] == "round_started"), None)
    if started is None or started.get("commitment") != rnd.commitment:
        problems.append("the commitment sent at the deal is not the stored one")
    try:
        r = rebuild_round(opts, rnd, actions, events)
    except RebuildError as err:
        return problems + [str(err)]
    ended = next((e for e in events if e["type"] == "round_ended"), None)
    if rnd.result is not None:
        if ended is None:
            problems.append("the round is recorded as ended but its end was never sent")
        else:
            deal = ended.get("deal") or {}
            order = [tile_name(k) for k in r.deal_order]
            if deal.get("order") != order or deal.get("salt") != rnd.salt:
                problems.append("the deal revealed to the players is not the committed one")
            elif not verify(r.deal_order, deal["salt"], rnd.commitment):
                problems.append("the revealed deal does not open the commitment")
        result = getattr(r.result, "net", None)
        if result is None or list(result) != list(rnd.result.get("net", [])):
            problems.append(
                f"the stored result {rnd.result.get('net')} is not the replay's {result}"
            )
    return problems


def run(args: argparse.Namespace) -> int:
    from rules.options import OptionsError, make_options
    from server.storage.errors import StorageError
    from server.storage.reads import RoundNotFound, stored_rounds

    if not args.db or not args.table:
        print("zhuoji verify: name the database (--db) and the table (--table)", file=sys.stderr)
        return 2
    try:
        row, rounds = stored_rounds(args.db, args.table)
    except RoundNotFound as err:
        print(f"zhuoji verify: {err}", file=sys.stderr)
        return 2
    except (StorageError, OSError, ValueError) as err:
        # Not a verdict on the rounds: the file itself cannot be read.
        print(f"zhuoji verify: cannot read {args.db}: {err}", file=sys.stderr)
        return 2
    if args.round_no is not None:
        rounds = [x for x in rounds if x[0].round_no == args.round_no]
        if not rounds:
            print(
                f"zhuoji verify: table {args.table} has no round {args.round_no}", file=sys.stderr
            )
            return 2
    if not rounds:
        print(f"zhuoji verify: table {args.table} has no rounds", file=sys.stderr)
        return 2
    try:
        opts = make_options(row["preset"], row["options"] or {})
    except OptionsError as err:
        print(f"zhuoji verify: table {args.table}: bad stored options: {err}", file=sys.stderr)
        return 1
    report: list[dict[str, Any]] = []
    for rnd, actions, events in rounds:
        problems = check_round(opts, rnd, actions, events)
        report.append(
            {
                "round": rnd.round_no,
                "ok": not problems,
                "ended": rnd.result is not None,
                "commitment": rnd.commitment,
                "actions": len(actions),
                "problems": problems,
            }
        )
    ok = all(r["ok"] for r in report)
    if args.json:
        print(json.dumps({"table": str(args.table), "ok": ok, "rounds": report}))
    else:
        for r in report:
            state = "" if r["ended"] else " (not over yet)"
            head = f"table {args.table} round {r['round']}{state}:"
            if r["ok"]:
                print(f"{head} ok, commitment {r['commitment'][:16]}…, {r['actions']} actions")
            else:
                print(f"{head} MISMATCH: {'; '.join(r['problems'])}")
    return 0 if ok else 1
