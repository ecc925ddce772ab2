"""鸡 (chickens): which tiles a player counts and what they are worth (RULES.md §6, §12.14–19, §13).

The preset's family (`opts.chickens`: guiyang, chuan, anshun) says which chickens exist; the §13
options change their values and add house chickens:

- standing chickens: guiyang `1s` (1) and `8p` (`wuguji`, `wuguji_value`); anshun `1s` (1); chuan
  none. A standing kind that is also a flip chicken turns gold (金): its value doubles.
- 冲锋: the first `1s` / `8p` discarded, unclaimed (`chongfeng_scope` `round`: only the first of
  either). `fixed`: guiyang 3 / 6, anshun 2 (gold 3); `double`: twice the standing value; gold
  doubles it (anshun `fixed` keeps its own 3).
- flip chickens (`flip_chickens` next / both / none), 本鸡 (`benji`: the flipped kind), 星期鸡
  (`xingqiji`: the weekday's rank in every suit): 1 each, chuan 10 (a chuan 闷豆 of one: 60). They
  need a flip. A tile counts once, at its highest value.

A player's chicken tiles are their concealed hand, their melds, their own unclaimed discards
(`discards_are_chickens`; a 冲锋 tile counts whatever it says) and, for the first winner after the
discarder, the winning tile.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from rules.kinds import ChickenKind
from rules.options import RuleOptions
from rules.record import RoundRecord
from rules.tiles import NUM_KINDS, WUGUJI, YAOJI, next_kind, parse_tile, prev_kind, tile_name

CHUIFENG_FLIP = parse_tile("5p")  # §13.13: this flip blows every chicken away
CHUAN_UNIT = 10  # chuan's chickens are on its ×10 scale
CHUAN_MEN_GANG = 6  # a chuan 闷豆 of a chicken kind: 6 units of the scale (60), not 4 × 10
GUIYANG_CHONGFENG = {YAOJI: 3, WUGUJI: 6}  # `fixed`
ANSHUN_CHONGFENG, ANSHUN_CHONGFENG_GOLD = 2, 3  # `fixed`
STANDING_KIND = {YAOJI: ChickenKind.YAOJI, WUGUJI: ChickenKind.WUGUJI}


@dataclass(slots=True)
class ChickenTally:
    """One seat's chickens: units and the lines that make them up."""

    seat: int
    units: int = 0
    lines: list[dict[str, Any]] = field(default_factory=list)

    def add(
        self, kind: int, count: int, each: int, tag: str, what: ChickenKind, gold: bool = False
    ) -> None:
        """`count` tiles of `kind`, `each` units apiece; `what` names the chicken (`gold` 金)."""
        if count <= 0 or each <= 0:
            return
        self.units += count * each
        self.lines.append(
            {
                "tile": tile_name(kind),
                "count": count,
                "each": each,
                "tag": tag,
                "units": count * each,
                "kind": _KIND_VALUE[what],
                "gold": gold,
            }
        )

    @property
    def detail(self) -> str:
        return ", ".join(
            f"{ln['tile']}{' ' + ln['tag'] if ln['tag'] else ''}×{ln['count']}={ln['units']}"
            for ln in self.lines
        )

    def to_dict(self) -> dict[str, Any]:
        return {"seat": self.seat, "units": self.units, "lines": self.lines}

    def details(self) -> dict[str, Any]:
        """A chicken payment's details: its lines (kind, tile, count, each, units, gold).
        (Settlement asks once per tally and shares the result among its payers.)"""
        return {
            "chickens": [
                {k: ln[k] for k in ("kind", "tile", "count", "each", "units", "gold")}
                for ln in self.lines
            ]
        }


_KIND_VALUE = {k: k.value for k in ChickenKind}  # an enum's `.value` is a slow property


# ----- what the table's chickens are -----


def standing_values(o: RuleOptions) -> dict[int, int]:
    """The standing chicken kinds of the preset's family with their values (not gold)."""
    if o.chickens == "guiyang":
        return {YAOJI: 1, WUGUJI: o.wuguji_value} if o.wuguji else {YAOJI: 1}
    if o.chickens == "anshun":
        return {YAOJI: 1}
    return {}


def weekday_kinds(o: RuleOptions, weekday: int | None) -> tuple[int, ...]:
    """The 星期鸡 kinds (§13.12): the weekday's rank in every suit; none without the option or
    the day."""
    if not o.xingqiji or weekday is None:
        return ()
    return tuple(9 * suit + weekday - 1 for suit in range(3))


