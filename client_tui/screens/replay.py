"""The replay browser: a stored round on the table widget, one move at a time.

Keys: ← → step back/forward one move, Home/End jump to the deal/the end, PageUp/PageDown (or
`[`/`]`) the previous/next round, `v` the viewpoint (all hands, each seat, a spectator), `s` the
settlement sheet (at the end), `r` the match's rounds, `e` export the round up to this point as a
deal script. The table is the live client's own widget (`client_tui.screens.table_view`), fed
the views `client_tui.replay` builds, with no clocks (a recorded move's clock is over).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import Static

from client_tui.i18n import Lang
from client_tui.intents import Note, OpenSheet, Presented, Refused
from client_tui.replay import ALL, RoundTape, Viewpoint, export_script, view_at
from client_tui.screens.table_view import TABLE_CSS, TableView
from client_tui.view import View

Exporter = Callable[[RoundTape, int, dict[str, object]], Path]
"""Writes an exported deal script and says where (the command line picks the folder)."""


def export_to(folder: Path) -> Exporter:
    """An exporter writing `table-T-round-N-step-S.json` files into `folder`."""

    def write(tape: RoundTape, step: int, script: dict[str, object]) -> Path:
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"table-{tape.table}-round-{tape.round_no}-step-{step}.json"
        path.write_text(json.dumps(script, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
        return path

    return write


class ReplayScreen(Screen[None]):
    """One match's stored rounds, browsed; `tapes` in round order, `start` the round shown first.
    The replay's own view is its own: the live table's goes on in the app, untouched."""

    BINDINGS = [
        Binding("left", "step(-1)", "←", show=False),
        Binding("right", "step(1)", "→", show=False),
        Binding("home", "jump(0)", "start", show=False),
        Binding("end", "jump(1)", "end", show=False),
        Binding("pageup,left_square_bracket", "round(-1)", "prev round", show=False),
        Binding("pagedown,right_square_bracket", "round(1)", "next round", show=False),
        Binding("v", "viewpoint", "view", show=False),
        Binding("e", "export", "export", show=False),
        Binding("s", "settlement", "sheet", show=False),
        Binding("r", "history", "rounds", show=False),
        Binding("escape", "back", "back", show=False),
    ]

    def __init__(
        self, tapes: Sequence[RoundTape], start: int = 0, *, exporter: Exporter | None = None
    ) -> None:
        super().__init__()
        self.table = TableView(live=False, id="table")
        self.keys = Static(id="keys")  # where the replay is, and its keys
        self.view = View()
        self.tapes = tuple(tapes)
        self.index = max(0, min(start, len(self.tapes) - 1))
        self.step = 0
        self.viewpoint: Viewpoint = ALL
        self.exporter = exporter

    @property
    def tape(self) -> RoundTape:
        return self.tapes[self.index]

    @property
    def lang(self) -> Lang:
        return self.table.lang

    def configure(self, lang: Lang, ascii: bool) -> None:
        """How to draw: the language and the tiles (the app's, handed down)."""
        self.table.configure(lang, ascii, self.table.clock)
        self.table.redraw()
        self._show_keys()

    def say_why(self, why: str) -> None:
        """Show why a key did nothing, on the table's status line."""
        self.table.say_why(why)

    def compose(self) -> ComposeResult:
        yield self.table
        yield self.keys

    def on_mount(self) -> None:
        self.table.terminal = (self.size.width, self.size.height)
        self._load()
        self.post_message(Presented())  # how to draw (the language, the tiles) comes down

    def on_resize(self, event: events.Resize) -> None:
        self.table.terminal = (event.size.width, event.size.height)

    def on_screen_resume(self) -> None:
        self.table.redraw()
        self._show_keys()

    def _load(self) -> None:
        """Build the view at the current step and show it (the replay's own: the live table's
        view goes on in the app, untouched)."""
        view = view_at(self.tape, self.step, self.viewpoint)
        if self.index:  # the rounds before, for `r` and the scores
            history = tuple(
                r
                for t in self.tapes[: self.index]
                if (r := view_at(t, t.last, None).result) is not None
            )
            view = replace(view, history=history + view.history)
        self.view = view
        self.table.present(view)
        self._show_keys()

    # ----- what the screen shows besides the table -----

    CSS_PATH = [TABLE_CSS, TABLE_CSS.with_name("replay.tcss")]  # type: ignore[list-item]

    def _show_keys(self) -> None:
        """Two lines at the bottom: where the replay is, then its keys (short enough for 80
        columns)."""
        t = self.lang.t
        tape = self.tape
        out = Text(no_wrap=True, overflow="ellipsis")
        out.append(t("rp_round", n=tape.round_no, total=tape.rounds), style="bold")
        out.append("  " + t("rp_step", n=self.step, total=tape.last), style="bold")
        out.append("  " + self._viewpoint_name())
        if self.step == tape.last and not tape.finished:
            out.append("  " + t("rp_cut_short"), style="bold red")
        out.append("\n")
        keys = [("←→", t("rp_forward")), ("Home/End", t("rp_ends")), ("[ ]", t("rp_rounds"))]
        if tape.script is not None:  # a server's rounds hold one seat's view, and no deal
            keys += [("v", t("rp_view")), ("e", t("rp_export"))]
        if self.step == tape.last and tape.finished:
            keys.append(("s", t("rp_sheet")))
        keys += [("r", t("history")), ("q", t("btn_quit"))]
        for i, (key, label) in enumerate(keys):
            if i:
                out.append("  ")
            out.append(key, style="bold")
            out.append(" " + label, style="dim")
        self.keys.update(out)

    def _viewpoint_name(self) -> str:
        t = self.lang.t
        if self.tape.seat is not None:
            return t("rp_view_seat", name=self.tape.names[self.tape.seat])
        if self.viewpoint == ALL:
            return t("rp_view_all")
        if self.viewpoint is None:
            return t("rp_view_watch")
        return t("rp_view_seat", name=self.tape.names[int(self.viewpoint)])

    # ----- keys -----

    def _refuse(self, why: str) -> None:
        self.post_message(Refused(why))

    def action_step(self, delta: int) -> None:
        target = self.step + delta
        if target < 0:
            self._refuse(self.lang.t("rp_at_start"))
            return
        if target > self.tape.last:
            self._refuse(self.lang.t("rp_at_end"))
            return
        self.step = target
        self._load()

    def action_jump(self, to_end: int) -> None:
        self.step = self.tape.last if to_end else 0
        self._load()

    def action_round(self, delta: int) -> None:
        target = self.index + delta
        if not 0 <= target < len(self.tapes):
            self._refuse(self.lang.t("rp_first_round" if delta < 0 else "rp_last_round"))
            return
        self.index, self.step = target, 0
        self._load()

    def action_viewpoint(self) -> None:
        views = self.tape.viewpoints
        if len(views) == 1:
            self._refuse(self.lang.t("rp_own_view_only"))
            return
        i = views.index(self.viewpoint) if self.viewpoint in views else -1
        self.viewpoint = views[(i + 1) % len(views)]
        self._load()

    def action_export(self) -> None:
        t = self.lang.t
        if self.tape.script is None:
            self._refuse(t("rp_own_view_only"))
            return
        if self.exporter is None:
            self._refuse(t("rp_export_failed", why="-"))
            return
        try:
            path = self.exporter(self.tape, self.step, export_script(self.tape, self.step))
        except OSError as err:
            self._refuse(t("rp_export_failed", why=err.strerror or err))
            return
        self.post_message(Note(t("rp_exported", path=str(path))))

    def action_settlement(self) -> None:
        self.post_message(OpenSheet("settlement", view=self.view))

    def action_history(self) -> None:
        self.post_message(OpenSheet("history", view=self.view))

    def action_back(self) -> None:
        self.dismiss(None)
