"""The table widget: the other seats with their discards and melds, the player's hand, the waits,
what just happened and the moves the server offers. One widget for play, watch and the replay.

State flows down as reactive attributes (the `View` keys act on, the `View` drawn, the language,
the tiles, the terminal's size, whether clocks run); the widget renders what it is given and
nothing else. What the player does on it goes up as messages: a click on a hand tile
(`HandView.TileClicked`, when it is on the cursor already), a chip (`Chip.Pressed`) or a room
button (`Button.Pressed`); the screen around it turns those into intents. Its styles are in
`table_view.tcss`, which every screen showing it loads (`TABLE_CSS`).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from pathlib import Path

from rich.style import Style
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.reactive import reactive
from textual.widget import Widget
from textual.widgets import Button, Static

from client_tui import board
from client_tui import render as rd
from client_tui import tiles as tl
from client_tui.analysis import ready_discards, waits_after, waits_now
from client_tui.clocks import SeatClocks
from client_tui.i18n import Lang
from client_tui.view import View
from client_tui.widgets import Chip, HandView
from rules.tiles import parse_tile, tile_name

TABLE_CSS = Path(__file__).with_name("table_view.tcss")
"""The widget's styles, by absolute path: a relative `CSS_PATH` resolves beside the module of
the screen class that names it, which breaks as soon as a screen elsewhere shows the table."""
WHY_SECONDS = 5.0
"""How long the status line says why a key did nothing."""
WHY_STYLE = Style(color="#ff8060", bold=True)
WIDE = (100, 30)
"""The least terminal size (columns, rows) for the table layout."""
BIG = (150, 45)
"""The least terminal size for tiles drawn as boxes, the hand and the discards (issue 23: at
200x60 most of the screen was empty and the hand small at the bottom left)."""

Hints = tuple[int, Text]
"""The hints shown, with the `seq` of the prompt they are for."""


class TableView(Widget):
    """The table as it stands, drawn from the state its screen hands down (`present`)."""

    view: reactive[View] = reactive(View, init=False, always_update=True)
    """The table as it stands: what a key acts on (the prompt, the hand)."""
    shown: reactive[View] = reactive(View, init=False, always_update=True)
    """What is drawn: the finished round while it is held, else `view`."""
    reveal_until: reactive[float | None] = reactive(None, init=False)
    """While the finished round is held: when its sheet opens (the status line counts down)."""
    lang: reactive[Lang] = reactive(lambda: Lang("en"), init=False, always_update=True)
    ascii: reactive[bool] = reactive(False, init=False)
    live: reactive[bool] = reactive(True, init=False)
    """Clocks and countdowns run: a live table's. A replay's are over and show none."""
    terminal: reactive[tuple[int, int]] = reactive((0, 0), init=False)
    """The terminal's size (columns, rows): it picks the layout (`wide`, `big`)."""
    cursor: reactive[int] = reactive(0, init=False)
    """The hand tile under the cursor (index in display order)."""
    declare: reactive[bool] = reactive(False, init=False)
    """`b` is on: the next discard declares 报听."""
    bot_level: reactive[str] = reactive("normal", init=False)
    """The level of the bot the waiting room's button adds."""
    hints: reactive[Hints | None] = reactive(None, init=False, always_update=True)

    def __init__(self, *, live: bool = True, id: str | None = None) -> None:
        super().__init__(id=id)
        self.set_reactive(TableView.live, live)
        self.clock: Callable[[], float] = time.monotonic
        self.clocks: SeatClocks | None = None
        self.why: tuple[str, float] | None = None  # why a key did nothing, and until when
        self._chips: tuple[tuple[str, str, str, bool], ...] = ()
        self._drawn_key: tuple[int, int, int | None] | None = None

    # ----- state down -----

    def present(
        self,
        view: View,
        *,
        shown: View | None = None,
        reveal_until: float | None = None,
    ) -> None:
        """The table's new state, drawn at once and once (setting the attributes one by one
        would draw it once each)."""
        self.set_reactive(TableView.view, view)
        self.set_reactive(TableView.shown, shown if shown is not None else view)
        self.set_reactive(TableView.reveal_until, reveal_until)
        self.redraw()

    def configure(self, lang: Lang, ascii: bool, clock: Callable[[], float]) -> None:
        """How to draw (the language, the tiles) and the clock deadlines are read on; drawn
        with the next `present` or `redraw`."""
        self.set_reactive(TableView.lang, lang)
        self.set_reactive(TableView.ascii, ascii)
        self.clock = clock

    def _state_changed(self) -> None:
        self.redraw()

    watch_view = watch_shown = watch_reveal_until = watch_lang = watch_ascii = _state_changed
    watch_cursor = watch_bot_level = watch_hints = _state_changed

    def watch_declare(self) -> None:
        self._chips = ()  # the 报听 chip's label changes
        self.redraw()

    def watch_live(self) -> None:
        if not self.live:
            self.clocks = None
        self.redraw()

    def watch_terminal(self) -> None:
        self._layout()
        self.redraw()

    @property
    def held(self) -> bool:
        """The finished round is held on the table (any key opens its sheet)."""
        return self.reveal_until is not None

    @property
    def wide(self) -> bool:
        """The table layout (about 100x30 and up), else the compact list."""
        w, h = self.terminal
        return w >= WIDE[0] and h >= WIDE[1]

    @property
    def big(self) -> bool:
        """Tiles drawn as boxes (about 150x45 and up)."""
        w, h = self.terminal
        return w >= BIG[0] and h >= BIG[1]

    def reveal_left(self) -> float | None:
        """Seconds until the sheet opens, while the hands are revealed."""
        if self.reveal_until is None:
            return None
        return max(0.0, self.reveal_until - self.clock())

    def hand(self) -> tuple[str, ...]:
        """The player's hand in display order, in notation (the tiles a move names)."""
        r = self.view.round
        return tuple(map(tile_name, rd.hand_tiles(r))) if r is not None else ()

    def say_why(self, why: str) -> None:
        """Show why a key did nothing, on the status line, for a few seconds."""
        self.why = (why, self.clock() + WHY_SECONDS)
        if self.is_mounted:
            self._show_status(self.view)

    # ----- the widget -----

    def compose(self) -> ComposeResult:
        yield Static(id="header")
        yield Static(id="banner")
        with Vertical(id="room"):
            yield Static(id="room-seats")
            with Horizontal(id="room-buttons"):
                # Not focusable: the table's keys (Enter, a, l) must reach the screen.
                for bid, variant in (
                    ("add-bot", "default"),
                    ("remove-bot", "default"),
                    ("start", "primary"),
                    ("leave", "default"),
                ):
                    button = Button("", id=bid, variant=variant)  # type: ignore[arg-type]
                    button.can_focus = False
                    yield button
        with Vertical(id="game"):
            with Vertical(id="seats"):  # the compact list, below about 100x30
                for p in range(4):
                    yield Static(classes="seat", id=f"seat-{p}")
            with Vertical(id="board"):  # the table itself: four seats around the centre
                with Horizontal(id="board-top"):
                    yield Static(classes="wseat", id="w-top")
                with Horizontal(id="board-mid"):
                    yield Static(classes="wseat", id="w-left")
                    yield Static(id="w-centre")
                    yield Static(classes="wseat", id="w-right")
                with Horizontal(id="board-bottom"):
                    yield Static(classes="wseat", id="w-me")
            with Vertical(id="center"):
                yield Static(id="status")
            yield HandView(id="hand")
            yield Static(id="waits")
            yield Static(id="hints")
            with Horizontal(id="actions"):
                yield Static(id="clock")  # first: a narrow terminal crops the chips, not this

    def on_mount(self) -> None:
        self.set_interval(0.25, self._tick)
        self._layout()
        self.redraw()

    @on(HandView.TileClicked)
    def _tile_clicked(self, message: HandView.TileClicked) -> None:
        """A click on a tile moves the cursor there; on the cursor's tile it goes up (the play
        screen discards it)."""
        if self.cursor != message.index:
            message.stop()
            self.cursor = message.index

    def _layout(self) -> None:
        """The table layout on screens of about 100x30 and up, else the compact list."""
        if not self.is_mounted:
            return
        hand = self.query_one(HandView)
        hand.styles.height = rd.HAND_LINES_BIG if self.big else rd.HAND_LINES
        self.query_one("#board").display = self.wide
        self.query_one("#seats").display = not self.wide
        self.query_one("#seats").set_class(self.terminal[1] < WIDE[1], "-tight")

    # ----- rendering -----

    def redraw(self) -> None:
        """Render the state as it stands."""
        if not self.is_mounted:
            return
        view, lang, ascii = self.shown, self.lang, self.ascii
        self.query_one("#header", Static).update(rd.header_text(view, lang, ascii))
        banner = rd.banner_text(view, lang)
        self.query_one("#banner", Static).display = banner is not None
        self.query_one("#banner", Static).update(banner or "")
        waiting = view.table is not None and view.table.state == "waiting" and view.round is None
        self.query_one("#room").display = waiting
        self.query_one("#game").display = not waiting
        if waiting:
            self._show_room(view)
        else:
            self._show_game(view)

    def _show_room(self, view: View) -> None:
        lang = self.lang
        t = view.table
        assert t is not None
        out = Text(
            lang.t("room_title", name=t.name, preset=lang.t("preset_" + t.preset)) + "\n\n",
            style="bold",
        )
        for i, s in enumerate(t.seats):
            who = s.name or lang.t("empty_seat")
            tag = f" ({lang.t('you')})" if i == view.seat else ""
            if s.kind == "bot":
                tag += f" ({lang.t('bot')})" + rd.level_tag(s.level, lang)
            out.append(f"  {i + 1}. {who}{tag}\n", style="dim" if s.kind == "empty" else "")
        seated = view.seat is not None
        if seated:
            out.append("\n" + lang.t("room_hint"), style="dim")
            level = lang.t("level_" + self.bot_level)
            out.append("\n" + lang.t("room_level_hint", level=level), style="dim")
        else:  # a watcher sees only what a watcher can do (issue 23)
            out.append("\n" + lang.t("room_watching"), style="dim")
        self.query_one("#room-seats", Static).update(out)
        free = t.seated < 4
        bots = any(s.kind == "bot" for s in t.seats)
        for bid, key, enabled in (
            ("add-bot", "btn_add_bot", seated and free),
            ("remove-bot", "btn_remove_bot", seated and bots),
            ("start", "btn_start", seated and not free),
            ("leave", "btn_leave", True),
        ):
            button = self.query_one(f"#{bid}", Button)
            button.label = lang.t(key)
            if bid == "add-bot":
                button.label = f"{lang.t(key)} ({lang.t('level_' + self.bot_level)})"
            button.disabled = not enabled
            button.display = seated or bid == "leave"  # a watcher can only leave

    def _clock_of(self, seat: int) -> Text:
        """A seat's clock for the centre: the prompt's deadline for the player's own, else the
        estimate of `client_tui.clocks` for the seat on turn, else its bank left."""
        view, lang = self.view, self.lang
        c = self.clocks
        if c is None or not c.running:
            return Text()
        now = self.clock()
        prompt = view.prompt
        left: float | None
        if seat == view.seat and prompt is not None and not prompt.answered:
            left = None if prompt.deadline_at is None else max(0.0, prompt.deadline_at - now)
        else:
            left = c.left(seat, now)
        if left is not None:
            return Text(
                "⏱" + lang.t("clock", s=math.ceil(left)),
                style="bold red" if left <= 5 else "bold",
            )
        return Text(lang.t("bank_left", s=math.ceil(c.banks[seat])), style=rd.DIM)

    def _track_clocks(self, view: View) -> None:
        """Follow the seats' clocks on a live table; a replay's have none (a recorded move's
        clock is over, and one running on the reader's wall time would mean nothing)."""
        t, r = view.table, view.round
        if not self.live:
            self.clocks = None
            return
        if t is None or r is None:
            return
        if self.clocks is None or (self.clocks.turn_seconds, self.clocks.bank_seconds) != (
            t.turn_seconds,
            t.bank_seconds,
        ):
            self.clocks = SeatClocks.start(t.turn_seconds, t.bank_seconds)
        turn = r.turn if r.phase == "turn" else None
        self.clocks = self.clocks.moved(turn=turn, round_no=view.round_no, at=self.clock())

    def _centre_inner(self) -> int:
        """The centre's text width; its box adds a border and padding."""
        return 24 if self.terminal[0] < 110 else 28

    def _show_board(self, view: View) -> None:
        """The table layout: 对家 on top, 上家 left, the centre, 下家 right, the player below."""
        lang, ascii = self.lang, self.ascii
        r = view.round
        # 下家, 对家, 上家, 本家; a spectator sees the first seat (0) at the bottom, as if sat there.
        order = rd.seat_order(view) if view.seat is not None else [1, 2, 3, 0]
        width = self.terminal[0]
        inner = self._centre_inner()
        centre = self.query_one("#w-centre", Static)
        if centre.styles.width is None or centre.styles.width.value != inner + 4:
            centre.styles.width = inner + 4
        side = max(20, (width - inner - 4) // 2 - 6)
        for wid, seat in zip(("w-right", "w-top", "w-left", "w-me"), order, strict=True):
            panel = self.query_one(f"#{wid}", Static)
            cells = side if wid in ("w-left", "w-right") else width - 4
            panel.update(rd.panel_text(view, seat, ascii, lang, cells, big=self.big))
            panel.set_class(r is not None and r.phase == "turn" and r.turn == seat, "-turn")
        self._show_centre(view)

    def _show_centre(self, view: View) -> None:
        """The centre alone (the clocks move every tick; the seats only with the view)."""
        lang, ascii = self.lang, self.ascii
        last = rd.last_text(view, lang, ascii)
        text = board.centre_text(view, lang, ascii, self._clock_of, last, self._centre_inner())
        self.query_one("#w-centre", Static).update(text)

    def _show_game(self, view: View) -> None:
        lang, ascii = self.lang, self.ascii
        r = view.round
        self._track_clocks(view)
        if self.wide:
            self._show_board(view)
        else:
            order = rd.seat_order(view)
            width = self.terminal[0] - 2
            for p, seat in enumerate(order):
                panel = self.query_one(f"#seat-{p}", Static)
                panel.update(rd.seat_text(view, seat, ascii, lang, width))
                panel.set_class(r is not None and r.phase == "turn" and r.turn == seat, "-turn")
        hand_widget = self.query_one(HandView)
        seated = view.seat is not None and r is not None and r.hand is not None
        hand_widget.display = seated
        waits = self.query_one("#waits", Static)
        if not seated or r is None or view.seat is None:
            waits.update("")
            self._show_below(view)
            return
        tiles = rd.hand_tiles(r)
        prompt = view.prompt
        my_turn = prompt is not None and not prompt.is_claim
        # A new draw puts the cursor on the drawn tile: the usual discard is the one just drawn.
        # (Set without its watcher: this is the drawing that watcher would start.)
        key = (view.round_no, len(r.discards[view.seat]), rd.drawn_tile(r))
        if my_turn and key != self._drawn_key:
            self._drawn_key = key
            self.set_reactive(TableView.cursor, len(tiles) - 1)
        if tiles:
            self.set_reactive(TableView.cursor, max(0, min(self.cursor, len(tiles) - 1)))
        marks: frozenset[int] = frozenset()
        if my_turn and prompt is not None:
            marks = (
                frozenset(parse_tile(t) for t in prompt.tiles_for("ready"))
                if self.declare
                else ready_discards(r)
            )
        text, slots = rd.hand_text(
            r,
            view.seat,
            ascii=ascii,
            cursor=self.cursor if my_turn else None,
            marks=marks,
            playable=my_turn,
            lang=lang,
            big=self.big,
        )
        hand_widget.show(text, slots)
        if my_turn and tiles:
            tile = tiles[self.cursor]
            after = waits_after(r, tile)
            if after is None and marks:
                waits.update(rd.keep_ready_text(marks, lang, ascii))
            else:
                waits.update(rd.waits_text(after, lang, ascii, after=tile))
        elif r.phase != "over":
            waits.update(rd.waits_text(waits_now(r), lang, ascii))
        else:
            waits.update("")
        self._show_below(view)

    def _show_below(self, view: View) -> None:
        """Below the seats: the status line, the moves offered, the hints."""
        self._show_status(view)
        self._show_actions(view)
        self._show_hints(view)

    def _show_hints(self, view: View) -> None:
        """The hints asked for (`i`), while their prompt is open."""
        panel = self.query_one("#hints", Static)
        prompt = view.prompt
        hints = self.hints
        if hints is not None and (prompt is None or prompt.answered or prompt.seq != hints[0]):
            hints = None
            self.set_reactive(TableView.hints, None)
        panel.display = hints is not None
        panel.update(hints[1] if hints is not None else "")

    def _show_status(self, view: View) -> None:
        """What just happened, and why the last key did nothing (while that is fresh)."""
        parts = rd.last_parts(view, self.lang, self.ascii)
        left = self.reveal_left()
        if left is not None:
            hint = self.lang.t("reveal_hint", s=math.ceil(left))
            parts.append(Text(hint, style=rd.TURN_MARK))
        if self.why is not None:
            parts.append(Text(f"✗ {self.why[0]}", style=WHY_STYLE))
        # Side by side while they fit, else a line each: a part is never cut or split.
        self.query_one("#status", Static).update(rd.packed(parts, self.terminal[0] - 2))

    def _show_actions(self, view: View) -> None:
        lang, ascii = self.lang, self.ascii
        chips: list[tuple[str, str, str, bool]] = []
        prompt = view.prompt
        if prompt is not None and not prompt.answered:
            if prompt.is_claim:  # the status line above says which tile is offered
                if prompt.offers("hu"):
                    chips.append(("h", lang.t("hu"), "hu", True))
                if prompt.offers("gang"):
                    chips.append(("k", lang.t("gang"), "gang", True))
                if prompt.offers("pong"):
                    chips.append(("p", lang.t("pong"), "pong", True))
                if prompt.offers("pass"):
                    chips.append(("space", lang.t("pass"), "pass", False))
            else:
                chips.append(("Enter", lang.t("your_turn"), "discard", True))
                if prompt.offers("hu"):
                    chips.append(("h", lang.t("zimo"), "hu", True))
                for tile in prompt.tiles_for("gang"):
                    label = f"{lang.t('gang')} {tl.label(tile, ascii)}"
                    chips.append(("k", label, f"gang:{tile}", True))
                if prompt.tiles_for("ready"):
                    label = lang.t("ready_on") if self.declare else lang.t("ready")
                    chips.append(("b", label, "declare", self.declare))
        elif prompt is not None:
            chips.append(("", lang.t("waiting_answer"), "", False))
        table = view.table
        if view.seat is not None and table is not None and table.seats[view.seat].auto:
            chips.append(("a", lang.t("auto_on"), "auto", True))
        # Highlighted while a move or claim waits for the player (with the bell: the app's).
        asked = prompt is not None and not prompt.answered
        self.query_one("#actions", Horizontal).set_class(asked, "-asked")
        self.query_one(HandView).set_class(asked, "-asked")
        sig = tuple(chips)
        if sig != self._chips:
            self._chips = sig
            bar = self.query_one("#actions", Horizontal)
            for chip in list(bar.query(Chip)):
                chip.remove()
            for key, label, action, main in chips:
                bar.mount(Chip(key, label, action, main=main))
        self._tick()

    def _tick(self) -> None:
        """Every quarter second: the why-line expires; on a live table the countdowns move
        (the reveal, the seats' clocks, the prompt's seconds, the wait between rounds)."""
        if not self.is_mounted:
            return
        view = self.view
        game = self.query_one("#game").display
        if self.why is not None and self.clock() >= self.why[1]:
            self.why = None
            if game:
                self._show_status(view)
        if not self.live:
            return
        if game:
            if self.held:
                self._show_status(self.shown)  # the reveal counts down
            if self.wide and self.shown.round is not None:
                self._show_centre(self.shown)  # so do the clocks
        self.query_one("#clock", Static).update(self._clock_line(view))

    def _clock_line(self, view: View) -> Text:
        """Beside the chips: an open vote to end the match, the wait between rounds, or the
        prompt's seconds left, red in the last five."""
        prompt = view.prompt
        lang, now = self.lang, self.clock()
        if view.end_vote is not None:  # a vote to end the match: the countdown, who agreed
            names = rd.seat_names(view, lang, rd.name_cells(self.terminal[0]))
            vote = Text(rd.vote_line(view, names, lang, now), style="bold yellow")
            if prompt is not None and prompt.deadline_at is not None and not prompt.answered:
                left = max(0.0, prompt.deadline_at - now)
                vote.append("  ⏱ " + lang.t("clock", s=math.ceil(left)), style="bold")
            return vote
        if view.wait is not None and prompt is None:  # between rounds
            names = rd.seat_names(view, lang, rd.name_cells(self.terminal[0]))
            line = rd.wait_line(view, names, lang, now)
            if view.waiting_on_me:
                line += " · " + lang.t("enter_ready")
            return Text(line, style="bold")
        if prompt is None or prompt.deadline_at is None or prompt.answered:
            return Text()
        left = max(0.0, prompt.deadline_at - now)
        return Text(
            "⏱ " + lang.t("clock", s=math.ceil(left)), style="bold red" if left <= 5 else "bold"
        )