def known_chickens(o: RuleOptions, weekday: int | None) -> dict[int, int]:
    """The kinds known to be chickens before the flip, with their units per tile (not gold): the
    standing kinds and the 星期鸡 kinds (those need a flip, which nearly every won round has). A
    tile counts once, at its highest value. What a player keeps, and a client marks, in play."""
    known = dict(standing_values(o))
    unit = CHUAN_UNIT if o.chickens == "chuan" else 1
    for kind in weekday_kinds(o, weekday):
        known[kind] = max(known.get(kind, 0), unit)
    return known


def chongfeng_value(o: RuleOptions, kind: int, gold: bool) -> int:
    """A 冲锋 tile's whole value (§12.14, §13.1)."""
    if o.chongfeng_value == "double":
        return standing_values(o)[kind] * 2 * (2 if gold else 1)
    if o.chickens == "anshun":
        return ANSHUN_CHONGFENG_GOLD if gold else ANSHUN_CHONGFENG
    return GUIYANG_CHONGFENG[kind] * (2 if gold else 1)


@dataclass(frozen=True, slots=True)
class FlipChickens:
    """The chickens a flip makes: kind → (value, what) for flip, 本鸡 and 星期鸡 kinds, and the
    standing kinds it turns gold. Empty without a flip."""

    extra: dict[int, tuple[int, ChickenKind]]
    gold: frozenset[int]


def flip_chickens(o: RuleOptions, flip: int | None, weekday: int | None) -> FlipChickens:
    if flip is None:
        return FlipChickens({}, frozenset())
    unit = CHUAN_UNIT if o.chickens == "chuan" else 1
    kinds: list[tuple[int, ChickenKind]] = []
    if o.flip_chickens == "next":
        kinds.append((next_kind(flip), ChickenKind.FANPAI))
    elif o.flip_chickens == "both":
        kinds += [(prev_kind(flip), ChickenKind.YAOBAI), (next_kind(flip), ChickenKind.YAOBAI)]
    standing = standing_values(o)
    gold = frozenset(k for k, _ in kinds if k in standing)
    if o.benji:
        kinds.append((flip, ChickenKind.BENJI))
    kinds += [(kind, ChickenKind.XINGQI) for kind in weekday_kinds(o, weekday)]
    extra: dict[int, tuple[int, ChickenKind]] = {}
    for kind, what in kinds:  # the first reading of a kind wins: all are worth one unit
        extra.setdefault(kind, (unit, what))
    return FlipChickens(extra, gold)


def blown_away(r: RoundRecord) -> bool:
    """吹风鸡 (§13.13): the flip is 5p, so no chicken of the round scores."""
    return r.opts.chuifengji and r.flip == CHUIFENG_FLIP


def chongfeng_seats(r: RoundRecord) -> dict[int, int]:
    """The 冲锋 tiles: kind → the seat that discarded it (unclaimed), per `chongfeng_scope`."""
    standing = standing_values(r.opts)
    firsts = [fd for fd in r.first_discards if fd.kind in standing]
    if r.opts.chongfeng_scope == "round":
        firsts = firsts[:1]
    return {fd.kind: fd.seat for fd in firsts if not r.discards[fd.seat][fd.row_index].claimed}


# ----- tallies -----


def _held_counts(r: RoundRecord, seat: int) -> list[int]:
    """Concealed + melded counts, with the winning tile if this seat owns it."""
    counts = list(r.hands[seat])
    for w in r.winners:
        if w.seat == seat and w.how != "zimo" and w.owns_tile and w.tile is not None:
            counts[w.tile] += 1
    for m in r.melds[seat]:
        counts[m.tile] += m.size
    return counts


def _discard_counts(r: RoundRecord, seat: int) -> list[int]:
    counts = [0] * NUM_KINDS
    for rec in r.discards[seat]:
        if not rec.claimed:
            counts[rec.tile] += 1
    return counts


def _tally(
    r: RoundRecord,
    seat: int,
    flip: FlipChickens,
    chongfeng: dict[int, int],
    kinds: tuple[int, ...],
) -> ChickenTally:
    """The seat's chickens among `kinds`: every kind that can be a chicken this round (standing
    or made by the flip), in kind order, so the lines come in kind order; no other kind adds a
    line."""
    o = r.opts
    tally = ChickenTally(seat)
    held = _held_counts(r, seat)
    if o.discards_are_chickens:
        discarded = _discard_counts(r, seat)
    else:  # a 冲锋 tile still counts for its discarder (§13 fine points)
        discarded = [0] * NUM_KINDS
        for kind, owner in chongfeng.items():
            if owner == seat:
                discarded[kind] += 1
    standing = standing_values(o)
    men_gangs = [0] * NUM_KINDS
    if o.chickens == "chuan":
        for m in r.melds[seat]:
            if m.kind == "an":
                men_gangs[m.tile] += 1
    for kind in kinds:
        n = held[kind] + discarded[kind]
        if not n:
            continue
        if kind in standing:
            gold = kind in flip.gold
            tag = "金" if gold else ""
            if chongfeng.get(kind) == seat:
                charge = chongfeng_value(o, kind, gold)
                tally.add(kind, 1, charge, "冲锋" + tag, ChickenKind.CHONGFENG, gold)
                n -= 1
            each = standing[kind] * (2 if gold else 1)
            tally.add(kind, n, each, tag, STANDING_KIND[kind], gold)
        elif kind in flip.extra:
            each, what = flip.extra[kind]
            men = men_gangs[kind]
            tally.add(kind, n - 4 * men, each, _TAGS[what], what)
            tally.add(kind, men, each * CHUAN_MEN_GANG, "闷豆", ChickenKind.MENDOU)
    return tally


