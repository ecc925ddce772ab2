"""Duplicate-deal arena: how strong one bot policy is against another (pure: no I/O, no processes).

Each deal (a seeded wall and a dealer) is played four times, the challenger in each seat in turn
and the baseline policy in the other three. Every challenger sees the same deal list, and a
seat's policy seed depends only on the deal and the seat, so two challengers measured on the
same `--seed` meet the same walls and the same opponents. Luck of the deal cancels out of the
per-deal mean, which is the unit of the statistics: the standard error is computed over deals
(clustered by deal), not over the 4 × deals games, whose results within a deal are correlated.

The clock is an input (`clock`, e.g. `time.perf_counter`), used only to time decisions.
`zhuoji arena` (zhuoji/cmd_arena.py) spreads the deals over processes and prints.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from rules.actions import Action
from rules.chickens import standing_values
from rules.options import RuleOptions
from rules.round import Phase, Round
from rules.view import SeatView, view_of

Z95 = 1.959963984540054  # the normal quantile of a two-sided 95 % interval
TIME_BIN_MS = 0.05  # the decision-time histogram's bin width
MAX_ACTIONS = 2000  # a round never takes this many actions; a policy that loops is a bug


class Policy(Protocol):
    """A bot policy as the arena plays it: it decides from one seat's view alone."""

    def choose_for(self, v: SeatView) -> Action: ...


PolicyMaker = Callable[[str, str], Policy]  # (policy name, seed) → a fresh policy
Clock = Callable[[], float]


def deal_seed(seed: int, deal: int) -> str:
    """The wall of deal `deal` of an arena run with `seed`: the same for every challenger."""
    return f"arena:{seed}:deal:{deal}"


def seat_seed(seed: int, deal: int, seat: int) -> str:
    """A policy's seed: it depends only on the deal and the seat, not on who sits there."""
    return f"arena:{seed}:deal:{deal}:seat:{seat}"


def deal_dealer(deal: int) -> int:
    """The dealer of a deal: rotates with the deal index."""
    return deal % 4


@dataclass(slots=True)
class Diagnostics:
    """Counts over the seats one policy played (a seat-round is one seat in one round)."""

    seat_rounds: int = 0
    wins: int = 0
    zimo: int = 0
    deal_ins: int = 0
    draw_seat_rounds: int = 0  # seat-rounds in rounds that ended 荒庄
    ready_at_draw: int = 0
    chongfeng: int = 0  # 冲锋鸡 this policy discarded (first 1s / 8p, unclaimed)
    zeren: int = 0  # 责任鸡 payments this policy made
    baoji: int = 0  # seat-rounds in which this policy paid 包鸡
    decisions: int = 0
    decision_ms: float = 0.0  # total
    time_bins: Counter[int] = field(default_factory=Counter)  # bin index → decisions

    def merge(self, other: Diagnostics) -> None:
        for name in self.__slots__:  # type: ignore[attr-defined]
            if name == "time_bins":
                self.time_bins.update(other.time_bins)
            else:
                setattr(self, name, getattr(self, name) + getattr(other, name))

    def time_quantile(self, q: float) -> float:
        """The `q` quantile of the decision time in ms (the upper edge of its histogram bin)."""
        if not self.decisions:
            return 0.0
        want = q * self.decisions
        seen = 0
        for b in sorted(self.time_bins):
            seen += self.time_bins[b]
            if seen >= want:
                return (b + 1) * TIME_BIN_MS
        return (max(self.time_bins) + 1) * TIME_BIN_MS

    def summary(self) -> dict[str, float | int]:
        n = self.seat_rounds or 1
        return {
            "seat_rounds": self.seat_rounds,
            "win_rate": self.wins / n,
            "zimo_rate": self.zimo / n,
            "deal_in_rate": self.deal_ins / n,
            "ready_at_draw_rate": self.ready_at_draw / (self.draw_seat_rounds or 1),
            "chongfeng": self.chongfeng,
            "zeren": self.zeren,
            "baoji": self.baoji,
            "decisions": self.decisions,
            "decision_ms_mean": self.decision_ms / (self.decisions or 1),
            "decision_ms_p50": self.time_quantile(0.5),
            "decision_ms_p95": self.time_quantile(0.95),
            "decision_ms_p99": self.time_quantile(0.99),
            "decision_ms_p999": self.time_quantile(0.999),
            "decision_ms_max": self.time_quantile(1.0),
        }


