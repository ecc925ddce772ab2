"""The round settlement sheet, worked out from the server's result (`Settlement.to_dict()`):
the flip and the chicken it makes, each seat's chickens, the 豆, every payment, and each seat's
total per item, which must add up to the nets the server sent.

Pure: the settlement screen only lays this out.

>>> flip_chickens("5p", "guiyang")
(('6p', '翻牌'),)
>>> flip_chickens("9s", "guiyang")
(('1s', '金'),)
>>> flip_chickens("1s", "anshun")
(('9s', '摇摆'), ('2s', '摇摆'))
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from client_tui.view import ResultV, WinV
from rules.tiles import WUGUJI, YAOJI, next_kind, parse_tile, prev_kind, tile_name

ITEM_ORDER = ("hand", "repao", "baopai", "chajiao", "dou", "chicken", "zeren", "baoji")


@dataclass(frozen=True, slots=True)
class ChickenLine:
    tile: str
    count: int
    each: int
    tag: str
    units: int


@dataclass(frozen=True, slots=True)
class ChickenRow:
    """A seat's chicken tiles; `collects` when the seat won or is ready (only then is it paid).
    `extras` are its 责任鸡 and 包鸡 payments as (tag, signed amount)."""

    seat: int
    lines: tuple[ChickenLine, ...]
    units: int
    collects: bool
    extras: tuple[tuple[str, int], ...] = ()


@dataclass(frozen=True, slots=True)
class DouRow:
    seat: int
    tile: str | None
    dou: str | None
    kind: str
    scores: bool
    why: str


@dataclass(frozen=True, slots=True)
class PaymentRow:
    payer: int
    payee: int
    item: str
    amount: int
    detail: str


@dataclass(frozen=True, slots=True)
class WinLine:
    seat: int
    pattern: str
    bonuses: tuple[str, ...]
    how: str | None = None
    tile: str | None = None
    from_seat: int | None = None
    void: bool = False


@dataclass(frozen=True, slots=True)
class Sheet:
    round_no: int
    outcome: str
    winners: tuple[WinLine, ...]
    flip: str | None
    flip_makes: tuple[tuple[str, str], ...]
    chickens: tuple[ChickenRow, ...]
    dou: tuple[DouRow, ...]
    payments: tuple[PaymentRow, ...]
    items: tuple[str, ...]
    by_item: dict[str, tuple[int, ...]]
    net: tuple[int, ...]
    computed: tuple[int, ...]
    ready: tuple[bool, ...]
    next_dealer: int
    next_streak: int
    scores: tuple[int, ...]

    @property
    def adds_up(self) -> bool:
        """The payments add up to the nets, and the nets to zero."""
        return self.computed == self.net and sum(self.net) == 0


def flip_chickens(flip: str | None, chickens: str) -> tuple[tuple[str, str], ...]:
    """What the flipped tile makes a chicken of, under the preset's chicken rules (§6)."""
    if flip is None:
        return ()
    k = parse_tile(flip)
    nxt = next_kind(k)
    if chickens == "anshun":
        swing = (prev_kind(k), nxt)
        return tuple((tile_name(s), "金" if s == YAOJI else "摇摆") for s in swing)
    if chickens == "guiyang" and nxt in (YAOJI, WUGUJI):
        return ((tile_name(nxt), "金"),)
    return ((tile_name(nxt), "翻牌"),)


def _winners(result: dict[str, Any], wins: tuple[WinV, ...]) -> tuple[WinLine, ...]:
    by_seat = {w.seat: w for w in wins}
    out = []
    for w in result.get("winners", []):
        seen = by_seat.get(w["seat"])
        out.append(
            WinLine(
                seat=w["seat"], pattern=w["pattern"], bonuses=tuple(w.get("bonuses", ())),
                how=seen.how if seen else None, tile=seen.tile if seen else None,
                from_seat=seen.from_seat if seen else None, void=bool(w.get("void", False)),
            )
        )  # fmt: skip
    return tuple(out)


def build_sheet(res: ResultV, chickens_rule: str = "guiyang") -> Sheet:
    """The sheet for one finished round."""
    result = res.result
    ready = tuple(bool(x) for x in result.get("ready", (False,) * 4))
    payments = tuple(
        PaymentRow(
            p["from"], p["to"], p.get("kind", p["item"]), int(p["amount"]), str(p.get("detail", ""))
        )
        for p in result.get("payments", [])
    )
    computed = [0, 0, 0, 0]
    per_item: dict[str, list[int]] = {}
    for p in payments:
        computed[p.payer] -= p.amount
        computed[p.payee] += p.amount
        row = per_item.setdefault(p.item, [0, 0, 0, 0])
        row[p.payer] -= p.amount
        row[p.payee] += p.amount
    items = tuple(i for i in ITEM_ORDER if i in per_item) + tuple(
        sorted(i for i in per_item if i not in ITEM_ORDER)
    )
    winners = _winners(result, res.winners)
    winner_seats = {w.seat for w in winners}
    # 责任鸡 and 包鸡 per seat and tag, summed (a 包鸡 is paid to each collector in turn).
    extras: dict[int, dict[str, int]] = {s: {} for s in range(4)}
    for p in payments:
        if p.item in ("zeren", "baoji"):
            tag = "责任" if p.item == "zeren" else "包鸡"
            extras[p.payee][tag] = extras[p.payee].get(tag, 0) + p.amount
            extras[p.payer][tag] = extras[p.payer].get(tag, 0) - p.amount
    chicken_rows = []
    for c in result.get("chickens", []):
        seat = int(c["seat"])
        lines = tuple(
            ChickenLine(ln["tile"], int(ln["count"]), int(ln["each"]), str(ln.get("tag", "")),
                        int(ln["units"]))
            for ln in c.get("lines", [])
        )  # fmt: skip
        collects = chickens_rule == "chuan" or ready[seat] or seat in winner_seats
        chicken_rows.append(
            ChickenRow(
                seat, lines, int(c.get("units", 0)), collects, tuple(extras[seat].items())
            )  # fmt: skip
        )
    dou_rows = tuple(
        DouRow(int(d["seat"]), d.get("tile"), d.get("dou"), str(d.get("kind", "")),
               bool(d.get("scores", False)), str(d.get("why", "")))
        for d in result.get("dou", [])
    )  # fmt: skip
    flip = result.get("flip")
    return Sheet(
        round_no=res.round_no,
        outcome=str(result.get("outcome", "")),
        winners=winners,
        flip=flip,
        flip_makes=flip_chickens(flip, chickens_rule),
        chickens=tuple(chicken_rows),
        dou=dou_rows,
        payments=payments,
        items=items,
        by_item={k: tuple(v) for k, v in per_item.items()},
        net=res.net,
        computed=tuple(computed),
        ready=ready,
        next_dealer=int(result.get("next_dealer", 0)),
        next_streak=int(result.get("next_streak", 0)),
        scores=res.scores,
    )
