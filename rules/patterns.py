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

from rules.hand import is_win_counts, read_shape, wait_kinds
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


def applicable_patterns(
    counts: Sequence[int], meld_kinds: Sequence[int], melds: Sequence[Meld] | None = None
) -> list[Pattern]:
    """Every named pattern the complete hand can be read as ([] if it is not complete). With
    `melds` given, the 地龙 shape (§13.16) is read too."""
    found: list[Pattern] = []
    if melds is not None and is_dilong(counts, melds):
        found.append(Pattern.DILONG)
        if _one_suit(counts, meld_kinds):
            found.append(Pattern.QINGDILONG)
    shape = read_shape(counts, meld_kinds)
    if shape is None:
        return found
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
    opts: RuleOptions,
    counts: Sequence[int],
    meld_kinds: Sequence[int],
    melds: Sequence[Meld] | None = None,
) -> tuple[Pattern, int] | None:
    """The single highest named pattern the preset has for this complete hand, with its value.
    Pass `melds` to have a 地龙 read where the table values it."""
    best: tuple[Pattern, int] | None = None
    if not dilong_on(opts):
        melds = None
    for p in applicable_patterns(counts, meld_kinds, melds):
        v = opts.patterns.value(p)
        if v is not None and (best is None or v > best[1]):
            best = (p, v)
    return best


def win_pattern(
    opts: RuleOptions, counts: Sequence[int], melds: Sequence[Meld]
) -> tuple[Pattern, int] | None:
    """The pattern a complete hand is settled as: the highest the table values (§3), a 地龙
    read too (§13.16). The one reading both the settlement (`Round._make_win`) and the discard-
    win legality (§4: is it a 平胡 that needs a pass?) use, so a win the engine allows is one
    the settlement pays and a pattern above 平胡 is never refused for want of a 通行证."""
    return best_pattern(opts, counts, [m.tile for m in melds], melds)


# ----- 地龙 (§13.16) -----


def dilong_on(opts: RuleOptions) -> bool:
    """Whether the table values 地龙 or 清地龙 at all."""
    return opts.patterns.dilong is not None or opts.patterns.qingdilong is not None


def _one_suit(counts: Sequence[int], meld_kinds: Sequence[int]) -> bool:
    suits = {k // 9 for k, c in enumerate(counts) if c} | {k // 9 for k in meld_kinds}
    return len(suits) == 1


def _dilong_pong(melds: Sequence[Meld]) -> int | None:
    """The kind of the one 碰, when it is the player's only meld."""
    if len(melds) == 1 and melds[0].kind == "pong":
        return melds[0].tile
    return None


def is_dilong(counts: Sequence[int], melds: Sequence[Meld]) -> bool:
    """地龙: exactly one 碰 and no other meld; the eleven concealed tiles (winning tile included)
    are five pairs (a four counts as two) and the fourth tile of the 碰's kind."""
    pong = _dilong_pong(melds)
    if pong is None or sum(counts) != 11 or counts[pong] != 1:
        return False
    return all(c % 2 == 0 for k, c in enumerate(counts) if k != pong)


def dilong_waits(opts: RuleOptions, counts: Sequence[int], melds: Sequence[Meld]) -> list[int]:
    """The kinds that complete a 10-tile hand beside one 碰 as a 地龙 the table values."""
    pong = _dilong_pong(melds)
    if pong is None or not dilong_on(opts) or sum(counts) != 10:
        return []
    odd = [k for k, c in enumerate(counts) if c % 2]
    if counts[pong] == 0 and not odd:
        waits = [pong]
    elif counts[pong] == 1 and len(odd) == 2:
        waits = [k for k in odd if k != pong]
    else:
        return []
    out = []
    work = list(counts)
    for k in waits:
        work[k] += 1
        if best_pattern(opts, work, [pong], melds) is not None:
            out.append(k)
        work[k] -= 1
    return out


def dilong_mask(opts: RuleOptions, counts: Sequence[int], melds: Sequence[Meld]) -> int:
    """`dilong_waits` as a bitmask (bit k: kind k)."""
    mask = 0
    for k in dilong_waits(opts, counts, melds):
        mask |= 1 << k
    return mask


def is_complete(opts: RuleOptions, counts: Sequence[int], melds: Sequence[Meld]) -> bool:
    """A complete hand (§3), or a 地龙 the table values (§13.16)."""
    if is_win_counts(counts, len(melds)):
        return True
    return dilong_on(opts) and win_pattern(opts, counts, melds) is not None


def has_pass(opts: RuleOptions, melds: Sequence[Meld]) -> bool:
    """Whether the player holds a 豆 that is a 通行证 (§4; anshun: 闷豆/转弯豆 forms only)."""
    if opts.pass_gangs == "any":
        return any(m.is_gang for m in melds)
    return any(m.kind in ("an", "bu") for m in melds)


def holding(counts: Sequence[int], melds: Sequence[Meld], kind: int) -> int:
    """How many of `kind` the player holds, hand and melds."""
    return counts[kind] + sum(m.size for m in melds if m.tile == kind)


def ready_waits(
    counts: Sequence[int], melds: Sequence[Meld], opts: RuleOptions | None = None
) -> list[int]:
    """The waits of a 13-tile hand that count for readiness (§7): not a kind held four times.
    With `opts`, a 地龙 wait counts where the table values 地龙 (§13 fine points)."""
    found = wait_kinds(counts, len(melds))
    if opts is not None and dilong_on(opts):
        found = sorted(set(found) | set(dilong_waits(opts, counts, melds)))
    return [k for k in found if holding(counts, melds, k) < 4]


def ready_pattern(
    opts: RuleOptions, counts: Sequence[int], melds: Sequence[Meld]
) -> tuple[Pattern, int] | None:
    """The highest-valued pattern over the ready waits, with its value; None if not ready."""
    best: tuple[Pattern, int] | None = None
    meld_kinds = [m.tile for m in melds]
    work = list(counts)
    for k in ready_waits(counts, melds, opts):
        work[k] += 1
        found = best_pattern(opts, work, meld_kinds, melds)
        work[k] -= 1
        if found is not None and (best is None or found[1] > best[1]):
            best = found
    return best


def ready_value(opts: RuleOptions, counts: Sequence[int], melds: Sequence[Meld]) -> int | None:
    """The highest pattern value over the ready waits, without bonuses; None if not ready."""
    best = ready_pattern(opts, counts, melds)
    return None if best is None else best[1]
