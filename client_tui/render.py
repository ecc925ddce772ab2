"""Text for the table's widgets, built from a `View`: pure functions returning rich `Text`, so the
widgets stay thin and these can be read and tested on their own.

>>> from client_tui.i18n import Lang
>>> seat_order(View(seat=2))
[3, 0, 1, 2]
>>> seat_order(View())
[0, 1, 2, 3]
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from rich.style import Style
from rich.text import Text

from client_tui import tiles as tl
from client_tui.analysis import Readiness
from client_tui.board import (
    WINDS,
    boxes_per_row,
    fit,
    melds_lines,
    pond_boxes,
    pond_text,
    pond_width,
    wind,
)
from client_tui.i18n import Lang
from client_tui.option_form import summary
from client_tui.view import TableV, View
from client_tui.wins import extra_bonuses
from protocol.messages import printable
from rules.chickens import weekday_kinds
from rules.round import Phase
from rules.view import SeatView

HAND_KEYS = "1234567890-=[]"
"""The key that discards the tile at each hand position (the drawn tile takes the last one)."""

DIM = Style(color="grey50")
BADGE_AUTO = Style(color="black", bgcolor="#e0b040", bold=True)
BADGE_OFF = Style(color="white", bgcolor="#b03030", bold=True)
BADGE_DEALER = Style(color="black", bgcolor="#d8c8a0", bold=True)
BADGE_DECLARED = Style(color="white", bgcolor="#7040a0", bold=True)
TURN_MARK = Style(color="#f0c040", bold=True)
READY_MARK = Style(color="green", bold=True)
CURSOR_MARK = Style(color="#ffe08a", bold=True)
HAND_LINES = 4
"""The lines the hand takes; `HAND_LINES_BIG` with boxed tiles (a screen of about 150x45 up)."""
HAND_LINES_BIG = 6


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


def bot_tag(level: str | None, lang: Lang) -> str:
    """A bot's tag after its name, its level in it (short enough for the table's side seats).

    >>> bot_tag("strong", Lang("en")), bot_tag("easy", Lang("zh")), bot_tag(None, Lang("en"))
    (' (bot strong)', ' (机器人·简单)', ' (bot)')
    """
    if level not in ("easy", "normal", "strong"):
        return f" ({lang.t('bot')})"
    sep = "·" if lang.code == "zh" else " "
    return f" ({lang.t('bot')}{sep}{lang.t('level_' + level)})"


def level_tag(level: str | None, lang: Lang) -> str:
    """A bot's level after its name: ` [strong]` (nothing when unknown).

    >>> level_tag("strong", Lang("zh")), level_tag(None, Lang("en"))
    (' [强]', '')
    """
    return f" [{lang.t('level_' + level)}]" if level in ("easy", "normal", "strong") else ""


def seat_head(view: View, seat: int, lang: Lang, *, name_cells: int = 16) -> Text:
    """A seat's first line: turn mark, where it sits, name, badges, score, hand size."""
    out = seat_who(view, seat, lang, name_cells=name_cells)
    out.append_text(seat_badges(view, seat, lang))
    return out


def seat_who(view: View, seat: int, lang: Lang, *, name_cells: int = 16) -> Text:
    """Turn mark, wind, where the seat sits, its name (cut to `name_cells`), bot, score."""
    r = view.round
    table = view.table
    info = table.seats[seat] if table is not None else None
    out = Text(no_wrap=True, overflow="ellipsis")
    on_turn = r is not None and r.phase in ("turn",) and r.turn == seat
    out.append("▶ " if on_turn else "  ", style=TURN_MARK)
    if r is not None:
        out.append(wind(r, seat, lang) + " ", style=Style(bold=True))
    if seat != view.seat:
        out.append(relation(view, seat, lang) + " ", style=DIM)
    name_style = Style(bold=True, color="#f0c040" if on_turn else None)
    out.append(fit(view.name_of(seat), name_cells), style=name_style)
    if seat == view.seat:
        out.append(f" ({lang.t('you')})", style=DIM)
    if info is not None and info.kind == "bot":
        out.append(bot_tag(info.level, lang), style=DIM)
    score = view.scores[seat] if view.scores else 0
    out.append(f"  {signed(score)}", style=Style(bold=True, color="green" if score >= 0 else "red"))
    return out