@dataclass(slots=True)
class DealResult:
    """One deal's games: `nets[i]` is the four seats' nets when the challenger sat in
    `seats[i]` (all four seats in an arena run; fewer in a quick smoke run)."""

    deal: int
    nets: list[list[int]]
    draws: int  # games that ended 荒庄
    diag: dict[str, Diagnostics]  # "challenger" / "baseline"
    seats: tuple[int, ...] = (0, 1, 2, 3)

    @property
    def challenger_points(self) -> float:
        return sum(n[s] for s, n in zip(self.seats, self.nets, strict=True)) / len(self.seats)

    @property
    def baseline_points(self) -> float:
        total = sum(
            n[t] for s, n in zip(self.seats, self.nets, strict=True) for t in range(4) if t != s
        )
        return total / (3 * len(self.seats))


def play_round(
    opts: RuleOptions,
    seed: str,
    dealer: int,
    policies: Sequence[Policy],
    clock: Clock,
    timings: Sequence[Diagnostics],
) -> Round:
    """Deal one round and play it to its settlement, each policy deciding from its seat's
    `view_of` the round (whose making is timed with the decision: a bot would keep its view up
    to date by `rules.view.reduce` instead); each decision's time goes to its seat's `timings`.
    Raises AssertionError if the round does not end or is not zero-sum."""
    r = Round.deal(opts, seed=seed, dealer=dealer, streak=0, base=1)
    for _ in range(MAX_ACTIONS):
        if r.phase is Phase.OVER:
            break
        seat = r.awaiting()[0]
        start = clock()
        action = policies[seat].choose_for(view_of(r, seat))
        ms = (clock() - start) * 1000
        d = timings[seat]
        d.decisions += 1
        d.decision_ms += ms
        d.time_bins[int(ms / TIME_BIN_MS)] += 1
        r.apply(action)
    assert r.phase is Phase.OVER and r.result is not None, f"round {seed} did not end"
    assert sum(r.result.net) == 0, f"round {seed} is not zero-sum: {r.result.net}"
    return r


def tally(r: Round, seat: int, d: Diagnostics) -> None:
    """Add one seat's outcome in a finished round to `d` (all but the timings)."""
    assert r.result is not None
    d.seat_rounds += 1
    for w in r.winners:
        if w.seat == seat and not w.void:
            d.wins += 1
            d.zimo += w.how == "zimo"
    if r.winners and r.winners[0].how != "zimo" and r.winners[0].from_seat == seat:
        d.deal_ins += 1
    if r.exhausted:
        d.draw_seat_rounds += 1
        d.ready_at_draw += r.result.ready[seat]
    for kind, (who, idx) in r.first_discard.items():
        if who == seat and not r.discards[who][idx].claimed and _has_chongfeng(r, kind):
            d.chongfeng += 1
    d.zeren += sum(1 for p in r.result.payments if p.kind == "zeren" and p.payer == seat)
    d.baoji += any(p.kind == "baoji" and p.payer == seat for p in r.result.payments)


def _has_chongfeng(r: Round, kind: int) -> bool:
    """Whether the options make the first discard of `kind` a 冲锋鸡: a standing chicken kind
    (chuan has none, anshun only 幺鸡, guiyang 乌骨鸡 too unless `wuguji` is off). (Under
    `chongfeng_scope round` this counts every kind's first: a statistic, not a payment.)"""
    return kind in standing_values(r.opts)


