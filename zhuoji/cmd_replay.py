"""`zhuoji replay SCRIPT.json [--json]`: play a deal script and print the round and its settlement.

Exit codes: 0 played; 2 the script is malformed or an action is illegal (the message names the
action's 0-based index). With `--json` the error is also printed as `{"error": {...}}`.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from rules.script import ScriptError, replay_json, run_script


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("script", nargs="?", help="a deal script (JSON, RULES.md §9); - for stdin")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--db", help="a server database, to replay a stored round")
    p.add_argument("--table", help="with --db: the table id")
    p.add_argument(
        "--round", type=int, dest="round_no", help="with --db: the round number (1-based)"
    )


def _load(args: argparse.Namespace) -> Any:
    if args.db:
        if not args.table or not args.round_no:
            raise ScriptError("--db needs --table and --round")
        from server.store import load_round_script

        return load_round_script(args.db, args.table, args.round_no)
    if not args.script:
        raise ScriptError("name a deal script file (or --db with --table and --round)")
    try:
        text = (
            sys.stdin.read() if args.script == "-" else open(args.script, encoding="utf-8").read()
        )
    except OSError as err:
        raise ScriptError(f"cannot read {args.script}: {err.strerror}") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as err:
        raise ScriptError(
            f"{args.script} is not valid JSON: {err.msg} at line {err.lineno}"
        ) from None


def run(args: argparse.Namespace) -> int:
    try:
        data = _load(args)
        r = run_script(data)
    except ScriptError as err:
        if args.json:
            print(
                json.dumps(
                    {"error": {"index": err.index, "reason": err.message}}, ensure_ascii=False
                )
            )
        print(f"zhuoji replay: error: {err}", file=sys.stderr)
        return 2
    out = replay_json(r)
    if args.json:
        print(json.dumps(out, ensure_ascii=False))
    else:
        from zhuoji.replay_text import render_round

        print(render_round(r))
    return 0