_TAGS = {  # the plain 翻牌鸡 is untagged in a detail line (`1m×3=3`: RULES.md's worked scripts)
    ChickenKind.FANPAI: "",
    ChickenKind.YAOBAI: "摇摆",
    ChickenKind.BENJI: "本鸡",
    ChickenKind.XINGQI: "星期",
}


def chicken_tallies(
    r: RoundRecord,
    draw: bool,
    flip: FlipChickens | None = None,
    chongfeng: dict[int, int] | None = None,
) -> list[ChickenTally]:
    """Every seat's chicken units. In a 荒庄 (draw=True) there is no flip and so no gold.
    `flip` and `chongfeng` (`flip_chickens`, `chongfeng_seats`) if the caller has them."""
    if flip is None:
        flip = flip_chickens(r.opts, None if draw else r.flip, r.weekday)
    if chongfeng is None:
        chongfeng = chongfeng_seats(r)
    kinds = tuple(sorted({*standing_values(r.opts), *flip.extra}))
    return [_tally(r, s, flip, chongfeng, kinds) for s in range(4)]


def exposed_tally(
    r: RoundRecord,
    seat: int,
    flip: FlipChickens | None = None,
    chongfeng: dict[int, int] | None = None,
) -> ChickenTally:
    """包鸡 (guiyang): units of the seat's exposed standing chickens (melded, or discarded where
    discards are chickens; its 冲锋 tile always). `flip` and `chongfeng` (`flip_chickens` of the
    round's flip, `chongfeng_seats`) if the caller has them."""
    o = r.opts
    if flip is None:
        flip = flip_chickens(o, r.flip, r.weekday)
    gold = flip.gold
    if chongfeng is None:
        chongfeng = chongfeng_seats(r)
    tally = ChickenTally(seat)
    for kind, standing in standing_values(o).items():
        is_gold = kind in gold
        tag = "金" if is_gold else ""
        n = sum(m.size for m in r.melds[seat] if m.tile == kind)
        if o.discards_are_chickens:
            n += sum(1 for rec in r.discards[seat] if rec.tile == kind and not rec.claimed)
        elif chongfeng.get(kind) == seat:
            n += 1
        if n and chongfeng.get(kind) == seat:
            charge = chongfeng_value(o, kind, is_gold)
            tally.add(kind, 1, charge, "冲锋" + tag, ChickenKind.CHONGFENG, is_gold)
            n -= 1
        each = standing * (2 if is_gold else 1)
        tally.add(kind, n, each, tag, STANDING_KIND[kind], is_gold)
    return tally


def zeren_tallies(
    r: RoundRecord, flip: FlipChickens | None = None
) -> list[tuple[int, int, ChickenTally]]:
    """责任鸡 (guiyang): (claimer, discarder, its one line) for each first 1s/8p claimed: the
    extra is `zeren_extra` per 1s, twice it per 8p, doubled when gold (§13.2). An extra of 0
    makes no payment (and no line): the claimed tile still counts as the claimer's chicken.
    `flip`: `flip_chickens` of the round's flip, if the caller has it."""
    o = r.opts
    if o.chickens != "guiyang":
        return []
    standing = standing_values(o)
    gold = (flip if flip is not None else flip_chickens(o, r.flip, r.weekday)).gold
    found = []
    for kind, claimer, discarder in r.zeren:
        if kind not in standing:
            continue
        units = o.zeren_extra * (2 if kind == WUGUJI else 1) * (2 if kind in gold else 1)
        if units <= 0:  # `zeren_extra 0`: the claimed tile is an ordinary chicken of the claimer
            continue
        tally = ChickenTally(claimer)
        tag = f"first {tile_name(kind)} claimed from seat {discarder}"
        tally.add(kind, 1, units, tag, ChickenKind.ZEREN, kind in gold)
        found.append((claimer, discarder, tally))
    return found
