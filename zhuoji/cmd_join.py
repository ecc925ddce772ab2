"""`zhuoji join ws://HOST:PORT [--name N]`: the lobby of a server, then its tables; started
again, it returns to the seat it held (the token is kept per server and table)."""

from __future__ import annotations

import argparse

from zhuoji.common import (
    add_bell_argument,
    add_display_arguments,
    add_name_argument,
    language,
    player_name,
    server_url,
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("url", help="the server, e.g. ws://192.168.1.5:8765")
    add_name_argument(parser)
    add_display_arguments(parser)
    add_bell_argument(parser)


def run(args: argparse.Namespace) -> int:
    from client_tui.app import ZhuojiApp
    from client_tui.seats import SeatStore

    # The seat token is kept in the user's state directory (`ZHUOJI_STATE_DIR` overrides it): a
    # closed terminal or a killed process comes back to the seat at the next start.
    app = ZhuojiApp(
        server_url(args.url),
        name=player_name(args.name),
        lang=language(args.lang),
        ascii=args.ascii,
        mode="join",
        seats=SeatStore.default(),
        bell=args.bell,
    )
    return app.run() or 0
