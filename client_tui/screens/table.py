"""The table: the other seats with their discards and melds, the player's hand, the waits, what
just happened, and the moves the server offers, one key each."""

from __future__ import annotations

import math
import time
from collections.abc import Callable

from rich.style import Style
from rich.text import Text
from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import Button, Static

from client_tui import board
from client_tui import render as rd
from client_tui import tiles as tl
from client_tui.analysis import options_for, ready_discards, rules_for, waits_after, waits_now
from client_tui.clocks import SeatClocks
from client_tui.i18n import Lang
from client_tui.intents import (
    AnswerEnd,
    AskEnd,
    Claim,
    Discard,
    EndReveal,
    LeaveTable,
    NewMatch,
    OpenSheet,
    Presented,
    ReadyForNext,
    Refused,
    Request,
)
from client_tui.view import PromptV, View
from client_tui.widgets import Chip, HandView
from rules.tiles import parse_tile, tile_name

WHY_SECONDS = 5.0
"""How long the status line says why a key did nothing."""
WHY_STYLE = Style(color="#ff8060", bold=True)
WIDE = (100, 30)
"""The least terminal size (columns, rows) for the table layout."""
BIG = (150, 45)
"""The least terminal size for tiles drawn as boxes, the hand and the discards (issue 23: at
200x60 most of the screen was empty and the hand small at the bottom left)."""


