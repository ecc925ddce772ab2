"""Pilot tests of the client against a real server on loopback with the server's own bots: whole
rounds played through the keyboard and the mouse (discards by digit key, arrows + Enter and
clicks; 碰; 胡), the settlement sheet checked against the server's stored nets, the lobby and its
forms, a spectator, a dropped connection resumed with the seat token, and a server that goes
away."""

from __future__ import annotations

import asyncio
import io
import json
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console
from textual.pilot import Pilot

from client_tui import render as rd
from client_tui.app import ZhuojiApp
from client_tui.screens.forms import ChoiceScreen, CreateTableScreen, SeatScreen
from client_tui.screens.help import NO_LINE_START
from client_tui.screens.lobby import LobbyScreen
from client_tui.screens.sheets import SheetScreen
from client_tui.screens.table import TableScreen
from client_tui.sheet import build_sheet
from client_tui.widgets import HandView
from clients.client import Client
from protocol.messages import CreateTable
from rules.players.bot import shanten
from rules.tiles import parse_tile
from server.testkit import running_server
from tests.support import FAST, until

SIZE = (100, 30)


def screen_text(renderable: Any, width: int = 96) -> str:
    console = Console(width=width, record=True, color_system=None, file=io.StringIO())
    console.print(renderable)
    return console.export_text()


def stored_net(db: Path, table: str, round_no: int) -> list[int]:
    with sqlite3.connect(db) as conn:
        row = conn.execute(
            "SELECT net FROM rounds WHERE table_id = ? AND round_no = ?", (table, round_no)
        ).fetchone()
    assert row is not None and row[0] is not None, "the server stored no result"
    return list(json.loads(row[0]))


@dataclass
class Played:
    discards: dict[str, int] = field(default_factory=lambda: {"digit": 0, "arrows": 0, "mouse": 0})
    pongs: int = 0
    wins: int = 0
    gangs: int = 0
    passes: int = 0
    sheets: list[tuple[int, tuple[int, ...]]] = field(default_factory=list)


def best_discard(app: ZhuojiApp) -> str:
    """The discard that leaves the hand closest to ready (the first such in the offer's order)."""
    view = app.view
    assert view.round is not None and view.round.hand is not None and view.prompt is not None
    n_melds = len(view.round.melds[view.seat or 0])
    offered = view.prompt.tiles_for("discard")
    best, best_s = offered[0], 99
    for tile in offered:
        hand = list(view.round.hand)
        hand[parse_tile(tile)] -= 1
        s = shanten(hand, n_melds)
        if s < best_s:
            best, best_s = tile, s
    return best


async def discard(pilot: Pilot[Any], app: ZhuojiApp, tile: str, how: str) -> None:
    screen = app.screen
    assert isinstance(screen, TableScreen)
    tiles = list(screen.hand())
    index = len(tiles) - 1 if tiles[-1] == tile else tiles.index(tile)
    if how == "digit":
        await pilot.press(rd.HAND_KEYS[index])
    elif how == "arrows":
        delta = index - screen.cursor
        for _ in range(abs(delta)):
            await pilot.press("right" if delta > 0 else "left")
        await pilot.press("enter")
    else:
        hand = screen.query_one(HandView)
        slot = next(s for s in hand.slots if s.index == index)
        await pilot.click(HandView, offset=(slot.x0, 1))
        if not app.view.prompt or not app.view.prompt.answered:
            await pilot.click(HandView, offset=(slot.x0, 1))


