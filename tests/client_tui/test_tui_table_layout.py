"""The table screen's layout: the table layout from about 100x30 up and the compact list below,
switched as the terminal is resized; what the pond marks (taken, 报听, newest); and the round's
end held on the table until a key, a prompt or the beat's end opens the sheet. Pilot tests over
an offline table (a bots' round projected for seat 0)."""

from __future__ import annotations

from typing import Any

from rich.console import Console

from client_tui import board
from client_tui.app import ZhuojiApp
from client_tui.offline import OfflineTable
from client_tui.screens.sheets import SheetScreen
from client_tui.screens.table import TableScreen
from client_tui.view import LastAction
from client_tui.widgets import HandView
from rules.options import PRESETS
from rules.players.bot import Bot
from rules.record import DiscardRecord
from rules.round import Phase, Round
from rules.tiles import parse_tile as k
from rules.view import MeldSeen, SeatView, view_of

SEED = 219  # by wall 30: melds at three seats, claimed discards, a 报听 discard


def played(stop: Any) -> OfflineTable:
    r = Round.deal(PRESETS["guiyang"], seed=SEED, dealer=0)
    bots = [Bot(f"{SEED}:{s}") for s in range(4)]
    while r.phase is not Phase.OVER and not stop(r):
        seat = r.awaiting()[0]
        r.apply(bots[seat].choose(r, seat))
    return OfflineTable(r, viewer=0)


def app(reveal: float = 0.0) -> ZhuojiApp:
    return ZhuojiApp(
        "ws://offline",
        name="me",
        lang="en",
        ascii=True,
        connect=False,
        clock=lambda: 1000.0,
        reveal_seconds=reveal,
    )


def mid(r: Round) -> bool:
    return r.phase is Phase.TURN and r.turn == 0 and r.drawn is not None and r.wall_left <= 30


async def test_the_layout_follows_the_terminal_size() -> None:
    table = played(mid)
    a = app()
    async with a.run_test(size=(80, 24)) as pilot:
        for frame in table.opening():
            a.apply(frame)
        await pilot.pause()
        screen = a.screen
        assert isinstance(screen, TableScreen)
        assert not screen.wide and screen.query_one("#seats").display
        assert not screen.query_one("#board").display
        await pilot.resize_terminal(120, 40)
        await pilot.pause()
        assert screen.wide and screen.query_one("#board").display
        assert not screen.query_one("#seats").display
        centre = str(screen.query_one("#w-centre").render())
        assert "wall 30" in centre or "wall " in centre
        assert all(n in centre for n in ("me", "Bot-2", "Bot-3", "Bot-4")), centre
        await pilot.resize_terminal(99, 40)  # below 100 columns: the list again
        await pilot.pause()
        assert not screen.wide and screen.query_one("#seats").display


def r_with(**kw: Any) -> SeatView:
    """Seat 0's view of a dealt round, with the fields given set (tiles as kinds)."""
    sv = view_of(Round.deal(PRESETS["guiyang"], seed=1, dealer=0), 0)
    return sv._replace(**kw)


def test_the_pond_marks_taken_declared_and_newest() -> None:
    row = (
        DiscardRecord(k("1m")),
        DiscardRecord(k("5p"), claimed=True),
        DiscardRecord(k("9s"), declared=True),
    )
    r = r_with(
        discards=(row, (), (), ()),
        melds=((), (MeldSeen("pong", k("5p"), from_seat=0),), (), ()),
    )
    last = LastAction("discarded", 0, k("9s"))
    text = board.pond_text(r, 0, ascii=False, last=last)
    assert text.plain == "一万 五筒↗九条•"
    console = Console()
    taken = text.get_style_at_offset(console, text.plain.index("五"))
    assert taken.strike and taken.dim, "taken: struck through and dimmed, and marked ↗"
    declared = text.get_style_at_offset(console, text.plain.index("九"))
    assert declared.underline and declared.reverse, "报听 underlined; the newest reversed"
    assert board.claimers(r) == {(0, k("5p")): 1}
    assert board.newest_discard(r, last) == (0, 2)
    # Rows of six, in discard order.
    many = r_with(discards=(tuple(DiscardRecord(k(f"{n}m")) for n in range(1, 9)), (), (), ()))
    assert board.pond_text(many, 0, ascii=True).plain.splitlines() == [
        "1m  2m  3m  4m  5m  6m",
        "7m  8m",
    ]


