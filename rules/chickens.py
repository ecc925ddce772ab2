"""鸡 (chickens): which tiles a player counts and what they are worth (RULES.md §6, §12.14–19).

A player's chicken tiles are their concealed hand, their melds, their own unclaimed discards (not
in chuan) and, for the first winner after the discarder, the winning tile.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from rules.kinds import ChickenKind
from rules.record import RoundRecord
from rules.tiles import NUM_KINDS, WUGUJI, YAOJI, next_kind, prev_kind, tile_name

# guiyang: (standing value, 冲锋 value) per tile; gold doubles both.
GUIYANG_STANDING = {YAOJI: (1, 3), WUGUJI: (2, 6)}
GUIYANG_ZEREN = {YAOJI: 2, WUGUJI: 4}
STANDING_KIND = {YAOJI: ChickenKind.YAOJI, WUGUJI: ChickenKind.WUGUJI}
CHUAN_TILE = 10
CHUAN_MEN_GANG = 60
ANSHUN_FIXED, ANSHUN_GOLD, ANSHUN_CHONGFENG, ANSHUN_CHONGFENG_GOLD = 1, 2, 2, 3


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
            {"tile": tile_name(kind), "count": count, "each": each, "tag": tag,
             "units": count * each, "kind": what.value, "gold": gold}
        )  # fmt: skip

    @property
    def detail(self) -> str:
        return ", ".join(
            f"{ln['tile']}{' ' + ln['tag'] if ln['tag'] else ''}×{ln['count']}={ln['units']}"
            for ln in self.lines
        )

    def to_dict(self) -> dict[str, Any]:
        return {"seat": self.seat, "units": self.units, "lines": self.lines}

    def details(self) -> dict[str, Any]:
        """A chicken payment's details: its lines (kind, tile, count, each, units, gold)."""
        return {
            "chickens": [
                {k: ln[k] for k in ("kind", "tile", "count", "each", "units", "gold")}
                for ln in self.lines
            ]
        }


def _chongfeng_records(r: RoundRecord) -> dict[int, tuple[int, int]]:
    """The first discard of 1s / 8p, if nobody claimed it: kind → (seat, index in row)."""
    found: dict[int, tuple[int, int]] = {}
    for kind, seat, idx in r.first_discards:
        if not r.discards[seat][idx].claimed:
            found[kind] = (seat, idx)
    return found


def _held_counts(r: RoundRecord, seat: int, with_discards: bool) -> tuple[list[int], list[int]]:
    """(concealed + melded counts, own unclaimed discard counts)."""
    counts = list(r.hands[seat])
    for w in r.winners:
        if w.seat == seat and w.how != "zimo" and w.owns_tile and w.tile is not None:
            counts[w.tile] += 1
    for m in r.melds[seat]:
        counts[m.tile] += m.size
    discards = [0] * NUM_KINDS
    if with_discards:
        for rec in r.discards[seat]:
            if not rec.claimed:
                discards[rec.tile] += 1
    return counts, discards


def _guiyang_tally(r: RoundRecord, seat: int, fan: int | None, gold: int | None) -> ChickenTally:
    tally = ChickenTally(seat)
    held, discarded = _held_counts(r, seat, with_discards=True)
    chongfeng = _chongfeng_records(r)
    for kind in range(NUM_KINDS):
        n = held[kind] + discarded[kind]
        if not n:
            continue
        if kind in GUIYANG_STANDING:
            standing, charge = GUIYANG_STANDING[kind]
            mult = 2 if gold == kind else 1
            gold_tag = "金" if gold == kind else ""
            if chongfeng.get(kind, (-1, -1))[0] == seat:
                tally.add(
                    kind, 1, charge * mult, "冲锋" + gold_tag, ChickenKind.CHONGFENG, gold == kind
                )
                n -= 1
            tally.add(kind, n, standing * mult, gold_tag, STANDING_KIND[kind], gold == kind)
        elif kind == fan:
            tally.add(kind, n, 1, "翻牌", ChickenKind.FANPAI)
    return tally


