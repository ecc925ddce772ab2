"""The table drawn as a table: each seat's melds and discard pond, the centre (wall, round,
dealer, the last action, every seat's clock), and the seat marks both layouts share. Pure
functions of a `View`, returning rich `Text`; the table screen places them.

A pond is the seat's discards in discard order, in rows of six (the way they lie on a real
table). Each tile carries one mark cell: `↗` a tile someone took (碰/杠/胡; also dimmed and struck
through), `•` the 报听 discard (also underlined); the newest discard at the table is shown
reversed.

>>> from rules.options import GUIYANG
>>> from rules.record import DiscardRecord
>>> from rules.round import Round
>>> from rules.view import view_of
>>> r = view_of(Round.deal(GUIYANG, seed=1, dealer=2), None)
>>> r = r._replace(discards=(tuple(DiscardRecord(k) for k in range(7)), (), (), ()))
>>> print(pond_text(r, 0, ascii=True).plain)
1m  2m  3m  4m  5m  6m
7m
>>> wind(r, 3, Lang("zh"))
'南'
"""

from __future__ import annotations

import io
from collections.abc import Callable

from rich.console import Console
from rich.style import Style
from rich.text import Text

from client_tui import tiles as tl
from client_tui.i18n import Lang
from client_tui.view import LastAction, View
from rules.view import MeldSeen, SeatView

DIM = Style(color="grey50")
NEWEST = Style(reverse=True, bold=True)
TAKEN_MARK = "↗"
DECLARED_MARK = "•"
DECLARED_STYLE = Style(color="#c090ff", bold=True)
POND_ROW = 6

WINDS = {"zh": "东南西北", "en": "ESWN"}

MELD_NAMES = {"pong": "碰", "ming": "杠", "an": "暗杠", "bu": "补杠"}


def wind(r: SeatView | None, seat: int, lang: Lang) -> str:
    """The seat's wind this round: the dealer is 东 (E), then 南 西 北 in play order."""
    dealer = r.dealer if r is not None else 0
    return WINDS[lang.code][(seat - dealer) % 4]


def fit(name: str, cells: int) -> str:
    """`name` in at most `cells` terminal cells, an ellipsis marking a cut (never split across
    lines: the caller gives it a line or a no-wrap column).

    >>> fit("Bot-2", 8), fit("rootrootroot", 8), fit("阿明阿明阿明", 7)
    ('Bot-2', 'rootroo…', '阿明阿…')
    """
    if Text(name).cell_len <= cells:
        return name
    out = ""
    for ch in name:
        if Text(out + ch + "…").cell_len > cells:
            break
        out += ch
    return out + "…"


def feeder(view: View, other: int, lang: Lang) -> str:
    """Whose discard a claimed meld took, as the reader sees the table: the label that seat's
    own row carries (你 / 下家 / 对家 / 上家 for a seated reader, 座位N for a watcher), never
    counted from the melder (issue 23: `←left` next to a tile that came from the right).

    >>> from client_tui.view import View
    >>> feeder(View(seat=0), 2, Lang("en")), feeder(View(seat=1), 1, Lang("zh"))
    ('across', '你')
    >>> feeder(View(), 3, Lang("en"))
    'Seat 4'
    """
    if view.seat is None:
        return lang.t("seat_n", n=other + 1)
    if other == view.seat:
        return lang.t("you")
    return lang.t(("me", "xiajia", "duijia", "shangjia")[(other - view.seat) % 4])


def meld_text(view: View, seat: int, m: MeldSeen, ascii: bool, lang: Lang) -> Text:
    """A meld: `碰五筒×3←对家` — the kind, the tile (`▒▒` an unseen 暗杠), and for a claimed one
    whose discard it was, named as the reader's table labels that seat (`feeder`)."""
    out = Text(MELD_NAMES.get(m.kind, m.kind), style=DIM)
    out.append_text(tl.text(m.tile, ascii))
    n = 3 if m.kind == "pong" else 4
    out.append(f"×{n}", style=DIM)
    if m.from_seat is not None:
        out.append("←" + feeder(view, m.from_seat, lang), style=Style(color="cyan"))
    return out


def melds_lines(view: View, seat: int, ascii: bool, lang: Lang, width: int) -> list[Text]:
    """The seat's melds, as many to a line as fit in `width` cells (a meld is never split)."""
    r = view.round
    if r is None:
        return []
    lines: list[Text] = []
    line = Text()
    for m in r.melds[seat]:
        t = meld_text(view, seat, m, ascii, lang)
        if line.cell_len and line.cell_len + 2 + t.cell_len > width:
            lines.append(line)
            line = Text()
        if line.cell_len:
            line.append("  ")
        line.append_text(t)
    if line.cell_len:
        lines.append(line)
    return lines