def seat_badges(view: View, seat: int, lang: Lang) -> Text:
    """The seat's badges (庄 and streak, 托管, offline, 报听) and its hand size."""
    r = view.round
    table = view.table
    info = table.seats[seat] if table is not None else None
    out = Text(no_wrap=True, overflow="ellipsis")
    if r is not None and r.dealer == seat:
        out.append(" ")
        badge = lang.t("dealer") + (f" {lang.t('streak', n=r.streak)}" if r.streak else "")
        out.append(f" {badge} ", style=BADGE_DEALER)
    if info is not None and info.auto:
        out.append(" ")
        out.append(f" {lang.t('auto')} ", style=BADGE_AUTO)
    if info is not None and info.kind == "human" and not info.connected:
        # A player's seat of a started match with nobody at it: the name says whose it is.
        away = view.table is not None and view.table.state != "waiting"
        out.append(" ")
        out.append(f" {lang.t('away' if away else 'offline')} ", style=BADGE_OFF)
    if r is not None and r.declared[seat]:
        out.append(" ")
        out.append(f" {lang.t('declared')} ", style=BADGE_DECLARED)
    if r is not None and seat != view.seat:
        out.append("  " + lang.t("tiles_in_hand", n=r.hand_sizes[seat]), style=DIM)
    return out


def end_line(view: View, seat: int, ascii: bool, lang: Lang, width: int = 200) -> Text | None:
    """Once the round is over: the seat's winning hand (the pattern, then the hand, on a line of
    its own when both do not fit `width`), or its hand revealed."""
    r = view.round
    if r is None:
        return None
    won = next((w for w in r.wins if w.seat == seat), None)
    if won is not None:
        head = Text(
            f"{lang.t('winner')} {lang.word(won.pattern)}",
            style=Style(bold=True, color="#f0c040"),
        )
        hand = [tl.notation(k) for k in won.hand]
        return packed([head, tl.grouped(hand, ascii)], width, sep=" ")
    if r.hands is not None and seat != view.seat:
        # The round is over: every hand is shown.
        out = Text()
        out.append(lang.t("hand_revealed") + " ", style=DIM)
        out.append_text(tl.grouped(tl.names(r.hands[seat]), ascii))
        return out
    return None


def seat_text(view: View, seat: int, ascii: bool, lang: Lang, width: int = 80) -> Text:
    """One seat in the compact list: its first line (`seat_head`), its melds (on that line when
    they fit, else below), the winning or revealed hand at the end, and the discard pond in rows
    that fit `width` (twelve, or six), so nothing wraps."""
    r = view.round
    out = seat_head(view, seat, lang)
    if r is None:
        return out
    lines = [out]
    melds = melds_lines(view, seat, ascii, lang, width - 3)
    if len(melds) == 1 and out.cell_len + 2 + melds[0].cell_len <= width:
        out.append("  ")
        out.append_text(melds[0])
    else:
        lines += [Text("   ").append_text(m) for m in melds]
    end = end_line(view, seat, ascii, lang, width - 3)
    if end is not None:
        lines += [Text("   ").append_text(ln) for ln in end.split("\n")]
    per_row = 12 if pond_width(ascii, 12) + 3 <= width else 6
    for ln in pond_text(r, seat, ascii=ascii, per_row=per_row, last=view.last).split("\n"):
        lines.append(Text("   ").append_text(ln))
    text = Text("\n").join(lines)
    text.no_wrap = True
    text.overflow = "ellipsis"
    return text


def panel_text(
    view: View, seat: int, ascii: bool, lang: Lang, width: int, *, big: bool = False
) -> Text:
    """One seat on the table layout, in `width` cells: its first line, its melds (whose discard
    each claimed one was), the winning or revealed hand at the end, and its pond in rows of six."""
    r = view.round
    head = seat_who(view, seat, lang, name_cells=12)
    head.truncate(width, overflow="ellipsis")
    lines = [head]
    badges = seat_badges(view, seat, lang)
    if badges.cell_len and head.cell_len + badges.cell_len <= width:
        head.append_text(badges)
    elif badges.cell_len:
        badges = Text("  ").append_text(badges)
        badges.truncate(width, overflow="ellipsis")
        lines.append(badges)
    if r is not None:
        if seat != view.seat:  # the player's own melds stand beside the hand
            lines += melds_lines(view, seat, ascii, lang, width)
        end = end_line(view, seat, ascii, lang, width)
        if end is not None:
            lines += end.split("\n")
        if big:  # standing tiles, as many to a row as the panel holds
            pond = pond_boxes(r, seat, ascii=ascii, per_row=boxes_per_row(width), last=view.last)
        else:
            pond = pond_text(r, seat, ascii=ascii, last=view.last)
        lines += pond.split("\n")
    out = Text("\n").join(lines)
    out.no_wrap = True
    out.overflow = "ellipsis"
    return out


