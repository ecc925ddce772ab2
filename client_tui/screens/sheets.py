"""The round settlement sheet and the match summary."""

from __future__ import annotations

from collections.abc import Callable

from rich.console import Group, RenderableType
from rich.style import Style
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from client_tui import tiles as tl
from client_tui.i18n import Lang
from client_tui.render import signed
from client_tui.sheet import Sheet
from client_tui.view import MatchEndV, ResultV

BOLD = Style(bold=True)
DIM = Style(color="grey50")
GOLD = Style(color="#f0c040", bold=True)


def _amount(n: int) -> Text:
    return Text(signed(n), style=Style(color="green" if n > 0 else "red" if n < 0 else "grey50"))


def sheet_renderable(sheet: Sheet, name: Callable[[int], str], lang: Lang,
                     ascii: bool) -> RenderableType:  # fmt: skip
    """The whole sheet: outcome, flip, chickens, 豆, payments, totals per item and seat."""
    parts: list[RenderableType] = []
    # Outcome, on the title line.
    line = Text(lang.t("settlement", n=sheet.round_no) + " · ", style=BOLD)
    if sheet.outcome == "draw":
        line.append(lang.t("draw"), style=BOLD)
    for w in sheet.winners:
        line.append(f"{lang.t('winner')} ", style=GOLD)
        line.append(name(w.seat), style=BOLD)
        if w.how == "discard" and w.from_seat is not None:
            line.append(" ← " + name(w.from_seat) + " ")
        if w.tile is not None:
            line.append(" ")
            line.append_text(tl.text(w.tile, ascii))
        line.append(f"  {lang.pattern(w.pattern)}", style=BOLD)
        if w.bonuses:
            line.append(" + " + " + ".join(w.bonuses))
        if w.void:
            line.append("  (包牌)", style=Style(color="red"))
        line.append("    ")
    parts.append(line)
    # The flip and the chicken it makes.
    flip = Text(lang.t("flip") + ": ", style=BOLD)
    if sheet.flip is None:
        flip.append(lang.t("no_flip"), style=DIM)
    else:
        flip.append_text(tl.text(sheet.flip, ascii))
        flip.append(" → ")
        for i, (tile, tag) in enumerate(sheet.flip_makes):
            if i:
                flip.append(", ")
            flip.append_text(tl.text(tile, ascii))
            flip.append(f" {tag}鸡", style=GOLD)
    parts.append(flip)
    # Chickens.
    chickens = Table(box=None, show_header=False, padding=(0, 1), title_justify="left",
                     title=Text(lang.t("chickens"), style=BOLD), expand=False)  # fmt: skip
    chickens.add_column(no_wrap=True)
    chickens.add_column()
    chickens.add_column(justify="right", no_wrap=True)
    for row in sheet.chickens:
        who = Text(name(row.seat), style=BOLD)
        state = "winner" if any(w.seat == row.seat for w in sheet.winners) else (
            "ready_yes" if sheet.ready[row.seat] else "ready_no")  # fmt: skip
        who.append(f" ({lang.t(state)})", style=DIM)
        lines = Text()
        for i, ln in enumerate(row.lines):
            if i:
                lines.append(" · ", style=DIM)
            lines.append_text(tl.text(ln.tile, ascii))
            if ln.tag:
                lines.append(f" {ln.tag}", style=GOLD)
            lines.append(f"×{ln.count}" + (f"@{ln.each}" if ln.each != 1 else "") + f"={ln.units}")
        for tag, amount in row.extras:
            if lines:
                lines.append(" · ", style=DIM)
            lines.append(f"{tag} ", style=GOLD)
            lines.append_text(_amount(amount))
        if not row.lines and not row.extras:
            lines.append(lang.t("no_chickens"), style=DIM)
        total = Text(str(row.units), style=BOLD if row.collects else DIM)
        total.append(" ✓" if row.collects else " ✗", style="green" if row.collects else "grey50")
        chickens.add_row(who, lines, total)
    if sheet.chickens:
        parts.append(chickens)
    # 豆.
    if sheet.dou:
        dou = Table(box=None, show_header=False, padding=(0, 1), title_justify="left",
                    title=Text(lang.t("dou"), style=BOLD))  # fmt: skip
        dou.add_column(no_wrap=True)
        dou.add_column()
        dou_names = {"dian": "点豆", "men": "闷豆", "zhuanwan": "转弯豆", "hanbao": "憨包豆"}
        for d in sheet.dou:
            what = Text(dou_names.get(d.dou or "", d.dou or d.kind) + " ")
            what.append_text(tl.text(d.tile, ascii))
            what.append("  ✓ " + lang.t("dou_scores") if d.scores else f"  ✗ {lang.dou_why(d.why)}",
                        style="green" if d.scores else DIM)  # fmt: skip
            dou.add_row(Text(name(d.seat), style=BOLD), what)
        parts.append(dou)
    # Every payment.
    pay = Table(box=None, padding=(0, 1), title_justify="left", header_style=DIM,
                title=Text(lang.t("payments"), style=BOLD))  # fmt: skip
    pay.add_column(lang.t("payer_payee"), no_wrap=True)
    pay.add_column(lang.t("item"), no_wrap=True)
    pay.add_column(lang.t("amount"), justify="right", no_wrap=True)
    pay.add_column(lang.t("detail"), style=DIM)
    for p in sheet.payments:
        pay.add_row(f"{name(p.payer)} → {name(p.payee)}", lang.item(p.item), str(p.amount),
                    p.detail)  # fmt: skip
    parts.append(pay)
    # Per item and seat, then the nets: the columns add up.
    ok = sheet.adds_up
    totals = Table(box=None, padding=(0, 1), title_justify="left", header_style=BOLD,
                   title=Text(lang.t("totals"), style=BOLD))  # fmt: skip
    totals.add_column("", no_wrap=True)
    for seat in range(4):
        totals.add_column(name(seat), justify="right", no_wrap=True)
    totals.add_column("", no_wrap=True)
    for item in sheet.items:
        totals.add_row(lang.item(item), *(_amount(v) for v in sheet.by_item[item]))
    check = Text(lang.t("adds_up") if ok else lang.t("not_adds_up"),
                 style="green" if ok else "bold red")  # fmt: skip
    totals.add_row(Text(lang.t("net"), style=BOLD),
                   *(Text(signed(v), style=BOLD) for v in sheet.net), check)  # fmt: skip
    totals.add_row(Text(lang.t("scores_after"), style=DIM),
                   *(Text(signed(v), style=DIM) for v in sheet.scores))  # fmt: skip
    parts.append(totals)
    return Group(*parts)


