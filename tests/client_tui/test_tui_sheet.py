"""The settlement sheet in the app, offline at 100×30: an opponent's 暗杠 is face down while the
round runs and shown on the sheet (and the table) once it ends, with every hand and the winning
tile marked; the sheet is taller than the terminal and scrolls; payment lines are labelled from
their kind in the interface language."""

from __future__ import annotations

import io
from typing import Any

import pytest
from rich.console import Console
from rich.text import Text
from textual.containers import VerticalScroll
from textual.widgets import Static

from client_tui import tiles as tl
from client_tui.app import ZhuojiApp
from client_tui.i18n import Lang
from client_tui.offline import OfflineTable
from client_tui.screens.sheets import SheetScreen, hand_line
from client_tui.screens.table import TableScreen
from client_tui.sheet import HandRow
from rules.options import PRESETS
from rules.players.bot import Bot
from rules.round import Phase, Round
from rules.tiles import tile_name

SIZE = (100, 30)
NAMES = ["me", "Bot-2", "Bot-3", "Bot-4"]


def screen_text(renderable: Any, width: int = 96) -> str:
    console = Console(width=width, record=True, color_system=None, file=io.StringIO())
    console.print(renderable)
    return console.export_text()


def offline_app(lang: str = "en", ascii: bool = True) -> ZhuojiApp:
    return ZhuojiApp(
        "ws://offline", name="me", lang=lang, ascii=ascii, connect=False, clock=lambda: 1000.0
    )


def bot_round(seed: int) -> Round:
    r = Round.deal(PRESETS["guiyang"], seed=seed, dealer=0)
    bots = [Bot(f"{seed}:{s}") for s in range(4)]
    while r.phase is not Phase.OVER:
        seat = r.awaiting()[0]
        r.apply(bots[seat].choose(r, seat))
    return r


def with_opponent_an_gang() -> tuple[Round, int, str]:
    """The first bot round (by seed) that someone won and in which an opponent of seat 0 made a
    暗杠: (round, that seat, the 暗杠's tile)."""
    for seed in range(40):
        r = bot_round(seed)
        for seat in (1, 2, 3):
            an = [m for m in r.melds[seat] if m.kind == "an"]
            if an and r.winners:
                return r, seat, tile_name(an[0].tile)
    raise AssertionError("no bot round with an opponent's 暗杠")


@pytest.mark.parametrize(("lang", "ascii"), [("en", True), ("zh", False)])
async def test_an_opponents_an_gang_is_face_down_in_play_and_shown_at_the_end(
    lang: str, ascii: bool
) -> None:
    r, seat, tile = with_opponent_an_gang()
    table = OfflineTable(r, viewer=0)
    app = offline_app(lang, ascii)
    label = tl.label(tile, ascii)
    async with app.run_test(size=SIZE) as pilot:
        hidden = False
        for frame in table.opening():
            app.apply(frame)
            if frame.type == "concealed_gang" and frame.seat == seat:  # type: ignore[union-attr]
                assert app.view.round is not None and app.view.round.phase != "over"
                meld = app.view.round.melds[seat][-1]
                assert meld.kind == "an" and meld.tile is None, "face down to the others"
                hidden = True
        assert hidden
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, SheetScreen) and screen.name == "settlement"
        text = screen_text(screen.body)
        winds = "ESWN" if lang == "en" else "东南西北"  # the dealer is seat 0
        rows = [ln for ln in text.splitlines() if ln.startswith(f" {winds[seat]} {NAMES[seat]} (")]
        assert rows, text
        hand_row = rows[0]  # the Hands section comes before the chickens
        assert f"暗杠{label}" in hand_row
        # Its concealed tiles are there too, grouped by suit.
        want = tl.grouped(
            [tile_name(k) for k in range(27) for _ in range(r.hands[seat][k])], ascii
        ).plain
        assert want in hand_row
        # Each winner's row marks the winning tile after the hand.
        for w in r.winners:
            assert w.tile is not None
            name = winds[w.seat] + " " + NAMES[w.seat] + ("*" if w.seat == 0 else "")
            row = next(ln for ln in text.splitlines() if ln.startswith(f" {name} ("))
            mark = Lang(lang).t(f"win_mark_{w.how}")
            assert f"{mark} {tl.label(tile_name(w.tile), ascii)}" in row
        # Closed, the sheet leaves the table, where the 暗杠 now shows its face too.
        await pilot.press("enter")
        assert isinstance(app.screen, TableScreen)
        panels = [str(p.render()) for p in app.screen.query(".seat, .wseat").results(Static)]
        assert any(NAMES[seat] in p and f"暗杠{label}×4" in p for p in panels)