def claimers(r: SeatView) -> dict[tuple[int, int], int]:
    """Who took each claimed discard, by (discarder, tile): the seat whose meld (or win) came
    from that discarder with that tile. Two seats cannot both claim one kind from one seat (that
    takes five of it), so the pair names the claim."""
    out: dict[tuple[int, int], int] = {}
    for seat, row in enumerate(r.melds):
        for m in row:
            if m.from_seat is not None and m.tile is not None:
                out[(m.from_seat, m.tile)] = seat
    for w in r.wins:
        if w.from_seat is not None and w.tile is not None:
            out.setdefault((w.from_seat, w.tile), w.seat)
    return out


def newest_discard(r: SeatView, last: LastAction | None) -> tuple[int, int] | None:
    """The latest discard at the table as (seat, index in its row), when the view knows it
    (`last`: the latest move, `View.last`)."""
    if r.phase in ("claim",) and r.claim_from is not None and r.discards[r.claim_from]:
        return r.claim_from, len(r.discards[r.claim_from]) - 1
    if last is not None and last.kind in ("discarded", "claimed") and r.discards[last.seat]:
        seat = last.seat
        if last.kind == "claimed":
            # The claimed tile was the discarder's latest: find whose row ends with it taken.
            for s, row in enumerate(r.discards):
                if row and row[-1].claimed and row[-1].tile == last.tile and s != last.seat:
                    return s, len(row) - 1
            return None
        return seat, len(r.discards[seat]) - 1
    return None


def pond_cell(r: SeatView, seat: int, i: int, ascii: bool, newest: bool) -> Text:
    """One discard and its mark cell."""
    d = r.discards[seat][i]
    face = tl.text(d.tile, ascii, dim=d.claimed, strike=d.claimed, underline=d.declared)
    if newest:
        face.stylize(NEWEST)
    t = Text()
    t.append_text(face)
    if d.claimed:
        t.append(TAKEN_MARK if not ascii else "^", style=DIM)
    elif d.declared:
        t.append(DECLARED_MARK if not ascii else "*", style=DECLARED_STYLE)
    else:
        t.append(" ")
    if not ascii:
        return t
    t.append(" ")  # ASCII tiles are narrow: a space more between them
    return t


def pond_text(
    r: SeatView,
    seat: int,
    *,
    ascii: bool,
    per_row: int = POND_ROW,
    last: LastAction | None = None,
) -> Text:
    """The seat's discards in rows of `per_row`, in discard order (`·` for none yet); `last`
    (the latest move) marks the newest discard."""
    row = r.discards[seat]
    if not row:
        return Text("·", style=DIM)
    newest = newest_discard(r, last)
    lines = []
    for start in range(0, len(row), per_row):
        line = Text()
        for i in range(start, min(len(row), start + per_row)):
            line.append_text(pond_cell(r, seat, i, ascii, newest == (seat, i)))
        line.rstrip()
        lines.append(line)
    out = Text("\n").join(lines)
    out.no_wrap = True
    return out


BOX_CELLS = 5
"""The cells a boxed tile takes, the space after it included."""


