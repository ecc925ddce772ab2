"""SVG snapshots of the client, in ASCII mode (fonts do not matter) at 100×30: the table on the
player's turn, a claim prompt, and a settlement sheet. The app runs offline: a rules-engine round
is projected for seat 0 and fed to it frame by frame, as a server would.

Update after a deliberate change with `pytest tests/client_tui/test_tui_snapshots.py --snapshot-update`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from textual.pilot import Pilot

from client_tui.app import ZhuojiApp
from client_tui.offline import OfflineTable
from rules.bot import Bot
from rules.options import PRESETS
from rules.patterns import ready_waits
from rules.round import Phase, Round

SIZE = (100, 30)


def offline_app() -> ZhuojiApp:
    return ZhuojiApp(
        "ws://offline", name="me", lang="en", ascii=True, connect=False, clock=lambda: 1000.0
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
