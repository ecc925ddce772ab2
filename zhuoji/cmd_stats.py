"""`zhuoji stats --db PATH [--player NAME] [--since 30d] [--preset P] [--json | --csv]`: the
group's standings and records from a server's database, for hosts (read-only; the server may be
running).

`--since` is an age (`30d`, `12h`, `90m`) or a period: `tonight` (since 06:00), `month` (since
the 1st), `all` (the default). `--player` takes a player id or a name (the name a player last
said hello with) and prints that player's whole record and their latest matches. Ratings and
how they are made: server/standings.py. Exit 0; 1 the database cannot be read; 2 bad usage, no
such database, or no such player.
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
import time
from pathlib import Path
from typing import Any

from server.records import COLUMNS
from server.storage.errors import StorageError
from server.storage.standings_reads import Connection, connect_read_only, keeps_records


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--db", type=Path, required=True, help="the server's database")
    parser.add_argument("--player", default=None, help="one player's record (an id or a name)")
    parser.add_argument(
        "--since",
        default="all",
        help="an age (30d, 12h, 90m) or tonight, month, all (default all)",
    )
    parser.add_argument(
        "--preset", choices=["guiyang", "chuan", "anshun"], default=None, help="one preset only"
    )
    out = parser.add_mutually_exclusive_group()
    out.add_argument("--json", action="store_true", help="print one JSON object")
    out.add_argument("--csv", action="store_true", help="print the standings as CSV")


class StatsError(Exception):
    def __init__(self, message: str, code: int = 1) -> None:
        super().__init__(message)
        self.code = code


def since_of(text: str, now: float) -> float | None:
    """The start of what `--since` names (epoch seconds), None for all."""
    from server.standings import PERIODS, period_start
    from server.storage.maintenance import parse_age

    if text in PERIODS:
        return period_start(text, now)
    try:
        return now - parse_age(text)
    except ValueError as err:
        raise StatsError(f"--since: {err} (or tonight, month, all)", 2) from None


def run(args: argparse.Namespace) -> int:
    try:
        return _run(args)
    except StatsError as err:
        print(f"zhuoji stats: {err}", file=sys.stderr)
        return err.code


def _open(db: Path) -> Connection:
    if not db.is_file():
        raise StatsError(f"no database at {db}", 2)
    try:
        conn = connect_read_only(db)
        keeps = keeps_records(conn)
    except StorageError as err:
        raise StatsError(f"cannot read {db}: {err}") from None
    if not keeps:
        conn.close()
        raise StatsError(
            f"{db} keeps no records yet (a database from an older zhuoji): serve it once with"
            f" this one, or run zhuoji admin --db {db} rebuild-records"
        )
    return conn


def _run(args: argparse.Namespace) -> int:
    from server import standings
    from server.storage.players import find_player

    now = time.time()
    since = since_of(args.since, now)
    conn = _open(args.db.expanduser())
    try:
        book = standings.read_book(conn)
        if args.player is not None:
            found = find_player(conn, args.player)
            if not found:
                raise StatsError(f"no player called {args.player!r} (an id or a name)", 2)
            if len(found) > 1:
                ids = ", ".join(p["id"] for p in found)
                raise StatsError(
                    f"{len(found)} players are called {args.player!r} ({ids}): give an id", 2
                )
            pid = found[0]["id"]
            rows = standings.standings(conn, book, since, args.preset, player=pid)
            record = rows[0] if rows else standings.empty_record(book, pid)
            nets, placed = standings.recent(conn, book, pid, since, args.preset)
            _print_player(args, record, nets, placed)
            return 0
        rows = standings.standings(conn, book, since, args.preset)
        if args.json:
            print(
                json.dumps(
                    {"since": since, "preset": args.preset, "standings": rows},
                    ensure_ascii=False,
                    indent=1,
                )
            )
        elif args.csv:
            _csv(rows)
        else:
            _table(rows)
        return 0
    except StorageError as err:
        raise StatsError(f"cannot read {args.db}: {err}") from None
    finally:
        conn.close()


CSV_FIELDS = (
    "player", "name", "bot", "matches", "rounds", "first", "second", "third", "fourth", "net",
    "net_per_round", "win_rate", "zimo_rate", "dealin_rate",
    *[c for c in COLUMNS if c not in ("rounds", "net")], "rating", "rating_change",
    "voted",  # matches ended by vote (解散): last, so the earlier columns keep their places
)  # fmt: skip


def _csv(rows: list[dict[str, Any]]) -> None:
    w = csv.writer(sys.stdout)
    w.writerow(CSV_FIELDS)
    for r in rows:
        first, second, third, fourth = r["placements"]
        flat = {**r, "first": first, "second": second, "third": third, "fourth": fourth}
        w.writerow(["" if flat[f] is None else flat[f] for f in CSV_FIELDS])


def _pct(x: float | None) -> str:
    return "-" if x is None else f"{100 * x:.0f}%"


def _table(rows: list[dict[str, Any]]) -> None:
    if not rows:
        print("no rounds played in that period")
        return
    from rich.console import Console
    from rich.table import Table

    t = Table(box=None, pad_edge=False)
    for head in ("player", "id", "M", "R", "1st-4th", "net", "net/R", "win", "自摸", "点炮",
                 "rating", "Δ", "voted"):  # fmt: skip
        t.add_column(head, justify="left" if head in ("player", "id") else "right")
    for r in rows:
        t.add_row(
            r["name"],
            r["player"],
            str(r["matches"]),
            str(r["rounds"]),
            "/".join(map(str, r["placements"])),
            f"{r['net']:+d}",
            "-" if r["net_per_round"] is None else f"{r['net_per_round']:+.1f}",
            _pct(r["win_rate"]),
            _pct(r["zimo_rate"]),
            _pct(r["dealin_rate"]),
            "bot" if r["rating"] is None else f"{r['rating']:.0f}",
            "" if r["rating_change"] is None else f"{r['rating_change']:+.1f}",
            str(r["voted"]),  # matches ended by vote (解散): counted, not placed
        )
    # Piped to a file or another program, nothing is cut to fit a terminal.
    Console(soft_wrap=True, width=None if sys.stdout.isatty() else 200).print(t)


def _print_player(
    args: argparse.Namespace, record: dict[str, Any], nets: list[int], placed: list[int]
) -> None:
    if args.json:
        print(
            json.dumps(
                {**record, "recent_net": nets, "recent_places": placed},
                ensure_ascii=False,
                indent=1,
            )
        )
        return
    if args.csv:
        _csv([record])
        return
    for key, value in record.items():
        print(f"{key:>16}  {value}")
    if nets:
        print(f"{'recent net':>16}  {' '.join(f'{n:+d}' for n in nets)}")
        print(f"{'recent places':>16}  {' '.join(str(p) if p else '-' for p in placed)}")
