"""Exact distance to ready (向听数) for the bots: standard form and seven pairs, 龙七对 included.

The shanten of a hand is one less than the fewest tiles it must take in (each replacing one it
holds) to become complete: -1 complete, 0 ready, 1 one tile from ready, ... It is computed from
its definition, not from the usual "sets + partial sets" formula (which counts, for instance,
three sets and two partial sets with no pair as ready, and ignores that a fifth copy of a kind
does not exist):

    shanten = (tiles of a complete hand) - (most tiles of the hand some complete hand keeps) - 1

A complete hand here is a *target*: per-kind counts of at most four, either `4 - melds` sets
and one pair (standard), or, with no meld, seven pairs where a kind held four times is two of
them (龙七对). The most tiles a target keeps is `sum(min(target[k], hand[k]))`.

For the standard form the targets split by suit, so each suit's nine counts get a small table
(`suit_table`): for s = 0..4 sets and p = 0..1 pairs in that suit, the most of its tiles such a
target keeps, over targets of *at most* that many blocks (a block that keeps nothing can always
be put in a kind nobody holds). Three tables combine by trying every split of the sets and the
pair over the suits. The table is a pass over the ranks (`suit_table`), with a per-kind
limit of four; it is cached by the suit's counts in a bounded LRU cache (`functools.lru_cache`
with a size; keys are plain tuples of ints, so nothing is keyed by an object's address).

Seven pairs: each kind offers a first pair (keeps `min(h, 2)`) and a second (`min(h, 4) - 2`,
only after the first); the best target takes the seven largest offers (offers are 1 or 2, so
counting them is enough).

>>> from rules.tiles import parse_tiles, to_counts
>>> shanten(to_counts(parse_tiles("33346m789p44567s")), 0)  # ready on 5m
0
>>> shanten(to_counts(parse_tiles("33346m789p34567s")), 0)  # three sets, two partials, no pair
1
>>> best_discards(to_counts(parse_tiles("33346m789p344567s")), 0)  # only 3s keeps it ready
(0, [20])
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

SETS = 4  # a standard hand's sets, melds included
SUIT_CACHE = 1 << 14  # rows kept by `suit_table` and `removal_masks`, table pairs by `combine`
# (a few hundred bytes an entry; `_suffix` keeps twice as many: ~15 MB in all when full)

SuitTable = tuple[int, ...]
"""`t[2 * s + p]`: the most tiles of the suit a target with at most `s` sets and `p` pairs
in this suit keeps (s = 0..4, p = 0..1)."""


_NO = -1000  # an impossible (sets, pair) count


@lru_cache(maxsize=2 * SUIT_CACHE)
def _suffix(suf: tuple[int, ...], a: int, b: int) -> tuple[int, ...]:
    """The most tiles of the ranks `suf` (the end of a suit) a target keeps, per *exact*
    (s, p) at index 2 * s + p (`_NO` when impossible), given `a` runs that end on its first
    rank and `b` runs that cover its first two. Rows share their ends, so this is cached."""
    if not suf:
        return _EMPTY if not a and not b else _NONE
    h = suf[0]
    rest = suf[1:]
    runs_max = max(suf[:3]) if len(suf) >= 3 else 0
    out = list(_NONE)
    base = a + b
    for q in (0, 1) if h else (0,):
        for e in (0, 1) if h else (0,):
            used = base + 3 * q + 2 * e
            if used > 4:
                continue
            for c in range(min(4 - used, SETS - q, runs_max) + 1):
                t = used + c
                k = t if t < h else h
                sub = _suffix(rest, b, c)
                ds = c + q
                for i in range(2 * (SETS - ds) + 2):
                    if e and i & 1:
                        continue
                    v = sub[i]
                    if v < 0:
                        continue
                    j = i + 2 * ds + e
                    if v + k > out[j]:
                        out[j] = v + k
    return tuple(out)


_EMPTY = (0,) + (_NO,) * 9
_NONE = (_NO,) * 10


@lru_cache(maxsize=SUIT_CACHE)
def suit_table(row: tuple[int, ...]) -> SuitTable:
    """The suit's table (see `SuitTable`) for its nine counts `row` (rank 1 first).

    A pass over the ranks, low to high (`_suffix`, cached by the rest of the row and the runs
    still open): at rank i the target takes the runs still open, new runs starting at i, maybe
    a pung, maybe the pair, at most four tiles in all. Moves that cannot keep a tile are left
    out (they only fill: see the module docstring): a pung or the pair of a rank not held, more
    new runs than the most held of the three ranks they cover."""
    best = [max(v, 0) for v in _suffix(row, 0, 0)]
    # "at most": more sets or a pair allowed never keeps fewer tiles
    for s in range(SETS + 1):
        for p in (0, 1):
            i = 2 * s + p
            if s and best[i - 2] > best[i]:
                best[i] = best[i - 2]
            if p and best[i - 1] > best[i]:
                best[i] = best[i - 1]
    return tuple(best)


def suit_tables(counts: Sequence[int]) -> tuple[SuitTable, SuitTable, SuitTable]:
    """`suit_table` of each suit of a hand's 27 counts (man, pin, sou)."""
    return (
        suit_table(tuple(counts[0:9])),
        suit_table(tuple(counts[9:18])),
        suit_table(tuple(counts[18:27])),
    )


