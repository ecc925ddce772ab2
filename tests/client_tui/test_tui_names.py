"""Names and messages from the wire are shown as they are: a table named `a[/b]` or a player named
`[bold red]x` is never read as markup (it crashed every lobby), and names holding control or bidi
characters are refused by the protocol with a clear error."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from client_tui.app import ZhuojiApp
from client_tui.net import Link
from client_tui.screens.forms import SeatScreen
from client_tui.screens.lobby import LobbyScreen
from client_tui.screens.table import TableScreen
from clients.client import Client
from protocol.messages import CreateTable, Error, Hello, parse_client
from server.testkit import running_server
from tests.support import FAST, until

SIZE = (120, 32)
TABLE = "a[/b] [bold red]x"
HOST = "p[/x]"
GUEST = "[bold red]Eve[/]"
ME = "[/me]"


def screen_text(app: ZhuojiApp) -> str:
    """The screen as the terminal shows it, one line per row."""
    return "\n".join(strip.text for strip in app.screen._compositor.render_strips())


# ----- the protocol refuses names that would reorder or escape the terminal -----

UNSAFE = [
    "\x1b",
    "\x07",
    "\x7f",
    "\x80",
    "\x9b",
    "\x9f",
    "\u202a",
    "\u202e",
    "\u2066",
    "\u2069",
    "\u200f",
]


@pytest.mark.parametrize("char", UNSAFE, ids=[f"U+{ord(c):04X}" for c in UNSAFE])
def test_names_refuse_control_and_bidi_characters(char: str) -> None:
    for frame in (
        {"type": "hello", "version": 1, "name": f"ok{char}[31m"},
        {"type": "create_table", "name": f"ok{char}[31m"},
    ):
        with pytest.raises(ValidationError) as err:
            parse_client(json.dumps(frame))
        message = str(err.value)
        assert f"U+{ord(char):04X} at position 3" in message, message
        assert "a name may not hold" in message


@pytest.mark.parametrize(
    "name", ["a[/b]", "[bold red]x", "阿明", "O'Brien & co", "x" * 24, "٭", "Robot 1", "Botanist"]
)
def test_brackets_and_other_printable_names_are_accepted(name: str) -> None:
    assert Hello(version=1, name=name).name == name


async def test_the_server_refuses_such_names_and_says_why(tmp_path: Path) -> None:
    async with running_server(tmp_path / "z.db", seed="names") as (url, _server):
        async with await Client.connect(url, "ok\x9b2J") as bad:
            error = await bad.recv_type("error")
            assert error["code"] == "bad_message"
            assert "name" in error["message"] and "U+009B" in error["message"]
        async with await Client.connect(url, "host") as host:
            await host.recv_type("welcome")
            await host.send({"type": "create_table", "name": "evil\u202eexe.txt"})
            error = await host.recv_type("error")
            assert "U+202E" in error["message"], error
            await host.send({"type": "create_table", "name": TABLE})
            assert (await host.recv_type("joined"))["seat"] == 0, "brackets are fine"


def test_a_frame_with_escapes_from_an_older_server_is_shown_harmlessly() -> None:
    got: list[Any] = []
    link = Link("ws://unused", lambda: {}, got.append)
    frame = {"type": "error", "code": "x", "message": "\x1b[2J\u202egone\nnext", "ref": None}
    link._frame(json.dumps(frame))
    assert isinstance(got[0], Error)
    assert got[0].message == "\ufffd[2J\ufffdgone\nnext"


# ----- the client shows them literally -----


async def test_the_lobby_and_table_show_markup_like_names_literally(tmp_path: Path) -> None:
    async with running_server(tmp_path / "z.db", seed="markup") as (url, _server):
        async with (
            await Client.connect(url, HOST) as host,
            await Client.connect(url, GUEST) as guest,
        ):
            await host.recv_type("welcome")
            await host.send(
                {"type": "create_table", "name": TABLE, "options": {"zimo_bonus": 2}, **FAST}
            )
            table_id = (await host.recv_type("joined"))["table"]
            await guest.recv_type("welcome")
            await guest.send({"type": "take_seat", "table": table_id})
            await guest.recv_type("joined")
            app = ZhuojiApp(url, name=ME, lang="en", ascii=True, mode="join")
            async with app.run_test(size=SIZE, notifications=True) as pilot:
                await until(pilot, lambda: any(t.seated == 2 for t in app.view.tables))
                await pilot.pause(0.1)
                assert isinstance(app.screen, LobbyScreen)
                text = screen_text(app)
                assert TABLE in text, text
                assert f"{HOST}, {GUEST}" in text, text
                assert ME in text, "the player's own name, in the lobby header"

                await pilot.press("j")
                await until(pilot, lambda: isinstance(app.screen, SeatScreen))
                await pilot.pause(0.05)
                text = screen_text(app)
                assert TABLE in text and f"1. {HOST}" in text and f"2. {GUEST}" in text, text
                await pilot.press("enter")  # any free seat
                await until(pilot, lambda: app.view.seat is not None)
                await until(pilot, lambda: isinstance(app.screen, TableScreen))
                await pilot.pause(0.05)
                text = screen_text(app)
                assert TABLE in text and HOST in text and GUEST in text and ME in text, text

                await host.send({"type": "add_bot"})
                await host.recv_type("seat_status")
                await host.send({"type": "start"})
                await until(pilot, lambda: app.view.round is not None)
                await pilot.pause(0.05)
                text = screen_text(app)
                assert TABLE in text and HOST in text and GUEST in text, text

                # A server's message, markup and all, becomes a notification as it is.
                app.apply(Error(code="bad_message", message="[/x] [bold red]boom[/] a[/b]"))
                await until(pilot, lambda: "[/x] [bold red]boom[/] a[/b]" in screen_text(app))


def test_the_create_form_refuses_an_unsafe_name_before_sending() -> None:
    with pytest.raises(ValidationError, match="U\\+2066"):
        CreateTable(name="\u2066x")


async def test_the_settlement_sheet_and_summary_show_markup_like_names_literally() -> None:
    from client_tui.offline import OfflineTable
    from client_tui.screens.sheets import SheetScreen
    from rules.options import PRESETS
    from rules.players.bot import Bot
    from rules.round import Phase, Round

    names = [ME, HOST, GUEST, "a[/b"]
    for seed in range(40):  # a round someone won: the sheet names winner and payer
        r = Round.deal(PRESETS["guiyang"], seed=seed, dealer=0)
        bots = [Bot(f"{seed}:{s}") for s in range(4)]
        while r.phase is not Phase.OVER:
            seat = r.awaiting()[0]
            r.apply(bots[seat].choose(r, seat))
        if r.winners:
            break
    app = ZhuojiApp(
        "ws://offline", name=ME, lang="en", ascii=True, connect=False, clock=lambda: 1000.0
    )
    async with app.run_test(size=(200, 60)) as pilot:
        for frame in OfflineTable(r, viewer=0, names=names).opening():
            app.apply(frame)
        await until(pilot, lambda: isinstance(app.screen, SheetScreen))
        await pilot.pause(0.05)
        # Literally, cut to the sheet's width for a name (with an ellipsis) where it is long.
        from client_tui.board import fit

        shown = [fit(name, app.name_cells()) for name in names]
        text = screen_text(app)
        for name in shown:
            assert name in text, (name, text)
        app.open_summary()
        await pilot.pause(0.05)
        text = screen_text(app)
        for name in shown:
            assert name in text, (name, text)


def test_the_name_rule_examples() -> None:
    import doctest

    import protocol.messages

    result = doctest.testmod(protocol.messages)
    assert result.attempted > 0 and result.failed == 0


INVISIBLE = {
    "\ufeff": "a BOM (ZERO WIDTH NO-BREAK SPACE) before 'admin' shows as 'admin'",
    "\u200b": "a zero-width space",
    "\u2060": "a word joiner",
    "\u3164": "the Hangul filler, a letter by category that draws nothing",
    "\u115f": "the Hangul choseong filler",
    "\u2800": "the braille blank",
    "\U000e0041": "a tag character (invisible TAG LATIN CAPITAL LETTER A)",
    "\ue000": "a private-use character",
    "\U000e01f0": "an unassigned code point",
}


@pytest.mark.parametrize("char", INVISIBLE, ids=[f"U+{ord(c):04X}" for c in INVISIBLE])
def test_names_refuse_invisible_and_format_characters_naming_the_code_point(char: str) -> None:
    with pytest.raises(ValidationError) as err:
        parse_client(json.dumps({"type": "hello", "version": 2, "name": f"{char}admin"}))
    assert f"U+{ord(char):04X} at position 1" in str(err.value), INVISIBLE[char]


@pytest.mark.parametrize("name", [" ", "\u3000\u3000", " \u00a0 "])
def test_a_name_of_spaces_alone_is_refused(name: str) -> None:
    with pytest.raises(ValidationError, match="at least one visible character"):
        Hello(version=2, name=name)


@pytest.mark.parametrize("name", ["Bot-2", "bot 3", "BOT_4", "ＢＯＴ－２", "Bot", " bot-1 "])
def test_a_player_may_not_take_a_name_that_passes_for_a_bot(name: str) -> None:
    with pytest.raises(ValidationError, match="bots are named by the server"):
        parse_client(json.dumps({"type": "hello", "version": 2, "name": name}))


def test_names_are_nfc_normalised_so_one_name_has_one_spelling() -> None:
    decomposed = "Ame\u0301lie"
    assert Hello(version=2, name=decomposed).name == "Am\u00e9lie"
