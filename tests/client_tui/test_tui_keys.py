"""Keys on fixed deals, offline: what each key sends for the prompt on screen, and that keys the
prompt does not offer send nothing. The app's link is replaced by one that records frames."""

from __future__ import annotations

from typing import Any

import pytest

from client_tui.app import ZhuojiApp
from client_tui.offline import OfflineTable
from client_tui.render import HAND_KEYS
from client_tui.screens.forms import ChoiceScreen
from client_tui.screens.table import TableScreen
from client_tui.widgets import Chip
from rules.actions import Action
from rules.options import PRESETS
from rules.round import Round
from rules.tiles import COPIES, NUM_KINDS, parse_tiles

SIZE = (100, 30)


class Recorder:
    """Stands in for `client_tui.net.Link`: connected, and keeps what is sent."""

    connected = True

    def __init__(self) -> None:
        self.sent: list[dict[str, Any]] = []

    def send(self, frame: dict[str, Any]) -> bool:
        if frame["type"] == "act":  # (the welcome's `list_tables` is not what these test)
            self.sent.append(frame)
        return True

    def stop(self) -> None:
        pass


def deal(*hands: str, preset: str = "guiyang") -> Round:
    """Seat 0 deals; the hands given are seats 0, 1, …; the others and the wall get the rest."""
    given = [parse_tiles(h) for h in hands]
    left = [k for k in range(NUM_KINDS) for _ in range(COPIES)]
    for hand in given:
        for k in hand:
            left.remove(k)
    full: list[list[int]] = list(given)
    while len(full) < 4:
        full.append(left[:13])
        left = left[13:]
    return Round(PRESETS[preset], full, left, dealer=0)


async def start(pilot: Any, table: OfflineTable) -> tuple[ZhuojiApp, Recorder]:
    app = pilot.app
    rec = Recorder()
    app.link = rec
    for frame in table.opening():
        app.apply(frame)
    prompt = table.prompt()
    assert prompt is not None
    app.apply(prompt)
    await pilot.pause()
    return app, rec


def offline_app() -> ZhuojiApp:
    return ZhuojiApp("ws://offline", name="me", lang="en", ascii=True, connect=False)


async def test_digit_keys_discard_the_tile_under_them() -> None:
    table = OfflineTable(deal("123456789m23s55p9s"), viewer=0)
    async with offline_app().run_test(size=SIZE) as pilot:
        app, rec = await start(pilot, table)
        screen = app.screen
        assert isinstance(screen, TableScreen)
        hand = screen.hand()
        assert len(hand) == 14
        await pilot.press(HAND_KEYS[11])  # "=": the 12th tile
        assert rec.sent == [{"type": "act", "seq": table.seq, "act": "discard", "tile": hand[11]}]
        await pilot.press(HAND_KEYS[3])  # answered: nothing more until the server replies
        assert len(rec.sent) == 1


async def test_declare_baoting_then_discard() -> None:
    table = OfflineTable(deal("123456789m23s55p9s"), viewer=0)
    async with offline_app().run_test(size=SIZE) as pilot:
        app, rec = await start(pilot, table)
        assert app.view.prompt is not None and app.view.prompt.tiles_for("ready") == ("9s",)
        await pilot.press("b")  # 报听 on: the discard that keeps the hand ready declares it
        screen = app.screen
        assert isinstance(screen, TableScreen) and screen.declare
        hand = list(screen.hand())
        await pilot.press(HAND_KEYS[hand.index("9s")])
        assert rec.sent == [{"type": "act", "seq": table.seq, "act": "ready", "tile": "9s"}]


async def test_gang_asks_which_when_there_are_two() -> None:
    table = OfflineTable(deal("11112222m345p678s"), viewer=0)
    async with offline_app().run_test(size=SIZE) as pilot:
        app, rec = await start(pilot, table)
        assert app.view.prompt is not None and app.view.prompt.tiles_for("gang") == ("1m", "2m")
        screen = app.screen
        assert isinstance(screen, TableScreen)
        screen.cursor = len(screen.hand()) - 1  # on 8s: not a gang tile, so ask
        await pilot.press("k")
        assert isinstance(app.screen, ChoiceScreen)
        await pilot.press("down", "enter")
        assert rec.sent == [{"type": "act", "seq": table.seq, "act": "gang", "tile": "2m"}]


async def test_gang_takes_the_tile_under_the_cursor() -> None:
    table = OfflineTable(deal("11112222m345p678s"), viewer=0)
    async with offline_app().run_test(size=SIZE) as pilot:
        app, rec = await start(pilot, table)
        await pilot.press("right")  # from the last tile round to the first: 1m
        screen = app.screen
        assert isinstance(screen, TableScreen) and screen.hand()[screen.cursor] == "1m"
        await pilot.press("k")
        assert rec.sent == [{"type": "act", "seq": table.seq, "act": "gang", "tile": "1m"}]


@pytest.mark.parametrize(("key", "act"), [("p", "pong"), ("space", "pass")])
async def test_claim_keys(key: str, act: str) -> None:
    # Seat 0 deals and discards 9s; seat 1 holds two 9s and may 碰 (not 胡: keys must not send it).
    table = OfflineTable(
        deal("123456789m23s55p9s", "99s1234567p1357m"),
        viewer=1,
        names=["Bot-1", "me", "Bot-3", "Bot-4"],
    )
    app = offline_app()
    async with app.run_test(size=SIZE) as pilot:
        rec = Recorder()
        app.link = rec  # type: ignore[assignment]
        for frame in table.opening():
            app.apply(frame)
        for frame in table.apply(Action(0, "discard", parse_tiles("9s")[0])):
            app.apply(frame)
        prompt = table.prompt()
        assert prompt is not None
        app.apply(prompt)
        await pilot.pause()
        assert app.view.prompt is not None and app.view.prompt.is_claim
        await pilot.press("h", "k", "enter")  # not offered: nothing is sent
        assert rec.sent == []
        await pilot.press(key)
        assert rec.sent == [{"type": "act", "seq": table.seq, "act": act}]


async def test_a_gang_chip_click_names_its_tile() -> None:
    table = OfflineTable(deal("11112222m345p678s"), viewer=0)
    async with offline_app().run_test(size=SIZE) as pilot:
        app, rec = await start(pilot, table)
        chips = [c for c in app.screen.query(Chip) if c.action.startswith("gang")]
        assert [c.action for c in chips] == ["gang:1m", "gang:2m"]
        await pilot.click(chips[1])
        assert rec.sent == [{"type": "act", "seq": table.seq, "act": "gang", "tile": "2m"}]
