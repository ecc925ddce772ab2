"""What `zhuoji play`, `join` and `watch` share: the language, the tile mode, the bell and the
name, each from the command line, else from the player's `config.toml`
(`client_tui.config`), else the default."""

from __future__ import annotations

import argparse
import getpass
import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING

from client_tui.config import ConfigError, Settings, config_path, load

if TYPE_CHECKING:
    from protocol.house import House

REVEAL_SECONDS = 3.0
"""How long the table shows a finished round's hands and flip before its sheet opens."""


def add_display_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--lang",
        choices=["zh", "en"],
        default=None,
        help="interface language (default: config.toml's lang, else from the locale)",
    )
    tiles = parser.add_mutually_exclusive_group()
    tiles.add_argument(
        "--ascii",
        dest="ascii",
        action="store_const",
        const=True,
        default=None,
        help="start with ASCII tiles (1m 9s) instead of 一万 九条",
    )
    tiles.add_argument(
        "--cjk",
        dest="ascii",
        action="store_const",
        const=False,
        help="start with CJK tiles (一万 九条), whatever config.toml says",
    )


def add_bell_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--bell",
        dest="bell",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="the terminal bell when a move or a claim is asked of you"
        " (default: config.toml's bell, else on)",
    )


def add_name_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--name", default=None, help="your name at the table (default: config.toml's, else login)"
    )


@dataclass(frozen=True, slots=True)
class Display:
    """The settings a client starts with, the command line over `config.toml`."""

    lang: str
    ascii: bool
    bell: bool
    name: str
    settings: Settings


def settings(prog: str) -> Settings:
    """The player's `config.toml`; a file that cannot be used ends the command with exit 2 and
    one line naming the file, the line and what is wrong (never a traceback)."""
    try:
        return load(config_path())
    except ConfigError as err:
        print(f"zhuoji {prog}: {err}", file=sys.stderr)
        raise SystemExit(2) from None


def display(args: argparse.Namespace, prog: str) -> Display:
    """Language, tiles, bell and name: each flag given wins, then `config.toml`, then the
    default (the locale, CJK tiles, the bell on, the login name)."""
    s = settings(prog)
    flag_ascii = getattr(args, "ascii", None)
    flag_bell = getattr(args, "bell", None)
    return Display(
        lang=language(args.lang or s.lang),
        ascii=flag_ascii if flag_ascii is not None else bool(s.ascii),
        bell=flag_bell if flag_bell is not None else (s.bell if s.bell is not None else True),
        name=player_name(args.name or s.name),
        settings=s,
    )


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
    import unicodedata

    from protocol import names

    name = given
    if not name:
        try:
            name = getpass.getuser()
        except Exception:
            name = ""
    name = unicodedata.normalize("NFC", name or "")
    name = "".join(char for char in name if names.refused_char(char) is None).strip()[:24]
    return name if name and not names.looks_like_a_bot(name) else "player"


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
    caller exits 2): each problem on a line of its own, naming the file, the line and the key.
    A usable house's notes (an option that changes nothing here) are printed the same way."""
    import sys

    from protocol.house import HouseError, load_house, resolve

    try:
        house = load_house(resolve(arg))
    except HouseError as err:
        for problem in err.problems:
            print(f"zhuoji {command}: {problem}", file=sys.stderr)
        return None
    for note in house.notes:  # an option that changes nothing under this preset
        print(f"zhuoji {command}: {note}", file=sys.stderr)
    return house


def player_key_or_exit() -> str:
    """The player key (made on the first run: client_tui.player_key), or exit 2 with a line
    naming the file that does not hold one."""
    from client_tui.player_key import PlayerKeyError, load_or_make

    try:
        return load_or_make()
    except PlayerKeyError as err:
        print(f"zhuoji: {err}", file=sys.stderr)
        raise SystemExit(2) from None
