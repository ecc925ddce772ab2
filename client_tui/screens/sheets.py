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
from client_tui.intents import Again, AnswerEnd, ToggleAuto
from client_tui.render import signed
from client_tui.screens.history import outcome_text
from client_tui.sheet import HandRow, Sheet, payment_note
from client_tui.view import MatchEndV, MeldV, ResultV

BOLD = Style(bold=True)
DIM = Style(color="grey50")
GOLD = Style(color="#f0c040", bold=True)


MELD_NAMES = {"pong": "碰", "ming": "杠", "an": "暗杠", "bu": "补杠"}
CHICKEN_MARK = Style(underline=True)
WIN_TILE = Style(reverse=True, bold=True)


def _amount(n: int) -> Text:
    return Text(signed(n), style=Style(color="green" if n > 0 else "red" if n < 0 else "grey50"))


def _who(sheet: Sheet, seat: int, name: Callable[[int], str], lang: Lang) -> Text:
    """The seat's name and whether it won, is ready or not."""
    who = Text(name(seat), style=BOLD)
    state = (
        "winner"
        if any(w.seat == seat for w in sheet.winners)
        else ("ready_yes" if sheet.ready[seat] else "ready_no")
    )
    who.append(f" ({lang.t(state)})", style=DIM)
    return who


def _tile(tile: str | None, ascii: bool, marks: frozenset[str], extra: Style | None = None) -> Text:
    t = tl.text(tile, ascii)
    if tile is not None and tile in marks:
        t.stylize(CHICKEN_MARK)
    if extra is not None:
        t.stylize(extra)
    return t


def meld_line(
    m: MeldV, ascii: bool, name: Callable[[int], str], marks: frozenset[str] = frozenset()
) -> Text:
    """A revealed meld: `暗杠七筒`, `碰三筒←Bot-2` (whose discard it was)."""
    out = Text(MELD_NAMES.get(m.kind, m.kind), style=DIM)
    out.append_text(_tile(m.tile, ascii, marks))
    if m.from_seat is not None:
        out.append("←" + name(m.from_seat), style=DIM)
    return out


def hand_line(row: HandRow, ascii: bool, lang: Lang) -> Text:
    """The concealed tiles grouped by suit, then a winner's tile apart and marked (胡/自摸/抢杠)."""
    out = tl.grouped(row.tiles, ascii, marks=row.chickens)
    if not row.tiles:
        out.append("·", style=DIM)
    if row.win_tile is not None:
        out.append("  " + lang.t("win_mark_" + (row.how or "discard")) + " ", style=GOLD)
        out.append_text(_tile(row.win_tile, ascii, row.chickens, WIN_TILE))
    return out


