"""A match: a fixed number of rounds with running scores, the deal passing by §8.3.

The first dealer is drawn from the match seed (`first_dealer: dice`, RULES.md §13.9) or is seat 0
(`seat0`); a `dealer` given to the constructor overrides both.

>>> from rules.options import GUIYANG, make_options
>>> m = Match(GUIYANG, rounds=2, seed="demo")
>>> r = m.next_round()
>>> r.dealer == first_dealer("demo"), m.round_no
(True, 1)
>>> Match(make_options("guiyang", {"first_dealer": "seat0"}), rounds=1, seed="demo").dealer
0
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from rules.options import RuleOptions
from rules.round import Phase, Round
from rules.wall import seed_to_int


def first_dealer(seed: int | str) -> int:
    """The match's first dealer drawn from its seed (掷骰定庄): each seat equally likely."""
    return seed_to_int(f"{seed}:first-dealer") % 4


@dataclass(slots=True)
class Match:
    options: RuleOptions
    rounds: int
    seed: int | str = 0
    base: int = 1
    dealer: int = -1  # -1: by `options.first_dealer`
    streak: int = 0
    round_no: int = 0  # rounds dealt so far
    scores: list[int] = field(default_factory=lambda: [0, 0, 0, 0])
    history: list[dict[str, Any]] = field(default_factory=list)

    def __post_init__(self) -> None:
        if self.dealer < 0:
            self.dealer = first_dealer(self.seed) if self.options.first_dealer == "dice" else 0

    def round_seed(self, round_no: int) -> int:
        """Each round's wall seed, derived from the match seed and the round number."""
        return seed_to_int(f"{self.seed}:{round_no}")

    @property
    def over(self) -> bool:
        return self.round_no >= self.rounds and len(self.history) == self.round_no

    def next_round(self, weekday: int | None = None) -> Round:
        """Deal the next round; `weekday` (1 Monday … 7 Sunday) is the day of the deal, for
        星期鸡 (RULES.md §13.12)."""
        if self.round_no >= self.rounds:
            raise ValueError("the match is over")
        self.round_no += 1
        return Round.deal(
            self.options,
            seed=self.round_seed(self.round_no),
            dealer=self.dealer,
            streak=self.streak,
            base=self.base,
            weekday=weekday,
        )

    def record(self, r: Round) -> None:
        """Add a finished round's nets to the scores and pass the deal."""
        if r.phase is not Phase.OVER or r.result is None:
            raise ValueError("the round is not over")
        result = r.result.to_dict()
        for seat in range(4):
            self.scores[seat] += result["net"][seat]
        self.dealer = result["next_dealer"]
        self.streak = result["next_streak"]
        self.history.append(
            {"round": self.round_no, "net": result["net"], "outcome": result["outcome"]}
        )