async def play_match(pilot: Pilot[Any], app: ZhuojiApp, db: Path, rounds: int) -> Played:
    """Answer every prompt through the interface until the match ends, checking each sheet."""
    played = Played()
    ways = ["digit", "arrows", "mouse"]
    loop = asyncio.get_running_loop()
    end = (
        loop.time() + 120
    )  # a deadline for a stuck match, not a speed: generous on a loaded machine
    while loop.time() < end:
        await pilot.pause(0.01)
        view = app.view
        screen = app.screen
        if isinstance(screen, SheetScreen):
            if screen.name == "summary":
                return played
            if screen.name == "settlement":
                res = view.result
                assert res is not None and view.table_id is not None
                # The sheet shows the server's nets, and its lines add up to them.
                want = stored_net(db, view.table_id, res.round_no)
                sheet = build_sheet(res)
                assert list(sheet.net) == want and sheet.adds_up
                text = screen_text(screen.body)
                net_line = next(ln for ln in text.splitlines() if ln.split()[:1] == ["Net"])
                assert net_line.split()[1:5] == [rd.signed(v) for v in want]
                played.sheets.append((res.round_no, tuple(want)))
            await pilot.press("enter")
            continue
        if isinstance(screen, ChoiceScreen):
            await pilot.press("enter")
            continue
        prompt = view.prompt
        if prompt is None or prompt.answered or not isinstance(screen, TableScreen):
            continue
        if prompt.offers("hu"):
            await pilot.press("h")
            played.wins += 1
        elif prompt.is_claim:
            if prompt.offers("pong"):
                await pilot.press("p")
                played.pongs += 1
            else:
                await pilot.press("space")
                played.passes += 1
        elif prompt.offers("gang"):
            await pilot.press("k")
            played.gangs += 1
        else:
            how = ways[sum(played.discards.values()) % 3]
            await discard(pilot, app, best_discard(app), how)
            played.discards[how] += 1
        await until(pilot, lambda p=prompt: app.view.prompt is not p)  # type: ignore[misc]
    raise AssertionError(f"the match did not end: {played}")


async def test_play_whole_rounds_against_bots(tmp_path: Path) -> None:
    db = tmp_path / "z.db"
    # The seed fixes the deals and the bots: in these two rounds this player pongs and wins.
    async with running_server(db, seed="tui-9") as (url, _server):
        # Seat 0 deals first (not drawn from the seed), as when these deals were chosen.
        create = CreateTable(
            name="pilot",
            rounds=2,
            options={"first_dealer": "seat0"},
            **FAST,  # type: ignore[arg-type]
        )
        app = ZhuojiApp(url, name="me", lang="en", ascii=True, mode="play", create=create)
        async with app.run_test(size=SIZE) as pilot:
            await until(pilot, lambda: app.view.prompt is not None)
            # One command to playing: seated at seat 0 with three bots, the hand on screen.
            assert app.view.seat == 0 and app.view.table is not None
            assert [s.kind for s in app.view.table.seats] == ["human", "bot", "bot", "bot"]
            assert isinstance(app.screen, TableScreen)
            played = await play_match(pilot, app, db, rounds=2)
            assert [n for n, _ in played.sheets] == [1, 2]
            assert min(played.discards.values()) >= 1, played
            assert played.pongs >= 1, played
            assert played.wins >= 1, played
            end = app.view.match_end
            assert end is not None and end.rounds_played == 2
            totals = [sum(net[s] for _, net in played.sheets) for s in range(4)]
            assert list(end.scores) == totals
            # The summary, then `n`: a new match at a new table, seated with bots again.
            old_table = app.view.table_id
            await pilot.press("escape", "n")
            await until(
                pilot,
                lambda: app.view.table_id not in (None, old_table) and app.view.round is not None,
            )
            assert app.view.match_end is None and app.view.seat == 0


async def test_a_claim_key_that_is_not_offered_does_nothing(tmp_path: Path) -> None:
    async with running_server(tmp_path / "z.db", seed="tui-3") as (url, _server):
        create = CreateTable(name="pilot", rounds=1, **FAST)  # type: ignore[arg-type]
        app = ZhuojiApp(url, name="me", lang="en", ascii=True, mode="play", create=create)
        async with app.run_test(size=SIZE) as pilot:
            await until(pilot, lambda: app.view.prompt is not None)
            prompt = app.view.prompt
            assert prompt is not None and not prompt.is_claim
            for key in ("p", "space") + (() if prompt.offers("hu") else ("h",)):
                await pilot.press(key)
                await pilot.pause(0.05)
                assert app.view.prompt is prompt and not prompt.answered, key
            await pilot.press("enter")
            await until(pilot, lambda: app.view.prompt is not prompt)


