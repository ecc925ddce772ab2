"""The record of a finished round: everything settlement needs, and nothing it may change.

The Round builds a `RoundRecord` when it ends (`Round.record`); `rules.settle.settle(record)` and
`rules.chickens` read only it. So settlement depends on this module and not on the round engine,
and a settlement can be computed (or recomputed) from a record alone.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from rules.kinds import BonusKind
from rules.options import Pattern, RuleOptions
from rules.patterns import Meld, ready_waits


class DiscardRecord(NamedTuple):
    """A tile in a discard row. `claimed` once 碰/杠/胡 took it: then it is no longer the
    discarder's (for chickens) though it stays in the row's history for display. (A NamedTuple:
    immutable and cheap, one is made on every discard.)"""

    tile: int
    claimed: bool = False
    declared: bool = False


@dataclass(frozen=True, slots=True)
class WinInfo:
    """One winner, as settlement needs it."""

    seat: int
    how: str  # zimo | discard | rob
    tile: int | None
    from_seat: int | None
    pattern: Pattern
    value: int
    counts: tuple[int, ...]  # concealed tiles with the winning tile
    owns_tile: bool  # whether the winning tile counts among this winner's chicken tiles
    zimo: bool  # valued as a 自摸 (自摸 and 抢杠)
    gangkai: bool
    hot: bool
    tianhu: bool
    dihu: bool
    declared: bool
    shabao: bool
    void: bool

    def bonus_kinds(self, opts: RuleOptions) -> list[BonusKind]:
        """The situations of the win, in the order of RULES.md §12.23."""
        found: list[tuple[bool, BonusKind]] = [
            (self.how == "rob", BonusKind.QIANGGANG),
            (self.zimo, BonusKind.ZIMO),
            (self.gangkai, BonusKind.GANGKAI),
            (self.hot, BonusKind.REPAO),
            (self.tianhu, BonusKind.TIANHU),
            (self.dihu, BonusKind.DIHU),
            (self.declared and opts.declare == "tianting", BonusKind.TIANTING),
            (self.declared and opts.declare != "tianting", BonusKind.BAOTING),
            (self.shabao, BonusKind.SHABAO),
        ]
        return [kind for applies, kind in found if applies]


class FirstDiscard(NamedTuple):
    """The first discard of a standing chicken kind (1s, 8p): who made it, where in their row."""

    kind: int
    seat: int
    row_index: int  # in the seat's discard row


class ZerenClaim(NamedTuple):
    """A first 1s / 8p discard taken by 碰 or 杠 (责任鸡)."""

    kind: int
    claimer: int
    discarder: int


@dataclass(frozen=True, slots=True)
class RoundRecord:
    """A finished round, immutable. Hands are 27 counts (concealed tiles at the end, the winning
    tile of a discard or 抢杠 win not included: see `WinInfo.counts`)."""

    opts: RuleOptions
    base: int
    dealer: int
    streak: int
    weekday: int | None  # 1 (Monday) … 7 (Sunday), the day the round was dealt, if known
    hands: tuple[tuple[int, ...], ...]
    melds: tuple[tuple[Meld, ...], ...]
    discards: tuple[tuple[DiscardRecord, ...], ...]
    declared: tuple[bool, ...]  # 报听 / 天听
    winners: tuple[WinInfo, ...]
    exhausted: bool  # 荒庄
    flip: int | None
    first_discards: tuple[FirstDiscard, ...]  # in the order they were made
    zeren: tuple[ZerenClaim, ...]  # by kind
    hot_gang: Meld | None  # the gang made just before the discard that was won on (热炮)

    def is_ready(self, seat: int) -> bool:
        """Ready on the final 13 tiles (RULES.md §7)."""
        return bool(ready_waits(self.hands[seat], self.melds[seat], self.opts))
