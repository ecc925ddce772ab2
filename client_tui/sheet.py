"""The round settlement sheet, worked out from the server's typed settlement
(`protocol.settlement.RoundResult`: every payment's `kind` and `details` in identifiers, the wins,
each seat's chickens, the 豆, and the revealed hands and melds): every seat's final hand, the flip
and the chicken it makes, each seat's chickens, the 豆, every payment (payer, payee, `kind`,
amount, and its details, worded by `payment_words` in the interface language), and each seat's
total per kind, which must add up to the nets the server sent.

Nothing here reads the engine's readable `detail` text; every word comes from an identifier.
Pure: the settlement screen only lays this out.

>>> flip_chickens("5p", "guiyang")
(('6p', <ChickenKind.FANPAI: 'fanpai'>),)
>>> flip_chickens("9s", "guiyang")
(('1s', <ChickenKind.JIN: 'jin'>),)
>>> flip_chickens("1s", "anshun")
(('9s', <ChickenKind.YAOBAI: 'yaobai'>), ('2s', <ChickenKind.YAOBAI: 'yaobai'>))
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from client_tui.i18n import Lang
from client_tui.view import MeldV, ResultV
from protocol.settlement import (
    BaopaiPayment,
    BonusUnits,
    ChajiaoPayment,
    ChickenCount,
    ChickenPayment,
    DouPayment,
    DouRef,
    HandDetails,
    HandPayment,
    Payment,
    RepaoPayment,
    RoundResult,
    Win,
    parse_result,
)
from rules.chickens import CHUIFENG_FLIP
from rules.chickens import flip_chickens as rules_flip_chickens
from rules.kinds import BonusKind, ChickenKind, DouKind, ExtraKind, PatternKind
from rules.options import RuleOptions
from rules.tiles import WUGUJI, YAOJI, next_kind, parse_tile, prev_kind, tile_name

ITEM_ORDER = ("hand", "repao", "baopai", "chajiao", "dou", "baodou", "chicken", "zeren", "baoji")
"""The payment kinds, in the order the sheet lists their totals (others follow, sorted)."""


@dataclass(frozen=True, slots=True)
class ChickenLine:
    """`count` tiles of one chicken kind, `each` units apiece (`gold`: 金, doubled)."""

    tile: str
    count: int
    each: int
    kind: ChickenKind
    units: int
    gold: bool = False


@dataclass(frozen=True, slots=True)
class ChickenRow:
    """A seat's chicken tiles; `collects` when the seat won or is ready (only then is it paid).
    `extras` are its 责任鸡 and 包鸡 payments as (payment kind, signed amount); `extra_units`
    the same in units (the payments' `details.units`: units × base = amount), by kind."""

    seat: int
    lines: tuple[ChickenLine, ...]
    units: int
    collects: bool
    extras: tuple[tuple[str, int], ...] = ()
    extra_units: tuple[tuple[str, int], ...] = ()

    @property
    def total(self) -> int:
        """The units the row adds up to, with the 包鸡 and 责任鸡 printed on it: its own chickens
        only when it collects them (issue 23: the total left the 包鸡 out)."""
        own = self.units if self.collects else 0
        return own + sum(units for _kind, units in self.extra_units)


@dataclass(frozen=True, slots=True)
class DouRow:
    """A gang: its 豆 kind, meld kind, and whether it scored (`why` not: the engine's reason)."""

    seat: int
    tile: str
    dou: DouKind
    kind: str
    scores: bool
    why: str


@dataclass(frozen=True, slots=True)
class PaymentRow:
    """One payment. `kind` is the fine label (hand, repao, baopai, dou, chicken, baoji, zeren,
    chajiao), `item` the coarser one; `how` says how the payee won, for a hand payment (zimo,
    discard, rob); `payment` is the typed payment, whose details `payment_words` words."""

    payer: int
    payee: int
    kind: str
    amount: int
    item: str
    payment: Payment
    how: str | None = None


@dataclass(frozen=True, slots=True)
class HandRow:
    """A seat's hand as revealed at the end: the concealed tiles, sorted, without the winning
    tile; the melds, 暗杠 tiles shown; for a winner the winning tile and how it came; the tiles
    the seat's chicken lines count, to mark them; and its unclaimed discards of those tiles (they
    count too, except under chuan rules)."""

    seat: int
    tiles: tuple[str, ...]
    melds: tuple[MeldV, ...]
    win_tile: str | None = None
    how: str | None = None
    chickens: frozenset[str] = frozenset()
    discarded: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class WinLine:
    seat: int
    pattern: PatternKind
    bonuses: tuple[BonusKind, ...]
    how: str
    tile: str | None = None
    from_seat: int | None = None
    void: bool = False


@dataclass(frozen=True, slots=True)
class Sheet:
    round_no: int
    outcome: str
    winners: tuple[WinLine, ...]
    flip: str | None
    flip_makes: tuple[tuple[str, ChickenKind], ...]
    chickens: tuple[ChickenRow, ...]
    dou: tuple[DouRow, ...]
    payments: tuple[PaymentRow, ...]
    items: tuple[str, ...]  # the payment kinds present, in ITEM_ORDER
    by_item: dict[str, tuple[int, ...]]  # kind → each seat's signed total
    net: tuple[int, ...]
    computed: tuple[int, ...]
    ready: tuple[bool, ...]
    next_dealer: int
    next_streak: int
    scores: tuple[int, ...]
    hands: tuple[HandRow, ...] = ()
    fair: bool | None = None  # the fair-deal check (`ResultV.fair`)
    blown: bool = False  # 吹风鸡 (§13.13): the flip blew the round's chickens away

    @property
    def adds_up(self) -> bool:
        """The payments add up to the nets, and the nets to zero."""
        return self.computed == self.net and sum(self.net) == 0


def flip_chickens(flip: str | None, chickens: str) -> tuple[tuple[str, ChickenKind], ...]:
    """What the flipped tile makes a chicken of, under the preset's chicken rules (§6): a
    翻牌鸡, 摇摆鸡, or a standing chicken turned gold (金鸡)."""
    if flip is None:
        return ()
    k = parse_tile(flip)
    nxt = next_kind(k)
    if chickens == "anshun":
        swing = (prev_kind(k), nxt)
        return tuple(
            (tile_name(s), ChickenKind.JIN if s == YAOJI else ChickenKind.YAOBAI) for s in swing
        )
    if chickens == "guiyang" and nxt in (YAOJI, WUGUJI):
        return ((tile_name(nxt), ChickenKind.JIN),)
    return ((tile_name(nxt), ChickenKind.FANPAI),)


def flip_chickens_under(
    o: RuleOptions, result: RoundResult, weekday: int | None = None
) -> tuple[tuple[str, ChickenKind], ...]:
    """What the flip makes a chicken of under the table's options (§6, §13.10–13): 翻牌鸡 or
    摇摆鸡 by `flip_chickens`, 本鸡, a standing kind turned gold (金鸡), and the 星期鸡 of the
    deal's `weekday` (and any the tallies show, for a round whose day the client was not told).
    Nothing under 吹风鸡 (a blown round)."""
    if result.flip is None or blown(o, result.flip):
        return ()
    made = rules_flip_chickens(o, parse_tile(result.flip), weekday)
    out = [
        (tile_name(k), ChickenKind.JIN if k in made.gold else what)
        for k, (_, what) in made.extra.items()
    ]
    for c in result.chickens:
        for ln in c.lines:
            if ln.kind is ChickenKind.XINGQI and (ln.tile, ln.kind) not in out:
                out.append((ln.tile, ln.kind))
    return tuple(out)


def blown(o: RuleOptions, flip: str | None) -> bool:
    """吹风鸡 (§13.13): under the option, a 5p flip blows every chicken of the round away."""
    return o.chuifengji and flip == tile_name(CHUIFENG_FLIP)


# ---------------------------------------------------------------------------------------------
# Wording a payment from its details


Name = Callable[[int], str]
TileLabel = Callable[[str], str]


def _units(lang: Lang, parts: Sequence[tuple[str, int]]) -> str:
    return " + ".join(f"{what} {n}" for what, n in parts)


def _bonus_parts(lang: Lang, bonuses: Sequence[BonusUnits]) -> list[tuple[str, int]]:
    return [(lang.name(b.kind), b.units) for b in bonuses]


def hand_words(d: HandDetails, lang: Lang) -> str:
    """A hand payment: `平胡 1 + 自摸 1 + 坐庄 1`, `（七对 2 + 自摸 1）×2 + 杀报 10`."""
    parts = [(lang.name(d.pattern), d.pattern_units), *_bonus_parts(lang, d.bonuses)]
    if d.dealer:
        parts.append((lang.name(ExtraKind.DEALER), d.dealer))
    if d.streak:
        parts.append((lang.name(ExtraKind.STREAK), d.streak))
    text = _units(lang, parts)
    if d.multiplier != 1:
        text = lang.s("times", parts=text, n=d.multiplier)
    if d.after_multiplier:
        text += " + " + _units(lang, _bonus_parts(lang, d.after_multiplier))
    if d.cap is not None:
        text = lang.s("capped", parts=text, n=d.cap)
    return text


def dou_words(d: DouRef, lang: Lang, name: Name, tile: TileLabel) -> str:
    """A 豆: `点豆 8p (fed by P1)`, `闷豆 7p`."""
    text = f"{lang.name(d.kind)} {tile(d.tile)}"
    if d.fed_by is not None:
        text = lang.s("fed_by", dou=text, name=name(d.fed_by))
    return text


def chicken_words(lines: Sequence[ChickenCount], lang: Lang, tile: TileLabel) -> str:
    """Chicken lines: `幺鸡 1s×2=2，金乌骨鸡 8p×4，每张4=16`."""
    out = []
    for c in lines:
        what = lang.name(c.kind)
        if c.gold:
            what = lang.s("gold") + what
        text = lang.s("chicken_count", name=what, tile=tile(c.tile), count=c.count)
        if c.each != 1:
            text += lang.s("each", n=c.each)
        out.append(text + lang.s("equals", n=c.units))
    return lang.s("line_sep").join(out)


def payment_words(p: Payment, lang: Lang, name: Name, tile: TileLabel) -> str:
    """What a payment is for, worded from its identifiers and numbers in `lang`; `name` gives a
    seat's player name, `tile` a tile's label.

    >>> from protocol.settlement import PAYMENT_ADAPTER
    >>> p = PAYMENT_ADAPTER.validate_python({"from": 3, "to": 2, "item": "dou", "kind": "dou",
    ...     "amount": 1, "details": {"dou": {"kind": "diandou", "tile": "8p",
    ...     "fed_by": 3}, "units": 1}})
    >>> payment_words(p, Lang("zh"), lambda s: "东南西北"[s], str)
    '点豆 8p（北点杠）'
    >>> payment_words(p, Lang("en"), lambda s: f"P{s + 1}", str)
    '点豆 kong of a discard 8p (fed by P4)'
    """
    if isinstance(p, HandPayment):
        d = p.details
        if isinstance(d, HandDetails):
            return hand_words(d, lang)
        shares = [
            lang.s("rob_share", name=name(s.for_seat), parts=hand_words(s, lang)) for s in d.shares
        ]
        return lang.s("rob", shares=lang.s("rob_sep").join(shares))
    if isinstance(p, BaopaiPayment):
        return hand_words(p.details, lang)
    if isinstance(p, RepaoPayment):
        text = lang.s("repao_dou", dou=dou_words(p.details.dou, lang, name, tile))
        if p.details.cap is not None:
            text = lang.s("repao_capped", text=text, n=p.details.cap)
        return text
    if isinstance(p, DouPayment):
        words = dou_words(p.details.dou, lang, name, tile)
        return lang.s("baodou", dou=words) if p.kind == "baodou" else words
    if isinstance(p, ChickenPayment):
        lines = chicken_words(p.details.chickens, lang, tile)
        if p.kind == "baoji":
            return lang.s("baoji_lines", lines=lines)
        if p.kind == "zeren":
            return lang.s("zeren_lines", lines=lines)
        return lines
    assert isinstance(p, ChajiaoPayment)
    wait = p.details
    return lang.s("chajiao_wait", pattern=lang.name(wait.pattern), n=wait.pattern_units)


def payment_note(p: Payment, lang: Lang, name: Name, tile: TileLabel) -> str:
    """`payment_words`, with the ×底分 step when the table's base is not 1, so the note adds up
    to the amount printed beside it: `（平胡 1 + 自摸 2）×底分2` next to 6 (issue 23: the units
    alone do not add up to the money).

    >>> from protocol.settlement import PAYMENT_ADAPTER
    >>> p = PAYMENT_ADAPTER.validate_python({"from": 3, "to": 2, "item": "dou", "kind": "dou",
    ...     "amount": 6, "details": {"dou": {"kind": "mendou", "tile": "8p",
    ...     "fed_by": None}, "units": 3}})
    >>> payment_note(p, Lang("zh"), str, str), payment_note(p, Lang("en"), str, str)
    ('（闷豆 8p）×底分2', '(闷豆 concealed kong 8p) × base 2')
    """
    words = payment_words(p, lang, name, tile)
    units = p.details.units
    if units and p.amount != units:
        return lang.s("times_base", parts=words, n=p.amount // units)
    return words


# ---------------------------------------------------------------------------------------------
# The sheet


def settlement_of(res: ResultV) -> RoundResult:
    """The typed settlement of a finished round (the frame was validated when it came in)."""
    result: Any = res.result
    return result if isinstance(result, RoundResult) else parse_result(result)


def _winners(result: RoundResult) -> tuple[WinLine, ...]:
    return tuple(
        WinLine(w.seat, w.pattern, tuple(w.bonuses), w.how, w.tile, w.from_seat, w.void)
        for w in result.wins
    )


def _hand_rows(
    res: ResultV,
    result: RoundResult,
    winners: tuple[WinLine, ...],
    chickens: tuple[ChickenRow, ...],
    chickens_rule: str,
) -> tuple[HandRow, ...]:
    """Each seat's revealed hand."""
    hands = res.hands
    assert hands is not None, "a settlement reveals every hand"
    melds = tuple(
        tuple(MeldV(m.kind, m.tile, m.from_seat, m.dou) for m in row) for row in result.melds
    )
    marks = {row.seat: frozenset(ln.tile for ln in row.lines) for row in chickens}
    rows = []
    for seat in range(4):
        mine = marks.get(seat, frozenset())
        discarded: tuple[str, ...] = ()
        if chickens_rule != "chuan" and len(res.discards) == 4:
            discarded = tuple(
                tile_name(d.tile)
                for d in res.discards[seat]
                if not d.claimed and tile_name(d.tile) in mine
            )
        tiles = list(hands[seat])
        win = next((w for w in winners if w.seat == seat), None)
        tile = win.tile if win is not None else None
        how = win.how if win is not None else None
        if how == "zimo" and tile is not None and tile in tiles:
            tiles.remove(tile)  # a 自摸 hand holds the winning tile: shown apart, marked
        rows.append(HandRow(seat, tuple(tiles), melds[seat], tile, how, mine, discarded))
    return tuple(rows)


def _totals(payments: Sequence[PaymentRow]) -> tuple[list[int], dict[str, list[int]]]:
    """Each seat's signed total, overall and per payment kind."""
    computed = [0, 0, 0, 0]
    per_item: dict[str, list[int]] = {}
    for p in payments:
        computed[p.payer] -= p.amount
        computed[p.payee] += p.amount
        row = per_item.setdefault(p.kind, [0, 0, 0, 0])
        row[p.payer] -= p.amount
        row[p.payee] += p.amount
    return computed, per_item


def _chicken_rows(
    result: RoundResult, payments: Sequence[PaymentRow], chickens_rule: str
) -> tuple[ChickenRow, ...]:
    # 责任鸡 and 包鸡 per seat and kind, summed (a 包鸡 is paid to each collector in turn).
    extras: dict[int, dict[str, int]] = {s: {} for s in range(4)}
    units: dict[int, dict[str, int]] = {s: {} for s in range(4)}
    for p in payments:
        if p.kind in ("zeren", "baoji"):
            extras[p.payee][p.kind] = extras[p.payee].get(p.kind, 0) + p.amount
            extras[p.payer][p.kind] = extras[p.payer].get(p.kind, 0) - p.amount
            n = p.payment.details.units if isinstance(p.payment, ChickenPayment) else p.amount
            units[p.payee][p.kind] = units[p.payee].get(p.kind, 0) + n
            units[p.payer][p.kind] = units[p.payer].get(p.kind, 0) - n
    rows = []
    for c in result.chickens:
        lines = tuple(
            ChickenLine(ln.tile, ln.count, ln.each, ln.kind, ln.units, ln.gold) for ln in c.lines
        )
        collects = chickens_rule == "chuan" or result.ready[c.seat]  # winners are ready
        row = ChickenRow(
            c.seat,
            lines,
            c.units,
            collects,
            tuple(extras[c.seat].items()),
            tuple(units[c.seat].items()),
        )
        rows.append(row)
    return tuple(rows)


def build_sheet(res: ResultV, rules: str | RuleOptions = "guiyang") -> Sheet:
    """The sheet for one finished round, under the table's options (`rules`; or only its chicken
    family's name, `guiyang`/`chuan`/`anshun`, for the preset's flip)."""
    result = settlement_of(res)
    chickens_rule = rules if isinstance(rules, str) else rules.chickens
    if isinstance(rules, str):
        flip_makes, blown_away = flip_chickens(result.flip, rules), False
    else:
        flip_makes = flip_chickens_under(rules, result, res.weekday)
        blown_away = blown(rules, result.flip)
    winners = _winners(result)
    how = {w.seat: w.how for w in winners}
    payments = tuple(
        PaymentRow(
            p.payer,
            p.payee,
            p.kind,
            p.amount,
            p.item,
            p,
            how.get(p.payee) if p.kind == "hand" else None,
        )
        for p in result.payments
    )
    computed, per_item = _totals(payments)
    items = tuple(i for i in ITEM_ORDER if i in per_item) + tuple(
        sorted(i for i in per_item if i not in ITEM_ORDER)
    )
    chicken_rows = _chicken_rows(result, payments, chickens_rule)
    dou_rows = tuple(
        DouRow(d.seat, d.tile, d.dou_kind, d.kind, d.scores, d.why) for d in result.dou
    )
    return Sheet(
        round_no=res.round_no,
        outcome=result.outcome,
        winners=winners,
        flip=result.flip,
        flip_makes=flip_makes,
        blown=blown_away,
        chickens=chicken_rows,
        dou=dou_rows,
        payments=payments,
        items=items,
        by_item={k: tuple(v) for k, v in per_item.items()},
        net=tuple(result.net),
        computed=tuple(computed),
        ready=tuple(result.ready),
        next_dealer=result.next_dealer,
        next_streak=result.next_streak,
        scores=res.scores,
        hands=_hand_rows(res, result, winners, chicken_rows, chickens_rule),
        fair=res.fair,
    )


def round_wins(res: ResultV) -> tuple[Win, ...]:
    """A finished round's winners, in identifiers (for the match summary)."""
    return tuple(settlement_of(res).wins)