class TableScreen(Screen[None]):
    BINDINGS = [
        Binding("left", "move(-1)", "←", show=False),
        Binding("right", "move(1)", "→", show=False),
        Binding("enter", "discard", "discard", show=False),
        Binding("h", "hu", "胡", show=False),
        Binding("p", "pong", "碰", show=False),
        Binding("k", "gang", "杠", show=False),
        Binding("space", "pass", "过", show=False),
        Binding("b", "declare", "报听", show=False),
        Binding("a", "auto", "托管", show=False),
        Binding("s", "settlement", "sheet", show=False),
        Binding("m", "summary", "match", show=False),
        Binding("r", "history", "rounds", show=False),
        Binding("l", "leave", "leave", show=False),
        Binding("plus", "add_bot", "bot", show=False),
        Binding("v", "bot_level", "bot level", show=False),
        Binding("i", "hints", "hints", show=False),
        Binding("n", "new_match", "new match", show=False),
        Binding("g", "records", "records", show=False),
        Binding("e", "propose_end", "end together", show=False),
        Binding("y", "vote_end(True)", "agree", show=False),
        Binding("o", "hand_seat", "hand seat", show=False),
    ]

    CSS_PATH = "table.tcss"

    def __init__(self) -> None:
        super().__init__()
        self.cursor = 0
        self.declare = False
        self._why: tuple[str, float] | None = None  # why a key did nothing, and until when
        self._chips: tuple[tuple[str, str, str, bool], ...] = ()
        self._drawn_key: tuple[int, int, int | None] | None = None
        self.bot_level = "normal"  # the level `a` / `+` adds (`v` cycles it)
        self._hints: tuple[int, Text] | None = None  # the hints shown, for the prompt (seq)
        self.wide = False  # the table layout (about 100x30 and up), else the compact list
        self.big = False  # tiles drawn as boxes (about 150x45 and up)
        self.clocks: SeatClocks | None = None
        # State down: what the app hands this screen (`present`, `configure`). The screen reads
        # nothing of the app and calls nothing in it; what the player asks for goes up as an
        # intent (`client_tui.intents`).
        self.view = View()  # the table as it stands: what a key acts on
        self.shown = View()  # what is drawn: the finished round while it is held, else `view`
        self.reveal_until: float | None = None  # while the round is held: when its sheet opens
        self.lang = Lang("en")
        self.ascii = False
        self.clock: Callable[[], float] = time.monotonic
        self.play_mode = "join"

    def configure(
        self, lang: Lang, ascii: bool, clock: Callable[[], float], play_mode: str
    ) -> None:
        """How to draw (language, tiles), the clock deadlines are read on, and the client's
        mode (`zhuoji play` offers a new match to anyone)."""
        self.lang, self.ascii, self.clock, self.play_mode = lang, ascii, clock, play_mode

    def present(
        self,
        view: View,
        *,
        shown: View | None = None,
        reveal_until: float | None = None,
    ) -> None:
        """The table's new state (`shown`: what is drawn, when it is not `view`), drawn at once."""
        self.view, self.shown = view, shown if shown is not None else view
        self.reveal_until = reveal_until
        self.show(self.shown)

    @property
    def held(self) -> bool:
        """The finished round is held on the table (any key opens its sheet)."""
        return self.reveal_until is not None

    def reveal_left(self) -> float | None:
        """Seconds until the sheet opens, while the hands are revealed."""
        if self.reveal_until is None:
            return None
        return max(0.0, self.reveal_until - self.clock())

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
        yield Static(id="keys")

    def on_mount(self) -> None:
        self.set_interval(0.25, self._tick)
        self._layout()
        self.post_message(Presented())  # the app hands down the state to show
        self.show(self.shown)

    def on_screen_resume(self) -> None:
        self.show(self.shown)

    def on_resize(self, event: events.Resize) -> None:
        self._layout()
        self.show(self.shown)

    def _layout(self) -> None:
        """The table layout on screens of about 100x30 and up, else the compact list."""
        w, h = self.size
        self.wide = w >= WIDE[0] and h >= WIDE[1]
        self.big = w >= BIG[0] and h >= BIG[1]
        hand = self.query_one(HandView)
        hand.styles.height = rd.HAND_LINES_BIG if self.big else rd.HAND_LINES
        self.query_one("#board").display = self.wide
        self.query_one("#seats").display = not self.wide
        self.query_one("#seats").set_class(h < WIDE[1], "-tight")  # no blank lines to spare

    # ----- rendering -----

    def hand(self) -> tuple[str, ...]:
        """The player's hand in display order, in notation (the tiles a move names)."""
        r = self.view.round
        return tuple(map(tile_name, rd.hand_tiles(r))) if r is not None else ()

    def show(self, view: View) -> None:
        """Render `view` (the app calls this after every change)."""
        if not self.is_mounted:
            return
        lang, ascii = self.lang, self.ascii
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
        self._show_keys(view)

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
        t, r = view.table, view.round
        if t is None or r is None:
            return
        if self.clocks is None or (self.clocks.turn_seconds, self.clocks.bank_seconds) != (
            t.turn_seconds,
            t.bank_seconds,
        ):
            self.clocks = SeatClocks.start(t.turn_seconds, t.bank_seconds)
        turn = r.turn if r.phase == "turn" else None
        self.clocks = self.clocks.moved(turn=turn, round_no=view.round_no, at=self.clock())

    def _show_board(self, view: View) -> None:
        """The table layout: 对家 on top, 上家 left, the centre, 下家 right, the player below."""
        lang, ascii = self.lang, self.ascii
        r = view.round
        # 下家, 对家, 上家, 本家; a spectator sees the first seat (0) at the bottom, as if sat there.
        order = rd.seat_order(view) if view.seat is not None else [1, 2, 3, 0]
        width = self.size.width
        inner = 24 if width < 110 else 28  # the centre's text; its box adds a border and padding
        centre = self.query_one("#w-centre", Static)
        if centre.styles.width is None or centre.styles.width.value != inner + 4:
            centre.styles.width = inner + 4
        side = max(20, (width - inner - 4) // 2 - 6)
        big = self.big
        for wid, seat in zip(("w-right", "w-top", "w-left", "w-me"), order, strict=True):
            panel = self.query_one(f"#{wid}", Static)
            cells = side if wid in ("w-left", "w-right") else width - 4
            panel.update(rd.panel_text(view, seat, ascii, lang, cells, big=big))
            panel.set_class(r is not None and r.phase == "turn" and r.turn == seat, "-turn")
        self._show_centre(view)

    def _show_centre(self, view: View) -> None:
        """The centre alone (the clocks move every tick; the seats only with the view)."""
        lang, ascii = self.lang, self.ascii
        inner = 24 if self.size.width < 110 else 28
        last = rd.last_text(view, lang, ascii)
        text = board.centre_text(view, lang, ascii, self._clock_of, last, inner)
        self.query_one("#w-centre", Static).update(text)

    def _show_game(self, view: View) -> None:
        lang, ascii = self.lang, self.ascii
        r = view.round
        self._track_clocks(view)
        if self.wide:
            self._show_board(view)
        else:
            order = rd.seat_order(view)
            width = self.size.width - 2
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
            self._show_status(view)
            self._show_actions(view)
            self._show_hints(view)
            return
        tiles = rd.hand_tiles(r)
        prompt = view.prompt
        my_turn = prompt is not None and not prompt.is_claim
        # A new draw puts the cursor on the drawn tile: the usual discard is the one just drawn.
        key = (view.round_no, len(r.discards[view.seat]), rd.drawn_tile(r))
        if my_turn and key != self._drawn_key:
            self._drawn_key = key
            self.cursor = len(tiles) - 1
        if tiles:
            self.cursor = max(0, min(self.cursor, len(tiles) - 1))
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
        self._show_status(view)
        self._show_actions(view)
        self._show_hints(view)

    def _show_hints(self, view: View) -> None:
        """The hints asked for (`i`), while their prompt is open."""
        panel = self.query_one("#hints", Static)
        prompt = view.prompt
        if self._hints is not None and (
            prompt is None or prompt.answered or prompt.seq != self._hints[0]
        ):
            self._hints = None
        panel.display = self._hints is not None
        panel.update(self._hints[1] if self._hints is not None else "")

    def _show_status(self, view: View) -> None:
        """What just happened, and why the last key did nothing (while that is fresh)."""
        parts = rd.last_parts(view, self.lang, self.ascii)
        left = self.reveal_left()
        if left is not None:
            hint = self.lang.t("reveal_hint", s=math.ceil(left))
            parts.append(Text(hint, style=rd.TURN_MARK))
        if self._why is not None:
            parts.append(Text(f"✗ {self._why[0]}", style=WHY_STYLE))
        # Side by side while they fit, else a line each: a part is never cut or split.
        self.query_one("#status", Static).update(rd.packed(parts, self.size.width - 2))

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

    def _show_keys(self, view: View) -> None:
        lang = self.lang
        parts = [("t", lang.t("tile_mode_cjk") if self.ascii else lang.t("tile_mode_ascii"))]
        if view.seat is not None:
            parts.append(("a", lang.t("auto")))
            asked = view.prompt is not None and not view.prompt.answered
            if asked and options_for(view.table).hints:
                parts.append(("i", lang.t("hints")))
        if view.seat == 0 and self._away_seats(view):
            parts.append(("o", lang.t("hand_seat")))
        if view.result is not None:
            parts.append(("s", lang.t("sheet")))
        if view.history:
            parts.append(("r", lang.t("history")))
        if view.match_end is not None:
            parts.append(("m", lang.t("final")))
            if view.seat is not None or self.play_mode == "play":
                parts.append(("n", lang.t("new_match")))
        parts += [("?", lang.t("help")), ("l", lang.t("btn_leave")), ("q", lang.t("btn_quit"))]
        # Keys in bold, two spaces apart; on a narrow screen one space, and each label its
        # first word (`托管 auto` → `托管`), so every key stays on the line.
        width = self.size.width - 2
        out = Text()
        for short in (False, True):
            out = Text(no_wrap=True, overflow="ellipsis")
            for i, (key, label) in enumerate(parts):
                if i:
                    out.append(" " if short else "  ")
                out.append(key, style="bold")
                out.append(" " + (label.split()[0].rstrip(":：") if short else label))
            if out.cell_len <= width:
                break
        self.query_one("#keys", Static).update(out)

    def _tick(self) -> None:
        """The clock: seconds left for the prompt, red in the last five."""
        if not self.is_mounted:
            return
        view = self.view
        if self._why is not None and self.clock() >= self._why[1]:
            self._why = None
            if self.query_one("#game").display:
                self._show_status(view)
        if self.query_one("#game").display:
            if self.held:
                self._show_status(self.shown)  # the reveal counts down
            if self.wide and self.shown.round is not None:
                self._show_centre(self.shown)  # so do the clocks
        clock = self.query_one("#clock", Static)
        prompt = view.prompt
        if view.end_vote is not None:  # a vote to end the match: the countdown, who agreed
            names = rd.seat_names(view, self.lang, rd.name_cells(self.size.width))
            line = rd.vote_line(view, names, self.lang, self.clock())
            vote = Text(line, style="bold yellow")
            if prompt is not None and prompt.deadline_at is not None and not prompt.answered:
                left = max(0.0, prompt.deadline_at - self.clock())
                vote.append("  ⏱ " + self.lang.t("clock", s=math.ceil(left)), style="bold")
            clock.update(vote)
            return
        if view.wait is not None and prompt is None:  # between rounds
            names = rd.seat_names(view, self.lang, rd.name_cells(self.size.width))
            line = rd.wait_line(view, names, self.lang, self.clock())
            if view.waiting_on_me:
                line += " · " + self.lang.t("enter_ready")
            clock.update(Text(line, style="bold"))
            return
        if prompt is None or prompt.deadline_at is None or prompt.answered:
            clock.update("")
            return
        left = max(0.0, prompt.deadline_at - self.clock())
        lang = self.lang
        text = Text(
            "⏱ " + lang.t("clock", s=math.ceil(left)), style="bold red" if left <= 5 else "bold"
        )
        clock.update(text)

    # ----- input -----

    def on_key(self, event: events.Key) -> None:
        if self.held:
            event.stop()  # any key, while the hands are revealed, opens the sheet
            event.prevent_default()
            self.post_message(EndReveal())
            return
        ch = event.character
        if ch and ch in rd.HAND_KEYS and event.key not in ("space",):
            event.stop()
            index = rd.HAND_KEYS.index(ch)
            if index < len(self.hand()):
                self.cursor = index
                self.action_discard()
            elif self.hand():
                self._refuse(self.lang.t("why_no_tile", k=ch))
            else:
                self._refuse(self._why_not("discard"))

    @on(HandView.TileClicked)
    def _tile_clicked(self, message: HandView.TileClicked) -> None:
        if self.cursor == message.index:
            self.action_discard()
        else:
            self.cursor = message.index
            self.show(self.shown)

    @on(Chip.Pressed)
    def _chip(self, message: Chip.Pressed) -> None:
        if message.action:
            self.do(message.action)

    @on(Button.Pressed)
    def _button(self, event: Button.Pressed) -> None:
        actions = {
            "add-bot": "add_bot",
            "remove-bot": "remove_bot",
            "start": "start",
            "leave": "leave",
        }
        if event.button.id in actions:
            self.do(actions[event.button.id])

    def do(self, action: str) -> None:
        """Run one of this screen's actions by name (from a chip or a button); `gang:2m` names
        the tile too."""
        name, _, arg = action.partition(":")
        method = getattr(self, f"action_{name}", None)
        if method is None:
            return
        if arg:
            method(arg)
        else:
            method()

    # ----- keys that cannot act now say why -----

    def say_why(self, why: str) -> None:
        """Show why a key did nothing, on the status line, for a few seconds."""
        self._why = (why, self.clock() + WHY_SECONDS)
        self._show_status(self.view)

    def _why_not(self, act: str) -> str:
        """Why the move `act` (discard, hu, pong, gang, pass) cannot be made now."""
        view, t = self.view, self.lang.t
        prompt = view.prompt
        if view.seat is None:
            return t("why_watching")
        if prompt is None:
            if view.round is not None and view.round.phase in ("claim", "rob") and act != "discard":
                return t("why_no_claim")
            return t("why_not_your_turn")
        if prompt.answered:
            return t("why_answered")
        if prompt.is_claim:
            if act == "discard":
                return t("why_claim_asked", keys=self._claim_keys(prompt))
            return {"hu": t("why_no_hu"), "pong": t("why_no_pong"), "gang": t("why_no_gang")}.get(
                act, t("why_nothing_asked")
            )
        return {
            "hu": t("why_no_zimo"),
            "pong": t("why_not_your_turn"),
            "gang": t("why_no_gang"),
            "pass": t("why_no_pass"),
            "discard": t("why_bad_discard"),
        }.get(act, t("why_nothing_asked"))

    def _claim_keys(self, prompt: PromptV) -> str:
        """The keys of a claim prompt, for a reminder: `h 胡 · p 碰 · space 过`."""
        t = self.lang.t
        keys = [
            (k, t(act))
            for k, act in (("h", "hu"), ("k", "gang"), ("p", "pong"), ("space", "pass"))
            if prompt.offers(act)
        ]
        return " · ".join(f"{k} {label}" for k, label in keys)

    def _why_no_declare(self) -> str:
        """Why `b` (报听) cannot be used now: RULES.md §8.4 — with the first discard, before any
        claim, where the rules have it, and only when a discard leaves the hand ready."""
        view, t = self.view, self.lang.t
        prompt, r, seat = view.prompt, view.round, view.seat
        if seat is None:
            return t("why_watching")
        if rules_for(view).declare == "none":
            return t("why_declare_none")
        if prompt is None or prompt.is_claim or r is None:
            return t("why_not_your_turn")
        if prompt.answered:
            return t("why_answered")
        if r.declared[seat]:
            return t("why_declare_done")
        if r.discards[seat]:
            return t("why_declare_first")
        if any(m.from_seat is not None for row in r.melds for m in row):
            return t("why_declare_claimed")
        return t("why_declare_not_ready")

    def _refuse(self, why: str) -> None:
        self.post_message(Refused(why))

    # ----- actions -----

    def action_move(self, delta: int) -> None:
        tiles = self.hand()
        if not tiles:
            self._refuse(self._why_not("discard"))
            return
        self.cursor = (self.cursor + delta) % len(tiles)
        self.show(self.shown)

    def action_discard(self) -> None:
        view = self.view
        prompt = view.prompt
        tiles = self.hand()
        if view.table is not None and view.table.state == "waiting" and view.round is None:
            self.action_start()
            return
        if prompt is None and view.waiting_on_me:
            self.post_message(ReadyForNext())  # Enter between rounds: ready for the next one
            return
        if prompt is None or prompt.is_claim or prompt.answered or not tiles:
            self._refuse(self._why_not("discard"))
            return
        tile = tiles[max(0, min(self.cursor, len(tiles) - 1))]
        if self.declare and prompt.offers("ready", tile):
            self.declare = False
            self.post_message(Discard(tile, declare=True))
        elif prompt.offers("discard", tile):
            self.post_message(Discard(tile))
        else:
            self._refuse(self._why_not("discard"))

    def _claim(self, act: str) -> None:
        prompt = self.view.prompt
        if prompt is None or prompt.answered or not prompt.offers(act):
            self._refuse(self._why_not(act))
            return
        self.post_message(Claim(act))

    def action_hu(self) -> None:
        self._claim("hu")

    def action_pong(self) -> None:
        self._claim("pong")

    def action_pass(self) -> None:
        self._claim("pass")

    def action_gang(self, tile: str | None = None) -> None:
        prompt = self.view.prompt
        if prompt is None or prompt.answered or not prompt.offers("gang"):
            self._refuse(self._why_not("gang"))
            return
        tiles = prompt.tiles_for("gang")
        if prompt.is_claim or not tiles:
            self.post_message(Claim("gang"))
            return
        if tile in tiles:
            self.post_message(Claim("gang", tile))
            return
        hand = self.hand()
        here = hand[self.cursor] if hand and self.cursor < len(hand) else None
        if len(tiles) == 1 or here in tiles:
            self.post_message(Claim("gang", here if here in tiles else tiles[0]))
            return
        from client_tui.screens.forms import ChoiceScreen

        def chosen(tile: str | None) -> None:
            if tile is not None:
                self.post_message(Claim("gang", tile))

        labels = [(t, f"{self.lang.t('gang')} {tl.label(t, self.ascii)}") for t in tiles]
        self.app.push_screen(ChoiceScreen(self.lang.t("choose_gang"), labels), chosen)

    def action_declare(self) -> None:
        prompt = self.view.prompt
        if prompt is None or prompt.answered or not prompt.tiles_for("ready"):
            self._refuse(self._why_no_declare())
            return
        self.declare = not self.declare
        self._chips = ()
        self.show(self.shown)

    def action_auto(self) -> None:
        view = self.view
        if view.seat is None or view.table is None:
            self._refuse(self.lang.t("why_watching"))
            return
        if view.table.state == "waiting":
            self.action_add_bot()
            return
        from protocol.messages import Auto

        self.post_message(Request(Auto(on=not view.table.seats[view.seat].auto)))

    def action_settlement(self) -> None:
        self.post_message(OpenSheet("settlement"))

    def action_summary(self) -> None:
        self.post_message(OpenSheet("summary"))

    def action_history(self) -> None:
        self.post_message(OpenSheet("history"))

    def action_leave(self) -> None:
        self.post_message(LeaveTable())

    def action_new_match(self) -> None:
        if self.view.end_vote is not None and self.view.seat is not None:
            self.post_message(AnswerEnd(False))  # `n` refuses an open vote to end the match
            return
        self.post_message(NewMatch())

    def action_propose_end(self) -> None:
        self.post_message(AskEnd())

    def action_vote_end(self, agree: bool) -> None:
        if self.view.end_vote is None or self.view.seat is None:
            self._refuse(self.lang.t("why_vote_none"))
            return
        self.post_message(AnswerEnd(agree))

    def action_records(self) -> None:
        """战绩: after the match, with its line (each player's rating change) first."""
        view = self.view
        self.post_message(
            OpenSheet("records", table=view.table_id if view.match_end is not None else None)
        )

    @staticmethod
    def _away_seats(view: View) -> list[tuple[int, str | None]]:
        """The players' seats of the started match with nobody at them (index, name)."""
        t = view.table
        if t is None or t.state != "playing":
            return []
        return [(i, s.name) for i, s in enumerate(t.seats) if s.kind == "human" and not s.connected]

    def action_hand_seat(self) -> None:
        """`o`, the table's creator: hand an away seat to a spectator by their name (a player
        back on another machine watches first; the server checks the rest)."""
        view, t = self.view, self.lang.t
        if view.seat != 0:
            self._refuse(t("why_watching" if view.seat is None else "why_not_creator"))
            return
        away = self._away_seats(view)
        if not away:
            self._refuse(t("why_nobody_away"))
            return
        from client_tui.screens.forms import HandSeatScreen
        from protocol.messages import HandSeat

        def done(choice: tuple[int, str] | None) -> None:
            if choice is not None:
                self.post_message(Request(HandSeat(seat=choice[0], to=choice[1])))

        self.app.push_screen(HandSeatScreen(self.lang, away), done)

    def _before_start(self) -> bool:
        """Seated at a table that has not started; else say why (bots, start: the room's)."""
        view, t = self.view, self.lang.t
        if view.seat is None:
            self._refuse(t("why_watching"))
            return False
        if view.table is None or view.table.state != "waiting":
            self._refuse(t("why_bots_before_start"))
            return False
        return True

    def action_add_bot(self) -> None:
        if not self._before_start():
            return
        from protocol.messages import AddBot

        self.post_message(Request(AddBot(level=self.bot_level)))  # type: ignore[arg-type]

    def action_bot_level(self) -> None:
        """`v`: the level of the next bot added: normal → strong → easy → normal."""
        if not self._before_start():
            return
        order = ("normal", "strong", "easy")
        self.bot_level = order[(order.index(self.bot_level) + 1) % len(order)]
        self.show(self.shown)

    def action_hints(self) -> None:
        """`i`: the strong bot's three best moves for the prompt on screen, each with its value
        and a reason; off when the table's `hints` option is. They are worked out on a thread
        (a few hundred milliseconds on a busy machine), the panel saying so meanwhile."""
        from client_tui.hints import hint_view

        view = self.view
        why = hint_view(view)
        if isinstance(why, str):
            self._refuse(self.lang.t(why))
            return
        assert view.prompt is not None
        self._hints = (view.prompt.seq, Text(self.lang.t("hints_thinking"), style="dim"))
        self.show(view)
        self._work_out_hints(view)

    @work(thread=True, exclusive=True, group="hints", exit_on_error=False)
    def _work_out_hints(self, view: View) -> None:
        from client_tui.hints import hints_for, hints_text

        got = hints_for(view)
        lang, ascii = self.lang, self.ascii
        text = Text(lang.t(got)) if isinstance(got, str) else hints_text(got, lang, ascii)
        assert view.prompt is not None
        self.app.call_from_thread(self._hints_ready, view.prompt.seq, text)

    def _hints_ready(self, seq: int, text: Text) -> None:
        """The hints worked out for the prompt `seq`: shown if that prompt is still open."""
        if self._hints is not None and self._hints[0] == seq:
            self._hints = (seq, text)
            self.show(self.shown)

    def action_remove_bot(self) -> None:
        if not self._before_start():
            return
        view = self.view
        assert view.table is not None
        from protocol.messages import RemoveBot

        bots = [i for i, s in enumerate(view.table.seats) if s.kind == "bot"]
        if not bots:
            self._refuse(self.lang.t("why_no_bot"))
            return
        self.post_message(Request(RemoveBot(seat=bots[-1])))

    def action_start(self) -> None:
        view = self.view
        if view.seat is None:
            self._refuse(self.lang.t("why_watching"))
            return
        if view.table is not None and view.table.seated < 4:
            self._refuse(self.lang.t("why_start_seats"))
            return
        from protocol.messages import Start

        self.post_message(Request(Start()))