@lru_cache(maxsize=SUIT_CACHE)
def combine(a: SuitTable, b: SuitTable) -> SuitTable:
    """Two suits' tables as one: for each (s, p), the best split of s sets and p pairs (cached:
    hands share their suits' tables far more than their rows)."""
    out = [0] * 10
    for sa in range(SETS + 1):
        for sb in range(SETS + 1 - sa):
            ia, ib, j = 2 * sa, 2 * sb, 2 * (sa + sb)
            v = a[ia] + b[ib]
            if v > out[j]:
                out[j] = v
            v = max(a[ia + 1] + b[ib], a[ia] + b[ib + 1])
            if v > out[j + 1]:
                out[j + 1] = v
    return tuple(out)


def standard_kept(a: SuitTable, b: SuitTable, c: SuitTable, sets: int) -> int:
    """The most tiles a standard target of `sets` sets and one pair keeps, from three tables."""
    return _kept_with(a, combine(b, c), sets)


def _kept_with(t: SuitTable, rest: SuitTable, sets: int) -> int:
    """The same from one suit's table and the other two combined."""
    best = 0
    for s in range(sets + 1):
        i, j = 2 * s, 2 * (sets - s)
        v = max(t[i + 1] + rest[j], t[i] + rest[j + 1])
        if v > best:
            best = v
    return best


def _pair_offers(counts: Sequence[int]) -> tuple[int, int]:
    """Seven pairs' offers (see the module docstring), counted: (offers of 2, offers of 1)."""
    twos = ones = 0
    for h in counts:
        if h:
            t, o = _OFFERS[h]
            twos += t
            ones += o
    return twos, ones


# per count held: (offers of 2, offers of 1) — 1: a single; 2: a pair; 3: a pair and a single;
# 4: two pairs
_OFFERS = ((0, 0), (0, 1), (1, 0), (1, 1), (2, 0))


def _seven_kept(twos: int, ones: int) -> int:
    return 2 * min(twos, 7) + min(ones, max(0, 7 - twos))


def seven_pairs_kept(counts: Sequence[int]) -> int:
    """The most tiles a seven-pairs target (a four as two pairs) keeps."""
    return _seven_kept(*_pair_offers(counts))


def shanten(counts: Sequence[int], n_melds: int) -> int:
    """Exact shanten of a hand (13 or 14 tiles counting each meld as 3): -1 complete, 0 ready."""
    sets = SETS - n_melds
    a, b, c = suit_tables(counts)
    std = 3 * sets + 1 - standard_kept(a, b, c, sets)
    if n_melds:
        return std
    return min(std, 13 - seven_pairs_kept(counts))


@lru_cache(maxsize=SUIT_CACHE)
def removal_masks(row: tuple[int, ...]) -> tuple[tuple[int, int], ...]:
    """Per rank held in `row`: (rank, mask of the table entries that removing one of that rank
    leaves unchanged; bit `i` for `t[i]`). Removing a tile lowers an entry by at most one, so
    this is all `discard_shantens` needs of the smaller row's table. Cached by the row."""
    full = suit_table(row)
    out = []
    t = list(row)
    for r in range(9):
        h = t[r]
        if not h:
            continue
        t[r] = h - 1
        less = suit_table(tuple(t))
        t[r] = h
        mask = 0
        for i in range(10):
            if less[i] == full[i]:
                mask |= 1 << i
        out.append((r, mask))
    return tuple(out)


def _best_entries(t: SuitTable, rest: SuitTable, sets: int) -> tuple[int, int]:
    """`_kept_with(t, rest, sets)` and the mask of the entries `i` of `t` that reach it."""
    best = -1
    mask = 0
    for s in range(sets + 1):
        i, j = 2 * s, 2 * (sets - s)
        for ii, v in ((i + 1, t[i + 1] + rest[j]), (i, t[i] + rest[j + 1])):
            if v > best:
                best, mask = v, 1 << ii
            elif v == best:
                mask |= 1 << ii
    return best, mask


def discard_shantens(counts: Sequence[int], n_melds: int) -> dict[int, int]:
    """For each kind held, the shanten after discarding one of it (a 14-tile hand).

    One pass, no table per discard: removing one tile keeps at most one tile fewer, so a
    discard keeps the hand's best standard count exactly when some best split of sets and the
    pair over the suits uses an entry of its suit's table that the removal leaves unchanged
    (`removal_masks`), and keeps one fewer otherwise."""
    sets = SETS - n_melds
    rows = (tuple(counts[0:9]), tuple(counts[9:18]), tuple(counts[18:27]))
    t0, t1, t2 = suit_table(rows[0]), suit_table(rows[1]), suit_table(rows[2])
    rests = (combine(t1, t2), combine(t0, t2), combine(t0, t1))
    tables = (t0, t1, t2)
    seven = not n_melds
    sp = [99] * 5  # seven pairs' shanten after discarding a kind held h times
    if seven:
        twos, ones = _pair_offers(counts)
        for h in range(1, 5):
            (a0, o0), (a1, o1) = _OFFERS[h], _OFFERS[h - 1]
            sp[h] = 13 - _seven_kept(twos - a0 + a1, ones - o0 + o1)
    top = 3 * sets + 1
    out: dict[int, int] = {}
    for s in range(3):
        kept, best = _best_entries(tables[s], rests[s], sets)
        offset = 9 * s
        row = rows[s]
        for r, unchanged in removal_masks(row):
            std = top - kept if unchanged & best else top - kept + 1
            pairs = sp[row[r]]
            out[offset + r] = pairs if pairs < std else std
    return out


def best_discards(counts: Sequence[int], n_melds: int) -> tuple[int, list[int]]:
    """The lowest exact shanten one discard reaches, and every discard that reaches it."""
    after = discard_shantens(counts, n_melds)
    low = min(after.values())
    return low, [k for k, s in after.items() if s == low]
