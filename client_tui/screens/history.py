"""Every round of the match (`r`): one line each with the outcome worded in full — who won, how
(自摸, on whose discard, robbing a gang), the pattern and every bonus (报听, 杠上花…), a 包牌 — and
the nets; Enter opens that round's settlement sheet."""

from __future__ import annotations

from collections.abc import Callable

from rich.style import Style
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import DataTable, Static

from client_tui.i18n import Lang
from client_tui.sheet import round_wins
from client_tui.view import ResultV
from client_tui.wins import extra_bonuses, win_head

DIM = Style(dim=True)
REPLAY = -1
"""What the history screen answers for `v`: replay the match's rounds (once it is over)."""


def outcome_text(res: ResultV, name: Callable[[int], str], lang: Lang) -> Text:
    """A round's outcome in one line: `荒庄`, or each winner with how, pattern and bonuses
    (a 40-point 报听 win reads `平胡 + 报听`, never as a plain 平胡)."""
    wins = round_wins(res)
    if not wins:
        return Text(lang.t("res_draw"))
    out = Text()
    for i, w in enumerate(wins):
        if i:
            out.append(" · ", style=DIM)
        out.append(win_head(w.how, w.seat, w.from_seat, name, lang), style=Style(bold=True))
        out.append(" " + lang.name(w.pattern), style=Style(bold=True))
        bonuses = extra_bonuses(w.how, w.bonuses)
        if bonuses:
            out.append(" + " + " + ".join(lang.word(b) for b in bonuses))
        if w.void:
            out.append(f" ({lang.item('baopai')})", style=Style(color="red"))
    return out


def _amount(n: int) -> Text:
    return Text(f"{n:+d}", style=Style(color="green" if n > 0 else "red" if n < 0 else None))


class HistoryScreen(ModalScreen[int | None]):
    """The match's rounds; dismisses with the index (into the history) of the round to open."""

    BINDINGS = [
        Binding("escape,r,q", "close", "close"),
        Binding("v", "replay", "replay"),
    ]
    CSS_PATH = "history.tcss"

    def __init__(
        self, history: tuple[ResultV, ...], name_of: Callable[[int], str], lang: Lang
    ) -> None:
        super().__init__()
        self.history = history
        self.name_of = name_of
        self.lang = lang

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(Text(self.lang.t("history_title")), id="history-title")
            yield DataTable(cursor_type="row", zebra_stripes=True)

    def on_mount(self) -> None:
        t = self.lang.t
        table = self.query_one(DataTable)
        # Every cell is a Text: names come from other players and are never read as markup.
        table.add_column(Text(t("col_round")), key="round")
        for seat in range(4):
            table.add_column(Text(self.name_of(seat)), key=f"seat{seat}")
        table.add_column(Text(t("col_result")), key="result")
        for i, res in enumerate(self.history):
            table.add_row(
                Text(str(res.round_no)),
                *(_amount(v) for v in res.net),
                outcome_text(res, self.name_of, self.lang),
                key=str(i),
            )
        table.focus()

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        self.dismiss(int(event.row_key.value or 0))

    def action_close(self) -> None:
        self.dismiss(None)

    def action_replay(self) -> None:
        self.dismiss(REPLAY)