class SheetScreen(ModalScreen[None]):
    """A scrollable sheet over the table; Enter, Escape or space closes it."""

    BINDINGS = [
        Binding("escape", "close", "close"),
        Binding("enter", "close", "close"),
        Binding("space", "close", "close", show=False),
    ]
    DEFAULT_CSS = """
    SheetScreen { align: center middle; }
    SheetScreen > Vertical {
        width: 98%; max-width: 110; height: 96%;
        border: thick $primary; background: $surface;
    }
    SheetScreen VerticalScroll { height: 1fr; padding: 0 1; }
    SheetScreen #sheet-hint { height: 1; padding: 0 1; color: $text-muted; background: $panel; }
    """

    def __init__(self, body: RenderableType, hint: str, *, name: str | None = None) -> None:
        super().__init__(name=name)
        self.body = body
        self.hint = hint

    def compose(self) -> ComposeResult:
        with Vertical():
            with VerticalScroll():
                yield Static(self.body, id="sheet-body")
            yield Static(self.hint, id="sheet-hint")

    def action_close(self) -> None:
        self.dismiss(None)


def summary_renderable(end: MatchEndV | None, history: tuple[ResultV, ...], scores: tuple[int, ...],
                       name: Callable[[int], str], lang: Lang) -> RenderableType:  # fmt: skip
    """Final standings and each round's nets."""
    parts: list[RenderableType] = []
    if end is not None:
        key = "match_over" if end.reason == "finished" else "match_abandoned"
        head = Text(lang.t(key), style=BOLD)
        head.append("  " + lang.t("rounds_played", n=end.rounds_played), style=DIM)
        parts.append(head)
        final = end.scores
    else:
        final = scores
    standings = Table(box=None, padding=(0, 2), title_justify="left", show_header=False,
                      title=Text(lang.t("final"), style=BOLD))  # fmt: skip
    standings.add_column(justify="right")
    standings.add_column()
    standings.add_column(justify="right")
    ranked = sorted(range(4), key=lambda s: (-final[s], s))
    for place, seat in enumerate(ranked, 1):
        standings.add_row(f"{place}.", Text(name(seat), style=BOLD), _amount(final[seat]))
    parts.append(standings)
    if history:
        rounds = Table(box=None, padding=(0, 1), title_justify="left", header_style=BOLD,
                       title=Text(lang.t("per_round"), style=BOLD))  # fmt: skip
        rounds.add_column("#", justify="right")
        for seat in range(4):
            rounds.add_column(name(seat), justify="right")
        rounds.add_column("")
        for res in history:
            winners = res.result.get("winners", [])
            what = ", ".join(f"{name(w['seat'])} {lang.pattern(w['pattern'])}" for w in winners)
            rounds.add_row(str(res.round_no), *(_amount(v) for v in res.net),
                           Text(what or lang.t("draw"), style=DIM))  # fmt: skip
        parts.append(rounds)
    return Group(*parts)
