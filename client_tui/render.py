"""Text for the table's widgets, built from a `View`: pure functions returning rich `Text`, so the
widgets stay thin and these can be read and tested on their own.

>>> from client_tui.i18n import Lang
>>> seat_order(View(seat=2))
[3, 0, 1, 2]
>>> seat_order(View())
[0, 1, 2, 3]
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.style import Style
from rich.text import Text

from client_tui import tiles as tl
from client_tui.analysis import Readiness
from client_tui.i18n import Lang
from client_tui.option_form import summary
from client_tui.view import MeldV, RoundV, TableV, View
from protocol.messages import printable

HAND_KEYS = "1234567890-=[]"
"""The key that discards the tile at each hand position (the drawn tile takes the last one)."""

DIM = Style(color="grey50")
BADGE_AUTO = Style(color="black", bgcolor="#e0b040", bold=True)
BADGE_OFF = Style(color="white", bgcolor="#b03030", bold=True)
BADGE_DEALER = Style(color="black", bgcolor="#d8c8a0", bold=True)
BADGE_DECLARED = Style(color="white", bgcolor="#7040a0", bold=True)
TURN_MARK = Style(color="#f0c040", bold=True)


def plain(text: str, style: Style | str = "") -> Text:
    """Text from elsewhere (a name, a server's message) to show as it is: never read as markup,
    control and bidi characters made visible. Every remote string reaches the screen through
    this or through `Text.append`, never as a `str` a widget would parse.

    >>> plain("a[/b] [bold red]x\x1b[2J").plain == "a[/b] [bold red]x\ufffd[2J"
    True
    """
    return Text(printable(text), style=style)


def seat_order(view: View) -> list[int]:
    """Seats top to bottom: in play order from the viewer's 下家, the viewer last."""
    if view.seat is None:
        return [0, 1, 2, 3]
    return [(view.seat + i) % 4 for i in (1, 2, 3, 0)]


def relation(view: View, seat: int, lang: Lang) -> str:
    """下家 / 对家 / 上家 / 本家 for a seated viewer, else the seat number."""
    if view.seat is None:
        return lang.t("seat_n", n=seat + 1)
    key = ("me", "xiajia", "duijia", "shangjia")[(seat - view.seat) % 4]
    return lang.t(key)


def signed(n: int) -> str:
    return f"+{n}" if n > 0 else str(n)


def meld_text(m: MeldV, ascii: bool, lang: Lang) -> Text:
    """A meld inline: `碰[五筒]`, `杠[▒▒]` face down."""
    names = {"pong": "碰", "ming": "杠", "an": "暗杠", "bu": "补杠"}
    out = Text(names.get(m.kind, m.kind), style=DIM)
    out.append("[")
    out.append_text(tl.text(m.tile, ascii))
    n = 3 if m.kind == "pong" else 4
    out.append(f"×{n}]", style=DIM)
    return out


def seat_text(view: View, seat: int, ascii: bool, lang: Lang) -> Text:
    """One seat's panel: who, badges, hand size, score, melds; then the discard row."""
    r = view.round
    table = view.table
    info = table.seats[seat] if table is not None else None
    out = Text()
    on_turn = r is not None and r.phase in ("turn",) and r.turn == seat
    out.append("▶ " if on_turn else "  ", style=TURN_MARK)
    if seat != view.seat:
        out.append(relation(view, seat, lang) + " ", style=DIM)
    name_style = Style(bold=True, color="#f0c040" if on_turn else None)
    out.append(view.name_of(seat), style=name_style)
    if seat == view.seat:
        out.append(f" ({lang.t('you')})", style=DIM)
    if info is not None and info.kind == "bot":
        out.append(f" ({lang.t('bot')})", style=DIM)
    if r is not None and r.dealer == seat:
        out.append(" ")
        badge = lang.t("dealer") + (f" {lang.t('streak', n=r.streak)}" if r.streak else "")
        out.append(f" {badge} ", style=BADGE_DEALER)
    if info is not None and info.auto:
        out.append(" ")
        out.append(f" {lang.t('auto')} ", style=BADGE_AUTO)
    if info is not None and info.kind == "human" and not info.connected:
        out.append(" ")
        out.append(f" {lang.t('offline')} ", style=BADGE_OFF)
    if r is not None and r.declared[seat]:
        out.append(" ")
        out.append(f" {lang.t('declared')} ", style=BADGE_DECLARED)
    score = view.scores[seat] if view.scores else 0
    out.append(f"  {signed(score)}", style=Style(bold=True, color="green" if score >= 0 else "red"))
    if r is None:
        return out
    if seat != view.seat:
        out.append("  " + lang.t("tiles_in_hand", n=r.hand_sizes[seat]), style=DIM)
    for m in r.melds[seat]:
        out.append("  ")
        out.append_text(meld_text(m, ascii, lang))
    won = next((w for w in r.winners if w.seat == seat), None)
    if won is not None:
        out.append("\n   ")
        out.append(
            f"{lang.t('winner')} {lang.pattern(won.pattern)} ",
            style=Style(bold=True, color="#f0c040"),
        )
        out.append_text(tl.tiles_text(won.hand, ascii))
    elif r.hands is not None and seat != view.seat:
        # The round is over: every hand is shown.
        out.append("\n   ")
        out.append(lang.t("hand_revealed") + " ", style=DIM)
        out.append_text(tl.tiles_text(r.hands[seat], ascii))
    out.append("\n   ")
    out.append_text(discards_text(r, seat, ascii))
    return out


def discards_text(r: RoundV, seat: int, ascii: bool) -> Text:
    """The seat's discards in order: a claimed one struck through, a 报听 one underlined, the one
    open to claims highlighted."""
    out = Text()
    row = r.discards[seat]
    if not row:
        out.append("·", style=DIM)
    for i, d in enumerate(row):
        if i:
            out.append(" ")
        live = (
            i == len(row) - 1 and r.phase in ("claim",) and r.claim_from == seat and not d.claimed
        )
        t = tl.text(d.tile, ascii, dim=d.claimed, strike=d.claimed, underline=d.declared)
        if live:
            t.stylize(Style(reverse=True, bold=True))
        out.append_text(t)
    return out


def options_summary(t: TableV, lang: Lang) -> str:
    """The overrides of the preset in words, in the rules' order: `乌骨鸡 关 · 本鸡 开 · 封顶 20`
    (— for none). Every option of RULES.md §13 has its name (`client_tui.option_text`)."""
    return summary(t.preset, t.options_dict, lang) or "—"


def header_text(view: View, lang: Lang, ascii: bool) -> Text:
    """The table's one-line header: table, rules, round, dealer, wall, base, connection."""
    out = Text()
    t = view.table
    if t is not None:
        out.append(f"{t.name}", style=Style(bold=True))
        out.append(f" · {lang.t('preset_' + t.preset)}")
        if t.options:  # every override of the preset, so nobody is surprised by a rule
            out.append(f" ({options_summary(t, lang)})", style=DIM)
    r = view.round
    if r is not None and t is not None:
        out.append(" · " + lang.t("round", n=r.round_no, of=t.rounds))
        out.append(" · " + lang.t("dealer") + " " + view.name_of(r.dealer))
        if r.streak:
            out.append(" " + lang.t("streak", n=r.streak))
        out.append(" · " + lang.t("wall", n=r.wall_left))
        out.append(" · " + lang.t("base", n=r.base))
    if view.watching:
        out.append(" · " + lang.t("spectating"), style=Style(color="cyan"))
    out.append("  ")
    out.append_text(conn_badge(view, lang))
    return out


def conn_badge(view: View, lang: Lang) -> Text:
    """The connection in a word, for the header (the banner says more)."""
    if view.status == "connected":
        return Text("●", style=Style(color="green"))
    if view.status == "closed":
        return Text(" ✕ " + lang.t("offline") + " ", style=BADGE_OFF)
    return Text(" ◌ " + lang.t("offline") + " ", style=BADGE_AUTO)


def banner_text(view: View, lang: Lang) -> Text | None:
    """A line across the table while the connection is down: what is happening, what to expect."""
    if view.status in ("connected", "idle"):
        return None
    out = conn_text(view, lang)
    if view.status == "reconnecting" and view.table_id is not None and view.match_end is None:
        out.append("  " + lang.t("seat_kept" if view.seat is not None else "resume_watch"))
    elif view.status == "closed":
        out.append("  " + lang.t("quit_hint"))
    return out


def conn_text(view: View, lang: Lang) -> Text:
    if view.status == "connected":
        return Text("● " + lang.t("connected"), style=Style(color="green"))
    if view.status == "reconnecting":
        return Text(
            "◌ " + lang.t("reconnecting", n=max(1, view.attempt)),
            style=Style(color="black", bgcolor="#e0b040", bold=True),
        )
    if view.status == "closed":
        return Text(
            "✕ " + lang.t("closed", why=view.status_detail),
            style=Style(color="white", bgcolor="#b03030", bold=True),
        )
    return Text("◌ " + lang.t("connecting", url=view.url), style=Style(color="yellow"))


def last_text(view: View, lang: Lang, ascii: bool) -> Text:
    """What just happened at the table, or who is to play."""
    r = view.round
    out = Text()
    if r is None:
        return out
    if r.phase == "over":
        for w in r.winners:
            name = view.name_of(w.seat)
            tile = tl.label(w.tile, ascii) if w.tile else ""
            pattern = lang.pattern(w.pattern)
            if w.how == "zimo":
                line = lang.t("won_zimo", name=name, pattern=pattern)
            elif w.how == "rob":
                line = lang.t("won_rob", name=name, tile=tile, pattern=pattern)
            else:
                from_name = view.name_of(w.from_seat) if w.from_seat is not None else "?"
                line = lang.t(
                    "won_discard", name=name, from_name=from_name, tile=tile, pattern=pattern
                )
            if w.bonuses:
                line += " + " + " ".join(w.bonuses)
            out.append(line + "   ", style=Style(bold=True, color="#f0c040"))
        if r.exhausted:
            out.append(lang.t("exhausted") + "   ", style=Style(bold=True))
        out.append(lang.t("round_over"), style=DIM)
        return out
    last = r.last
    if (
        r.phase in ("claim", "rob")
        and last is not None
        and last.kind in ("discarded", "add_gang_declared")
    ):
        last = None  # the claim line below says it
    if last is not None:
        name = view.name_of(last.seat)
        tile = tl.label(last.tile, ascii) if last.tile else ""
        if last.kind == "discarded":
            line = lang.t("last_discarded", name=name, tile=tile)
        elif last.kind == "claimed":
            line = lang.t("last_pong" if last.act == "pong" else "last_gang", name=name, tile=tile)
        elif last.kind == "concealed_gang":
            line = lang.t("last_an", name=name)
        elif last.kind in ("added_gang", "add_gang_declared"):
            line = lang.t("last_bu", name=name, tile=tile)
        elif last.kind == "auto_played":
            line = lang.t("last_auto", name=name, why=lang.t("why_" + (last.act or "auto")))
        else:
            line = ""
        if line:
            out.append(line, style=DIM)
            out.append("   ")
    if r.phase == "turn" and r.turn != view.seat:
        out.append(lang.t("turn_of", name=view.name_of(r.turn)))
    elif r.phase in ("claim", "rob") and r.claim_from is not None and r.claim_tile:
        key = "claim_window" if r.phase == "claim" else "rob_window"
        out.append(lang.t(key, name=view.name_of(r.claim_from), tile=tl.label(r.claim_tile, ascii)))
    return out


def waits_text(
    ready: Readiness | None, lang: Lang, ascii: bool, *, after: str | None = None
) -> Text:
    """`听 一条 平胡1 剩3 · 四条 …` and whether discard wins are allowed (通行证) or 自摸 only."""
    out = Text()
    if ready is None:
        return out
    if after is not None:
        out.append(lang.t("after_discard", tile=tl.label(after, ascii)) + " ", style=DIM)
    else:
        out.append(lang.t("waits") + " ", style=Style(bold=True, color="#f0c040"))
    for i, w in enumerate(ready.waits):
        if i:
            out.append(" · ", style=DIM)
        out.append_text(tl.text(w.tile, ascii, dim=w.left == 0))
        out.append(f" {lang.pattern(w.pattern)} {w.value}")
        if not w.discard_ok:
            out.append(" (自摸)", style=Style(color="#e0b040"))
        out.append(" " + lang.t("left", n=w.left), style=DIM)
    out.append("   ")
    if ready.has_pass:
        out.append(lang.t("pass_ok"), style=Style(color="green"))
    elif any(not w.discard_ok for w in ready.waits):
        out.append(lang.t("zimo_only"), style=Style(color="#e0b040"))
    return out


def keep_ready_text(marks: frozenset[str], lang: Lang, ascii: bool) -> Text:
    """`• 打这些牌可以听牌：…` — the discards that leave the hand ready."""
    out = Text("• " if not ascii else "* ", style=Style(color="green", bold=True))
    out.append(lang.t("keep_ready") + " ", style=DIM)
    out.append_text(tl.tiles_text(sorted(marks, key=_kind), ascii))
    return out


def _kind(tile: str) -> int:
    from rules.tiles import parse_tile

    return parse_tile(tile)


@dataclass(frozen=True, slots=True)
class HandSlot:
    """Where a hand tile is drawn: cells [x0, x1) of the hand widget, and its position."""

    x0: int
    x1: int
    index: int


def hand_tiles(r: RoundV) -> tuple[str, ...]:
    """The viewer's hand in display order: sorted, the drawn tile taken out and put last."""
    hand = list(r.hand or ())
    if r.drawn is not None and r.drawn in hand:
        # The sorted hand holds the drawn tile; show one copy of it apart, at the end.
        hand.remove(r.drawn)
        hand.append(r.drawn)
    return tuple(hand)


def hand_text(
    r: RoundV,
    me: int,
    *,
    ascii: bool,
    cursor: int | None,
    marks: frozenset[str],
    playable: bool,
    lang: Lang,
) -> tuple[Text, list[HandSlot]]:
    """The hand as four lines: keys, two face lines (rank over suit), and a marker line (▲ the
    cursor, • a tile whose discard keeps the hand ready). The drawn tile stands apart; own melds
    follow on the right."""
    tiles = hand_tiles(r)
    drawn_apart = r.drawn is not None and bool(tiles)
    keys, top, bottom, mark = Text(), Text(), Text(), Text()
    slots: list[HandSlot] = []
    x = 1
    for line in (keys, top, bottom, mark):
        line.append(" ")
    for i, tile in enumerate(tiles):
        if drawn_apart and i == len(tiles) - 1:
            for line in (keys, top, bottom, mark):
                line.append("  ")
            x += 2
        rank, suit = tl.face(tile, ascii)
        selected = cursor == i
        bg = "#ffe08a" if selected else tl.FACE_BG
        face_style = Style(color=tl.SUIT_COLOURS[tile[1]], bgcolor=bg, bold=True)
        keys.append(
            (HAND_KEYS[i] if i < len(HAND_KEYS) else " ") + " ",
            style=DIM if not playable else Style(color="cyan"),
        )
        top.append(rank, style=face_style)
        bottom.append(suit, style=face_style)
        top.append(" ")
        bottom.append(" ")
        keys.append(" ")
        if selected:
            mark.append("▲ " if not ascii else "^ ", style=Style(color="#ffe08a", bold=True))
        elif tile in marks:
            mark.append("• " if not ascii else "* ", style=Style(color="green", bold=True))
        else:
            mark.append("  ")
        mark.append(" ")
        slots.append(HandSlot(x, x + 2, i))
        x += 3
    melds = r.melds[me]
    if melds:
        for line in (keys, top, bottom, mark):
            line.append("   ")
        for m in melds:
            n = 3 if m.kind == "pong" else 4
            kind = {"pong": "碰", "ming": "杠", "an": "暗杠", "bu": "补杠"}.get(m.kind, m.kind)
            keys.append(kind + " " * max(0, 3 * n - 2 * len(kind)) + " ", style=DIM)
            for _ in range(n):
                if m.tile is None:
                    top.append("▒▒", style=DIM)
                    bottom.append("▒▒", style=DIM)
                else:
                    rank, suit = tl.face(m.tile, ascii)
                    st = Style(color=tl.SUIT_COLOURS[m.tile[1]], bgcolor="#d8d0bc", bold=True)
                    top.append(rank, style=st)
                    bottom.append(suit, style=st)
                top.append(" ")
                bottom.append(" ")
            top.append(" ")
            bottom.append(" ")
    out = Text("\n").join([keys, top, bottom, mark])
    out.no_wrap = True  # a narrow terminal crops the row; wrapping would scramble the columns
    out.overflow = "crop"
    return out, slots