def pond_boxes(
    r: SeatView,
    seat: int,
    *,
    ascii: bool,
    per_row: int = POND_ROW,
    last: LastAction | None = None,
) -> Text:
    """The pond drawn as standing tiles, for a large screen (about 150x45 up): three rows a
    tile, rank over suit between two sides and the base, whose first cell carries the mark
    (`↗` taken, also greyed and struck; `•` the 报听 discard, also underlined; `▲` the newest,
    also reversed).

    >>> from rules.options import GUIYANG
    >>> from rules.record import DiscardRecord
    >>> from rules.round import Round
    >>> from rules.view import view_of
    >>> r = view_of(Round.deal(GUIYANG, seed=1), 0)
    >>> r = r._replace(discards=((DiscardRecord(4), DiscardRecord(26, claimed=True)), (), (), ()))
    >>> print(pond_boxes(r, 0, ascii=False).plain)
    │五│ │九│
    │万│ │条│
    └──┘ └↗─┘
    """
    row = r.discards[seat]
    if not row:
        return Text("·", style=DIM)
    newest = newest_discard(r, last)
    lines: list[Text] = []
    for start in range(0, len(row), per_row):
        top, bottom, base = Text(), Text(), Text()
        for i in range(start, min(len(row), start + per_row)):
            d = row[i]
            rank, suit = tl.face(d.tile, ascii)
            if d.claimed:
                face = Style(color="grey50", bgcolor="#3a3a3a", strike=True)
            else:
                face = Style(color=tl.colour(d.tile), bgcolor=tl.FACE_BG, bold=True)
            if newest == (seat, i):
                face += Style(reverse=True)
            if d.declared:
                face += Style(underline=True)
            edge = DIM if d.claimed else Style(color="#b8b0a0")
            for line, glyph in ((top, rank), (bottom, suit)):
                line.append("│", style=edge)
                line.append(glyph, style=face)
                line.append("│ ", style=edge)
            base.append("└", style=edge)
            if d.claimed:
                base.append((TAKEN_MARK if not ascii else "^") + "─", style=DIM)
            elif d.declared:
                base.append(DECLARED_MARK if not ascii else "*", style=DECLARED_STYLE)
                base.append("─", style=edge)
            elif newest == (seat, i):
                base.append("▲" if not ascii else "^", style=Style(color="#ffe08a", bold=True))
                base.append("─", style=edge)
            else:
                base.append("──", style=edge)
            base.append("┘ ", style=edge)
        for line in (top, bottom, base):
            line.rstrip()
        lines += [top, bottom, base]
    out = Text("\n").join(lines)
    out.no_wrap = True
    return out


def boxes_per_row(cells: int) -> int:
    """How many boxed tiles a pond row holds in `cells` (six to twelve)."""
    return max(POND_ROW, min(12, (cells + 1) // BOX_CELLS))


def pond_width(ascii: bool, per_row: int = POND_ROW) -> int:
    """The cells a full pond row takes."""
    cell = 4 if ascii else 5
    return per_row * cell - 1


# ----- the centre -----


_MEASURE = Console(width=400, file=io.StringIO(), color_system=None)


def wrapped(text: Text, width: int) -> list[Text]:
    """`text` broken at spaces into lines of at most `width` cells."""
    if not text.cell_len:
        return []
    return list(text.wrap(_MEASURE, width, overflow="ellipsis"))


def centre_text(
    view: View,
    lang: Lang,
    ascii: bool,
    clock_of: Callable[[int], Text],
    last: Text,
    width: int,
) -> Text:
    """The middle of the table: round, dealer and streak, wall and base; what just happened;
    every seat with its wind, name and clock; at the end, the flip."""
    r = view.round
    t = view.table
    out = Text(no_wrap=True, overflow="ellipsis")
    if r is None:
        return out
    if t is not None:
        out.append(lang.t("round", n=view.round_no, of=t.rounds), style=Style(bold=True))
        out.append(" ")
    out.append(lang.t("wall", n=r.wall_left), style=Style(bold=True, color="#f0c040"))
    out.append(" " + lang.t("base", n=view.round_base), style=DIM)
    out.append("\n")
    streak = " " + lang.t("streak", n=r.streak) if r.streak else ""
    out.append(lang.t("dealer") + " ", style=DIM)
    room = width - Text(lang.t("dealer") + " " + streak).cell_len
    out.append(fit(view.name_of(r.dealer), max(4, room)), style=Style(bold=True))
    out.append(streak)
    if r.flip is not None:
        out.append("\n" + lang.t("flip") + " ", style=DIM)
        out.append_text(tl.text(r.flip, ascii))
    out.append("\n")
    for seat in range(4):
        on = r.phase == "turn" and r.turn == seat
        line = Text()
        line.append("▶" if on else " ", style=Style(color="#f0c040", bold=True))
        line.append(wind(r, seat, lang) + " ", style=Style(bold=True))
        clock = clock_of(seat)
        room = width - line.cell_len - (clock.cell_len + 1 if clock.cell_len else 0)
        line.append(
            fit(view.name_of(seat), max(3, room)),
            style=Style(bold=on, color="#f0c040" if on else None),
        )
        if clock.cell_len:
            line.append(" " * max(1, width - line.cell_len - clock.cell_len))
            line.append_text(clock)
        out.append_text(line)
        out.append("\n")
    for ln in wrapped(last, width):
        out.append_text(ln)
        out.append("\n")
    legend = Text(TAKEN_MARK if not ascii else "^", style=DIM)
    legend.append(" " + lang.t("legend_taken") + "  ", style=DIM)
    legend.append(DECLARED_MARK if not ascii else "*", style=DECLARED_STYLE)
    legend.append(" " + lang.t("legend_declared"), style=DIM)
    out.append_text(legend)
    return out
