"""`zhuoji watch ws://HOST:PORT [TABLE]`: watch a table (or pick one from the lobby)."""

from __future__ import annotations

import argparse

from zhuoji.common import (
    add_display_arguments,
    add_name_argument,
    language,
    player_name,
    server_url,
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("url", help="the server, e.g. ws://192.168.1.5:8765")
    parser.add_argument("table", nargs="?", default=None, help="the table's number (default: pick)")
    add_name_argument(parser)
    add_display_arguments(parser)


def run(args: argparse.Namespace) -> int:
    from client_tui.app import ZhuojiApp

    app = ZhuojiApp(
        server_url(args.url),
        name=player_name(args.name),
        lang=language(args.lang),
        ascii=args.ascii,
        mode="watch",
        watch_table=args.table,
    )
    return app.run() or 0
