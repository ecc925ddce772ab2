"""The replay browser as an app (`zhuoji replay --db PATH`): a picker of the stored matches, then
of a match's rounds, then the round on the table screen (`client_tui.screens.replay`).

The app knows nothing of the server's database: the command line hands it the list of matches
and a function that loads one match's rounds as tapes, so the client stays apart from the server.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.message import Message
from textual.screen import Screen
from textual.widgets import DataTable, Static

from client_tui.app import ZhuojiApp
from client_tui.i18n import Lang
from client_tui.replay import RoundTape, view_at
from client_tui.screens.history import outcome_text
from client_tui.screens.replay import Exporter, ReplayScreen
from client_tui.view import View


@dataclass(frozen=True, slots=True)
class MatchEntry:
    """A stored match, as the picker lists it."""

    table: str
    name: str
    preset: str
    state: str
    rounds: int
    players: tuple[str, ...]


Loader = Callable[[str], list[RoundTape]]
"""Loads one match's rounds (by table id), in order."""


def _cell(text: object) -> Text:
    """A table cell as plain text: names come from players and are never read as markup."""
    return Text(str(text), no_wrap=True, overflow="ellipsis")


class _Picker(Screen[None]):
    CSS_PATH = "replay_app.tcss"

    def __init__(self, lang: Lang, title: str) -> None:
        super().__init__()
        self.lang = lang
        self.title_text = title

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(Text(self.title_text), id="pick-title")
            yield DataTable(cursor_type="row", zebra_stripes=True)
            yield Static(id="pick-note")

    def note(self, text: str) -> None:
        self.query_one("#pick-note", Static).update(Text(text))


class MatchPicker(_Picker):
    """Every stored match; Enter lists its rounds."""

    BINDINGS = [Binding("escape", "app.quit_app", "quit", show=False)]

    def __init__(
        self,
        lang: Lang,
        matches: Sequence[MatchEntry],
        load: Loader,
        exporter: Exporter | None = None,
    ) -> None:
        super().__init__(lang, lang.t("rp_pick_match"))
        self.matches = tuple(matches)
        self.load = load
        self.exporter = exporter

    def on_mount(self) -> None:
        t = self.lang.t
        table = self.query_one(DataTable)
        for key in ("col_table", "col_name", "col_rules", "col_state", "col_rounds", "col_players"):
            table.add_column(Text(t(key)), key=key)
        for i, m in enumerate(self.matches):
            table.add_row(
                _cell(m.table),
                _cell(m.name),
                _cell(t("preset_" + m.preset)),
                _cell(t("state_" + m.state)),
                _cell(m.rounds),
                _cell(", ".join(m.players)),
                key=str(i),
            )
        if not self.matches:
            self.note(t("rp_no_matches"))
        table.focus()

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        match = self.matches[int(event.row_key.value or 0)]
        tapes = self.load(match.table)
        if not tapes:
            self.note(self.lang.t("rp_no_rounds"))
            return
        self.app.push_screen(RoundPicker(self.lang, tapes, self.exporter))


class RoundPicker(_Picker):
    """A match's rounds with their outcome and nets; Enter replays one."""

    BINDINGS = [Binding("escape", "back", "back", show=False)]

    def __init__(self, lang: Lang, tapes: Sequence[RoundTape], exporter: Exporter | None) -> None:
        super().__init__(lang, lang.t("rp_pick_round"))
        self.tapes = tuple(tapes)
        self.exporter = exporter

    def on_mount(self) -> None:
        t = self.lang.t
        table = self.query_one(DataTable)
        first = self.tapes[0]
        table.add_column(Text(t("col_round")), key="round")
        table.add_column(Text(t("col_dealer")), key="dealer")
        for seat in range(4):
            table.add_column(_cell(first.names[seat]), key=f"seat{seat}")
        table.add_column(Text(t("col_result")), key="result")
        for i, tape in enumerate(self.tapes):
            res = view_at(tape, tape.last, None).result
            names = tape.names

            def name(seat: int, names: tuple[str, ...] = names) -> str:
                return names[seat]

            if res is None:
                nets = [_cell("") for _ in range(4)]
                what = Text(t("rp_cut_short"))
            else:
                nets = [_cell(f"{n:+d}") for n in res.net]
                what = outcome_text(res, name, self.lang)
            table.add_row(_cell(tape.round_no), _cell(names[tape.dealer]), *nets, what, key=str(i))
        table.focus()

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        index = int(event.row_key.value or 0)
        self.app.push_screen(ReplayScreen(self.tapes, index, exporter=self.exporter))

    def action_back(self) -> None:
        self.dismiss(None)


class _Root(Screen[None]):
    """Under the browser's screens: asks for the first one, and for the end once it is closed
    (intents the app answers: a screen does not reach into its app)."""

    class Opened(Message):
        """The root is up: the browser's first screen goes on top of it."""

    class Emptied(Message):
        """Every screen above the root is closed: the browser is done."""

    covered = False  # a screen has been opened above the root

    def on_mount(self) -> None:
        self.post_message(self.Opened())

    def on_screen_suspend(self) -> None:
        self.covered = True

    def on_screen_resume(self) -> None:
        if self.covered:  # on top again after being covered: every screen above is closed
            self.post_message(self.Emptied())


class ReplayApp(ZhuojiApp):
    """Browse stored rounds: from a picker of `matches` (loaded with `load`), or straight from
    `tapes` (one match's rounds, `start` the one shown first)."""

    MODES = {"replay": _Root}

    def __init__(
        self,
        *,
        matches: Sequence[MatchEntry] | None = None,
        load: Loader | None = None,
        tapes: Sequence[RoundTape] | None = None,
        start: int = 0,
        lang: str = "en",
        ascii: bool = False,
        exporter: Exporter | None = None,
        bell: bool = True,
    ) -> None:
        super().__init__(
            "replay",
            name="replay",
            lang=lang,
            ascii=ascii,
            mode="watch",
            connect=False,
            show_sheets=False,
            bell=bell,
        )
        self.matches = tuple(matches or ())
        self.loader = load
        self.tapes = tuple(tapes or ())
        self.start = start
        self.exporter = exporter

    def _wanted_mode(self, view: View) -> str:
        return "replay"

    def first_screen(self) -> Screen[None]:
        """The browser's first screen: the round given, or the picker of matches."""
        if self.tapes:
            return ReplayScreen(self.tapes, self.start, exporter=self.exporter)
        return MatchPicker(self.lang, self.matches, self.loader or (lambda _: []), self.exporter)

    @on(_Root.Opened)
    def _open_first(self) -> None:
        self.push_screen(self.first_screen())

    @on(_Root.Emptied)
    def _done(self) -> None:
        self.exit(0)

    def action_quit_app(self) -> None:
        self.exit(0)  # nothing here is a seat: quitting loses nothing