def _chuan_tally(r: RoundRecord, seat: int, fan: int | None) -> ChickenTally:
    tally = ChickenTally(seat)
    if fan is None:
        return tally
    held, _ = _held_counts(r, seat, with_discards=False)
    men = sum(1 for m in r.melds[seat] if m.kind == "an" and m.tile == fan)
    tally.add(fan, held[fan] - 4 * men, CHUAN_TILE, "翻牌", ChickenKind.FANPAI)
    tally.add(fan, men, CHUAN_MEN_GANG, "闷豆", ChickenKind.MENDOU)
    return tally


def _anshun_tally(r: RoundRecord, seat: int, flip: int | None) -> ChickenTally:
    tally = ChickenTally(seat)
    held, discarded = _held_counts(r, seat, with_discards=True)
    swing = {next_kind(flip), prev_kind(flip)} if flip is not None else set()
    gold = YAOJI in swing
    chongfeng = _chongfeng_records(r)
    for kind in range(NUM_KINDS):
        n = held[kind] + discarded[kind]
        if not n:
            continue
        if kind == YAOJI:
            if chongfeng.get(kind, (-1, -1))[0] == seat:
                charge = ANSHUN_CHONGFENG_GOLD if gold else ANSHUN_CHONGFENG
                tally.add(
                    kind, 1, charge, "冲锋金" if gold else "冲锋", ChickenKind.CHONGFENG, gold
                )
                n -= 1
            tally.add(
                kind,
                n,
                ANSHUN_GOLD if gold else ANSHUN_FIXED,
                "金" if gold else "",
                ChickenKind.YAOJI,
                gold,
            )
        elif kind in swing:
            tally.add(kind, n, 1, "摇摆", ChickenKind.YAOBAI)
    return tally


def chicken_tallies(r: RoundRecord, draw: bool) -> list[ChickenTally]:
    """Every seat's chicken units. In a 荒庄 (draw=True) there is no flip and so no gold."""
    flip = None if draw else r.flip
    if r.opts.chickens == "chuan":
        fan = next_kind(flip) if flip is not None else None
        return [_chuan_tally(r, s, fan) for s in range(4)]
    if r.opts.chickens == "anshun":
        return [_anshun_tally(r, s, flip) for s in range(4)]
    fan = next_kind(flip) if flip is not None else None
    gold = fan if fan in GUIYANG_STANDING else None
    return [_guiyang_tally(r, s, fan, gold) for s in range(4)]


def _gold(r: RoundRecord) -> int | None:
    if r.flip is None:
        return None
    fan = next_kind(r.flip)
    return fan if fan in GUIYANG_STANDING else None


def exposed_tally(r: RoundRecord, seat: int) -> ChickenTally:
    """包鸡 (guiyang): units of the seat's exposed 幺鸡 and 乌骨鸡 (melded or discarded)."""
    gold = _gold(r)
    tally = ChickenTally(seat)
    chongfeng = _chongfeng_records(r)
    for kind, (standing, charge) in GUIYANG_STANDING.items():
        mult = 2 if gold == kind else 1
        tag = "金" if gold == kind else ""
        n = sum(m.size for m in r.melds[seat] if m.tile == kind)
        n += sum(1 for rec in r.discards[seat] if rec.tile == kind and not rec.claimed)
        if n and chongfeng.get(kind, (-1, -1))[0] == seat:
            tally.add(kind, 1, charge * mult, "冲锋" + tag, ChickenKind.CHONGFENG, gold == kind)
            n -= 1
        tally.add(kind, n, standing * mult, tag, STANDING_KIND[kind], gold == kind)
    return tally


def zeren_tallies(r: RoundRecord) -> list[tuple[int, int, ChickenTally]]:
    """责任鸡 (guiyang): (claimer, discarder, its one line) for each first 1s/8p claimed."""
    gold = _gold(r)
    found = []
    for kind, claimer, discarder in r.zeren:
        tally = ChickenTally(claimer)
        units = GUIYANG_ZEREN[kind] * (2 if gold == kind else 1)
        tag = f"first {tile_name(kind)} claimed from seat {discarder}"
        tally.add(kind, 1, units, tag, ChickenKind.ZEREN, gold == kind)
        found.append((claimer, discarder, tally))
    return found
