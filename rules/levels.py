"""Bot levels behind one registry: `policy_for(level, seed)`.

Every policy has `choose(round, seat)` and `choose_for(view)` (a `SeatView`), like `rules.bot.Bot`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from rules.actions import Action
from rules.bot import Bot, SeatView
from rules.round import Round


class LevelPolicy(Protocol):
    def choose(self, r: Round, seat: int) -> Action: ...

    def choose_for(self, v: SeatView) -> Action: ...


LEVELS: dict[str, Callable[[int | str], LevelPolicy]] = {
    "normal": Bot,
}


def policy_for(level: str, seed: int | str = 0) -> LevelPolicy:
    """A fresh policy of `level`, deterministic from `seed`; ValueError names the levels."""
    make = LEVELS.get(level)
    if make is None:
        raise ValueError(f"unknown bot level {level!r}: choose from {', '.join(LEVELS)}")
    return make(seed)