NAME_CELLS = 10
"""The most cells a name takes on a sheet (the rest is cut, with an ellipsis)."""
WIDE_NAME_CELLS = 16
"""… on a screen 110 columns wide or more."""


def name_cells(width: int) -> int:
    """The most cells a name takes on a sheet `width` columns wide."""
    return NAME_CELLS if width < 110 else WIDE_NAME_CELLS


def seat_names(
    view: View, lang: Lang, cells: int, dealer: int | None = None
) -> Callable[[int], str]:
    """Seat names for the sheets: cut to `cells` with an ellipsis (never split across lines),
    `*` for the player, and with the round's `dealer` the seat's wind first, so two names cut
    alike are still told apart.

    >>> seat_names(View(seat=1, names=("阿明", "Bea", "", "")), Lang("en"), 10, dealer=1)(1)
    'E Bea*'
    """
    winds = WINDS[lang.code]

    def name(seat: int) -> str:
        n = fit(view.name_of(seat), cells)
        if seat == view.seat:
            n += "*"
        return n if dealer is None else f"{winds[(seat - dealer) % 4]} {n}"

    return name


def wait_line(view: View, name: Callable[[int], str], lang: Lang, now: float) -> str:
    """The wait between rounds (or for a rematch) in words: the countdown (at `now`) and who is
    still reading; "" when there is none."""
    w, t = view.wait, lang.t
    if w is None:
        return ""
    names = ", ".join(name(s) for s in range(4) if not w.ready[s])
    if w.rematch:
        return t("rematch_wait", names=names or "—")
    if w.deadline_at is None:
        head = t("next_round_wait", n=w.round_no)
    else:
        left = max(0, math.ceil(w.deadline_at - now))
        head = t("next_round_in", n=w.round_no, s=left)
    if not names:
        return head
    line = head + " · " + t("still_reading", names=names)
    if view.seat is not None and w.ready[view.seat]:
        line += " · " + t("you_are_ready")
    return line


def vote_line(view: View, name: Callable[[int], str], lang: Lang, now: float) -> str:
    """The open vote to end the match in words: who proposed, who agreed, who is waited for,
    the countdown (at `now`), and the keys; "" when there is none."""
    t, vote = lang.t, view.end_vote
    if vote is None:
        return ""
    agreed = ", ".join(name(s) for s in range(4) if vote.voters[s] and vote.agreed[s])
    waiting = ", ".join(name(s) for s in range(4) if vote.voters[s] and not vote.agreed[s])
    left = 0 if vote.deadline_at is None else max(0, math.ceil(vote.deadline_at - now))
    line = t(
        "vote_open",
        name=name(vote.proposer),
        agreed=agreed or "—",
        waiting=waiting or "—",
        s=left,
    )
    if view.seat is not None and vote.agreed[view.seat]:
        return line + " · " + t("vote_you_agreed")
    if view.seat is not None:
        return line + " · " + t("vote_keys")
    return line


def options_summary(t: TableV, lang: Lang) -> str:
    """The overrides of the preset in words, in the rules' order: `乌骨鸡 关 · 本鸡 开 · 封顶 20`
    (— for none). Every option of RULES.md §13 has its name (`client_tui.option_text`)."""
    return summary(t.preset, t.options_dict, lang) or "—"


def header_text(view: View, lang: Lang, ascii: bool) -> Text:
    """The table's one-line header, what matters for play first — round, dealer, wall, base,
    the 星期鸡, watching, the connection — then the table's name, its rules and every override
    of the preset: a narrow terminal cuts the option list, never the play (issue 23)."""
    out = Text()
    t = view.table
    r = view.round
    if r is not None and t is not None:
        out.append(lang.t("round", n=view.round_no, of=t.rounds), style=Style(bold=True))
        out.append(" · " + lang.t("dealer") + " " + view.name_of(r.dealer))
        if r.streak:
            out.append(" " + lang.t("streak", n=r.streak))
        out.append(" · " + lang.t("wall", n=r.wall_left))
        out.append(" · " + lang.t("base", n=view.round_base))
        if view.seat is not None:  # where the reader sits this round
            out.append(f" · {lang.t('you')} {wind(r, view.seat, lang)}", style=Style(bold=True))
        today = weekday_chickens(r)
        if today:
            out.append(" · " + lang.t("xingqi_today", tiles=""))
            out.append_text(tl.tiles_text(today, ascii, sep=" " if ascii else ""))
    if view.watching:
        out.append(" · " + lang.t("spectating"), style=Style(color="cyan"))
    out.append(" ")
    out.append_text(conn_badge(view, lang))
    if t is not None:
        out.append("  ")
        out.append(f"{t.name}", style=Style(bold=True))
        out.append(f" · {lang.t('preset_' + t.preset)}")
        if t.options:  # every override of the preset, so nobody is surprised by a rule
            out.append(f" ({options_summary(t, lang)})", style=DIM)
    return out


