"""The lobby: the server's tables, and from there create one, sit at one or watch one."""

from __future__ import annotations

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.screen import Screen
from textual.widgets import Button, DataTable, Static

from client_tui import render as rd
from client_tui.i18n import Lang
from client_tui.intents import OpenSheet, PickPlayed, Presented, Quit, Refused, Request, TakeBack
from client_tui.view import TableV, View
from protocol.messages import CreateTable, ListTables, TakeSeat, Watch


class LobbyScreen(Screen[None]):
    BINDINGS = [
        Binding("c", "create", "create"),
        Binding("j", "sit", "sit"),
        Binding("w", "watch", "watch"),
        Binding("r", "refresh", "refresh"),
        Binding("h", "played", "played"),
        Binding("s", "records", "records"),
        Binding("right_square_bracket", "page(1)", "next page", show=False),
        Binding("left_square_bracket", "page(-1)", "previous page", show=False),
    ]

    CSS_PATH = "lobby.tcss"

    def __init__(
        self, lang: Lang | None = None, play_mode: str = "join", *, has_key: bool = False
    ) -> None:
        super().__init__()
        self._rows: tuple[tuple[TableV, ...], frozenset[str]] | None = None
        self._clamped: tuple[int, int] | None = None  # a page past the last, asked about
        # State down (`present`): the view, and the listed tables where this client holds a
        # seat (its token is saved). What the player asks for goes up as an intent.
        self.lang = lang or Lang("en")
        self.play_mode = play_mode
        self.has_key = has_key  # a player key: a started match's away seat may be taken back
        self.view = View()
        self.mine: frozenset[str] = frozenset()

    def present(self, view: View, mine: frozenset[str] = frozenset()) -> None:
        """The lobby's new state, drawn at once."""
        self.view, self.mine = view, mine
        self.show(view)

    def compose(self) -> ComposeResult:
        yield Static(id="lobby-header")
        yield Static(id="lobby-title")
        yield Static(id="lobby-empty")
        yield DataTable(id="lobby-tables", cursor_type="row", zebra_stripes=True)
        yield Static(id="lobby-rules")  # the highlighted table's rules in full, wrapped
        with Horizontal(id="lobby-buttons"):
            yield Button("", id="create", variant="primary")
            yield Button("", id="sit")
            yield Button("", id="watch")
            yield Button("", id="refresh")
            yield Button("", id="quit")
        yield Static(id="lobby-status")
        yield Static(id="lobby-keys")

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        t = self.lang.t
        for key in (
            # What a player acts on first (state and "your seat", round, who sits); the option
            # list last, so a narrow terminal cuts it, never the marker (issue 23).
            "col_id",
            "col_name",
            "col_state",
            "col_round",
            "col_seats",
            "col_watchers",
            "col_preset",
            "col_options",
        ):
            table.add_column(t(key), key=key)
        for bid, key in (
            ("create", "btn_create"),
            ("sit", "btn_join"),
            ("watch", "btn_watch"),
            ("refresh", "btn_refresh"),
            ("quit", "btn_quit"),
        ):
            self.query_one(f"#{bid}", Button).label = t(key)
        self.query_one("#lobby-keys", Static).update(self.keys_text())
        self.set_interval(3.0, self._poll_tables)
        self.post_message(Presented())
        self.show(self.view)
        table.focus()

    def on_screen_resume(self) -> None:
        self.show(self.view)
        self._poll_tables()

    def show(self, view: View) -> None:
        if not self.is_mounted:
            return
        lang = self.lang
        header = Text(f"zhuoji · {view.url}  ")
        header.append_text(rd.conn_text(view, lang))
        if view.my_name:
            header.append(f"  · {view.my_name}")
        self.query_one("#lobby-header", Static).update(header)
        pages = view.tables_pages
        if view.tables_page >= pages and self._clamped != (view.tables_page, pages):
            self._clamped = (view.tables_page, pages)
            self._ask(pages - 1)  # past the last page (the lobby shrank): the last one
        title = (
            lang.t("tables_page", n=view.tables_page + 1, of=pages)
            if pages > 1
            else lang.t("tables")
        )
        self.query_one("#lobby-title", Static).update(title)
        empty = self.query_one("#lobby-empty", Static)
        empty.display = view.status == "connected" and not view.tables
        empty.update(lang.t("no_tables") if empty.display else "")
        mine = self.my_tables()
        if (view.tables, mine) == self._rows:
            return
        self._rows = (view.tables, mine)
        table = self.query_one(DataTable)
        keep = table.cursor_row
        table.clear()
        for t in view.tables:
            # Every cell is a `Text`: a string cell would be read as markup (`a[/b]` crashes).
            seats = f"{t.seated}/4 " + ", ".join(
                (s.name or "·") + (rd.level_tag(s.level, lang) if s.kind == "bot" else "")
                for s in t.seats
            )
            cells = [
                rd.plain(c)
                for c in (
                    t.id,
                    t.name + (" 🔒" if t.has_password else ""),
                    lang.t("state_" + t.state),
                    f"{t.round_no}/{t.rounds}",
                    seats,
                    str(t.spectators),
                    lang.t("preset_" + t.preset),
                    rd.options_summary(t, lang),
                )
            ]
            if t.id in mine:  # a seat this client holds there: Enter takes it back
                cells[2].append(" · " + lang.t("your_seat"), style="bold #f0c040")
            table.add_row(*cells, key=t.id)
        if view.tables:
            table.move_cursor(row=min(keep, len(view.tables) - 1))
        self._show_rules()

    def _show_rules(self) -> None:
        """Under the list, the highlighted table's preset and every override, wrapped: a narrow
        terminal cuts the options column, never this (issue 23)."""
        tables = self.view.tables
        row = self.query_one(DataTable).cursor_row
        line = self.query_one("#lobby-rules", Static)
        if not tables or not 0 <= row < len(tables):
            line.update("")
            return
        t = tables[row]
        lang = self.lang
        text = rd.plain(f"{t.name} · {lang.t('preset_' + t.preset)}")
        if t.options:
            text.append(" (" + rd.options_summary(t, lang) + ")")
        line.update(text)

    def on_data_table_row_highlighted(self, _: DataTable.RowHighlighted) -> None:
        self._show_rules()

    def my_tables(self) -> frozenset[str]:
        """The listed tables where this client holds a seat (its token is saved)."""
        return self.mine

    def _take_back(self, t: TableV) -> bool:
        """Return to the seat this client holds at `t`, if it holds one."""
        if t.id not in self.mine:
            return False
        self.post_message(TakeBack(t.id))
        return True

    def keys_text(self) -> Text:
        """The lobby's keys, in bold, for the key bar at the bottom."""
        t = self.lang.t
        parts = [
            ("c", t("btn_create")),
            ("j", t("btn_join")),
            ("w", t("btn_watch")),
            ("r", t("btn_refresh")),
            ("h", t("key_played")),
            ("s", t("key_records")),
            ("Enter", t("key_sit_watch")),
            ("?", t("help")),
            ("q", t("btn_quit")),
        ]
        out = Text(no_wrap=True, overflow="crop")
        for i, (key, label) in enumerate(parts):
            if i:
                out.append("  ")
            out.append(key, style="bold")
            out.append(" " + label)
        return out

    def say_why(self, why: str) -> None:
        """Why a key did nothing, on the status line above the keys (until the next one)."""
        self.query_one("#lobby-status", Static).update(Text(f"✗ {why}", style="bold #ff8060"))

    def _clear_why(self) -> None:
        self.query_one("#lobby-status", Static).update("")

    def _why_not_sit(self, t: TableV | None) -> str | None:
        """Why `j` cannot seat the player at `t` (None: it can try)."""
        lang = self.lang
        if self.view.status != "connected":
            return lang.t("why_lobby_busy")
        if t is None:
            return lang.t("why_no_table")
        if t.state == "finished":
            return lang.t("why_finished")
        if t.state == "playing":
            if self._my_away_seat(t) is not None:
                return None  # my own away seat: the server checks my player key
            return lang.t("why_started")
        if t.seated >= 4:
            return lang.t("why_full")
        return None

    def _my_away_seat(self, t: TableV) -> int | None:
        """A seat of the started match at `t` with my name and nobody at it (the server gives
        it back only to the player key it was played under: without one, nothing to try)."""
        if not self.has_key:
            return None
        me = self.view.my_name
        for i, s in enumerate(t.seats):
            if s.kind == "human" and s.name == me and not s.connected:
                return i
        return None

    def selected(self) -> TableV | None:
        tables = self.view.tables
        row = self.query_one(DataTable).cursor_row
        if 0 <= row < len(tables):
            return tables[row]
        return None

    @on(Button.Pressed)
    def _button(self, event: Button.Pressed) -> None:
        if event.button.id == "quit":
            self.post_message(Quit())
        elif event.button.id:
            getattr(self, f"action_{event.button.id}")()

    @on(DataTable.RowSelected)
    def _row(self, event: DataTable.RowSelected) -> None:
        t = self.selected()
        if t is not None and not self._take_back(t):
            mine = t.state == "playing" and self._my_away_seat(t) is not None
            if (t.state == "waiting" or mine) and self.play_mode != "watch":
                self.action_sit()
            else:
                self.action_watch()

    def _poll_tables(self) -> None:
        # The timer runs on while a table is on screen: ask only while the lobby is shown.
        if self.view.status == "connected" and self.is_current:
            self._ask(self.view.tables_page)

    def _ask(self, page: int) -> None:
        """The lobby's page `page` (the server sends a page of rows at a time)."""
        self.post_message(Request(ListTables(page=max(0, page)), quiet=True))

    def action_page(self, step: int) -> None:
        """`]` / `[`: the next or the previous page of the lobby."""
        view = self.view
        page = min(max(0, view.tables_page + step), view.tables_pages - 1)
        if view.status == "connected" and page != view.tables_page:
            self._ask(page)

    def action_played(self) -> None:
        self.post_message(PickPlayed())

    def action_records(self) -> None:
        self.post_message(OpenSheet("records"))

    def action_refresh(self) -> None:
        """`r`: list the tables now (or say why it cannot)."""
        if self.view.status != "connected":
            self.post_message(Refused(self.lang.t("why_lobby_busy")))
            return
        self._clear_why()
        self._poll_tables()

    def action_create(self) -> None:
        if self.view.status != "connected":
            self.post_message(Refused(self.lang.t("why_lobby_busy")))
            return
        self._clear_why()
        from client_tui.screens.forms import CreateTableScreen

        def done(msg: CreateTable | None) -> None:
            if msg is not None:
                self.post_message(Request(msg))

        name = f"{self.view.my_name or 'zhuoji'}"[:32]
        self.app.push_screen(CreateTableScreen(self.lang, name), done)

    def action_sit(self) -> None:
        t = self.selected()
        if t is not None and self._take_back(t):
            return
        why = self._why_not_sit(t)
        if why is not None or t is None:
            self.post_message(Refused(why or ""))
            return
        self._clear_why()
        from client_tui.screens.forms import SeatScreen

        def done(choice: tuple[int | None, str | None] | None) -> None:
            if choice is not None and t is not None:
                seat, password = choice
                self.post_message(Request(TakeSeat(table=t.id, seat=seat, password=password)))

        self.app.push_screen(SeatScreen(self.lang, t), done)

    def action_watch(self) -> None:
        t = self.selected()
        if self.view.status != "connected":
            self.post_message(Refused(self.lang.t("why_lobby_busy")))
            return
        if t is None:
            self.post_message(Refused(self.lang.t("why_no_table")))
            return
        self._clear_why()
        if not t.has_password:
            self.post_message(Request(Watch(table=t.id)))
            return
        from client_tui.screens.forms import SeatScreen

        def done(choice: tuple[int | None, str | None] | None) -> None:
            if choice is not None and t is not None:
                self.post_message(Request(Watch(table=t.id, password=choice[1])))

        self.app.push_screen(SeatScreen(self.lang, t, watch=True), done)