def test_the_winning_tile_is_apart_and_chickens_are_underlined() -> None:
    row = HandRow(
        0, ("8p", "1s", "2s"), (), win_tile="1s", how="zimo", chickens=frozenset({"1s", "8p"})
    )
    text = hand_line(row, ascii=True, lang=Lang("en"))
    assert text.plain == "8p 12s  自摸 1s"

    def style_at(t: Text, i: int) -> Any:
        return t.get_style_at_offset(Console(), i)

    assert style_at(text, 0).underline  # 8p
    assert style_at(text, 3).underline and not style_at(text, 4).underline  # 1s, not 2s
    win = text.plain.rindex("1s")
    assert style_at(text, win).reverse and style_at(text, win).underline
    assert not style_at(text, text.plain.index("自摸")).reverse


async def test_a_tall_sheet_scrolls_and_the_nets_come_first() -> None:
    r, _, _ = with_opponent_an_gang()
    table = OfflineTable(r, viewer=0)
    app = offline_app()
    async with app.run_test(size=SIZE) as pilot:
        for frame in table.opening():
            app.apply(frame)
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, SheetScreen)
        scroll = screen.query_one(VerticalScroll)
        assert scroll.max_scroll_y > 0, "the sheet is taller than 30 rows"
        # The nets come right after the outcome, in view without scrolling.
        top = screen_text(screen.body).splitlines()[:4]
        assert any(ln.startswith("Net:  E me* ") for ln in top), top
        await pilot.press("end")
        await pilot.pause()
        assert scroll.scroll_y == scroll.max_scroll_y > 0
        await pilot.press("home")
        await pilot.pause()
        assert scroll.scroll_y == 0
        await pilot.press("escape")
        assert isinstance(app.screen, TableScreen)


def qidui_with_baoting() -> Round:
    """A bot round (seed 219) won with 七对 and 报听 on a discard: the longest hand note."""
    r = bot_round(219)
    assert any("qidui" in repr(p) and "baoting" in repr(p) for p in r.result.payments)  # type: ignore[union-attr]
    return r


@pytest.mark.parametrize(
    ("lang", "want"),
    [("en", "七对 seven pairs 7 + 报听 declared 10"), ("zh", "七对 7 + 报听 10")],
)
async def test_at_80_by_24_every_payment_note_shows_its_amount(lang: str, want: str) -> None:
    """Issue 23: at 80×24 a note is never cut before its amount ("七对 seven pairs 7 + 报听" and
    nothing after): the note column wraps, and read down its lines each note is whole and ends
    with a number."""
    from rich.cells import cell_len

    table = OfflineTable(qidui_with_baoting(), viewer=0)
    app = offline_app(lang, ascii=False)
    async with app.run_test(size=(80, 24)) as pilot:
        for frame in table.opening():
            app.apply(frame)
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, SheetScreen)
        body = screen.query_one("#sheet-body", Static)
        strips = [body.render_line(y) for y in range(body.size.height)]
        head = Lang(lang).t("detail")
        top = next(i for i, s in enumerate(strips) if s.text.rstrip().endswith(head))
        at = cell_len(strips[top].text.rstrip()) - cell_len(head)  # the note column's first cell
        notes: list[str] = []
        for strip in strips[top + 1 :]:
            left, note = strip.crop(0, at).text.strip(), strip.crop(at).text.strip()
            if not strip.text.startswith(" ") or not (left or note):
                break  # the end of the payments table (the totals' title follows)
            if left:
                notes.append(note)
            else:
                notes[-1] += " " + note
        assert notes and want in notes, notes
        assert all(n[-1].isdigit() for n in notes), notes
