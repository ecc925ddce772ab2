"""`zhuoji serve [--config server.toml] [--host 0.0.0.0] [--port 8765] [--db PATH] …`: run the server.

The settings come from the defaults, then the config file (`server.config`), then the flags
given; `--print-config` prints the result as TOML and exits. A config file that is wrong is
refused in one line naming the file, the line and the key, exit 2, before anything is opened.

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
from typing import Any

from zhuoji.common import add_house_argument, read_house


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


# flag (its argparse dest) → (config section, key); a flag given overrides the file.
FLAG_KEYS: dict[str, tuple[str, str]] = {
    "host": ("server", "host"),
    "port": ("server", "port"),
    "db": ("server", "db"),
    "sync": ("server", "sync"),
    "retry_max": ("server", "retry_max"),
    "integrity_every": ("server", "integrity_every"),
    "bot_delay": ("pace", "bot_delay"),
    "max_tables": ("limits", "max_tables"),
    "tables_per_connection": ("limits", "tables_per_connection"),
    "tables_per_address": ("limits", "tables_per_address"),
    "connections_per_address": ("limits", "connections_per_address"),
    "lobby_timeout": ("limits", "lobby_timeout"),
    "idle_minutes": ("limits", "idle_minutes"),
    "idle_close_minutes": ("limits", "idle_close_minutes"),
    "log_level": ("log", "level"),
    "log_format": ("log", "format"),
}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--config", type=Path, default=None, help="a TOML settings file (docs/OPERATIONS.md)"
    )
    parser.add_argument(
        "--print-config",
        action="store_true",
        help="print the effective settings (defaults, file, flags) as TOML and exit",
    )
    parser.add_argument("--host", default=None, help="address to listen on (default 0.0.0.0)")
    parser.add_argument(
        "--port", type=bounded(int, 0, 65535), default=None, help="port (default 8765)"
    )
    parser.add_argument(
        "--db", type=Path, default=None, help="SQLite file (default: the user data directory)"
    )
    parser.add_argument(
        "--sync",
        choices=["normal", "full"],
        default=None,
        help="SQLite synchronous mode: normal (default) loses nothing on a crash or kill, but a"
        " power loss may cost the last second of play; full makes every move durable",
    )
    parser.add_argument(
        "--bot-delay",
        type=bounded(float, 0, 60),
        default=None,
        help="seconds the server's bots wait before moving at a table that chose no"
        " bot_delay, 0-60 (default 0)",
    )
    parser.add_argument(
        "--max-tables",
        type=bounded(int, 1, 1_000_000),
        default=None,
        help="tables open at once (default 5000)",
    )
    parser.add_argument(
        "--tables-per-connection",
        type=bounded(int, 0, 10_000),
        default=None,
        help="open tables one connection may have created (default 4; 0: no limit)",
    )
    parser.add_argument(
        "--tables-per-address",
        type=bounded(int, 0, 1_000_000),
        default=None,
        help="open tables one address may have created (default 64; 0: no limit)",
    )
    parser.add_argument(
        "--connections-per-address",
        type=bounded(int, 0, 100_000),
        default=None,
        help="connections open at once from one address, this machine's included"
        " (default 64; 0: no limit)",
    )
    parser.add_argument(
        "--lobby-timeout",
        type=bounded(float, 0, 86_400),
        default=None,
        help="close a connection at no table that sends nothing this long (default 300 s)",
    )
    parser.add_argument(
        "--idle-minutes",
        type=bounded(float, 0, 10_080),
        default=None,
        help="pause a playing table nobody is connected to after this long (default 10)",
    )
    parser.add_argument(
        "--idle-close-minutes",
        type=bounded(float, 0, 43_200),
        default=None,
        help="close it (abandoned) after this long with nobody (default 120)",
    )
    parser.add_argument(
        "--retry-max",
        type=bounded(float, 0.01, 60),
        default=None,
        help="during a storage fault, the longest wait between write attempts (default 5 s)",
    )
    parser.add_argument(
        "--integrity-every",
        type=bounded(float, 0, 86_400),
        default=None,
        help="seconds between integrity checks of the live database (PRAGMA quick_check),"
        " reported in /healthz, the log and the metrics; 0: only at a clean stop (default 600)",
    )
    parser.add_argument(
        "--log-level",
        choices=["debug", "info", "warning", "error"],
        default=None,
        help="what the log (stderr) says: info (default) one line per table created, started,"
        " ended or closed, seat resumed, message refused, and the server's start and stop;"
        " debug adds connections and rounds",
    )
    parser.add_argument(
        "--log-format",
        choices=["plain", "json"],
        default=None,
        help="plain lines (default) or one JSON object per line",
    )
    parser.add_argument(
        "-v", "--verbose", action="store_true", help="the same as --log-level debug"
    )
    add_house_argument(
        parser,
        "a table created with no options, on the house file's preset, gets its options",
    )


def fail(message: str, code: int = 1, fmt: str = "plain") -> int:
    """Refuse to start: one line on stderr, a JSON object under `--log-format json`."""
    if fmt == "json":
        import json
        import time

        now = time.time()
        stamp = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(now))
        line = json.dumps(
            {
                "time": f"{stamp}.{int(now % 1 * 1000):03d}Z",
                "level": "error",
                "logger": "zhuoji.serve",
                "event": "start_refused",
                "exit": code,
                "msg": f"zhuoji serve: {message}",
            },
            ensure_ascii=False,
        )
        print(line, file=sys.stderr, flush=True)
    else:
        print(f"zhuoji serve: {message}", file=sys.stderr, flush=True)
    return code


def effective_config(args: argparse.Namespace) -> Any:
    """The settings: defaults, then `--config`, then the flags given (ConfigError if wrong)."""
    from server.config import ConfigError, ServerConfig, apply_overrides, load_config

    config = load_config(args.config) if args.config is not None else ServerConfig()
    overrides: dict[str, dict[str, Any]] = {}
    for dest, (section, key) in FLAG_KEYS.items():
        value = getattr(args, dest, None)
        if value is not None and dest == "db":
            if str(value) in ("", "."):
                raise ConfigError("--db: an empty path; name the database file")
            # Absolute: `--print-config` writes it to a file whose relative paths are taken
            # from the file's own folder.
            value = str(Path(value).expanduser().absolute())
        if value is not None:
            overrides.setdefault(section, {})[key] = value
    if getattr(args, "verbose", False):
        overrides.setdefault("log", {})["level"] = "debug"
    return apply_overrides(config, overrides) if overrides else config


def run(args: argparse.Namespace) -> int:
    import asyncio
    import signal
    import socket

    from server.admin import ensure_token
    from server.app import Server
    from server.config import ConfigError, to_toml
    from server.logs import configure
    from server.storage.dbfile import DatabaseRefused
    from server.storage.errors import StorageError
    from server.storage.writer import Store
    from zhuoji.version import version

    fmt = getattr(args, "log_format", None) or "plain"
    try:
        config = effective_config(args)
    except ConfigError as err:
        return fail(str(err), 2, fmt)
    fmt = config.log.format
    if args.print_config:
        sys.stdout.write(to_toml(config))
        return 0
    cfg = config.server
    host, port, sync = cfg.host, cfg.port, cfg.sync
    configure(level=config.log.level, fmt=config.log.format)
    house = None
    house_arg = args.house if args.house is not None else (config.table.house or None)
    if house_arg is not None:  # --house wins over the config's [table] house
        house = read_house(house_arg, "serve")
        if house is None:
            return 2
    db: Path = Path(cfg.db).expanduser() if cfg.db else default_db()
    try:
        store = Store(
            db, synchronous=sync, retry_max=cfg.retry_max, integrity_every=cfg.integrity_every
        )
    except DatabaseRefused as err:
        return fail(str(err), fmt=fmt)
    except (OSError, StorageError) as err:
        return fail(f"cannot open the database {db}: {err}", fmt=fmt)
    try:
        admin_token = cfg.admin_token or ensure_token(db)
    except (OSError, ValueError) as err:
        store.close()
        return fail(f"cannot use the admin token: {err}", fmt=fmt)

    served = False

    async def main() -> None:
        nonlocal served
        from server.app import tune_gc

        server = Server.from_config(
            store, config, admin_token=admin_token, house=house, version=version()
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
        async with server.listen(host, port) as ws_server:
            served = True
            bound = next(iter(ws_server.sockets)).getsockname()[1]
            url = f"ws://{host}:{bound}"
            store.lock.note(url=url, port=bound)
            print(
                f"zhuoji serving on {url}  (database {db}, synchronous {sync},"
                f" {server.resumed} unfinished matches resumed"
                + (
                    f", {server.frozen_at_start} could not be resumed (frozen; see the log)"
                    if server.frozen_at_start
                    else ""
                )
                + ")",
                flush=True,
            )
            if house is not None:
                changes = ", ".join(f"{k}={v}" for k, v in house.overrides.items()) or "none"
                print(f"house rules {args.house}: {house.preset} with {changes}", flush=True)
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
        return fail(f"cannot listen on {host}: {err.strerror or err}", fmt=fmt)
    except OSError as err:
        return fail(f"cannot listen on {host}:{port}: {err.strerror or err}", fmt=fmt)
    except StorageError as err:
        return fail(f"cannot use the database {db}: {err}", fmt=fmt)
    finally:
        store.close(check=served)
    return 0
