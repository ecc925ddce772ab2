"""The deal-in estimate: how likely a discard is won on, and what that win costs, from one seat's view.

Per opponent, from the public record alone (its declaration, discards and melds, the copies of
the tile this seat has not seen, whether a win on the tile would be allowed):

- **ready**: 1 after a 报听/天听; otherwise read from `READY` by its melds and its discards so
  far (how often a seat with that record held a ready hand);
- **the tile is a wait it may win on**: `ARMED_WAIT` when a 平胡 may win on the discard (the
  opponent holds a 通行证, or the discard is a 热炮, or anshun's 杀报 applies to it), by the
  copies of the tile unseen, times `RANK_FACTOR` (middle ranks are waited on more than 1 and
  9); `PLAIN_WAIT` otherwise (only a hand above 平胡 — 七对, 大对子, 清一色 — may win on it,
  rare); a tile the opponent discarded itself `OWN_WAIT` of that (no permanent 过水 here, but
  it threw the tile); with `reading` (off by default: measured, not kept), another tile by that
  seat's discards near it (`READING`: beside or three ranks from one it threw, a tile is a
  sequence's wait less often);
- **what it pays**: the pattern such a win usually is (`ARMED_MIX` / `PLAIN_MIX` of the preset's
  pattern table), the 坐庄/连庄 extra when the dealer is either side, 报听's bonus (天听's
  value), 热炮's bonus, and the tile's chicken units when it is a known chicken kind (it becomes
  the winner's, collected from this seat too).

The tables were measured on 1,500 rounds of `normal` self-play on guiyang (1.6 million
(discarder, opponent, tile) cases, `/tmp` scratch script, December 2026): a seat with no meld was
ready in 4 % of cases after 2-3 discards, 31 % after 6-7 and 69 % after 12-13; a ready seat
with a pass could win on 5-12 % of the tiles another seat held (by copies unseen), one without a
pass on 0.1-0.5 % (only 七对/大对子 waits), a 报听 seat on 0.2 %. So in these rules a discard is
dangerous mostly against a seat with a 豆, and what it costs is then mostly a 平胡 and its extras,
unless the loser also loses a hand of its own (`rules.players.bot_strong` counts that).
"""

from __future__ import annotations

from dataclasses import dataclass

from rules.chickens import known_chickens
from rules.options import RuleOptions
from rules.tiles import COPIES, NUM_KINDS
from rules.view import MeldSeen, SeatView

# P(ready) of a seat that has not declared, per melds (0, 1, 2, 3+) and discards // 2 (0-1, 2-3, …).
READY: tuple[tuple[float, ...], ...] = (
    (0.00, 0.04, 0.16, 0.31, 0.46, 0.60, 0.69, 0.77, 0.80),
    (0.01, 0.12, 0.29, 0.48, 0.63, 0.73, 0.80, 0.83, 0.85),
    (0.20, 0.36, 0.54, 0.70, 0.77, 0.83, 0.86, 0.88, 0.90),
    (0.90, 0.90, 0.90, 0.92, 0.94, 0.95, 0.95, 0.95, 0.95),
)
# P(a ready seat may win on the tile), by the copies of it this seat has not seen (0-4).
ARMED_WAIT = (0.045, 0.057, 0.096, 0.122, 0.13)
PLAIN_WAIT = (0.001, 0.003, 0.004, 0.005, 0.005)
OWN_WAIT = 0.12  # a tile the opponent discarded itself: this share of the above
RANK_FACTOR = (0.75, 0.82, 1.0, 1.1, 1.18)  # by distance from the edge: 1/9, 2/8, 3/7, 4/6, 5
# What a seat's own discards say of a tile it has not discarded (a wait of a 平胡 is mostly a
# sequence's end): per distance from the edge (as `RANK_FACTOR`), the factor when it discarded
# (none, a tile within two ranks of it, a tile three ranks off it — 筋 —, both), relative to the
# rank's mean. Measured on 1,500 rounds of `normal` self-play on guiyang (ready seats' waits among
# the tiles another seat held, December 2026): a 1 or 9 whose 4/6 the seat threw was a wait
# half as often as the mean 1 or 9, a tile with no discard of the seat near it 1.3-1.4 times.
READING: tuple[tuple[float, float, float, float], ...] = (
    (1.41, 0.73, 0.47, 0.40),
    (1.43, 0.92, 0.57, 0.47),
    (1.35, 0.93, 1.08, 0.66),
    (1.32, 1.07, 0.99, 0.74),
    (1.43, 0.96, 1.00, 0.74),
)
# What a win on a discard is, by share: with a pass nearly always a 平胡; without one 七对 and
# 大对子 (and a little 清一色).
ARMED_MIX = (("pinghu", 0.966), ("daduizi", 0.034))
PLAIN_MIX = (("qidui", 0.8), ("daduizi", 0.15), ("qingyise", 0.05))
# Shown as words (hints): the chance that the tile is won on.
DANGER_WORDS = ((0.02, "safe"), (0.05, "low"), (0.10, "some"), (2.0, "high"))


@dataclass(frozen=True, slots=True)
class Danger:
    """Discarding one tile: the `chance` that another seat wins on it, the `payment` this seat
    then expects to make (units, chance × payment summed over the seats), and whether a seat
    that declared 报听/天听 may win on it (`declared`)."""

    chance: float
    payment: float
    declared: bool

    @property
    def word(self) -> str:
        return next(w for limit, w in DANGER_WORDS if self.chance < limit)


