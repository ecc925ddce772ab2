"""`zhuoji watch ws://HOST:PORT [TABLE]`: watch a table (or pick one from the lobby)."""

from __future__ import annotations

import argparse

from zhuoji.common import (
    REVEAL_SECONDS,
    add_display_arguments,
    add_name_argument,
    display,
    player_key_or_exit,
    server_url,
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("url", help="the server, e.g. ws://192.168.1.5:8765")
    parser.add_argument("table", nargs="?", default=None, help="the table's number (default: pick)")
    add_name_argument(parser)
    add_display_arguments(parser)


def run(args: argparse.Namespace) -> int:
    from client_tui.app import ZhuojiApp

    shown = display(args, "watch")
    app = ZhuojiApp(
        server_url(args.url),
        name=shown.name,
        lang=shown.lang,
        ascii=shown.ascii,
        mode="watch",
        watch_table=args.table,
        bell=shown.bell,
        reveal_seconds=REVEAL_SECONDS,
        player_key=player_key_or_exit(),
    )
    return app.run() or 0