async def test_lobby_create_form_bots_and_start(tmp_path: Path) -> None:
    async with running_server(tmp_path / "z.db", seed="lobby") as (url, _server):
        app = ZhuojiApp(url, name="host", lang="en", ascii=True, mode="join")
        async with app.run_test(size=SIZE) as pilot:
            await until(pilot, lambda: app.view.status == "connected")
            assert isinstance(app.screen, LobbyScreen)
            await pilot.press("c")
            await until(
                pilot, lambda: isinstance(app.screen, CreateTableScreen) and app.screen.complete
            )
            form = app.screen
            assert isinstance(form, CreateTableScreen)
            form.query_one("#options").value = "no_such_rule=1"  # type: ignore[attr-defined]
            await pilot.click("#ok")
            await pilot.pause(0.3)  # a button ignores a second click while it shows the first
            assert isinstance(app.screen, CreateTableScreen), "a bad override is refused"
            assert "no_such_rule" in str(form.query_one("#error").render())
            form.query_one("#options").value = "zimo_bonus=2"  # type: ignore[attr-defined]
            form.query_one("#turn").value = "0"  # type: ignore[attr-defined]
            await pilot.click("#ok")
            await until(pilot, lambda: app.view.table is not None)
            assert isinstance(app.screen, TableScreen)
            table = app.view.table
            assert table is not None and table.state == "waiting"
            assert dict(table.options) == {"zimo_bonus": 2} and table.turn_seconds == 0
            for _ in range(3):
                await pilot.press("a")  # before the start, `a` seats a bot
            await until(pilot, lambda: app.view.table is not None and app.view.table.seated == 4)
            await pilot.press("enter")  # start
            await until(pilot, lambda: app.view.round is not None)
            assert app.view.table is not None and app.view.table.state == "playing"


async def test_sit_at_a_table_from_the_lobby_by_seat(tmp_path: Path) -> None:
    async with running_server(tmp_path / "z.db", seed="sit") as (url, _server):
        async with await Client.connect(url, "host") as host:
            await host.recv_type("welcome")
            await host.send({"type": "create_table", "name": "friends", **FAST})
            created = await host.recv_type("joined")
            app = ZhuojiApp(url, name="guest", lang="en", ascii=True, mode="join")
            async with app.run_test(size=SIZE) as pilot:
                await until(pilot, lambda: len(app.view.tables) == 1)
                await pilot.press("j")
                await until(pilot, lambda: isinstance(app.screen, SeatScreen))
                await pilot.press("down", "down", "enter")  # past "any seat" and seat 1
                await until(pilot, lambda: app.view.seat is not None)
                assert app.view.table_id == created["table"] and app.view.seat == 2
                assert app.view.table is not None
                assert app.view.table.seats[0].name == "host"


async def test_watch_a_table_as_a_spectator(tmp_path: Path) -> None:
    async with running_server(tmp_path / "z.db", seed="watch") as (url, _server):
        async with await Client.connect(url, "host") as host:
            host.ws.close_timeout = 0.2  # it reads none of the match: do not wait on its close
            await host.recv_type("welcome")
            await host.send({"type": "create_table", "name": "bots", **FAST})
            joined = await host.recv_type("joined")
            for _ in range(3):
                await host.send({"type": "add_bot"})
            await host.send({"type": "auto", "on": True})
            connected: set[int] = set()
            while len(connected) < 3:  # each bot connects as a client and takes its seat
                frame = await host.recv()
                if frame["type"] == "seat_status" and frame["connected"]:
                    connected.add(frame["seat"])
            await host.send({"type": "start"})
            await host.recv_type("round_started")
            app = ZhuojiApp(
                url,
                name="fan",
                lang="en",
                ascii=True,
                mode="watch",
                watch_table=joined["table"],
                show_sheets=False,
            )
            async with app.run_test(size=SIZE) as pilot:
                await until(
                    pilot,
                    lambda: (
                        app.view.round is not None and sum(map(len, app.view.round.discards)) >= 4
                    ),
                )
                assert app.view.watching and app.view.round is not None
                assert app.view.round.hand is None and app.view.prompt is None
                screen = app.screen
                assert isinstance(screen, TableScreen)
                assert not screen.query_one(HandView).display
                await pilot.press("enter", "h", "p")  # nothing to answer: nothing breaks
                assert app.view.prompt is None