def weekday_chickens(r: SeatView) -> list[int]:
    """This deal's 星期鸡 tile kinds (`xingqiji` and the day `round_started` said), from the seat
    view: empty without them."""
    return list(weekday_kinds(r.opts, r.weekday))


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
    """What just happened at the table, or who is to play, on one line."""
    return Text("   ").join(last_parts(view, lang, ascii))


def packed(parts: list[Text], width: int, sep: str = "   ") -> Text:
    """`parts` side by side, `sep` apart, while they fit in `width` cells; else the next part
    starts a line of its own (a part is never split).

    >>> print(packed([Text("aaa"), Text("bb"), Text("cccc")], 9).plain)
    aaa   bb
    cccc
    """
    lines: list[Text] = []
    for part in parts:
        if lines and lines[-1].cell_len + len(sep) + part.cell_len <= width:
            lines[-1].append(sep)
            lines[-1].append_text(part)
        else:
            lines.append(part.copy())
    out = Text("\n").join(lines)
    out.no_wrap = True
    out.overflow = "ellipsis"
    return out


def last_parts(view: View, lang: Lang, ascii: bool) -> list[Text]:
    """What just happened at the table, or who is to play: a part per thing said."""
    r = view.round
    parts: list[Text] = []
    if r is None:
        return parts
    if r.phase == "over":
        for w in r.wins:
            name = view.name_of(w.seat)
            tile = tl.label(w.tile, ascii) if w.tile is not None else ""
            pattern = lang.word(w.pattern)
            if w.how == "zimo":
                line = lang.t("won_zimo", name=name, pattern=pattern)
            elif w.how == "rob":
                line = lang.t("won_rob", name=name, tile=tile, pattern=pattern)
            else:
                from_name = view.name_of(w.from_seat) if w.from_seat is not None else "?"
                line = lang.t(
                    "won_discard", name=name, from_name=from_name, tile=tile, pattern=pattern
                )
            bonuses = extra_bonuses(w.how, w.bonuses)  # 自摸 said once
            if bonuses:
                line += " + " + " + ".join(lang.word(b) for b in bonuses)
            parts.append(Text(line, style=Style(bold=True, color="#f0c040")))
        if r.exhausted:
            parts.append(Text(lang.t("exhausted"), style=Style(bold=True)))
        parts.append(Text(lang.t("round_over"), style=DIM))
        return parts
    last = view.last
    if (
        r.phase in ("claim", "rob")
        and last is not None
        and last.kind in ("discarded", "add_gang_declared")
    ):
        last = None  # the claim line below says it
    if last is not None:
        name = view.name_of(last.seat)
        tile = tl.label(last.tile, ascii) if last.tile is not None else ""
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
            parts.append(Text(line, style=DIM))
    if r.phase == "turn" and r.turn != view.seat:
        parts.append(Text(lang.t("turn_of", name=view.name_of(r.turn))))
    elif r.phase in ("claim", "rob") and r.claim_from is not None and r.claim_tile is not None:
        key = "claim_window" if r.phase == "claim" else "rob_window"
        tile = tl.label(r.claim_tile, ascii)
        parts.append(Text(lang.t(key, name=view.name_of(r.claim_from), tile=tile)))
    return parts


