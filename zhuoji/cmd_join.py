"""`zhuoji join [ws://HOST:PORT] [--name N]`: the lobby of a server, then its tables; started
again, it returns to the seat it held (the token is kept per server and table). Without a
server it goes to `config.toml`'s `server`, else to the last one joined."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from client_tui.config import Settings
from zhuoji.common import (
    REVEAL_SECONDS,
    add_bell_argument,
    add_display_arguments,
    add_name_argument,
    display,
    player_key_or_exit,
    server_url,
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "url",
        nargs="?",
        default=None,
        help="the server, e.g. ws://192.168.1.5:8765 (default: config.toml's server, else the"
        " last one joined)",
    )
    add_name_argument(parser)
    add_display_arguments(parser)
    add_bell_argument(parser)


def server_for(given: str | None, settings: Settings, state: Path) -> str | None:
    """The server to join: the one given, else `config.toml`'s `server`, else the last one
    joined (None: nothing to go by)."""
    from client_tui.config import last_server

    return given or settings.server or last_server(state)


def run(args: argparse.Namespace) -> int:
    from client_tui.app import ZhuojiApp
    from client_tui.config import config_path, remember_server
    from client_tui.seats import SeatStore, state_dir

    shown = display(args, "join")
    given = server_for(args.url, shown.settings, state_dir())
    if given is None:
        print(
            "zhuoji join: which server? Give one (zhuoji join ws://HOST:PORT), or set"
            f' server = "HOST:PORT" in {config_path()}',
            file=sys.stderr,
        )
        return 2
    url = server_url(given)
    remember_server(state_dir(), url)
    # The seat token is kept in the user's state directory (`ZHUOJI_STATE_DIR` overrides it): a
    # closed terminal or a killed process comes back to the seat at the next start.
    app = ZhuojiApp(
        url,
        name=shown.name,
        lang=shown.lang,
        ascii=shown.ascii,
        mode="join",
        seats=SeatStore.default(),
        bell=shown.bell,
        reveal_seconds=REVEAL_SECONDS,
        player_key=player_key_or_exit(),
    )
    return app.run() or 0