def test_a_meld_says_whose_discard_it_was() -> None:
    from client_tui.i18n import Lang
    from client_tui.view import View

    view = View(seat=0)
    m = MeldSeen("pong", k("5p"), from_seat=2)
    # Named as the reader's table labels the feeder (seat 2 sits across from seat 0), never
    # counted from the melder (from seat 1, seat 2 is its right).
    assert board.meld_text(view, 1, m, True, Lang("en")).plain == "碰5p×3←across"
    assert board.meld_text(view, 0, m, False, Lang("zh")).plain == "碰五筒×3←对家"


async def test_the_round_end_is_held_until_a_key_then_the_sheet_opens() -> None:
    table = played(lambda r: False)
    a = app(reveal=3600)
    async with a.run_test(size=(120, 40)) as pilot:
        for frame in table.opening():
            a.apply(frame)
        await pilot.pause()
        assert a.held is not None and isinstance(a.screen, TableScreen)
        status = str(a.screen.query_one("#status").render())
        assert "Hands shown" in status, status
        await pilot.press("x")
        await pilot.pause()
        assert a.held is None and isinstance(a.screen, SheetScreen)


async def test_a_prompt_ends_the_hold() -> None:
    table = played(lambda r: False)
    a = app(reveal=3600)
    async with a.run_test(size=(120, 40)) as pilot:
        for frame in table.opening():
            a.apply(frame)
        await pilot.pause()
        assert a.held is not None
        # The next round's deal and a move asked of the player: the table stays, the hold ends
        # (the sheet is one key away; a reader must not lose clock time, issue 23).
        nxt = Round.deal(PRESETS["guiyang"], seed=SEED + 1, dealer=0)
        follow = OfflineTable(nxt, viewer=0, round_no=2)
        follow.seq = table.seq
        for frame in follow.events():
            a.apply(frame)
        prompt = follow.prompt()
        assert prompt is not None
        a.apply(prompt)
        await pilot.pause()
        assert a.held is None and isinstance(a.screen, TableScreen)


async def test_a_spectator_sees_the_four_seats_around_the_centre() -> None:
    r = played(mid).round
    table = OfflineTable(r, viewer=None)
    a = app()
    async with a.run_test(size=(120, 40)) as pilot:
        for frame in table.opening():
            a.apply(frame)
        await pilot.pause()
        screen = a.screen
        assert isinstance(screen, TableScreen) and screen.wide
        panels = {
            wid: str(screen.query_one(f"#{wid}").render())
            for wid in ("w-me", "w-right", "w-top", "w-left")
        }
        # Seat 0 at the bottom, then play order counter-clockwise: right, top, left.
        for wid, name in zip(panels, ("me", "Bot-2", "Bot-3", "Bot-4"), strict=True):
            assert name in panels[wid], (wid, panels[wid])
        assert not screen.query_one("#hand").display, "a spectator has no hand"


async def test_a_large_terminal_draws_the_hand_and_ponds_as_standing_tiles() -> None:
    """From about 150x45 the tiles are boxes (issue 23: at 200x60 the table was mostly empty,
    the hand small at the bottom left); below it they stay two lines a tile."""
    table = played(mid)
    a = app()
    async with a.run_test(size=(200, 60)) as pilot:
        for frame in table.opening():
            a.apply(frame)
        if (p := table.prompt()) is not None:
            a.apply(p)
        await pilot.pause()
        screen = a.screen
        assert isinstance(screen, TableScreen) and screen.big
        hand = screen.query_one(HandView)
        lines = hand.text.plain.splitlines()
        assert hand.size.height == 6 and len(lines) == 6
        assert lines[1].count("┌──┐") == len(screen.hand()) + 3, "the hand and a 碰, boxed"
        pond = str(screen.query_one("#w-me").render())
        assert "└──┘" in pond and "│" in pond
        # A click on a boxed tile picks that tile.
        slot = hand.slots[4]
        await pilot.click(HandView, offset=(slot.x0 + 1, 2))
        assert screen.cursor == 4
        await pilot.resize_terminal(149, 60)  # below 150 columns: two lines a tile again
        await pilot.pause()
        assert not screen.big and hand.size.height == 4
        assert "┌" not in hand.text.plain