def waits_text(
    ready: Readiness | None, lang: Lang, ascii: bool, *, after: tl.Tile | None = None
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


def keep_ready_text(marks: frozenset[int], lang: Lang, ascii: bool) -> Text:
    """`• 打这些牌可以听牌：…` — the discards (tile kinds) that leave the hand ready."""
    out = Text("• " if not ascii else "* ", style=Style(color="green", bold=True))
    out.append(lang.t("keep_ready") + " ", style=DIM)
    out.append_text(tl.tiles_text(sorted(marks), ascii))
    return out


@dataclass(frozen=True, slots=True)
class HandSlot:
    """Where a hand tile is drawn: cells [x0, x1) of the hand widget, and its position."""

    x0: int
    x1: int
    index: int


def drawn_tile(r: SeatView) -> int | None:
    """The tile the viewer just drew, shown apart, while its turn (or the round's end) lasts."""
    return r.drawn if r.phase is Phase.TURN or r.phase is Phase.OVER else None


def hand_tiles(r: SeatView) -> tuple[int, ...]:
    """The viewer's hand as tile kinds in display order: sorted, the drawn tile taken out and put
    last."""
    if r.hand is None:
        return ()
    hand = [k for k, n in enumerate(r.hand) for _ in range(n)]
    drawn = drawn_tile(r)
    if drawn is not None and drawn in hand:
        # The sorted hand holds the drawn tile; show one copy of it apart, at the end.
        hand.remove(drawn)
        hand.append(drawn)
    return tuple(hand)


def hand_text(
    r: SeatView,
    me: int,
    *,
    ascii: bool,
    cursor: int | None,
    marks: frozenset[int],
    playable: bool,
    lang: Lang,
    big: bool = False,
) -> tuple[Text, list[HandSlot]]:
    """The hand as four lines: keys, two face lines (rank over suit), and a marker line (▲ the
    cursor, • a tile whose discard keeps the hand ready). The drawn tile stands apart; own melds
    follow on the right. `big` (a screen of about 150x45 up): each tile a box of four lines
    (`HAND_LINES_BIG` in all), so the hand reads like tiles standing on the table."""
    tiles = hand_tiles(r)
    drawn_apart = drawn_tile(r) is not None and bool(tiles)
    keys, cap, top, bottom, base, mark = (Text() for _ in range(6))
    faces = (cap, top, bottom, base) if big else (top, bottom)
    lines = (keys, *faces, mark)
    cell = 5 if big else 3  # a tile's cells, the space after it included
    slots: list[HandSlot] = []
    x = 1
    for line in lines:
        line.append(" ")
    for i, tile in enumerate(tiles):
        if drawn_apart and i == len(tiles) - 1:
            for line in lines:
                line.append("  ")
            x += 2
        rank, suit = tl.face(tile, ascii)
        selected = cursor == i
        bg = "#ffe08a" if selected else tl.FACE_BG
        face_style = Style(color=tl.colour(tile), bgcolor=bg, bold=True)
        key = HAND_KEYS[i] if i < len(HAND_KEYS) else " "
        key_style = DIM if not playable else Style(color="cyan")
        if big:
            edge = Style(color="#ffe08a", bold=True) if selected else Style(color="#b8b0a0")
            keys.append(f" {key}   ", style=key_style)
            cap.append("┌──┐ ", style=edge)
            for line, glyph in ((top, rank), (bottom, suit)):
                line.append("│", style=edge)
                line.append(glyph, style=face_style)
                line.append("│ ", style=edge)
            base.append("└──┘ ", style=edge)
        else:
            keys.append(key + " ", style=key_style)
            keys.append(" ")
            top.append(rank, style=face_style)
            bottom.append(suit, style=face_style)
            top.append(" ")
            bottom.append(" ")
        if big:
            mark.append(" ")
        if selected:
            mark.append("▲ " if not ascii else "^ ", style=CURSOR_MARK)
        elif tile in marks:
            mark.append("• " if not ascii else "* ", style=READY_MARK)
        else:
            mark.append("  ")
        mark.append("  " if big else " ")
        slots.append(HandSlot(x, x + cell - 1, i))
        x += cell
    melds = r.melds[me]
    if melds:
        for line in lines:
            line.append("   ")
        for m in melds:
            n = 3 if m.kind == "pong" else 4
            kind = {"pong": "碰", "ming": "杠", "an": "暗杠", "bu": "补杠"}.get(m.kind, m.kind)
            if m.from_seat is not None:  # whose discard it was
                kind += "←" + lang.t(("me", "xiajia", "duijia", "shangjia")[(m.from_seat - me) % 4])
            label = Text(kind)
            label.truncate(cell * n, overflow="ellipsis")
            keys.append(label.plain + " " * max(0, cell * n - label.cell_len) + " ", style=DIM)
            for _ in range(n):
                if m.tile is None:
                    rank = suit = "▒▒"
                    st = DIM
                else:
                    rank, suit = tl.face(m.tile, ascii)
                    st = Style(color=tl.colour(m.tile), bgcolor="#d8d0bc", bold=True)
                if big:
                    cap.append("┌──┐ ", style=DIM)
                    for line, glyph in ((top, rank), (bottom, suit)):
                        line.append("│", style=DIM)
                        line.append(glyph, style=st)
                        line.append("│ ", style=DIM)
                    base.append("└──┘ ", style=DIM)
                else:
                    top.append(rank, style=st)
                    bottom.append(suit, style=st)
                    top.append(" ")
                    bottom.append(" ")
            for line in faces:
                line.append(" ")
    out = Text("\n").join(list(lines))
    out.no_wrap = True  # a narrow terminal crops the row; wrapping would scramble the columns
    out.overflow = "crop"
    return out, slots
