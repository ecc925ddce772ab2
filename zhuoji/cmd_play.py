"""`zhuoji play`: start a server in this process, sit down with three bots, and play.

One command from install to playing: the server listens on a free loopback port, the game is
recorded in a temporary SQLite file (or `--db`), and everything stops when the app does.

One server owns a database: a second `zhuoji play --db X` while the first window is open plays on
a database of its own, and says so (and how to join the first window's table instead).
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from zhuoji.common import (
    REVEAL_SECONDS,
    add_bell_argument,
    add_display_arguments,
    add_name_argument,
    display,
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_name_argument(parser)
    add_display_arguments(parser)
    add_bell_argument(parser)
    parser.add_argument(
        "--preset",
        choices=["guiyang", "chuan", "anshun"],
        default="guiyang",
        help="rules preset (default guiyang 贵阳捉鸡)",
    )
    parser.add_argument("--rounds", type=int, default=8, help="rounds in the match (default 8)")
    parser.add_argument(
        "--turn-seconds",
        type=float,
        default=30.0,
        help="seconds per move, 0 for no clock (default 30)",
    )
    parser.add_argument(
        "--bank-seconds", type=float, default=60.0, help="reserve seconds per round (default 60)"
    )
    parser.add_argument(
        "--bot-delay",
        type=float,
        default=0.4,
        help="seconds each bot waits before it moves (default 0.4)",
    )
    parser.add_argument(
        "--db",
        type=Path,
        default=None,
        help="keep the game in this SQLite file (default: a temporary one)",
    )


def start_local(db: Path, spare: Path, **options: Any) -> tuple[Any, str, str | None]:
    """Start the in-process server on `db`, or, if another window's server holds it, on a new
    database `spare`. Returns the server, its URL, and what to tell the player (or None)."""
    from server.dbfile import DatabaseInUse
    from zhuoji.play import LocalServer, LocalServerError

    server = LocalServer(db, **options)
    try:
        return server, server.start(), None
    except LocalServerError as err:
        if not isinstance(err.cause, DatabaseInUse):
            raise
        holder = err.cause.holder
    server = LocalServer(spare, **options)
    url = server.start()
    other = holder.get("url")
    join = f"; to join its table instead: zhuoji join {other}" if other else ""
    note = (
        f"a match is already open in another window on {db} (pid {holder.get('pid', '?')})."
        f" This window plays on its own database, {spare}{join}"
    )
    return server, url, note


def run(args: argparse.Namespace) -> int:
    import logging
    import tempfile

    from client_tui.app import ZhuojiApp
    from protocol.messages import CreateTable
    from zhuoji.play import LocalServerError

    # The server's log would scribble over the interface.
    logging.getLogger("zhuoji").setLevel(logging.CRITICAL)
    shown = display(args, "play")
    name = shown.name
    with tempfile.TemporaryDirectory(prefix="zhuoji-") as tmp:
        db = args.db or Path(tmp) / "play.db"
        try:
            server, url, note = start_local(
                db,
                Path(tmp) / "own.db",
                round_pause=2.0,
                bot_delay=args.bot_delay,
                disconnect_grace=3600.0,
            )
        except LocalServerError as err:
            print(f"zhuoji play: {err}")
            return 1
        if note is not None:
            print(f"zhuoji play: {note}", flush=True)
        try:
            create = CreateTable(
                name="zhuoji play",
                preset=args.preset,
                rounds=args.rounds,
                turn_seconds=args.turn_seconds,
                bank_seconds=args.bank_seconds,
                claim_min_ms=300,
            )
            app = ZhuojiApp(
                url,
                name=name,
                lang=shown.lang,
                ascii=shown.ascii,
                mode="play",
                create=create,
                bell=shown.bell,
                reveal_seconds=REVEAL_SECONDS,
            )
            return app.run() or 0
        finally:
            server.stop()
            if note is not None:
                print(f"zhuoji play: {note}")
