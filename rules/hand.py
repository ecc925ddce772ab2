"""Hand analysis: complete hands, waits, and which shapes a hand can be read as.

Every analysis works on 27 counts (one per tile kind). A suit's nine counts are folded into one
int key, base 5 (`sum(count[r] * 5**r)`), and looked up in tables of the complete suit shapes,
built once at import by enumerating sets and pairs (a few thousand keys). A hand is a standard
win when one suit is "sets + one pair" and the other two are "sets only".

>>> from rules.tiles import parse_tiles
>>> is_win(parse_tiles("11122233344455m"))
True
>>> waits(parse_tiles("1112223334445m"))
['2m', '3m', '4m', '5m', '6m']
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rules.tiles import NUM_KINDS, tile_name, to_counts

POW5 = tuple(5**r for r in range(10))

SETS_ONLY = 1  # the suit splits into pungs and runs (possibly none)
SETS_PAIR = 2  # the suit splits into pungs, runs and exactly one pair


def _build_suit_table() -> dict[int, int]:
    """Key → flags for every complete single-suit shape with at most four of each rank."""
    set_shapes: list[tuple[int, ...]] = []
    for r in range(9):
        set_shapes.append(tuple(3 if i == r else 0 for i in range(9)))
    for r in range(7):
        set_shapes.append(tuple(1 if r <= i <= r + 2 else 0 for i in range(9)))

    def add(a: tuple[int, ...], b: tuple[int, ...]) -> tuple[int, ...] | None:
        s = tuple(x + y for x, y in zip(a, b, strict=True))
        return s if max(s) <= 4 else None

    level: set[tuple[int, ...]] = {(0,) * 9}
    sets_only: set[tuple[int, ...]] = set(level)
    for _ in range(4):
        nxt: set[tuple[int, ...]] = set()
        for shape in level:
            for m in set_shapes:
                s = add(shape, m)
                if s is not None:
                    nxt.add(s)
        sets_only |= nxt
        level = nxt
    table: dict[int, int] = {}
    for shape in sets_only:
        key = sum(c * POW5[i] for i, c in enumerate(shape))
        table[key] = table.get(key, 0) | SETS_ONLY
        for r in range(9):
            if shape[r] <= 2:
                pkey = key + 2 * POW5[r]
                table[pkey] = table.get(pkey, 0) | SETS_PAIR
    return table


SUIT_TABLE: dict[int, int] = _build_suit_table()


def suit_keys(counts: Sequence[int]) -> tuple[int, int, int]:
    """The three base-5 suit keys of a 27-count vector."""
    keys = [0, 0, 0]
    for s in range(3):
        key = 0
        base = s * 9
        for r in range(8, -1, -1):
            key = key * 5 + counts[base + r]
        keys[s] = key
    return keys[0], keys[1], keys[2]


def _standard_from_keys(k0: int, k1: int, k2: int) -> bool:
    t = SUIT_TABLE
    f0 = t.get(k0, 0)
    f1 = t.get(k1, 0)
    f2 = t.get(k2, 0)
    if not (f0 and f1 and f2):
        return False
    return bool(
        (f0 & SETS_PAIR and f1 & SETS_ONLY and f2 & SETS_ONLY)
        or (f1 & SETS_PAIR and f0 & SETS_ONLY and f2 & SETS_ONLY)
        or (f2 & SETS_PAIR and f0 & SETS_ONLY and f1 & SETS_ONLY)
    )


def is_standard(counts: Sequence[int]) -> bool:
    """The concealed counts split into sets plus exactly one pair (any number of melds beside)."""
    if sum(counts) % 3 != 2:
        return False
    return _standard_from_keys(*suit_keys(counts))


def is_all_pungs(counts: Sequence[int]) -> bool:
    """The concealed counts are pungs and exactly one pair (大对子 shape)."""
    pairs = 0
    for c in counts:
        if c == 2:
            pairs += 1
        elif c not in (0, 3):
            return False
    return pairs == 1


def is_seven_pairs(counts: Sequence[int]) -> bool:
    """Fourteen concealed tiles, all in pairs; a concealed four counts as two pairs."""
    total = 0
    for c in counts:
        if c & 1:
            return False
        total += c
    return total == 14


def is_win_counts(counts: Sequence[int], n_melds: int = 0) -> bool:
    """A complete hand: concealed counts plus `n_melds` pung/gang melds (RULES.md §3)."""
    total = sum(counts)
    if total + 3 * n_melds != 14:
        return False
    if n_melds == 0 and is_seven_pairs(counts):
        return True
    return _standard_from_keys(*suit_keys(counts))


def is_win(tiles: Sequence[int], n_melds: int = 0) -> bool:
    """`tiles` are the concealed tile kinds (winning tile included) beside `n_melds` melds.

    >>> from rules.tiles import parse_tiles
    >>> is_win(parse_tiles("11223344556677s"))
    True
    """
    return is_win_counts(to_counts(tiles), n_melds)


# Waits: for a suit key, the ranks whose addition makes it sets-only / sets+pair (memoised).
_ADD_CACHE: dict[int, tuple[int, int]] = {}


def _additions(key: int) -> tuple[int, int]:
    """Bitmasks of the ranks r such that key + 5**r is SETS_ONLY / SETS_PAIR."""
    hit = _ADD_CACHE.get(key)
    if hit is not None:
        return hit
    only = 0
    pair = 0
    t = SUIT_TABLE
    k = key
    for r in range(9):
        if k % 5 < 4:
            f = t.get(key + POW5[r], 0)
            if f & SETS_ONLY:
                only |= 1 << r
            if f & SETS_PAIR:
                pair |= 1 << r
        k //= 5
    _ADD_CACHE[key] = (only, pair)
    return only, pair


def wait_kinds(counts: Sequence[int], n_melds: int = 0) -> list[int]:
    """The kinds that complete a hand of 13 (melds counting 3), in sort order.

    Kinds already held four times in the concealed counts are impossible and never listed; the
    caller excludes kinds held four times counting melds (RULES.md §7).
    """
    if sum(counts) + 3 * n_melds != 13:
        return []
    keys = suit_keys(counts)
    flags = [SUIT_TABLE.get(k, 0) for k in keys]
    mask = 0  # bit per kind
    for s in range(3):
        o1, o2 = (s + 1) % 3, (s + 2) % 3
        f1, f2 = flags[o1], flags[o2]
        only, pair = _additions(keys[s])
        bits = 0
        if f1 & SETS_ONLY and f2 & SETS_ONLY:
            bits |= pair
        if (f1 & SETS_PAIR and f2 & SETS_ONLY) or (f2 & SETS_PAIR and f1 & SETS_ONLY):
            bits |= only
        mask |= bits << (9 * s)
    if n_melds == 0:
        odd = [k for k in range(NUM_KINDS) if counts[k] & 1]
        if len(odd) == 1 and counts[odd[0]] < 4:
            mask |= 1 << odd[0]
    return [k for k in range(NUM_KINDS) if mask >> k & 1]


def waits(tiles: Sequence[int], n_melds: int = 0) -> list[str]:
    """The names of the tiles that complete the concealed `tiles` beside `n_melds` melds."""
    return [tile_name(k) for k in wait_kinds(to_counts(tiles), n_melds)]


@dataclass(frozen=True, slots=True)
class Shape:
    """Which readings a complete hand has (RULES.md §3)."""

    standard: bool
    all_pungs: bool
    seven_pairs: bool
    dragon: bool  # seven pairs with a concealed four (龙七对)
    one_suit: bool


def read_shape(counts: Sequence[int], meld_kinds: Sequence[int]) -> Shape | None:
    """The readings of a complete hand (concealed counts incl. the winning tile), or None."""
    n_melds = len(meld_kinds)
    if sum(counts) + 3 * n_melds != 14:
        return None
    standard = _standard_from_keys(*suit_keys(counts))
    all_pungs = standard and is_all_pungs(counts)
    seven = n_melds == 0 and is_seven_pairs(counts)
    if not (standard or seven):
        return None
    suits = {k // 9 for k in range(NUM_KINDS) if counts[k]} | {k // 9 for k in meld_kinds}
    return Shape(
        standard=standard,
        all_pungs=all_pungs,
        seven_pairs=seven,
        dragon=seven and 4 in counts,
        one_suit=len(suits) == 1,
    )
