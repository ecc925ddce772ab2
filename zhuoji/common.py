"""What `zhuoji play`, `join` and `watch` share: the language, the tile mode and the name."""

from __future__ import annotations

import argparse
import getpass
import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from protocol.house import House


def add_display_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--lang",
        choices=["zh", "en"],
        default=None,
        help="interface language (default: from the locale)",
    )
    parser.add_argument(
        "--ascii", action="store_true", help="start with ASCII tiles (1m 9s) instead of 一万 九条"
    )


def add_bell_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--no-bell",
        dest="bell",
        action="store_false",
        help="no terminal bell when a move or a claim is asked of you (default: the bell rings)",
    )


def add_name_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--name", default=None, help="your name at the table (default: login)")


def player_name(given: str | None) -> str:
    r"""The name to play under: the one given, else the login name, made protocol-safe (no
    control or bidi characters).

    >>> player_name("  阿明 ")
    '阿明'
    >>> player_name("x" * 40) == "x" * 24
    True
    >>> player_name("\u202eevil\x9b")
    'evil'
    """
    from protocol.messages import UNSAFE_CHARS

    name = given
    if not name:
        try:
            name = getpass.getuser()
        except Exception:
            name = ""
    name = re.sub(f"[{UNSAFE_CHARS}]", "", name or "").strip()[:24]
    return name or "player"


def language(given: str | None) -> str:
    from client_tui.i18n import default_lang

    return given or default_lang()


def server_url(given: str) -> str:
    """The websocket URL, `ws://` added when only host:port is given.

    >>> server_url("192.168.1.5:8765"), server_url("wss://example.org/zhuoji")
    ('ws://192.168.1.5:8765', 'wss://example.org/zhuoji')
    """
    return given if "://" in given else f"ws://{given}"


def add_house_argument(parser: argparse.ArgumentParser, what: str) -> None:
    parser.add_argument(
        "--house",
        metavar="NAME.toml",
        default=None,
        help=f"house rules: a TOML file, or the name of one saved from the create-table form"
        f" (in the user config dir's houses/); {what}",
    )


def read_house(arg: str, command: str) -> House | None:
    """The house preset `--house ARG` names, or None after printing why it cannot be used (the
    caller exits 2): each problem on a line of its own, naming the file, the line and the key."""
    import sys

    from protocol.house import HouseError, load_house, resolve

    try:
        return load_house(resolve(arg))
    except HouseError as err:
        for problem in err.problems:
            print(f"zhuoji {command}: {problem}", file=sys.stderr)
        return None
