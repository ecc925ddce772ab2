"""`zhuoji serve [--host 0.0.0.0] [--port 8765] [--db PATH] [--sync normal|full]`: run the server.

At start it resumes every match the database holds unfinished (a crash, a kill, a restart). It
stops gracefully on SIGTERM (clients are told, then closed with 1012: a restart, their seats
kept) or SIGINT / Ctrl-C (closed with 1001). See docs/OPERATIONS.md.
"""

from __future__ import annotations

import argparse
from pathlib import Path


def default_db() -> Path:
    """The SQLite file in the user's data directory (platformdirs)."""
    from platformdirs import user_data_path

    return user_data_path("zhuoji", appauthor=False) / "zhuoji.db"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--host", default="0.0.0.0", help="address to listen on (default 0.0.0.0)")
    parser.add_argument("--port", type=int, default=8765, help="port (default 8765)")
    parser.add_argument(
        "--db", type=Path, default=None, help="SQLite file (default: the user data directory)"
    )
    parser.add_argument(
        "--sync",
        choices=["normal", "full"],
        default="normal",
        help="SQLite synchronous mode: normal (default) loses nothing on a crash or kill, but a"
        " power loss may cost the last second of play; full makes every move durable",
    )
    parser.add_argument(
        "--round-pause", type=float, default=3.0, help="seconds between rounds (default 3)"
    )
    parser.add_argument(
        "--bot-delay", type=float, default=0.0, help="seconds the server's bots wait before moving"
    )
    parser.add_argument("--max-tables", type=int, default=5000, help="tables open at once")
    parser.add_argument("-v", "--verbose", action="store_true", help="log every table error")


def run(args: argparse.Namespace) -> int:
    import asyncio
    import logging
    import signal

    from server.app import Server
    from server.store import Store

    logging.basicConfig(
        level=logging.INFO if args.verbose else logging.WARNING,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    db: Path = args.db or default_db()
    store = Store(db, synchronous=args.sync)

    async def main() -> None:
        from server.app import tune_gc

        server = Server(
            store,
            round_pause=args.round_pause,
            bot_delay=args.bot_delay,
            max_tables=args.max_tables,
        )
        tune_gc()
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()

        def on_signal(restart: bool) -> None:
            server.restart = restart
            stop.set()

        loop.add_signal_handler(signal.SIGINT, on_signal, False)
        loop.add_signal_handler(signal.SIGTERM, on_signal, True)
        async with server.listen(args.host, args.port):
            resumed = server.resumed
            print(
                f"zhuoji serving on ws://{args.host}:{args.port}  (database {db}, synchronous"
                f" {args.sync}, {resumed} unfinished matches resumed)",
                flush=True,
            )
            await stop.wait()
            print(
                "stopping for a restart (clients told, closing with 1012); matches are kept"
                if server.restart
                else "shutting down (clients told, closing with 1001); matches are kept",
                flush=True,
            )

    try:
        asyncio.run(main())
    finally:
        store.close()
    return 0
