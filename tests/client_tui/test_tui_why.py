"""Keys are shown and say why when they cannot act: the lobby's key bar lists sit, watch, create
and refresh; a key that cannot act now rings the bell and says why on the status line (lobby and
table), instead of doing nothing. Lobby tests against a real server; table tests offline (the
frames a server would send, `client_tui.offline`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import Static

from client_tui.app import ZhuojiApp
from client_tui.offline import OfflineTable
from client_tui.screens.lobby import LobbyScreen
from client_tui.screens.table import TableScreen
from clients.client import Client
from rules.actions import Action
from rules.options import PRESETS
from rules.round import Phase, Round
from rules.tiles import COPIES, NUM_KINDS, parse_tiles
from server.testkit import running_server
from tests.support import FAST, until

SIZE = (100, 30)


class BellApp(ZhuojiApp):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.rings = 0

    def bell(self) -> None:
        self.rings += 1


class Recorder:
    """Stands in for the connection: connected, and keeps the moves sent."""

    connected = True

    def __init__(self) -> None:
        self.sent: list[dict[str, Any]] = []

    def send(self, frame: dict[str, Any]) -> bool:
        if frame["type"] == "act":
            self.sent.append(frame)
        return True

    def stop(self) -> None:
        pass


def text_of(screen: Any, wid: str) -> str:
    return str(screen.query_one(wid, Static).render())


# ----- the lobby -----


@pytest.mark.parametrize(
    ("lang", "keys"),
    [
        ("en", ["c Create table", "j Sit", "w Watch", "r Refresh", "Enter sit/watch", "q Quit"]),
        ("zh", ["c 开桌", "j 入座", "w 观战", "r 刷新", "Enter 入座/观战", "q 退出"]),
    ],
)
async def test_the_lobby_shows_its_keys(tmp_path: Path, lang: str, keys: list[str]) -> None:
    async with running_server(tmp_path / "z.db", seed="keys") as (url, _server):
        app = BellApp(url, name="me", lang=lang, ascii=True, mode="join")
        async with app.run_test(size=SIZE) as pilot:
            await until(pilot, lambda: app.view.status == "connected")
            bar = text_of(app.screen, "#lobby-keys")
            for key in keys:
                assert key in bar, bar


async def test_lobby_keys_that_cannot_act_say_why(tmp_path: Path) -> None:
    async with running_server(tmp_path / "z.db", seed="why") as (url, _server):
        app = BellApp(url, name="me", lang="en", ascii=True, mode="join")
        async with app.run_test(size=SIZE) as pilot:
            await until(pilot, lambda: app.view.status == "connected")
            lobby = app.screen
            assert isinstance(lobby, LobbyScreen)
            for key in ("j", "w"):
                before = app.rings
                await pilot.press(key)
                assert "No table selected: c creates one" in text_of(lobby, "#lobby-status")
                assert app.rings == before + 1
            async with await Client.connect(url, "host") as host:
                host.ws.close_timeout = 0.2
                await host.recv_type("welcome")
                await host.send({"type": "create_table", "name": "busy", **FAST})
                await host.recv_type("joined")
                for _ in range(3):
                    await host.send({"type": "add_bot"})
                # The host deals first and, with no clock, the match waits on it: still playing.
                await host.send({"type": "start"})
                await host.recv_type("round_started")
                await pilot.press("r")
                await until(
                    pilot,
                    lambda: len(app.view.tables) == 1 and app.view.tables[0].state == "playing",
                )
                assert text_of(lobby, "#lobby-status") == "", "a key that acts clears it"
                await pilot.press("j")
                assert "has started: w watches it" in text_of(lobby, "#lobby-status")
                await pilot.press("w")
                await until(pilot, lambda: app.view.watching)
                assert isinstance(app.screen, TableScreen)


# ----- the table -----


def deal(*hands: str) -> Round:
    given = [parse_tiles(h) for h in hands]
    left = [k for k in range(NUM_KINDS) for _ in range(COPIES)]
    for hand in given:
        for k in hand:
            left.remove(k)
    full: list[list[int]] = list(given)
    while len(full) < 4:
        full.append(left[:13])
        left = left[13:]
    return Round(PRESETS["guiyang"], full, left, dealer=0)


async def offline(pilot: Pilot[Any], table: OfflineTable) -> tuple[BellApp, Recorder]:
    app = pilot.app
    assert isinstance(app, BellApp)
    rec = Recorder()
    app.link = rec  # type: ignore[assignment]
    for frame in table.opening():
        app.apply(frame)
    prompt = table.prompt()
    if prompt is not None:
        app.apply(prompt)
    await pilot.pause()
    return app, rec


def others_play(table: OfflineTable, me: int) -> list[Any]:
    """Every other seat plays its default move until `me` is asked; the frames sent."""
    frames: list[Any] = []
    r = table.round
    while r.phase is not Phase.OVER and me not in r.awaiting():
        seat = r.awaiting()[0]
        frames += table.apply(r.default_action(seat))
    return frames


def status(app: ZhuojiApp) -> str:
    return text_of(app.screen, "#status")


async def press_and_read(pilot: Pilot[Any], app: BellApp, key: str) -> str:
    before = app.rings
    await pilot.press(key)
    await pilot.pause()
    assert app.rings == before + 1, f"{key}: the bell rings once"
    return status(app)


async def test_b_after_the_first_discard_says_why() -> None:
    table = OfflineTable(deal("123456789m23s55p9s"), viewer=0)
    app = BellApp("ws://offline", name="me", lang="en", ascii=True, connect=False)
    async with app.run_test(size=SIZE) as pilot:
        app, rec = await offline(pilot, table)
        for frame in table.apply(Action(0, "discard", parse_tiles("1m")[0])):
            app.apply(frame)
        for frame in others_play(table, 0):
            app.apply(frame)
        prompt = table.prompt()
        assert prompt is not None
        app.apply(prompt)
        await pilot.pause()
        assert app.view.prompt is not None and not app.view.prompt.is_claim
        assert "报听 is declared with your first discard only" in await press_and_read(
            pilot, app, "b"
        )
        assert "Nothing to pass: space passes a claim" in await press_and_read(pilot, app, "space")
        assert rec.sent == []


async def test_table_keys_during_a_claim_say_why_and_send_nothing() -> None:
    # Seat 0 deals and discards 9s; seat 1 (this player) may 碰 it, not 胡 it.
    table = OfflineTable(
        deal("123456789m23s55p9s", "99s1234567p1357m"),
        viewer=1,
        names=["Bot-1", "me", "Bot-3", "Bot-4"],
    )
    app = BellApp("ws://offline", name="me", lang="en", ascii=True, connect=False)
    async with app.run_test(size=SIZE) as pilot:
        app, rec = await offline(pilot, table)
        assert "Not your turn yet" in await press_and_read(pilot, app, "enter")
        assert "No settlement yet" in await press_and_read(pilot, app, "s")
        assert "n plays again once this match is over" in await press_and_read(pilot, app, "n")
        for frame in table.apply(Action(0, "discard", parse_tiles("9s")[0])):
            app.apply(frame)
        prompt = table.prompt()
        assert prompt is not None
        app.apply(prompt)
        await pilot.pause()
        assert "A claim is asked of you: p 碰 Pong · space 过 Pass" in await press_and_read(
            pilot, app, "enter"
        )
        assert "This tile does not win for you" in await press_and_read(pilot, app, "h")
        assert "No 杠 now" in await press_and_read(pilot, app, "k")
        assert "Bots are added or removed before the start" in await press_and_read(
            pilot, app, "plus"
        )
        assert rec.sent == []
        await pilot.press("p")
        assert rec.sent == [{"type": "act", "seq": table.seq, "act": "pong"}]
        assert "Answered: waiting for the table" in await press_and_read(pilot, app, "p")


async def test_the_reason_goes_after_a_while() -> None:
    now = [1000.0]
    table = OfflineTable(
        deal("123456789m23s55p9s", "99s1234567p1357m"),
        viewer=1,
        names=["Bot-1", "me", "Bot-3", "Bot-4"],
    )
    app = BellApp(
        "ws://offline", name="me", lang="zh", ascii=True, connect=False, clock=lambda: now[0]
    )
    async with app.run_test(size=SIZE) as pilot:
        app, _ = await offline(pilot, table)
        assert "还没轮到你" in await press_and_read(pilot, app, "enter")
        now[0] += 10
        await until(pilot, lambda: "还没轮到你" not in status(app))