async def test_dropped_connection_resumes_the_seat(tmp_path: Path) -> None:
    async with running_server(tmp_path / "z.db", seed="tui-3") as (url, server):
        # Seat 0 deals first (not drawn from the seed), as when these deals were chosen.
        create = CreateTable(
            name="pilot",
            rounds=2,
            options={"first_dealer": "seat0"},
            **FAST,  # type: ignore[arg-type]
        )
        app = ZhuojiApp(url, name="me", lang="en", ascii=True, mode="play", create=create)
        async with app.run_test(size=SIZE) as pilot:
            await until(pilot, lambda: app.view.prompt is not None)
            await pilot.press("enter")
            await until(
                pilot,
                lambda: (
                    app.view.prompt is not None
                    and not app.view.prompt.answered
                    and app.view.round is not None
                    and len(app.view.round.discards[0]) == 1
                ),
            )
            before = app.view.round
            token = app.view.token
            mine = [c for c in server.conns if c.name == "me"]
            assert len(mine) == 1
            mine[0].ws.transport.abort()  # type: ignore[attr-defined]
            await until(pilot, lambda: app.view.status == "reconnecting")
            banner = app.screen.query_one("#banner")
            assert banner.display and "reconnecting" in str(banner.render())
            # Back on its own with the token: the same seat, the same round, the prompt again.
            await until(
                pilot, lambda: app.view.status == "connected" and app.view.prompt is not None
            )
            assert app.view.token == token and app.view.seat == 0
            assert app.view.round is not None and before is not None
            assert app.view.round.hand == before.hand
            assert app.view.round.discards == before.discards
            assert not app.screen.query_one("#banner").display
            await pilot.press("enter")
            await until(
                pilot, lambda: app.view.round is not None and len(app.view.round.discards[0]) == 2
            )


async def test_the_server_going_away_breaks_nothing(tmp_path: Path) -> None:
    app: ZhuojiApp | None = None
    async with running_server(tmp_path / "z.db", seed="gone") as (url, _server):
        app = ZhuojiApp(url, name="me", lang="en", ascii=True, mode="join")
        ctx = app.run_test(size=SIZE)
        pilot = await ctx.__aenter__()
        await until(pilot, lambda: app is not None and app.view.status == "connected")
    try:
        await until(pilot, lambda: app is not None and app.view.status == "reconnecting")
        for key in ("t", "r", "c", "escape", "question_mark", "escape"):
            await pilot.press(key)
        await pilot.resize_terminal(80, 24)
        await pilot.pause(0.3)
        assert app.view.status == "reconnecting" and app.is_running
    finally:
        await ctx.__aexit__(None, None, None)


@pytest.mark.parametrize("lang", ["zh", "en"])
async def test_help_screen_in_both_languages(lang: str) -> None:
    app = ZhuojiApp("ws://offline", name="me", lang=lang, connect=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("question_mark")
        assert isinstance(app.screen, SheetScreen) and app.screen.name == "help"
        text = screen_text(app.screen.body)
        assert "通行证" in text and ("碰" in text)
        assert ("摸" in text) if lang == "zh" else ("pass" in text)
        assert "…" not in text, "the rules wrap; nothing is cut off"
        # No wrapped line of the rules starts with closing punctuation (、。，…).
        rules = text[text.index(app.lang.t("rules")) :].splitlines()
        assert len(rules) > 10 and not [ln for ln in rules if ln.strip()[:1] in NO_LINE_START]
        assert "docs/RULES.md" in text.splitlines()[-1]
        await pilot.press("escape")
        assert not isinstance(app.screen, SheetScreen)
