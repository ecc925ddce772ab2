"""Bot levels behind one registry: `policy_for(level, seed)`.

- `easy`: `normal` made a little weaker: 5 % of its free discards go to a random other tile
  among the next best by the exact shanten, and it passes a quarter of the 碰 it would take.
- `normal`: `rules.players.bot.Bot`, greedy on the exact shanten (`rules.players.shanten`).
- `strong`: `rules.players.bot_strong.StrongBot`, which values each move on samples of its own future
  draws from the unseen tiles.

Every policy has `choose_for(view)`, deciding from one seat's `rules.view.SeatView` alone, and
`choose(round, seat)` = `choose_for(view_of(round, seat))`, like `Bot`; each is deterministic
from its seed.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Sequence
from typing import Protocol

from rules.actions import Action
from rules.players.bot import Bot, chicken_kinds
from rules.players.shanten import discard_shantens
from rules.round import Phase, Round
from rules.view import SeatView, view_of
from rules.wall import SplitMix64


class LevelPolicy(Protocol):
    def choose(self, r: Round, seat: int) -> Action: ...

    def choose_for(self, v: SeatView) -> Action: ...


class EasyBot:
    """`Bot` with slips: `SLIP_PERCENT` of its discards (not after 报听, not the 报听 discard
    itself) go to a random other tile, and it passes `SKIP_PONG_PERCENT` of its 碰."""

    SLIP_PERCENT = 5
    SKIP_PONG_PERCENT = 25

    def __init__(self, seed: int | str = 0) -> None:
        self.bot = Bot(seed)
        self.rng = SplitMix64(f"easy:{seed}")

    def choose(self, r: Round, seat: int) -> Action:
        return self.choose_for(view_of(r, seat))

    def choose_for(self, v: SeatView) -> Action:
        """The move for the view's seat; ValueError if it has nothing to do."""
        a = self.bot.choose_for(v)
        seat, hand = v.viewer, v.hand
        assert seat is not None and hand is not None  # `Bot` refuses a spectator's view
        if a.act == "discard" and not v.declared[seat] and self.rng.below(100) < self.SLIP_PERCENT:
            others = _near_best(hand, len(v.melds[seat]), a.tile, chicken_kinds(v))
            if others:
                return Action(seat, "discard", others[self.rng.below(len(others))])
        if a.act == "pong" and self.rng.below(100) < self.SKIP_PONG_PERCENT:
            return Action(seat, "pass")
        return a


def _near_best(
    hand: Sequence[int], n_melds: int, best: int | None, chickens: frozenset[int]
) -> list[int]:
    """The other discards that leave the hand closest to ready (exact shanten) after the best
    one; never one of `chickens`."""
    after = discard_shantens(hand, n_melds)
    steps = {k: s for k, s in after.items() if k != best and k not in chickens}
    if not steps:
        return []
    low = min(steps.values())
    return [k for k, s in steps.items() if s <= low]


def _strong(seed: int | str) -> LevelPolicy:
    # the heaviest level, loaded when first asked for
    from rules.players.bot_strong import StrongBot

    return StrongBot(seed)


LEVEL_LINES: dict[str, str] = {
    "easy": "plays like normal but slips: now and then a wrong discard, and it skips some 碰",
    "normal": "reads its hand exactly and plays for the fastest ready hand; never defends",
    "strong": "normal's play, but near ready it weighs each move on sampled futures (chickens, 豆, 报听, what a win pays, deal-in risk) and changes normal's discard where they clearly favour another; takes 碰 that lead toward a 大对子",
}
"""What each level does, in one line (for `zhuoji play --bots` and the table form)."""

LEVELS: dict[str, Callable[[int | str], LevelPolicy]] = {
    "easy": EasyBot,
    "normal": Bot,
    "strong": _strong,
}


def policy_for(level: str, seed: int | str = 0) -> LevelPolicy:
    """A fresh policy of `level`, deterministic from `seed`; ValueError names the levels."""
    make = LEVELS.get(level)
    if make is None:
        raise ValueError(f"unknown bot level {level!r}: choose from {', '.join(LEVELS)}")
    return make(seed)


def action_digest(rounds: Iterable[tuple[Round, Sequence[LevelPolicy]]]) -> str:
    """The first 16 hex digits of the SHA-256 of every action and net of `rounds`, each a dealt
    round and its four seats' policies, played to the end: two checkouts whose bots decide the
    same give the same digest (the golden tests, `benchmarks/action_digests.py`)."""
    h = hashlib.sha256()
    for r, bots in rounds:
        while r.phase is not Phase.OVER:
            seat = r.awaiting()[0]
            a = bots[seat].choose(r, seat)
            h.update(f"{a.seat}{a.act}{a.tile};".encode())
            r.apply(a)
        assert r.result is not None
        h.update(f"|{tuple(r.result.net)}|".encode())
    return h.hexdigest()[:16]
