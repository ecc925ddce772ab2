"""SVG snapshots of the client. The app runs offline: a rules-engine round played by seeded bots
is projected for seat 0 and fed to it frame by frame, as a server would.

- at 100×30 in ASCII mode: the table on the player's turn, a claim prompt, a settlement sheet;
- the table mid-round (melds from three seats, claimed discards, a 报听 discard) at 80×24 (the
  compact list), 120×40 (the table layout) and 200×60 (the hand and the discards drawn as
  standing tiles, boxed), in zh with CJK tiles and in en with ASCII tiles;
- a finished round held on the table with every hand revealed and the flip, before its sheet;
- the settlement sheet at 80×24, 120×40 and 200×60 in both languages.

Update after a deliberate change with `pytest tests/client_tui/test_tui_snapshots.py --snapshot-update`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from textual.pilot import Pilot

from client_tui.app import ZhuojiApp
from client_tui.offline import OfflineTable
from client_tui.screens.sheets import SheetScreen
from rules.options import PRESETS
from rules.patterns import ready_waits
from rules.players.bot import Bot
from rules.round import Phase, Round

SIZE = (100, 30)


def offline_app(lang: str = "en", ascii: bool = True, reveal_seconds: float = 0.0) -> ZhuojiApp:
    return ZhuojiApp(
        "ws://offline",
        name="me",
        lang=lang,
        ascii=ascii,
        connect=False,
        clock=lambda: 1000.0,
        reveal_seconds=reveal_seconds,
    )


def bot_table(seed: int, stop: Callable[[Round], bool]) -> OfflineTable:
    """A guiyang round played by bots for every seat until `stop(round)` holds."""
    r = Round.deal(PRESETS["guiyang"], seed=seed, dealer=0)
    bots = [Bot(f"{seed}:{s}") for s in range(4)]
    while r.phase is not Phase.OVER and not stop(r):
        seat = r.awaiting()[0]
        r.apply(bots[seat].choose(r, seat))
    return OfflineTable(r, viewer=0)


def feed(table: OfflineTable, prompt: bool = True) -> Callable[[Pilot[Any]], Any]:
    async def run_before(pilot: Pilot[Any]) -> None:
        app = pilot.app
        assert isinstance(app, ZhuojiApp)
        for frame in table.opening():
            app.apply(frame)
        if prompt and (p := table.prompt()) is not None:
            app.apply(p)
        await pilot.pause()

    return run_before


def my_turn_ready(r: Round) -> bool:
    """Seat 0 on turn, having drawn, with a discard that leaves it ready."""
    if not (r.phase is Phase.TURN and r.turn == 0 and r.drawn is not None):
        return False
    hand = list(r.hands[0])
    for k in range(27):
        if hand[k]:
            hand[k] -= 1
            ready = bool(ready_waits(hand, r.melds[0]))
            hand[k] += 1
            if ready:
                return True
    return False


def my_pong_chance(r: Round) -> bool:
    return r.phase is Phase.CLAIM and "pong" in r.claim_options.get(0, ())


def test_table_on_my_turn(snap_compare: Any) -> None:
    table = bot_table(3, my_turn_ready)  # seat 0 holds a 暗杠: a 通行证
    assert my_turn_ready(table.round)
    assert snap_compare(offline_app(), terminal_size=SIZE, run_before=feed(table))


def test_claim_prompt(snap_compare: Any) -> None:
    table = bot_table(1, my_pong_chance)
    assert my_pong_chance(table.round)
    assert snap_compare(offline_app(), terminal_size=SIZE, run_before=feed(table))


def test_settlement_sheet(snap_compare: Any) -> None:
    table = bot_table(7, lambda r: False)
    assert table.round.phase is Phase.OVER
    assert snap_compare(offline_app(), terminal_size=SIZE, run_before=feed(table, prompt=False))


MID_SEED = 219  # a bot round where, by wall 30, three seats have melds and one has declared 报听


def mid_round(r: Round) -> bool:
    """Seat 0 on turn, having drawn, with at most 30 tiles left in the wall."""
    return r.phase is Phase.TURN and r.turn == 0 and r.drawn is not None and r.wall_left <= 30


@pytest.mark.parametrize("size", [(80, 24), (120, 40), (200, 60)], ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("lang", ["zh", "en"])
def test_table_mid_round(snap_compare: Any, lang: str, size: tuple[int, int]) -> None:
    table = bot_table(MID_SEED, mid_round)
    r = table.round
    assert mid_round(r)
    assert sum(1 for row in r.melds if row) == 3, "melds at three seats"
    assert sum(1 for row in r.discards for d in row if d.claimed) >= 4, "claimed discards"
    assert any(d.declared for row in r.discards for d in row), "a 报听 discard"
    app = offline_app(lang, ascii=lang == "en")
    assert snap_compare(app, terminal_size=size, run_before=feed(table))


def test_round_end_holds_the_revealed_hands(snap_compare: Any) -> None:
    """After the last action the table shows every hand and the flip; the sheet waits (here for
    an hour: the test never sleeps, the hold is what is shown)."""
    table = bot_table(MID_SEED, lambda r: False)
    assert table.round.phase is Phase.OVER
    app = offline_app("en", ascii=True, reveal_seconds=3600)

    async def run_before(pilot: Pilot[Any]) -> None:
        await feed(table, prompt=False)(pilot)
        assert app.held is not None and not isinstance(app.screen, SheetScreen)

    assert snap_compare(app, terminal_size=(120, 40), run_before=run_before)


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_sheet_at_80x24(snap_compare: Any, lang: str) -> None:
    table = bot_table(MID_SEED, lambda r: False)
    app = offline_app(lang, ascii=lang == "en")

    async def run_before(pilot: Pilot[Any]) -> None:
        await feed(table, prompt=False)(pilot)
        assert isinstance(app.screen, SheetScreen)

    assert snap_compare(app, terminal_size=(80, 24), run_before=run_before)


@pytest.mark.parametrize("size", [(120, 40), (200, 60)], ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("lang", ["zh", "en"])
def test_sheet_at_larger_sizes(snap_compare: Any, lang: str, size: tuple[int, int]) -> None:
    table = bot_table(MID_SEED, lambda r: False)
    app = offline_app(lang, ascii=lang == "en")

    async def run_before(pilot: Pilot[Any]) -> None:
        await feed(table, prompt=False)(pilot)
        assert isinstance(app.screen, SheetScreen)

    assert snap_compare(app, terminal_size=size, run_before=run_before)


def test_the_replay_draws_the_table_widget_without_clocks(snap_compare: Any) -> None:
    """The replay browser mid-round at 120×40: the live table's own widget (the same seats and
    centre as play) with no clock in the centre, and the replay's two lines of keys below."""
    import json
    from pathlib import Path

    from client_tui.replay import tape_from_script
    from client_tui.replay_app import ReplayApp

    root = Path(__file__).resolve().parents[2]
    data = json.loads((root / "tests/scenarios/opt_benji_01_flip_kind.json").read_text())
    tape = tape_from_script(data, names=("me", "Bot-2", "Bot-3", "Bot-4"))
    app = ReplayApp(tapes=[tape], lang="en", ascii=True, bell=False)

    async def run_before(pilot: Pilot[Any]) -> None:
        await pilot.press("v", *["right"] * 15)  # seat 0's view, 15 moves in
        await pilot.pause()

    assert snap_compare(app, terminal_size=(120, 40), run_before=run_before)