def body_width(screen_width: int) -> int:
    """The cells a sheet's body has on a terminal `screen_width` wide (the box, its border, the
    padding and the scroll bar taken off)."""
    return max(40, min(110, screen_width * 98 // 100) - 6)


def sheet_renderable(
    sheet: Sheet, name: Callable[[int], str], lang: Lang, ascii: bool, width: int = 100
) -> RenderableType:
    """The whole sheet, laid out for `width` cells: outcome, nets, flip, every hand, chickens,
    豆, payments, totals per kind and seat. A name is never split across lines (the caller's
    `name` keeps them short); a hand's melds follow it on lines of their own when they do not
    fit."""
    parts: list[RenderableType] = []
    # The title, then each winner on a line.
    parts.append(Text(lang.t("settlement", n=sheet.round_no), style=BOLD))
    if sheet.outcome == "draw":
        parts.append(Text(lang.t("draw"), style=BOLD))
    for w in sheet.winners:
        head = Text(f"{lang.t('winner')} ", style=GOLD)
        head.append(name(w.seat), style=BOLD)
        pieces = []
        if w.how == "discard" and w.from_seat is not None:
            pieces.append(Text("← " + name(w.from_seat)))
        if w.tile is not None:
            pieces.append(tl.text(w.tile, ascii))
        pieces.append(Text(lang.name(w.pattern), style=BOLD))
        pieces += [Text("+ " + lang.name(b)) for b in w.bonuses]
        if w.void:
            pieces.append(Text(f"({lang.item('baopai')})", style=Style(color="red")))
        parts.append(_packed(head, pieces, width))
    # The nets up front: a short terminal shows the details below by scrolling.
    nets = []
    for v_seat, v in enumerate(sheet.net):
        piece = Text(name(v_seat) + " ")
        piece.append_text(_amount(v))
        if v_seat < 3:
            piece.append(" ·", style=DIM)
        nets.append(piece)
    parts.append(_packed(Text(lang.t("net") + ":", style=BOLD), nets, width))
    # The flip and the chicken it makes.
    flip = Text(lang.t("flip") + ": ", style=BOLD)
    if sheet.flip is None:  # and why not: nobody should wonder whether it was forgotten
        why = (
            "no_flip_draw"
            if sheet.outcome == "draw"
            else "no_flip_void"
            if any(w.void for w in sheet.winners)
            else "no_flip_wall"
        )
        flip.append(lang.t(why), style=DIM)
    else:
        flip.append_text(tl.text(sheet.flip, ascii))
        flip.append(" → ")
        for i, (tile, kind) in enumerate(sheet.flip_makes):
            if i:
                flip.append(lang.s("line_sep"))
            flip.append_text(tl.text(tile, ascii))
            flip.append(f" {lang.name(kind)}", style=GOLD)
    if sheet.blown:  # 吹风鸡: the flip scores no chicken
        flip.append("  " + lang.t("blown"), style=GOLD)
    if sheet.fair is not None:  # the fair deal, checked against the commitment
        flip.append("    ")
        flip.append(
            lang.t("fair_ok" if sheet.fair else "fair_bad"),
            style="green" if sheet.fair else "bold red",
        )
    parts.append(flip)
    # Every hand and meld, revealed: why each chicken and 豆 counted.
    if sheet.hands:
        title = Text(lang.t("hands"), style=BOLD)
        title.append("  " + lang.t("chicken_mark"), style=DIM)
        hands = Table(
            box=None, show_header=False, padding=(0, 1), title_justify="left", title=title
        )
        whos = [_who(sheet, hr.seat, name, lang) for hr in sheet.hands]
        hands.add_column(no_wrap=True)
        hands.add_column(no_wrap=True, overflow="ellipsis")
        room = width - max(x.cell_len for x in whos) - 3
        for hr, who_text in zip(sheet.hands, whos, strict=True):
            pieces = [meld_line(m, ascii, name, hr.chickens) for m in hr.melds]
            if hr.discarded:
                # Chickens among the seat's own discards count too: say which.
                # The word and the first tile together, then a piece a tile: a narrow sheet
                # wraps between tiles rather than cutting them off (issue 23).
                first, *rest = hr.discarded
                disc = Text(lang.t("discarded") + " ", style=DIM)
                disc.append_text(_tile(first, ascii, hr.chickens))
                pieces.append(disc)
                pieces += [_tile(t, ascii, hr.chickens) for t in rest]
            hands.add_row(who_text, _packed(hand_line(hr, ascii, lang), pieces, room))
        parts.append(hands)
    # Chickens.
    chickens = Table(
        box=None,
        show_header=False,
        padding=(0, 1),
        title_justify="left",
        title=Text(lang.t("chickens"), style=BOLD),
        expand=False,
    )
    chickens.add_column(no_wrap=True)
    chickens.add_column(overflow="fold")
    chickens.add_column(justify="right", no_wrap=True)
    for row in sheet.chickens:
        # The hands above say who won or is ready; without them, this row does.
        who = Text(name(row.seat), style=BOLD) if sheet.hands else _who(sheet, row.seat, name, lang)
        lines = Text()
        for i, ln in enumerate(row.lines):
            if i:
                lines.append(" · ", style=DIM)
            lines.append_text(tl.text(ln.tile, ascii))
            chicken = (lang.s("gold") if ln.gold else "") + lang.name(ln.kind)
            lines.append(f" {chicken}", style=GOLD)
            lines.append(f" ×{ln.count}" + (f"@{ln.each}" if ln.each != 1 else "") + f"={ln.units}")
        for pay_kind, units in row.extra_units:  # in units, as the counts before them
            if lines:
                lines.append(" · ", style=DIM)
            lines.append(f"{lang.item(pay_kind)} ", style=GOLD)
            lines.append_text(_amount(units))
        if not row.lines and not row.extras:
            lines.append(lang.t("no_chickens"), style=DIM)
        # The total adds up what the line prints (its 包鸡/责任鸡 too); a row that does not
        # collect and has nothing else on it shows its own count, marked ✗ (not paid).
        shown = row.total if row.extra_units or row.collects else row.units
        total = Text(str(shown), style=BOLD if row.collects or row.extra_units else DIM)
        total.append(" ✓" if row.collects else " ✗", style="green" if row.collects else "grey50")
        chickens.add_row(who, lines, total)
    if sheet.chickens:
        parts.append(chickens)
    # 豆.
    if sheet.dou:
        dou = Table(
            box=None,
            show_header=False,
            padding=(0, 1),
            title_justify="left",
            title=Text(lang.t("dou"), style=BOLD),
        )
        dou.add_column(no_wrap=True)
        dou.add_column(overflow="fold")
        for d in sheet.dou:
            what = Text(lang.name(d.dou) + " ")
            what.append_text(tl.text(d.tile, ascii))
            what.append(
                "  ✓ " + lang.t("dou_scores") if d.scores else f"  ✗ {lang.dou_why(d.why)}",
                style="green" if d.scores else DIM,
            )
            dou.add_row(Text(name(d.seat), style=BOLD), what)
        parts.append(dou)
    # Every payment.
    pay = Table(
        box=None,
        padding=(0, 1),
        title_justify="left",
        header_style=DIM,
        title=Text(lang.t("payments"), style=BOLD),
    )
    pay.add_column(lang.t("payer_payee"), no_wrap=True)
    pay.add_column(lang.t("item"))
    pay.add_column(lang.t("amount"), justify="right", no_wrap=True)
    pay.add_column(lang.t("detail"), style=DIM, overflow="fold")
    for p in sheet.payments:
        label = Text(lang.item(p.kind))
        if p.how is not None:
            label.append(" " + lang.how(p.how), style=DIM)
        note = payment_note(p.payment, lang, name, lambda t: tl.label(t, ascii))
        pay.add_row(
            Text(f"{name(p.payer)} → {name(p.payee)}"), label, Text(str(p.amount)), Text(note)
        )
    if sheet.payments:
        parts.append(pay)
    else:  # an empty table says why
        parts.append(Text(lang.t("payments"), style=BOLD))
        key = "no_payments_draw" if sheet.outcome == "draw" else "no_payments"
        parts.append(Text(lang.t(key), style=DIM))
    # Per item and seat, then the nets: the columns add up.
    ok = sheet.adds_up
    totals = Table(
        box=None,
        padding=(0, 1),
        title_justify="left",
        header_style=BOLD,
        title=Text(lang.t("totals"), style=BOLD),
    )
    totals.add_column("")  # the kinds may wrap; the names and the sums never do
    for seat in range(4):
        totals.add_column(Text(name(seat)), justify="right", no_wrap=True)
    for item in sheet.items:
        totals.add_row(Text(lang.item(item)), *(_amount(v) for v in sheet.by_item[item]))
    check = Text(
        lang.t("adds_up") if ok else lang.t("not_adds_up"), style="green" if ok else "bold red"
    )
    totals.add_row(
        Text(lang.t("net"), style=BOLD), *(Text(signed(v), style=BOLD) for v in sheet.net)
    )
    totals.add_row(
        Text(lang.t("scores_after"), style=DIM), *(Text(signed(v), style=DIM) for v in sheet.scores)
    )
    parts.append(totals)
    parts.append(check)
    return Group(*parts)


def _packed(first: Text, pieces: list[Text], width: int) -> Text:
    """`first`, then `pieces` two spaces apart on the same line while they fit in `width`, else
    on the next lines: a piece (a meld, a name) is never split."""
    lines = [first.copy()]
    for piece in pieces:
        line = lines[-1]
        if line.cell_len and line.cell_len + 2 + piece.cell_len > width:
            lines.append(Text())
            line = lines[-1]
        if line.cell_len:
            line.append("  ")
        line.append_text(piece)
    out = Text("\n").join(lines)
    out.no_wrap = True
    return out


class SheetScreen(ModalScreen[bool]):
    """A scrollable sheet over the table; Enter, Escape or space closes it. Enter and space
    answer True (on the settlement sheet: ready for the next round), Escape False. `status`, if
    given, is a live line under the sheet (the wait between rounds), read twice a second; `n`
    on the match summary asks for a rematch."""

    BINDINGS = [
        Binding("escape", "close(False)", "close"),
        Binding("enter", "close(True)", "close"),
        Binding("space", "close(True)", "close", show=False),
        Binding("n", "again", "play again", show=False),
        Binding("e", "app.propose_end", "end together", show=False),
        Binding("y", "vote_end(True)", "agree", show=False),
        # The footer offers q and a over a sheet too: neither may be swallowed (issue 23).
        Binding("q", "app.quit_app", "quit", show=False),
        Binding("a", "take_over", "托管", show=False),
    ]
    CSS_PATH = "sheets.tcss"

    def __init__(
        self,
        body: RenderableType,
        hint: str,
        *,
        name: str | None = None,
        status: Callable[[], str] | None = None,
    ) -> None:
        super().__init__(name=name)
        self.body = body
        self.hint = hint
        self.status = status

    def compose(self) -> ComposeResult:
        with Vertical():
            with VerticalScroll():
                yield Static(self.body, id="sheet-body")
            if self.status is not None:
                line = self.status()
                status = Static(Text(line), id="sheet-status")
                status.display = bool(line)
                yield status
            yield Static(Text(self.hint), id="sheet-hint")

    def on_mount(self) -> None:
        if self.status is not None:
            self.set_interval(0.5, self.refresh_status)

    def set_hint(self, hint: str) -> None:
        """Another key line (the match ended while the sheet was open); plain text."""
        self.hint = hint
        if self.is_mounted:
            self.query_one("#sheet-hint", Static).update(Text(hint))

    def refresh_status(self) -> None:
        """The live line again (the countdown, who is still reading); plain text, never
        markup (it holds player names)."""
        if self.status is not None and self.is_mounted:
            line = self.status()
            status = self.query_one("#sheet-status", Static)
            status.update(Text(line))
            status.display = bool(line)

    def action_close(self, ready: bool = False) -> None:
        self.dismiss(ready)

    # The intents below go to the app itself: this screen may be gone (dismissed) before a
    # message posted to it would bubble up.

    def action_take_over(self) -> None:
        """`a`: close the sheet, 托管 off or on."""
        self.dismiss(False)
        self.app.post_message(ToggleAuto())

    def action_vote_end(self, agree: bool) -> None:
        """`y` (and `n`, see `action_again`) answer an open vote to end the match."""
        self.app.post_message(AnswerEnd(agree))

    def action_again(self) -> None:
        """`n`: refuse an open vote to end the match, else (over the standings) play again."""
        self.app.post_message(Again(summary=self.name == "summary"))


def summary_renderable(
    end: MatchEndV | None,
    history: tuple[ResultV, ...],
    scores: tuple[int, ...],
    name: Callable[[int], str],
    lang: Lang,
) -> RenderableType:
    """Final standings and each round's nets."""
    parts: list[RenderableType] = []
    if end is not None:
        key = {"finished": "match_over", "vote": "match_voted"}.get(end.reason, "match_abandoned")
        head = Text(lang.t(key), style=BOLD)
        head.append("  " + lang.t("rounds_played", n=end.rounds_played), style=DIM)
        parts.append(head)
        final = end.scores
    else:
        final = scores
    standings = Table(
        box=None,
        padding=(0, 2),
        title_justify="left",
        show_header=False,
        title=Text(lang.t("final"), style=BOLD),
    )
    standings.add_column(justify="right")
    standings.add_column()
    standings.add_column(justify="right")
    ranked = sorted(range(4), key=lambda s: (-final[s], s))
    for place, seat in enumerate(ranked, 1):
        standings.add_row(f"{place}.", Text(name(seat), style=BOLD), _amount(final[seat]))
    parts.append(standings)
    if history:
        rounds = Table(
            box=None,
            padding=(0, 1),
            title_justify="left",
            header_style=BOLD,
            title=Text(lang.t("per_round"), style=BOLD),
        )
        rounds.add_column("#", justify="right")
        for seat in range(4):
            rounds.add_column(Text(name(seat)), justify="right")
        rounds.add_column("")
        for res in history:
            rounds.add_row(
                str(res.round_no), *(_amount(v) for v in res.net), outcome_text(res, name, lang)
            )
        parts.append(rounds)
    return Group(*parts)
