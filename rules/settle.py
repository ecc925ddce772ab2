"""Settlement of a finished round: RULES.md §5 (豆), §6 (鸡), §7 (查叫), §8 (hand, dealer).

`settle(record)` (a `rules.record.RoundRecord`, built by the Round when it ends) lists every payment (payer, payee, item, amount × base, a readable detail) and
each seat's net; the nets always sum to zero.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from rules.chickens import (
    ChickenTally,
    blown_away,
    chicken_tallies,
    chongfeng_seats,
    exposed_tally,
    flip_chickens,
    zeren_tallies,
)
from rules.kinds import DOU_KIND_OF_MELD, ITEM_OF_KIND, BonusKind, DouVoid, PaymentKind
from rules.options import PATTERN_KIND, Pattern, RuleOptions
from rules.patterns import Meld, ready_pattern
from rules.record import RoundRecord, WinInfo
from rules.tiles import tile_name


@dataclass(frozen=True, slots=True)
class Payment:
    """One payment. `detail` is a readable line; `details` says the same in identifiers and
    numbers (docs/ENGINE.md, "Settlement details"), for a client to word in its own language."""

    payer: int
    payee: int
    item: str  # hand | dou | chicken | chajiao (RULES.md §8: hand, 豆 and 鸡 are separate items)
    amount: int  # units × base
    detail: str
    kind: str  # a `PaymentKind`: the item itself, or repao / baopai (hand), baoji / zeren (chicken)
    details: dict[str, Any] = field(default_factory=dict, compare=False)

    def to_dict(self, *, notes: bool = False) -> dict[str, Any]:
        """The JSON form; `notes`: with the readable `detail` (the replay's form)."""
        d: dict[str, Any] = {"from": self.payer, "to": self.payee, "item": self.item}
        d["amount"] = self.amount
        if notes:
            d["detail"] = self.detail
        d["kind"] = self.kind
        d["details"] = self.details
        return d


@dataclass(slots=True)
class Settlement:
    outcome: str  # win | draw
    flip: int | None
    payments: list[Payment]
    net: list[int]
    next_dealer: int
    next_streak: int
    ready: list[bool]
    chickens: list[dict[str, Any]] = field(default_factory=list)
    dou: list[dict[str, Any]] = field(default_factory=list)
    wins: list[dict[str, Any]] = field(default_factory=list)  # each winner, in identifiers

    def to_dict(self, *, notes: bool = False) -> dict[str, Any]:
        """The JSON form, in identifiers and numbers only (`protocol.settlement.RoundResult`
        less the revealed hands and melds). `notes`: with the engine's readable notes (each
        payment's `detail`, each chicken line's `tag`), as the replay writes it."""
        chickens = self.chickens
        if not notes:
            chickens = [
                {**t, "lines": [{k: v for k, v in ln.items() if k != "tag"} for ln in t["lines"]]}
                for t in chickens
            ]
        return {
            "outcome": self.outcome,
            "wins": self.wins,
            "flip": tile_name(self.flip) if self.flip is not None else None,
            "payments": [p.to_dict(notes=notes) for p in self.payments],
            "net": self.net,
            "next_dealer": self.next_dealer,
            "next_streak": self.next_streak,
            "ready": self.ready,
            "chickens": chickens,
            "dou": self.dou,
        }


def _after(seat: int) -> list[int]:
    """The other three seats in play order after `seat`."""
    return [(seat + 1) % 4, (seat + 2) % 4, (seat + 3) % 4]


# Per payment kind: (its item, its value as a plain string); an enum's `.value` is a slow
# property, and a round makes a dozen payments
_ITEM_AND_VALUE: dict[PaymentKind, tuple[str, str]] = {
    k: (ITEM_OF_KIND.get(k, k.value), k.value) for k in PaymentKind
}


class _Ledger:
    def __init__(self, base: int) -> None:
        self.base = base
        self.payments: list[Payment] = []

    def pay(
        self,
        payer: int,
        payee: int,
        kind: PaymentKind,
        units: int,
        detail: str,
        details: dict[str, Any],
    ) -> None:
        """Record a payment of `units` × base; `details` gets its `units` added."""
        if units > 0 and payer != payee:
            item, value = _ITEM_AND_VALUE[kind]
            full = {**details, "units": units}
            self.payments.append(
                Payment(payer, payee, item, units * self.base, detail, value, full)
            )

    def net(self) -> list[int]:
        net = [0, 0, 0, 0]
        for p in self.payments:
            net[p.payer] -= p.amount
            net[p.payee] += p.amount
        return net


def settle(r: RoundRecord) -> Settlement:
    """Settle a finished round from its record."""
    ledger = _Ledger(r.base)
    winner_seats = {w.seat for w in r.winners}
    ready = [s in winner_seats or r.is_ready(s) for s in range(4)]  # a winner is ready
    if r.exhausted:
        return _settle_draw(r, ledger, ready)
    voids = [w for w in r.winners if w.void]
    if voids:
        for w in voids:
            _pay_baopai(r, ledger, w)
        chickens: list[dict[str, Any]] = []
        dous: list[dict[str, Any]] = []
    else:
        for w in r.winners:
            _pay_hand(r, ledger, w)
        dous = _pay_dou(r, ledger, ready)
        chickens = _pay_chickens(r, ledger, ready)
    return _settlement(r, ledger, ready, _next_dealer_after_win(r), chickens, dous)


def _settlement(
    r: RoundRecord,
    ledger: _Ledger,
    ready: list[bool],
    dealer: int,
    chickens: list[dict[str, Any]],
    dous: list[dict[str, Any]],
) -> Settlement:
    return Settlement(
        outcome="draw" if r.exhausted else "win",
        flip=r.flip,
        payments=ledger.payments,
        net=ledger.net(),
        next_dealer=dealer,
        next_streak=r.streak + 1 if dealer == r.dealer else 0,
        ready=ready,
        chickens=chickens,
        dou=dous,
        wins=[_win_dict(r, w) for w in r.winners],
    )


def _win_dict(r: RoundRecord, w: WinInfo) -> dict[str, Any]:
    """A winner in identifiers: `pattern` a PatternKind, `bonuses` BonusKinds (every situation
    of the win, whether or not the preset gives it units)."""
    return {
        "seat": w.seat,
        "pattern": PATTERN_KIND[w.pattern].value,
        "pattern_units": w.value,
        "bonuses": [b.value for b in w.bonus_kinds(r.opts)],
        "how": w.how,
        "tile": tile_name(w.tile) if w.tile is not None else None,
        "from": w.from_seat,
        "void": w.void,
    }


# ----- hand payments (§8.1) -----


def _dealer_extra(r: RoundRecord, a: int, b: int) -> tuple[int, int]:
    """(坐庄, 连庄) units on a payment between a and b, where the table has them (§13.14:
    +1 + streak whatever the preset's scale)."""
    if r.opts.dealer_scoring == "lianzhuang" and r.dealer in (a, b):
        return 1, r.streak
    return 0, 0


def _hand_units(r: RoundRecord, w: WinInfo) -> tuple[int, list[str], list[dict[str, Any]]]:
    """Pattern + bonuses, before the dealer and the multiplier: units, readable parts, and the
    bonuses as `{"kind", "units"}` (only those worth something)."""
    o = r.opts
    parts = [f"{w.pattern.value} {w.value}"]
    units = w.value
    bonuses: list[dict[str, Any]] = []
    extras: list[tuple[bool, int, BonusKind]] = [
        (w.declared and o.declare == "tianting", o.tianting_value, BonusKind.TIANTING),
        (w.zimo, o.zimo_bonus, BonusKind.ZIMO),
        (w.gangkai, o.gangkai_bonus, BonusKind.GANGKAI),
        (w.hot, o.repao_bonus, BonusKind.REPAO),
        (w.tianhu, o.tianhu_bonus, BonusKind.TIANHU),
        (w.dihu, o.dihu_bonus, BonusKind.DIHU),
        (w.declared and o.declare == "baoting", o.baoting_bonus, BonusKind.BAOTING),
        (w.shabao, o.shabao_value, BonusKind.SHABAO),
        (_yikouer(o, w), 1, BonusKind.YIKOUER),
    ]
    for applies, value, bonus in extras:
        if applies and value:
            units += value
            parts.append(f"{bonus.zh} {value}")
            bonuses.append({"kind": bonus.value, "units": value})
    return units, parts, bonuses


def _share(
    r: RoundRecord,
    w: WinInfo,
    payer: int,
    hand: tuple[int, list[str], list[dict[str, Any]]] | None = None,
) -> tuple[int, str, dict[str, Any]]:
    """What `payer` owes winner `w` for the hand, as if alone (before 抢杠 summing). `hand`:
    `_hand_units(r, w)`, made once per winner when it has several payers (not changed here)."""
    units, parts, bonuses = hand if hand is not None else _hand_units(r, w)
    parts = list(parts)
    dealer, streak = _dealer_extra(r, payer, w.seat)
    if dealer or streak:
        units += dealer + streak
        parts.append(f"坐庄/连庄 {dealer + streak}")
    text = " + ".join(parts)
    multiplier = 2 if r.opts.zimo_double and w.zimo else 1
    if multiplier != 1:
        units *= multiplier
        text = f"({text}) × {multiplier}"
    after: list[dict[str, Any]] = []
    if w.zimo and r.opts.declare == "tianting" and r.declared[payer]:
        units += r.opts.shabao_value  # 杀报: a 天听 player pays 10 more on another's 自摸
        text += f" + 杀报 {r.opts.shabao_value}"
        after.append({"kind": BonusKind.SHABAO.value, "units": r.opts.shabao_value})
    details: dict[str, Any] = {
        "pattern": PATTERN_KIND[w.pattern].value,
        "pattern_units": w.value,
        "bonuses": bonuses,
        "dealer": dealer,
        "streak": streak,
        "multiplier": multiplier,
        "after_multiplier": after,
    }
    units, text = _capped(r.opts, units, text, details)
    details["units"] = units
    return units, text, details


def _yikouer(o: RuleOptions, w: WinInfo) -> bool:
    """一扣二 (§13.14): a 平胡 won by 自摸 (a 抢杠 share counts as one) earns +1 from each payer."""
    return o.dealer_scoring == "yikouer" and w.zimo and w.pattern is Pattern.PINGHU


def _capped(o: RuleOptions, units: int, text: str, details: dict[str, Any]) -> tuple[int, str]:
    """封顶 (§13.17): a hand payment from one payer to one winner is at most `hand_cap`."""
    if o.hand_cap is not None and units > o.hand_cap:
        details["cap"] = o.hand_cap
        return o.hand_cap, f"{text} (封顶 {o.hand_cap})"
    return units, text


def _pay_hand(r: RoundRecord, ledger: _Ledger, w: WinInfo) -> None:
    hand = _hand_units(r, w)
    if w.how == "zimo":
        for payer in _after(w.seat):
            units, text, details = _share(r, w, payer, hand)
            ledger.pay(payer, w.seat, PaymentKind.HAND, units, f"自摸 {text}", details)
        return
    assert w.from_seat is not None
    discarder: int = w.from_seat
    if w.how == "rob":
        total = 0
        texts = []
        shares = []
        for other in _after(w.seat):
            units, text, details = _share(r, w, other, hand)
            total += units
            texts.append(text)
            shares.append({**details, "for": other})
        detail = "抢杠 (pays for three): " + "; ".join(texts)
        ledger.pay(discarder, w.seat, PaymentKind.HAND, total, detail, _rob_details(shares))
        return
    units, text, details = _share(r, w, discarder, hand)
    ledger.pay(discarder, w.seat, PaymentKind.HAND, units, f"discard win: {text}", details)
    if w.hot and r.opts.repao_void_gang and r.hot_gang is not None:
        gang = r.hot_gang
        form = gang.form
        value = {"men": r.opts.repao_men, "zhuanwan": r.opts.repao_zhuanwan}.get(
            form or "", r.opts.repao_dian
        )
        repao: dict[str, Any] = {"dou": _dou_ref(gang, form)}
        detail = f"热炮 after {_dou_name(gang)}"
        if r.opts.hand_cap is not None and units + value > r.opts.hand_cap:
            value = max(0, r.opts.hand_cap - units)  # the cap covers hand and 热炮 together
            repao["cap"] = r.opts.hand_cap
            detail += f" (封顶 {r.opts.hand_cap} with the hand)"
        ledger.pay(discarder, w.seat, PaymentKind.REPAO, value, detail, repao)


def _rob_details(shares: list[dict[str, Any]]) -> dict[str, Any]:
    """A 抢杠 payment: the three shares the robbed player pays for (§12.12), each `for` a seat."""
    first = shares[0]
    return {
        "pattern": first["pattern"],
        "pattern_units": first["pattern_units"],
        "shares": shares,
    }


def _pay_baopai(r: RoundRecord, ledger: _Ledger, w: WinInfo) -> None:
    """包牌 (§2.5 penalty, §12.9): the void winner pays each other player its hand's value."""
    o = r.opts
    value = w.value
    bonuses: list[dict[str, Any]] = []
    if w.declared and o.declare == "tianting":
        value += o.tianting_value
        bonuses.append({"kind": BonusKind.TIANTING.value, "units": o.tianting_value})
    if w.declared and o.declare == "baoting":
        value += o.baoting_bonus
        bonuses.append({"kind": BonusKind.BAOTING.value, "units": o.baoting_bonus})
    for other in _after(w.seat):
        dealer, streak = _dealer_extra(r, other, w.seat)
        detail = f"包牌: passed a win, then won on a discard: {w.pattern.value} {value}"
        if dealer or streak:
            detail += f" + 坐庄/连庄 {dealer + streak}"
        details: dict[str, Any] = {
            "pattern": PATTERN_KIND[w.pattern].value,
            "pattern_units": w.value,
            "bonuses": bonuses,
            "dealer": dealer,
            "streak": streak,
            "multiplier": 1,
            "after_multiplier": [],
        }
        units, detail = _capped(o, value + dealer + streak, detail, details)
        ledger.pay(w.seat, other, PaymentKind.BAOPAI, units, detail, details)


# ----- 豆 (§5) -----


_DOU_ZH = {"dian": "点豆", "men": "闷豆", "zhuanwan": "转弯豆", "hanbao": "憨包豆"}


def _dou_name(m: Meld) -> str:
    return f"{_DOU_ZH[m.dou or 'hanbao']} {tile_name(m.tile)}"


def _dou_ref(m: Meld, dou: str | None = None) -> dict[str, Any]:
    """A 豆 in a payment's details: its DouKind (`dou` overrides the meld's, e.g. its form),
    tile, and the discarder who fed a 点豆."""
    kind = DOU_KIND_OF_MELD[dou or m.dou or "hanbao"]
    return {
        "kind": kind.value,
        "tile": tile_name(m.tile),
        "fed_by": m.from_seat if m.kind == "ming" else None,
    }


def _burned(r: RoundRecord) -> int | None:
    """The robbed player under 全烧 (guiyang): collects nothing this round."""
    if r.opts.qianggang_burn and r.winners and r.winners[0].how == "rob":
        return r.winners[0].from_seat
    return None


def _voided_gang(r: RoundRecord) -> Meld | None:
    """The discarder's fresh gang that a 热炮 win voids (chuan, anshun)."""
    if r.opts.repao_void_gang and any(w.hot for w in r.winners):
        return r.hot_gang
    return None


def _pay_dou(r: RoundRecord, ledger: _Ledger, ready: list[bool]) -> list[dict[str, Any]]:
    o = r.opts
    burned = _burned(r)
    voided = _voided_gang(r)
    listing: list[dict[str, Any]] = []
    for holder in range(4):
        for m in r.melds[holder]:
            if not m.is_gang:
                continue
            why: DouVoid | None = None
            if m.dou == "hanbao":
                why = DouVoid.HANBAO
            elif m is voided:
                why = DouVoid.REPAO
            elif holder == burned:
                why = DouVoid.QUANSHAO
            elif o.dou_need_ready and not ready[holder]:
                why = DouVoid.NOT_READY
            scores = why is None
            listing.append(
                {
                    "seat": holder,
                    "tile": tile_name(m.tile),
                    "dou": m.dou,
                    "kind": m.kind,
                    "scores": scores,
                    "why": "" if why is None else why.value,
                    "dou_kind": DOU_KIND_OF_MELD[m.dou or "hanbao"].value,
                }
            )
            if not scores:
                if why is DouVoid.NOT_READY or (why is DouVoid.QUANSHAO and not ready[holder]):
                    _pay_baodou(r, ledger, ready, holder, m)
                continue
            name = _dou_name(m)
            details = {"dou": _dou_ref(m)}
            if m.dou == "dian":
                assert m.from_seat is not None
                detail = f"{name} (fed by seat {m.from_seat})"
                ledger.pay(m.from_seat, holder, PaymentKind.DOU, o.dou_dian, detail, details)
            else:
                value = _dou_value(o, m)
                for payer in _after(holder):
                    ledger.pay(payer, holder, PaymentKind.DOU, value, name, details)
    return listing


def _dou_value(o: RuleOptions, m: Meld) -> int:
    return {"dian": o.dou_dian, "men": o.dou_men}.get(m.dou or "", o.dou_zhuanwan)


def _pay_baodou(r: RoundRecord, ledger: _Ledger, ready: list[bool], holder: int, m: Meld) -> None:
    """包豆 (§13.15): a holder who is not ready pays their 豆's value to each player who won or
    is ready (a 点豆's too, not only to its feeder). Only where a 豆 needs its holder ready."""
    o = r.opts
    if not (o.baodou and o.dou_need_ready) or ready[holder]:
        return
    burned = _burned(r)
    value = _dou_value(o, m)
    detail = f"包豆: {_dou_name(m)} of a player who is not ready"
    for q in _after(holder):
        if ready[q] and q != burned:
            ledger.pay(holder, q, PaymentKind.BAODOU, value, detail, {"dou": _dou_ref(m)})


# ----- 鸡 (§6) -----


def _tally_dicts(tallies: Iterable[ChickenTally]) -> list[dict[str, Any]]:
    return [t.to_dict() for t in tallies]


def _pay_chickens(r: RoundRecord, ledger: _Ledger, ready: list[bool]) -> list[dict[str, Any]]:
    o = r.opts
    if blown_away(r):  # 吹风鸡: no chicken, 冲锋, 责任 or 包鸡 payment
        return []
    burned = _burned(r)
    flip = flip_chickens(o, r.flip, r.weekday)  # once: every tally below reads the same flip
    chongfeng = chongfeng_seats(r)
    tallies = chicken_tallies(r, draw=False, flip=flip, chongfeng=chongfeng)
    need_ready = o.chickens_need_ready
    collectors = [s for s in range(4) if (ready[s] or not need_ready) and s != burned]
    for q in collectors:
        t = tallies[q]
        if t.units <= 0:  # `pay` records nothing: no line to word either
            continue
        detail, details = f"鸡: {t.detail}", t.details()
        for payer in _after(q):
            ledger.pay(payer, q, PaymentKind.CHICKEN, t.units, detail, details)
    if o.chickens == "guiyang":
        for payer in range(4):
            if ready[payer] or not need_ready:  # 包鸡 only where chickens need ready
                continue
            exposed = exposed_tally(r, payer, flip, chongfeng)
            if exposed.units <= 0 or not collectors:
                continue
            detail, details = f"包鸡: {exposed.detail}", exposed.details()
            for q in collectors:
                ledger.pay(payer, q, PaymentKind.BAOJI, exposed.units, detail, details)
        for claimer, discarder, zeren in zeren_tallies(r, flip):
            if claimer in collectors:
                detail = f"责任鸡: {zeren.lines[0]['tag']}"
                ledger.pay(
                    discarder, claimer, PaymentKind.ZEREN, zeren.units, detail, zeren.details()
                )
    return _tally_dicts(tallies)


# ----- 荒庄 (§7) -----


def _settle_draw(r: RoundRecord, ledger: _Ledger, ready: list[bool]) -> Settlement:
    o = r.opts
    ready_seats = [s for s in range(4) if ready[s]]
    unready = [s for s in range(4) if not ready[s]]
    if ready_seats and unready:
        for q in ready_seats:
            best = ready_pattern(o, r.hands[q], r.melds[q])
            assert best is not None, "a ready seat has a best wait"
            pattern, value = best
            detail = f"查叫: seat {q} is ready, best wait {pattern.value} {value}"
            details = {"pattern": PATTERN_KIND[pattern].value, "pattern_units": value}
            for p in unready:
                ledger.pay(p, q, PaymentKind.CHAJIAO, value, detail, details)
    chickens: list[dict[str, Any]] = []
    if o.draw_chickens:
        tallies = chicken_tallies(r, draw=True)
        chickens = _tally_dicts(tallies)
        for q in ready_seats:
            t = tallies[q]
            if t.units <= 0:  # `pay` records nothing
                continue
            detail, details = f"荒庄 鸡: {t.detail}", t.details()
            for p in unready:
                ledger.pay(p, q, PaymentKind.CHICKEN, t.units, detail, details)
    return _settlement(r, ledger, ready, _next_dealer_after_draw(r, ready), chickens, [])


# ----- next dealer (§8.3) -----


def _next_dealer_after_win(r: RoundRecord) -> int:
    seats = [w.seat for w in r.winners]
    if len(seats) == 1:
        return seats[0]
    discarder = r.winners[0].from_seat
    assert discarder is not None
    if len(seats) >= 3 or r.opts.two_winner_dealer == "discarder":
        return discarder
    return min(seats, key=lambda s: (s - r.dealer) % 4)


def _next_dealer_after_draw(r: RoundRecord, ready: list[bool]) -> int:
    if r.opts.draw_dealer == "stays":
        return r.dealer
    n = sum(ready)
    if n in (0, 4):
        return r.dealer
    if n == 3:
        return ready.index(False)
    if ready[r.dealer]:
        return r.dealer
    return next(s for s in _after(r.dealer) if ready[s])
