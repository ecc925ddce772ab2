"""`zhuoji replay SCRIPT.json [--json]`: play a deal script and print the round and its settlement.

`zhuoji replay --db PATH` opens the replay browser on a server database (a picker of its matches
and rounds); `--db PATH --table T` opens that match; `--browse` opens a script, or the round
`--db PATH --table T --round N`, in the browser instead of printing it.

Exit codes: 0 played; 2 the script is malformed or an action is illegal (the message names the
action's 0-based index). With `--json` the error is also printed as `{"error": {...}}`.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from rules.script import ScriptError, replay_json, run_script
from zhuoji.common import add_bell_argument, add_display_arguments, language


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("script", nargs="?", help="a deal script (JSON, RULES.md §9); - for stdin")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--db", help="a server database, to replay a stored round")
    p.add_argument("--table", help="with --db: the table id")
    p.add_argument(
        "--round", type=int, dest="round_no", help="with --db: the round number (1-based)"
    )
    p.add_argument(
        "--browse",
        action="store_true",
        help="open the round in the replay browser (--db without --table always does)",
    )
    p.add_argument(
        "--export-dir",
        type=Path,
        default=Path("."),
        help="where the browser's `e` writes deal scripts (default: the current directory)",
    )
    add_display_arguments(p)
    add_bell_argument(p)


def _load(args: argparse.Namespace) -> Any:
    if args.db:
        if not args.table or not args.round_no:
            raise ScriptError("--db needs --table and --round")
        from server.storage.errors import StorageError
        from server.storage.reads import load_round_script

        try:
            return load_round_script(args.db, args.table, args.round_no)
        except StorageError as err:  # not a database, or a damaged one
            raise ScriptError(f"cannot read {args.db}: {err}") from None
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


def _browser_wanted(args: argparse.Namespace) -> bool:
    return bool(args.browse or (args.db and (not args.table or not args.round_no)))


def _browse(args: argparse.Namespace) -> int:
    """The replay browser, on a database or on one script."""
    if args.json:
        raise ScriptError("--json prints a round; the browser is for a terminal (drop one)")
    if not sys.stdout.isatty() or not sys.stdin.isatty():
        raise ScriptError(
            "the replay browser needs a terminal; to print a round give --db with --table and"
            " --round, or a script"
        )
    from client_tui.replay import tape_from_script
    from client_tui.replay_app import ReplayApp
    from client_tui.screens.replay import export_to

    common = dict(
        lang=language(args.lang),
        ascii=args.ascii,
        exporter=export_to(args.export_dir),
        bell=args.bell,
    )
    if args.db:
        from zhuoji import replay_db

        db = Path(args.db)
        if not db.exists():
            raise ScriptError(f"no database at {db}")
        if not args.table:
            app = ReplayApp(
                matches=replay_db.matches(db), load=lambda t: replay_db.tapes(db, t), **common
            )
        else:
            tapes = replay_db.tapes(db, str(args.table))
            if not tapes:
                raise ScriptError(f"no rounds of table {args.table} in {db}")
            numbers = [t.round_no for t in tapes]
            start = numbers.index(args.round_no) if args.round_no in numbers else 0
            if args.round_no and args.round_no not in numbers:
                raise ScriptError(
                    f"table {args.table} has no round {args.round_no} (rounds stored:"
                    f" {', '.join(map(str, numbers))})"
                )
            app = ReplayApp(tapes=tapes, start=start, **common)
    else:
        app = ReplayApp(tapes=[tape_from_script(_load(args))], **common)
    return app.run() or 0


def run(args: argparse.Namespace) -> int:
    if _browser_wanted(args):
        try:
            return _browse(args)
        except ScriptError as err:
            print(f"zhuoji replay: error: {err}", file=sys.stderr)
            return 2
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
