"""Leaving is deliberate: `l` and `q` in the middle of a match ask first and say what happens (the
bot plays the seat until the player comes back); no, Escape and n change nothing; yes leaves or
quits. Outside a match they act at once. Pilot tests against a real server on loopback."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from client_tui.app import ZhuojiApp
from client_tui.screens.forms import ConfirmScreen
from client_tui.screens.lobby import LobbyScreen
from client_tui.screens.table import TableScreen
from clients.client import Client
from protocol.messages import CreateTable
from server.testkit import running_server
from tests.support import FAST, until

SIZE = (100, 30)


def dialog_text(app: ZhuojiApp) -> str:
    screen = app.screen
    assert isinstance(screen, ConfirmScreen)
    return f"{screen.title_text}\n{screen.body}"


async def joined_match(pilot: Pilot[Any], app: ZhuojiApp, host: Client) -> None:
    await until(pilot, lambda: len(app.view.tables) == 1)
    await pilot.press("j")
    await pilot.pause(0.05)
    await pilot.press("enter")
    await until(pilot, lambda: app.view.seat is not None)
    for _ in range(2):
        await host.send({"type": "add_bot"})
    await until(pilot, lambda: app.view.table is not None and app.view.table.seated == 4)
    await host.send({"type": "start"})
    await until(pilot, lambda: app.view.round is not None)


@pytest.mark.parametrize("lang", ["en", "zh"])
async def test_l_mid_match_asks_says_what_happens_and_leaves_only_on_yes(
    tmp_path: Path, lang: str
) -> None:
    async with running_server(tmp_path / "z.db", seed="leave") as (url, _server):
        async with await Client.connect(url, "host") as host:
            host.ws.close_timeout = 0.2
            await host.recv_type("welcome")
            await host.send({"type": "create_table", "name": "friends", **FAST})
            table = (await host.recv_type("joined"))["table"]
            app = ZhuojiApp(url, name="guest", lang=lang, ascii=True, mode="join")
            async with app.run_test(size=SIZE) as pilot:
                await joined_match(pilot, app, host)
                seat = app.view.seat
                assert seat is not None
                for no in ("escape", "n"):
                    await pilot.press("l")
                    await until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
                    text = dialog_text(app)
                    if lang == "en":
                        assert "Leave the match?" in text
                        assert "the bot plays it (托管) until you come back" in text
                    else:
                        assert "离开这场比赛" in text and "托管" in text and "回来" in text
                    await pilot.press(no)
                    await until(pilot, lambda: isinstance(app.screen, TableScreen))
                    assert app.view.table_id == table and app.view.seat == seat
                await pilot.press("l")
                await until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
                await pilot.press("y")
                await until(
                    pilot, lambda: isinstance(app.screen, LobbyScreen) and len(app.view.tables) == 1
                )
                listed = app.view.tables[0]
                assert listed.state == "playing"
                assert listed.seats[seat].name == "guest", "the seat is not given up"
                assert listed.seats[seat].auto, "the bot plays it"


async def test_q_mid_match_asks_first_then_quits(tmp_path: Path) -> None:
    async with running_server(tmp_path / "z.db", seed="quit") as (url, _server):
        create = CreateTable(name="pilot", rounds=1, **FAST)  # type: ignore[arg-type]
        app = ZhuojiApp(url, name="me", lang="en", ascii=True, mode="play", create=create)
        async with app.run_test(size=SIZE) as pilot:
            await until(pilot, lambda: app.view.prompt is not None)
            await pilot.press("q")
            await until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
            assert "The match is kept" in dialog_text(app)
            await pilot.press("q")  # a second q is no answer: still asking
            await pilot.pause(0.05)
            assert isinstance(app.screen, ConfirmScreen) and app.is_running
            await pilot.press("escape")
            await until(pilot, lambda: isinstance(app.screen, TableScreen))
            assert app.is_running and app.view.prompt is not None
            await pilot.press("q", "enter")
            await until(pilot, lambda: not app.is_running)
        assert app.return_code == 0


async def test_outside_a_match_l_and_q_act_at_once(tmp_path: Path) -> None:
    async with running_server(tmp_path / "z.db", seed="room") as (url, _server):
        async with await Client.connect(url, "host") as host:
            await host.recv_type("welcome")
            await host.send({"type": "create_table", "name": "friends", **FAST})
            await host.recv_type("joined")
            app = ZhuojiApp(url, name="guest", lang="en", ascii=True, mode="join")
            async with app.run_test(size=SIZE) as pilot:
                await until(pilot, lambda: len(app.view.tables) == 1)
                await pilot.press("j")
                await pilot.pause(0.05)
                await pilot.press("enter")
                await until(pilot, lambda: app.view.seat is not None)
                await pilot.press("l")  # before the start: the seat is simply freed
                await until(
                    pilot,
                    lambda: (
                        isinstance(app.screen, LobbyScreen)
                        and app.view.tables
                        and app.view.tables[0].seated == 1
                    ),
                )
                await pilot.press("q")
                await until(pilot, lambda: not app.is_running)
