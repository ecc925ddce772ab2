"""The round settlement sheet, worked out from the server's result (`Settlement.to_dict()` and the
revealed hands and melds): every seat's final hand, the flip and the chicken it makes, each seat's
chickens, the 豆, every payment (payer, payee, `kind`, amount; the engine's `detail` only as a
note), and each seat's total per kind, which must add up to the nets the server sent.

Pure: the settlement screen only lays this out.

>>> flip_chickens("5p", "guiyang")
(('6p', '翻牌'),)
>>> flip_chickens("9s", "guiyang")
(('1s', '金'),)
>>> flip_chickens("1s", "anshun")
(('9s', '摇摆'), ('2s', '摇摆'))
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from client_tui.view import MeldV, ResultV, WinV
from rules.tiles import WUGUJI, YAOJI, next_kind, parse_tile, prev_kind, tile_name

ITEM_ORDER = ("hand", "repao", "baopai", "chajiao", "dou", "chicken", "zeren", "baoji")
"""The payment kinds, in the order the sheet lists their totals (others follow, sorted)."""


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
    """One payment. `kind` is the fine label (hand, repao, baopai, dou, chicken, baoji, zeren,
    chajiao), `item` the engine's coarser one; `how` says how the payee won, for a hand payment
    (zimo, discard, rob) when the client saw the win."""

    payer: int
    payee: int
    kind: str
    amount: int
    detail: str
    item: str = ""
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

    @property
    def adds_up(self) -> bool:
        """The payments add up to the nets, and the nets to zero."""
        return self.computed == self.net and sum(self.net) == 0


_SEAT = re.compile(r"\bseat ([0-3])\b")
_TILE = re.compile(r"(?<![0-9A-Za-z])([1-9][mps])(?![0-9A-Za-z])")


def payment_note(detail: str, name: Callable[[int], str], tile: Callable[[str], str]) -> str:
    """The engine's `detail` as a note for the sheet: its seat numbers (0–3) as player names and
    its tiles as the interface shows them.

    >>> payment_note("点豆 3s (fed by seat 3)", lambda s: f"P{s + 1}", lambda t: t.upper())
    '点豆 3S (fed by P4)'
    """
    detail = _SEAT.sub(lambda m: name(int(m.group(1))), detail)
    return _TILE.sub(lambda m: tile(m.group(1)), detail)


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


def _hand_rows(res: ResultV, winners: tuple[WinLine, ...], chickens: tuple[ChickenRow, ...],
               chickens_rule: str) -> tuple[HandRow, ...]:  # fmt: skip
    """Each seat's revealed hand; () when the result does not reveal them."""
    hands, melds = res.hands, res.melds
    if hands is None:
        return ()
    marks = {row.seat: frozenset(ln.tile for ln in row.lines) for row in chickens}
    rows = []
    for seat in range(4):
        mine = marks.get(seat, frozenset())
        discarded: tuple[str, ...] = ()
        if chickens_rule != "chuan" and len(res.discards) == 4:
            discarded = tuple(d.tile for d in res.discards[seat]
                              if not d.claimed and d.tile in mine)  # fmt: skip
        tiles = list(hands[seat])
        win = next((w for w in winners if w.seat == seat), None)
        tile = win.tile if win is not None else None
        how = win.how if win is not None else None
        if how == "zimo" and tile is not None and tile in tiles:
            tiles.remove(tile)  # a 自摸 hand holds the winning tile: shown apart, marked
        rows.append(HandRow(seat, tuple(tiles), melds[seat] if melds is not None else (),
                            tile, how, mine, discarded))  # fmt: skip
    return tuple(rows)


def build_sheet(res: ResultV, chickens_rule: str = "guiyang") -> Sheet:
    """The sheet for one finished round."""
    result = res.result
    ready = tuple(bool(x) for x in result.get("ready", (False,) * 4))
    winners = _winners(result, res.winners)
    how = {w.seat: w.how for w in winners}
    payments = []
    for p in result.get("payments", []):
        item = str(p.get("item", ""))
        kind = str(p.get("kind") or item)
        payments.append(
            PaymentRow(int(p["from"]), int(p["to"]), kind, int(p["amount"]),
                       str(p.get("detail", "")), item,
                       how.get(int(p["to"])) if kind == "hand" else None)
        )  # fmt: skip
    computed = [0, 0, 0, 0]
    per_item: dict[str, list[int]] = {}
    for p in payments:
        computed[p.payer] -= p.amount
        computed[p.payee] += p.amount
        row = per_item.setdefault(p.kind, [0, 0, 0, 0])
        row[p.payer] -= p.amount
        row[p.payee] += p.amount
    items = tuple(i for i in ITEM_ORDER if i in per_item) + tuple(
        sorted(i for i in per_item if i not in ITEM_ORDER)
    )
    winner_seats = {w.seat for w in winners}
    # 责任鸡 and 包鸡 per seat and tag, summed (a 包鸡 is paid to each collector in turn).
    extras: dict[int, dict[str, int]] = {s: {} for s in range(4)}
    for p in payments:
        if p.kind in ("zeren", "baoji"):
            tag = "责任" if p.kind == "zeren" else "包鸡"
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
        payments=tuple(payments),
        items=items,
        by_item={k: tuple(v) for k, v in per_item.items()},
        net=res.net,
        computed=tuple(computed),
        ready=ready,
        next_dealer=int(result.get("next_dealer", 0)),
        next_streak=int(result.get("next_streak", 0)),
        scores=res.scores,
        hands=_hand_rows(res, winners, tuple(chicken_rows), chickens_rule),
        fair=res.fair,
    )