def ready_chance(declared: bool, n_melds: int, n_discards: int) -> float:
    """P(a seat is ready): 1 after a 报听/天听, else `READY` by its melds and discards."""
    if declared:
        return 1.0
    table = READY[min(n_melds, 3)]
    return table[min(n_discards // 2, len(table) - 1)]


def _meld_size(m: MeldSeen) -> int:
    return 3 if m.kind == "pong" else 4


def _armed(opts: RuleOptions, melds: tuple[MeldSeen, ...]) -> bool:
    """Whether the seat's melds hold a 通行证 (§4) as far as anyone sees them."""
    if opts.pass_gangs == "any":
        return any(m.kind != "pong" for m in melds)
    return any(m.kind in ("an", "bu") for m in melds)


def _mix_value(opts: RuleOptions, mix: tuple[tuple[str, float], ...]) -> float:
    return sum(share * getattr(opts.patterns, name) for name, share in mix)


class DangerReader:
    """The deal-in estimate of every tile for one view (the per-opponent part computed once)."""

    def __init__(self, v: SeatView, unseen: list[int] | None = None, reading: bool = False) -> None:
        """`reading`: weigh a 平胡 wait by the opponent's discards near the tile (`READING`)."""
        assert v.viewer is not None
        self.v = v
        self.unseen = unseen if unseen is not None else unseen_counts(v)
        opts = v.opts
        me = v.viewer
        # Our discard is a 热炮 when we gang this turn; anshun's 杀报: after our own 天听.
        hot = v.on_turn and v.turn_gang is not None
        shabao = opts.declare == "tianting" and v.declared[me]
        dealer_extra = 1 + v.streak if opts.dealer_scoring == "lianzhuang" else 0
        armed_value = _mix_value(opts, ARMED_MIX)
        plain_value = _mix_value(opts, PLAIN_MIX)
        self.known = known_chickens(opts, v.weekday)
        self.reading = reading
        # Per opponent: (seat, ready, armed, the payment before the tile's chickens, its own
        # discards, every kind it discarded as a bit mask).
        self.opponents: list[tuple[int, float, bool, float, frozenset[int], int]] = []
        for seat in range(4):
            if seat == me:
                continue
            melds = v.melds[seat]
            rows = v.discards[seat]
            ready = ready_chance(v.declared[seat], len(melds), len(rows))
            armed = hot or shabao or _armed(opts, melds)
            pay = armed_value if armed else plain_value
            if dealer_extra and me != seat and v.dealer in (me, seat):
                pay += dealer_extra
            if v.declared[seat]:
                pay += opts.baoting_bonus if opts.declare == "baoting" else opts.tianting_value
            if shabao:
                pay += opts.shabao_value
            if hot:
                pay += opts.repao_bonus
            own = frozenset(d.tile for d in rows if not d.claimed)
            thrown = 0
            for d in rows:
                thrown |= 1 << d.tile
            self.opponents.append((seat, ready, armed, pay, own, thrown))

    def of(self, k: int) -> Danger:
        """The estimate for discarding kind `k`."""
        u = min(self.unseen[k], COPIES)
        rank = k % 9
        factor = RANK_FACTOR[min(rank, 8 - rank)]
        chicken = self.known.get(k, 0)
        chance = payment = 0.0
        declared = False
        for seat, ready, armed, pay, own, thrown in self.opponents:
            p = (ARMED_WAIT[u] * factor) if armed else PLAIN_WAIT[u]
            if k in own:
                p *= OWN_WAIT
            elif armed and self.reading:
                p *= _read(k, rank, thrown)
            p *= ready
            chance += p
            payment += p * (pay + chicken)
            if self.v.declared[seat] and u and k not in own:
                declared = True
        return Danger(chance, payment, declared)


_SUIT = (1 << 9) - 1


def _read(k: int, rank: int, thrown: int) -> float:
    """`READING`'s factor for kind `k` (its `rank` 0-8 in the suit) against a seat that
    discarded the kinds of the mask `thrown` (not `k` itself)."""
    suit = thrown >> (k - rank) & _SUIT
    near = suit & (0b11011 << rank >> 2)  # rank ± 1, ± 2
    suji = suit & (0b1000001 << rank >> 3)  # rank ± 3
    return READING[min(rank, 8 - rank)][(1 if near else 0) + (2 if suji else 0)]


def unseen_counts(v: SeatView) -> list[int]:
    """Per kind, the copies the seat has not seen: 4 minus its own hand, every meld whose tile
    it sees (its own, and every 碰 and open gang; not another seat's 暗杠) and every unclaimed
    discard (a claimed one is in its claimer's meld)."""
    seen = list(v.counts)
    for row in v.melds:
        for m in row:
            if m.tile is not None:
                seen[m.tile] += _meld_size(m)
    for discards in v.discards:
        for d in discards:
            if not d.claimed:
                seen[d.tile] += 1
    return [max(0, COPIES - c) for c in seen[:NUM_KINDS]]


def danger(v: SeatView, k: int) -> Danger:
    """The deal-in estimate of discarding `k` from the view's seat (`DangerReader(v).of(k)`)."""
    return DangerReader(v).of(k)
