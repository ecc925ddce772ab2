"""`zhuoji serve [--host 0.0.0.0] [--port 8765] [--db PATH] [--sync normal|full]`: run the server.

At start it takes the database's lock (one server per database: a second is refused, naming the
first one's pid), checks the file, binds the port, and only then resumes every match the database
holds unfinished (a crash, a kill, a restart). It stops gracefully on SIGTERM or SIGHUP (clients
are told, then closed with 1012: a restart, their seats kept) or SIGINT / Ctrl-C (closed with
1001). What it cannot do is said in one line on stderr, exit 1. See docs/OPERATIONS.md.
"""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Callable
from pathlib import Path


def default_db() -> Path:
    """The SQLite file in the user's data directory (platformdirs)."""
    from platformdirs import user_data_path

    return user_data_path("zhuoji", appauthor=False) / "zhuoji.db"


def bounded(kind: type[int] | type[float], low: float, high: float) -> Callable[[str], float]:
    """An argparse type: a finite number of `kind` in [low, high]."""

    def parse(text: str) -> float:
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
        if not math.isfinite(value) or not low <= value <= high:
            raise argparse.ArgumentTypeError(f"{text} is not between {low:g} and {high:g}")
        return value

    parse.__name__ = kind.__name__  # argparse names the type in its messages
    return parse


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--host", default="0.0.0.0", help="address to listen on (default 0.0.0.0)")
    parser.add_argument(
        "--port", type=bounded(int, 0, 65535), default=8765, help="port (default 8765)"
    )
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
        "--round-pause",
        type=bounded(float, 0, 600),
        default=3.0,
        help="seconds between rounds, 0-600 (default 3)",
    )
    parser.add_argument(
        "--bot-delay",
        type=bounded(float, 0, 60),
        default=0.0,
        help="seconds the server's bots wait before moving, 0-60 (default 0)",
    )
    parser.add_argument(
        "--max-tables",
        type=bounded(int, 1, 1_000_000),
        default=5000,
        help="tables open at once (default 5000)",
    )
    parser.add_argument(
        "--retry-max",
        type=bounded(float, 0.01, 60),
        default=5.0,
        help="during a storage fault, the longest wait between write attempts (default 5 s)",
    )
    parser.add_argument(
        "--log-level",
        choices=["debug", "info", "warning", "error"],
        default="info",
        help="what the log (stderr) says: info (default) one line per table created, started,"
        " ended or closed, seat resumed, message refused, and the server's start and stop;"
        " debug adds connections and rounds",
    )
    parser.add_argument(
        "--log-format",
        choices=["plain", "json"],
        default="plain",
        help="plain lines (default) or one JSON object per line",
    )
    parser.add_argument(
        "-v", "--verbose", action="store_true", help="the same as --log-level debug"
    )


def fail(message: str) -> int:
    print(f"zhuoji serve: {message}", file=sys.stderr, flush=True)
    return 1


def run(args: argparse.Namespace) -> int:
    import asyncio
    import signal
    import socket
    import sqlite3

    from server.app import Server
    from server.dbfile import DatabaseRefused
    from server.logs import configure
    from server.store import Store
    from zhuoji.version import version

    configure(level="debug" if args.verbose else args.log_level, fmt=args.log_format)
    db: Path = args.db or default_db()
    try:
        store = Store(db, synchronous=args.sync, retry_max=args.retry_max)
    except DatabaseRefused as err:
        return fail(str(err))
    except (OSError, sqlite3.Error) as err:
        return fail(f"cannot open the database {db}: {err}")

    async def main() -> None:
        from server.app import tune_gc

        server = Server(
            store,
            round_pause=args.round_pause,
            bot_delay=args.bot_delay,
            max_tables=args.max_tables,
            version=version(),
        )
        tune_gc()
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()

        def on_signal(restart: bool) -> None:
            server.restart = restart
            stop.set()

        loop.add_signal_handler(signal.SIGINT, on_signal, False)
        loop.add_signal_handler(signal.SIGTERM, on_signal, True)
        loop.add_signal_handler(signal.SIGHUP, on_signal, True)
        async with server.listen(args.host, args.port) as ws_server:
            port = next(iter(ws_server.sockets)).getsockname()[1]
            url = f"ws://{args.host}:{port}"
            store.lock.note(url=url)
            print(
                f"zhuoji serving on {url}  (database {db}, synchronous {args.sync},"
                f" {server.resumed} unfinished matches resumed)",
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
    except socket.gaierror as err:
        return fail(f"cannot listen on {args.host}: {err.strerror or err}")
    except OSError as err:
        return fail(f"cannot listen on {args.host}:{args.port}: {err.strerror or err}")
    except sqlite3.Error as err:
        return fail(f"cannot use the database {db}: {err}")
    finally:
        store.close()
    return 0
