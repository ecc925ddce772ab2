"""Patterns (牌型), the pass (通行证) and readiness: RULES.md §3, §4, §7.

>>> from rules.options import GUIYANG
>>> from rules.tiles import parse_tiles, to_counts
>>> best_pattern(GUIYANG, to_counts(parse_tiles("123m456m789m234s55p")), [])
(<Pattern.PINGHU: '平胡'>, 1)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from rules.hand import read_shape, wait_kinds
from rules.options import Pattern, RuleOptions

MeldKind = Literal["pong", "ming", "an", "bu"]
DouKind = Literal["dian", "men", "zhuanwan", "hanbao"]


@dataclass(frozen=True, slots=True)
class Meld:
    """A 碰 or a gang. `from_seat` is the discarder for `pong`/`ming` (a `bu` keeps its 碰's).

    `dou` is None for a 碰; `dian` for a 明杠; `men` or `hanbao` for an 暗杠; `zhuanwan` or
    `hanbao` for a 补杠 (RULES.md §5, §12.2).
    """

    kind: MeldKind
    tile: int
    from_seat: int | None = None
    dou: DouKind | None = None

    @property
    def is_gang(self) -> bool:
        return self.kind != "pong"

    @property
    def size(self) -> int:
        return 3 if self.kind == "pong" else 4

    @property
    def form(self) -> Literal["dian", "men", "zhuanwan"] | None:
        """The gang's form whatever its score: what a 憨包豆's 热炮 value follows (§12.10)."""
        return {"ming": "dian", "an": "men", "bu": "zhuanwan"}.get(self.kind)  # type: ignore[return-value]


def _has_run_reading(counts: list[int]) -> bool:
    """Whether the concealed counts can be split into sets and a pair using at least one run."""

    def search(c: list[int], pair_left: bool, used_run: bool) -> bool:
        i = next((k for k in range(27) if c[k]), -1)
        if i < 0:
            return used_run and not pair_left
        if pair_left and c[i] >= 2:
            c[i] -= 2
            ok = search(c, False, used_run)
            c[i] += 2
            if ok:
                return True
        if c[i] >= 3:
            c[i] -= 3
            ok = search(c, pair_left, used_run)
            c[i] += 3
            if ok:
                return True
        if i % 9 <= 6 and c[i + 1] and c[i + 2]:
            for k in (i, i + 1, i + 2):
                c[k] -= 1
            ok = search(c, pair_left, True)
            for k in (i, i + 1, i + 2):
                c[k] += 1
            if ok:
                return True
        return False

    return search(list(counts), True, False)


def applicable_patterns(counts: Sequence[int], meld_kinds: Sequence[int]) -> list[Pattern]:
    """Every named pattern the complete hand can be read as ([] if it is not complete)."""
    shape = read_shape(counts, meld_kinds)
    if shape is None:
        return []
    found: list[Pattern] = []
    if shape.seven_pairs:
        found.append(Pattern.QIDUI)
        if shape.dragon:
            found.append(Pattern.LONGQIDUI)
        if shape.one_suit:
            found.append(Pattern.QINGQIDUI)
            if shape.dragon:
                found.append(Pattern.QINGLONGBEI)
    if shape.standard:
        runs = not shape.all_pungs or _has_run_reading(list(counts))
        if runs:
            found.append(Pattern.QINGYISE if shape.one_suit else Pattern.PINGHU)
        if shape.all_pungs:
            found.append(Pattern.DADUIZI)
            if shape.one_suit:
                found.append(Pattern.QINGDADUI)
            if len(meld_kinds) == 4:
                found.append(Pattern.DANDIAO)
                if shape.one_suit:
                    found.append(Pattern.QINGDANDIAO)
    return found


def best_pattern(
    opts: RuleOptions, counts: Sequence[int], meld_kinds: Sequence[int]
) -> tuple[Pattern, int] | None:
    """The single highest named pattern the preset has for this complete hand, with its value."""
    best: tuple[Pattern, int] | None = None
    for p in applicable_patterns(counts, meld_kinds):
        v = opts.patterns.value(p)
        if v is not None and (best is None or v > best[1]):
            best = (p, v)
    return best


def has_pass(opts: RuleOptions, melds: Sequence[Meld]) -> bool:
    """Whether the player holds a 豆 that is a 通行证 (§4; anshun: 闷豆/转弯豆 forms only)."""
    if opts.pass_gangs == "any":
        return any(m.is_gang for m in melds)
    return any(m.kind in ("an", "bu") for m in melds)


def holding(counts: Sequence[int], melds: Sequence[Meld], kind: int) -> int:
    """How many of `kind` the player holds, hand and melds."""
    return counts[kind] + sum(m.size for m in melds if m.tile == kind)


def ready_waits(counts: Sequence[int], melds: Sequence[Meld]) -> list[int]:
    """The waits of a 13-tile hand that count for readiness (§7): not a kind held four times."""
    return [k for k in wait_kinds(counts, len(melds)) if holding(counts, melds, k) < 4]


def ready_pattern(
    opts: RuleOptions, counts: Sequence[int], melds: Sequence[Meld]
) -> tuple[Pattern, int] | None:
    """The highest-valued pattern over the ready waits, with its value; None if not ready."""
    best: tuple[Pattern, int] | None = None
    meld_kinds = [m.tile for m in melds]
    work = list(counts)
    for k in ready_waits(counts, melds):
        work[k] += 1
        found = best_pattern(opts, work, meld_kinds)
        work[k] -= 1
        if found is not None and (best is None or found[1] > best[1]):
            best = found
    return best


def ready_value(opts: RuleOptions, counts: Sequence[int], melds: Sequence[Meld]) -> int | None:
    """The highest pattern value over the ready waits, without bonuses; None if not ready."""
    best = ready_pattern(opts, counts, melds)
    return None if best is None else best[1]