def play_deal(
    opts: RuleOptions,
    seed: int,
    deal: int,
    make_policy: PolicyMaker,
    challenger: str,
    baseline: str,
    clock: Clock,
    seats: Sequence[int] = (0, 1, 2, 3),
) -> DealResult:
    """The games of one deal, the challenger in each of `seats` in turn (all four normally)."""
    diag = {"challenger": Diagnostics(), "baseline": Diagnostics()}
    nets: list[list[int]] = []
    draws = 0
    for cseat in seats:
        roles = ["challenger" if s == cseat else "baseline" for s in range(4)]
        names = [challenger if s == cseat else baseline for s in range(4)]
        policies = [make_policy(names[s], seat_seed(seed, deal, s)) for s in range(4)]
        r = play_round(
            opts,
            deal_seed(seed, deal),
            deal_dealer(deal),
            policies,
            clock,
            [diag[role] for role in roles],
        )
        assert r.result is not None
        for s in range(4):
            tally(r, s, diag[roles[s]])
        nets.append(list(r.result.net))
        draws += r.exhausted
    return DealResult(deal, nets, draws, diag, tuple(seats))


def play_deals(
    opts: RuleOptions,
    seed: int,
    deals: Iterable[int],
    make_policy: PolicyMaker,
    challenger: str,
    baseline: str,
    clock: Clock,
    rotate: bool = False,
) -> list[DealResult]:
    """`play_deal` for each deal; with `rotate`, one game per deal, the challenger in seat
    deal mod 4 (a quarter of the work, for smoke tests; the deal's luck no longer cancels)."""
    return [
        play_deal(
            opts,
            seed,
            d,
            make_policy,
            challenger,
            baseline,
            clock,
            (d % 4,) if rotate else (0, 1, 2, 3),
        )
        for d in deals
    ]


# ----- statistics -----


@dataclass(frozen=True, slots=True)
class Estimate:
    """A mean over deals with its 95 % confidence interval (normal approximation)."""

    mean: float
    se: float
    n: int

    @property
    def low(self) -> float:
        return self.mean - Z95 * self.se

    @property
    def high(self) -> float:
        return self.mean + Z95 * self.se

    def to_dict(self) -> dict[str, Any]:
        return {"mean": self.mean, "se": self.se, "ci95": [self.low, self.high], "deals": self.n}


def clustered_estimate(per_deal: Sequence[float]) -> Estimate:
    """Mean of the per-deal values and its standard error, sd(per-deal) / √deals: the deal is
    the independent unit (the four games of a deal share its wall)."""
    n = len(per_deal)
    if n == 0:
        return Estimate(0.0, math.inf, 0)
    mean = math.fsum(per_deal) / n
    if n == 1:
        return Estimate(mean, math.inf, 1)
    var = math.fsum((x - mean) ** 2 for x in per_deal) / (n - 1)
    return Estimate(mean, math.sqrt(var / n), n)


def report(results: Sequence[DealResult], challenger: str, baseline: str) -> dict[str, Any]:
    """Everything `zhuoji arena --json` prints about a run, from its deals in any order."""
    ordered = sorted(results, key=lambda d: d.deal)
    ch = [d.challenger_points for d in ordered]
    base = [d.baseline_points for d in ordered]
    diag = {"challenger": Diagnostics(), "baseline": Diagnostics()}
    for d in ordered:
        for role in diag:
            diag[role].merge(d.diag[role])
    games = sum(len(d.seats) for d in ordered)
    return {
        "challenger": challenger,
        "baseline": baseline,
        "deals": len(ordered),
        "rounds": games,
        "points_per_round": {
            "challenger": clustered_estimate(ch).to_dict(),
            "baseline": clustered_estimate(base).to_dict(),
        },
        "difference": clustered_estimate([c - b for c, b in zip(ch, base, strict=True)]).to_dict(),
        "draw_rate": sum(d.draws for d in ordered) / (games or 1),
        "diagnostics": {role: diag[role].summary() for role in diag},
        "nets": [d.nets for d in ordered],
    }
