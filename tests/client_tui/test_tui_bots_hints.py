"""The bot level, the table's bot pace and the hints key in the terminal client: Pilot tests, the
levels and the pace against a real server on loopback, the hints on fixed deals offline."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.pilot import Pilot
from textual.widgets import Button, Static

from client_tui import render as rd
from client_tui.app import ZhuojiApp
from client_tui.hints import move_label
from client_tui.i18n import Lang
from client_tui.offline import OfflineTable, table_info
from client_tui.screens.forms import CreateTableScreen, PaceChoice
from client_tui.screens.table import TableScreen
from protocol.messages import SERVER_ADAPTER
from rules.options import PRESETS
from rules.players.bot_strong import StrongBot
from rules.players.hints import top_moves
from rules.round import Round
from rules.tiles import COPIES, NUM_KINDS, parse_tiles
from server.testkit import running_server
from tests.support import until

SIZE = (100, 30)


def text_of(app: ZhuojiApp, selector: str) -> str:
    widget = app.screen.query_one(selector, Static)
    return str(widget.render())


async def test_the_create_form_sets_the_pace_and_v_picks_each_bots_level(tmp_path: Path) -> None:
    async with running_server(tmp_path / "z.db", seed="lv", bot_delay=0.0) as (url, server):
        app = ZhuojiApp(url, name="host", lang="en", ascii=True, mode="join")
        async with app.run_test(size=SIZE) as pilot:
            await until(pilot, lambda: app.view.status == "connected")
            await pilot.press("c")
            await until(
                pilot, lambda: isinstance(app.screen, CreateTableScreen) and app.screen.complete
            )
            form = app.screen
            form.query_one("#bot_delay", PaceChoice).value = "1.5"
            form.query_one("#turn").value = "0"  # type: ignore[attr-defined]
            await pilot.click("#ok")
            await until(pilot, lambda: app.view.table is not None)
            assert app.view.table is not None and app.view.table.bot_delay == 1.5
            core = server.tables[app.view.table.id].core
            assert core.bot_delay == 1.5
            screen = app.screen
            assert isinstance(screen, TableScreen) and screen.table.bot_level == "normal"
            assert "(normal)" in str(screen.query_one("#add-bot", Button).label)
            for seat, level in enumerate(("strong", "easy", "normal"), start=1):
                await pilot.press("v")
                assert screen.table.bot_level == level
                assert f"now: {level}" in text_of(app, "#room-seats")
                await pilot.press("a")  # before the start, `a` seats a bot of that level

                def arrived(seat: int = seat, level: str = level) -> bool:
                    t = app.view.table
                    return t is not None and t.seats[seat].level == level

                await until(pilot, arrived)
            assert app.view.table is not None
            assert [s.level for s in app.view.table.seats] == [None, "strong", "easy", "normal"]
            assert isinstance(core.policies.bots[1], StrongBot)
            room = text_of(app, "#room-seats")
            assert "Bot-2 (bot) [strong]" in room and "Bot-3 (bot) [easy]" in room
            assert "Bot-4 (bot) [normal]" in room
            await pilot.press("enter")  # start: the seats keep their levels on the table screen
            await until(pilot, lambda: app.view.round is not None)
            # 下家 (seat 1, the strong bot): the right of the table layout, or the list's first.
            where = "#w-right" if screen.wide else "#seat-0"
            await until(pilot, lambda: "(bot strong)" in text_of(app, where))


class Recorder:
    connected = True

    def __init__(self) -> None:
        self.sent: list[dict[str, Any]] = []

    def send(self, frame: dict[str, Any]) -> bool:
        self.sent.append(frame)
        return True

    def stop(self) -> None:
        pass


def deal(hand: str) -> Round:
    """Seat 0 deals `hand`; the other seats and the wall get the rest in order."""
    mine = parse_tiles(hand)
    left = [k for k in range(NUM_KINDS) for _ in range(COPIES)]
    for k in mine:
        left.remove(k)
    hands = [mine, left[:13], left[13:26], left[26:39]]
    return Round(PRESETS["guiyang"], hands, left[39:], dealer=0)


async def offline(pilot: Pilot[Any], table: OfflineTable, **options: Any) -> ZhuojiApp:
    app = pilot.app
    assert isinstance(app, ZhuojiApp)
    app.link = Recorder()  # type: ignore[assignment]
    for frame in table.opening():
        app.apply(frame)
    if options:  # the table's header, with its overrides
        info = {**table_info(table.table), "options": options}
        table.seq += 1  # a table event, numbered after the deal's
        update = {"type": "table", "table": table.table, "seq": table.seq, "info": info}
        app.apply(SERVER_ADAPTER.validate_python(update))
    prompt = table.prompt()
    assert prompt is not None
    app.apply(prompt)
    await pilot.pause()
    return app


def offline_app() -> ZhuojiApp:
    return ZhuojiApp("ws://offline", name="me", lang="en", ascii=True, connect=False)


HAND = "1s 2m 3m 4m 4p 5p 6p 7p 8p 3s 4s 6s 7s 9m"  # 1s and 9m both spare: keep the chicken


async def test_i_shows_the_strong_bots_three_best_moves_until_the_move_is_made() -> None:
    table = OfflineTable(deal(HAND), viewer=0)
    async with offline_app().run_test(size=SIZE) as pilot:
        app = await offline(pilot, table)
        assert "i hints" in text_of(app, "#keys")
        panel = app.screen.query_one("#hints", Static)
        assert not panel.display
        await pilot.press("i")
        assert panel.display  # "thinking" at once, the moves once worked out (on a thread)
        await until(pilot, lambda: str(panel.render()).startswith("The strong bot would play:"))
        shown = str(panel.render())
        assert shown.startswith("The strong bot would play:")
        lines = shown.splitlines()[1:]
        assert len(lines) == 3 and all("value " in line for line in lines)
        assert any("chance" in line for line in lines)
        # The same three moves as the rules core's, in its order, worded from its data.
        r = app.view.round
        assert r is not None and app.view.prompt is not None
        seed = f"hint:{app.view.table_id}:{app.view.prompt.seq}"
        expected = top_moves(r, 3, seed=seed)
        for line, hint in zip(lines, expected, strict=True):
            assert line.split(".", 1)[1].strip().startswith(move_label(hint, Lang("en"), True))
        # 8p is as spare as 1s by the exact shanten (45678p): either chicken may be the one named
        assert any("keeps 幺鸡" in line or "keeps 乌骨鸡" in line for line in lines)
        # A move answers the prompt: the hints go.
        await pilot.press("enter")
        await pilot.pause()
        assert not panel.display


async def test_hints_off_at_the_table_the_key_says_why_and_the_header_shows_it() -> None:
    table = OfflineTable(deal(HAND), viewer=0)
    async with offline_app().run_test(size=SIZE) as pilot:
        app = await offline(pilot, table, hints=False)
        assert "Hints 提示 off" in text_of(app, "#header")
        assert "i hints" not in text_of(app, "#keys")
        await pilot.press("i")
        await pilot.pause()
        assert "Hints are off at this table" in text_of(app, "#status")
        assert not app.screen.query_one("#hints", Static).display


def test_a_bots_level_is_tagged_in_both_languages() -> None:
    assert rd.level_tag("easy", Lang("zh")) == " [简单]"
    assert rd.level_tag("strong", Lang("en")) == " [strong]"
    assert rd.level_tag(None, Lang("en")) == ""
