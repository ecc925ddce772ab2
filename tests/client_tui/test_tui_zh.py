"""Every string of the zh interface is Chinese: a scripted round (seeded bots, the player's
prompts shown as a server would send them) is played into the app in zh, and at every frame the
whole screen — the table at 80×24 (the compact list) and at 120×40 (the table layout), then the
settlement sheet — holds no ASCII word of English. What may be Latin: the players' names, the
keys (Enter, Esc, the letters), tile notation never appears with CJK tiles, and `ASCII` (the tile
mode a key switches to) — nothing else."""

from __future__ import annotations

import io
import re

import pytest
from rich.console import Console

from client_tui.app import ZhuojiApp
from client_tui.offline import OfflineTable
from client_tui.screens.sheets import SheetScreen
from rules.options import PRESETS
from rules.players.bot import Bot
from rules.round import Phase, Round

NAMES = ["me", "Bot-2", "Bot-3", "Bot-4"]
ALLOWED = {"me", "Bot", "offline", "Enter", "Esc", "space", "ASCII"}
"""Latin words a zh screen may show: names (the players', the offline table's), keys, and the
name of the ASCII tile mode."""
WORD = re.compile(r"[A-Za-z]{2,}")


def screen_text(app: ZhuojiApp) -> str:
    """The screen as the terminal shows it, as text."""
    width, height = app.size
    console = Console(width=width, height=height, file=io.StringIO(), record=True)
    console.print(
        app.screen._compositor.render_update(full=True, screen_stack=app._background_screens)
    )
    return console.export_text()


def english(text: str) -> set[str]:
    return {w for w in WORD.findall(text) if w not in ALLOWED}


@pytest.mark.parametrize("seed", [219, 7])
@pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=lambda s: f"{s[0]}x{s[1]}")
async def test_no_english_on_any_zh_screen_of_a_round(seed: int, size: tuple[int, int]) -> None:
    r = Round.deal(PRESETS["guiyang"], seed=seed, dealer=0)
    bots = [Bot(f"{seed}:{s}") for s in range(4)]
    table = OfflineTable(r, viewer=0, names=NAMES)
    app = ZhuojiApp(
        "ws://offline", name="me", lang="zh", ascii=False, connect=False, clock=lambda: 1000.0
    )
    seen: dict[str, str] = {}
    screens = 0
    async with app.run_test(size=size) as pilot:

        async def look(what: str) -> None:
            nonlocal screens
            await pilot.pause()
            screens += 1
            text = screen_text(app)
            for w in english(text):
                seen.setdefault(w, f"{what}:\n{text}")

        for frame in table.opening():
            app.apply(frame)
        await look("the deal")
        while r.phase is not Phase.OVER:
            seat = r.awaiting()[0]
            if (p := table.prompt()) is not None:
                app.apply(p)
                await look("a prompt")
            for frame in table.apply(bots[seat].choose(r, seat)):
                app.apply(frame)
            await look(f"after seat {seat}'s move")
        sheet = app.screen
        assert isinstance(sheet, SheetScreen), "the sheet opens at the end"
        await look("the settlement sheet")
        # All of the sheet, the part below the screen too.
        console = Console(width=size[0] - 6, file=io.StringIO(), record=True)
        console.print(sheet.body)
        body = console.export_text()
        for w in english(body):
            seen.setdefault(w, f"the whole sheet:\n{body}")
        assert app.view.round is not None and app.view.round.phase == "over"
    assert screens > 20
    assert not seen, "\n\n".join(f"{w!r} on {where}" for w, where in seen.items())
