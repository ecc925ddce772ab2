"""The play/watch screen: the table widget (`client_tui.screens.table_view`), the keys line
below it, and the table's keys: a move, a claim, 报听, 托管, the sheets, leaving. Each key
becomes an intent (`client_tui.intents`) posted up to the app; the state it acts on is the
widget's, handed down by the app (`present`)."""

from __future__ import annotations

from collections.abc import Callable

from rich.text import Text
from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import Button, Static

from client_tui import render as rd
from client_tui import tiles as tl
from client_tui.analysis import options_for, rules_for
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
    ToggleAuto,
)
from client_tui.screens.table_view import BIG, TABLE_CSS, WIDE, TableView
from client_tui.view import PromptV, View
from client_tui.widgets import Chip, HandView

__all__ = ["BIG", "WIDE", "TableScreen"]


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

    CSS_PATH = [TABLE_CSS, TABLE_CSS.with_name("table.tcss")]  # type: ignore[list-item]

    def __init__(self) -> None:
        super().__init__()
        # State down: what the app hands this screen (`present`, `configure`) goes to the table
        # widget, which holds it once; the screen reads nothing of the app and calls nothing in
        # it: what the player asks for goes up as an intent (`client_tui.intents`).
        self.table = TableView(id="table")
        self.keys = Static(id="keys")  # the keys line below the table
        self.play_mode = "join"

    def configure(
        self, lang: Lang, ascii: bool, clock: Callable[[], float], play_mode: str
    ) -> None:
        """How to draw (language, tiles), the clock deadlines are read on, and the client's
        mode (`zhuoji play` offers a new match to anyone)."""
        self.table.configure(lang, ascii, clock)
        self.play_mode = play_mode

    def present(
        self,
        view: View,
        *,
        shown: View | None = None,
        reveal_until: float | None = None,
    ) -> None:
        """The table's new state (`shown`: what is drawn, when it is not `view`), drawn at once."""
        self.table.present(view, shown=shown, reveal_until=reveal_until)
        self._show_keys(view)

    def show(self, view: View) -> None:
        """Draw `view` as the table's state."""
        self.present(view)

    # The state the keys act on: the widget's (held there once).

    @property
    def view(self) -> View:
        return self.table.view

    @property
    def lang(self) -> Lang:
        return self.table.lang

    @property
    def ascii(self) -> bool:
        return self.table.ascii

    @property
    def clock(self) -> Callable[[], float]:
        return self.table.clock

    @property
    def held(self) -> bool:
        """The finished round is held on the table (any key opens its sheet)."""
        return self.table.held

    @property
    def wide(self) -> bool:
        return self.table.wide

    @property
    def big(self) -> bool:
        return self.table.big

    @property
    def cursor(self) -> int:
        return self.table.cursor

    @cursor.setter
    def cursor(self, index: int) -> None:
        self.table.cursor = index

    @property
    def declare(self) -> bool:
        return self.table.declare

    def hand(self) -> tuple[str, ...]:
        """The player's hand in display order, in notation (the tiles a move names)."""
        return self.table.hand()

    def compose(self) -> ComposeResult:
        yield self.table
        yield self.keys

    def on_mount(self) -> None:
        self.table.terminal = (self.size.width, self.size.height)
        self.post_message(Presented())  # the app hands down the state to show

    def on_resize(self, event: events.Resize) -> None:
        self.table.terminal = (event.size.width, event.size.height)
        self._show_keys(self.view)

    def on_screen_resume(self) -> None:
        self.table.redraw()
        self._show_keys(self.view)

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
        self.keys.update(out)

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
        """A click on the tile under the cursor (the table moved the cursor on the first)."""
        self.action_discard()

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
        self.table.say_why(why)

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
            self.table.declare = False
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
        self.table.declare = not self.declare

    def action_auto(self) -> None:
        view = self.view
        if view.seat is None or view.table is None:
            self._refuse(self.lang.t("why_watching"))
            return
        if view.table.state == "waiting":
            self.action_add_bot()
            return
        self.post_message(ToggleAuto())

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

        self.post_message(Request(AddBot(level=self.table.bot_level)))  # type: ignore[arg-type]

    def action_bot_level(self) -> None:
        """`v`: the level of the next bot added: normal → strong → easy → normal."""
        if not self._before_start():
            return
        order = ("normal", "strong", "easy")
        level = self.table.bot_level
        self.table.bot_level = order[(order.index(level) + 1) % len(order)]

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
        self.table.hints = (view.prompt.seq, Text(self.lang.t("hints_thinking"), style="dim"))
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
        hints = self.table.hints
        if hints is not None and hints[0] == seq:
            self.table.hints = (seq, text)

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
