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
limit of four. Only 126 distinct tables occur, so the bots read them from a precomputed index by
suit key (`rules.players.suit_index`, one byte per row, shipped as data and checked against
`suit_table`); what follows from tables (two combined, the best splits, which entries a removal
leaves unchanged) is cached by table numbers, small ints, in caches bounded by the 126 tables
(one `lru_cache` with a size for three suits' numbers).

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

from rules.hand import hand_key
from rules.players import suit_index
from rules.players.suit_index import P9, RANK_UNIT

SETS = 4  # a standard hand's sets, melds included
STD_CACHE = 1 << 14  # (three suits' table numbers, sets) kept by `_standard_after`

SuitTable = tuple[int, ...]
"""`t[2 * s + p]`: the most tiles of the suit a target with at most `s` sets and `p` pairs
in this suit keeps (s = 0..4, p = 0..1)."""


_NO = -1000  # an impossible (sets, pair) count
_EMPTY = (0,) + (_NO,) * 9
_NONE = (_NO,) * 10
_SuffixMemo = dict[tuple[tuple[int, ...], int, int], tuple[int, ...]]


def _suffix(suf: tuple[int, ...], a: int, b: int, memo: _SuffixMemo) -> tuple[int, ...]:
    """The most tiles of the ranks `suf` (the end of a suit) a target keeps, per *exact*
    (s, p) at index 2 * s + p (`_NO` when impossible), given `a` runs that end on its first
    rank and `b` runs that cover its first two. Rows share their ends: `memo` keeps them."""
    if not suf:
        return _EMPTY if not a and not b else _NONE
    found = memo.get((suf, a, b))
    if found is not None:
        return found
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
                sub = _suffix(rest, b, c, memo)
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
    result = memo[(suf, a, b)] = tuple(out)
    return result


def suit_table(row: tuple[int, ...], memo: _SuffixMemo | None = None) -> SuitTable:
    """The suit's table (see `SuitTable`) for its nine counts `row` (rank 1 first), from the
    definition: the bots read it from the precomputed index (`rules.players.suit_index`), and
    this builds that index and checks it.

    A pass over the ranks, low to high (`_suffix`, memoised by the rest of the row and the runs
    still open): at rank i the target takes the runs still open, new runs starting at i, maybe
    a pung, maybe the pair, at most four tiles in all. Moves that cannot keep a tile are left
    out (they only fill: see the module docstring): a pung or the pair of a rank not held, more
    new runs than the most held of the three ranks they cover."""
    best = [max(v, 0) for v in _suffix(tuple(row), 0, 0, {} if memo is None else memo)]
    # "at most": more sets or a pair allowed never keeps fewer tiles
    for s in range(SETS + 1):
        for p in (0, 1):
            i = 2 * s + p
            if s and best[i - 2] > best[i]:
                best[i] = best[i - 2]
            if p and best[i - 1] > best[i]:
                best[i] = best[i - 1]
    return tuple(best)


def indexed_suit_table(row: Sequence[int]) -> SuitTable:
    """`suit_table(row)` read from the precomputed index (`rules.players.suit_index`)."""
    index, tables = suit_index.load()
    key = sum(c * u for c, u in zip(row, RANK_UNIT, strict=True))
    return tables[index[key]]


def combine(a: SuitTable, b: SuitTable) -> SuitTable:
    """Two suits' tables as one: for each (s, p), the best split of s sets and p pairs."""
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


# ----- the hot path: suit keys, the precomputed index, small caches by table number -----

_OFFER_SHIFT = 5  # a suit's seven-pairs offers as one byte: twos << 5 | ones (ones <= 9)


def _offer_index() -> bytes:
    """Per suit key, its offers (`_pair_offers` of the row) as `twos << 5 | ones`: offers add
    rank by rank, so the table is built a rank at a time with `bytes.translate` (milliseconds).
    Rows no hand holds overflow to 255."""
    level = bytes(1)
    for _ in range(9):
        out = bytearray(5 * len(level))
        for c in range(5):
            t, o = _OFFERS[c]
            d = t << _OFFER_SHIFT | o
            out[c::5] = level.translate(bytes(min(v + d, 255) for v in range(256)))
        level = bytes(out)
    return level


def _seven_after(offers: int) -> tuple[int, ...]:
    """Seven pairs' shanten after discarding a kind held h times (index h; 0: the hand's own;
    5: the least of 1-4), from the hand's summed offers (three suits' `_offer_index` entries: twos << 5 | ones)."""
    twos, ones = offers >> _OFFER_SHIFT, offers & ((1 << _OFFER_SHIFT) - 1)
    out = [13 - _seven_kept(twos, ones)]
    for h in range(1, 5):
        (a0, o0), (a1, o1) = _OFFERS[h], _OFFERS[h - 1]
        out.append(13 - _seven_kept(twos - a0 + a1, ones - o0 + o1))
    out.append(min(out[1:]))  # the least after any discard (`best_discards`)
    return tuple(out)


class _Index:
    """The precomputed tables and what is derived from them, per table number: loaded on the
    first use (`_index`), bounded by the 126 tables (no cache here grows with the rows seen)."""

    def __init__(self) -> None:
        self.rows, self.tables = suit_index.load()
        n = len(self.tables)
        self.n = n
        self.offers = _offer_index()
        self.seven = [_seven_after(v) for v in range(3 * 256)]
        self._combined: list[SuitTable | None] = [None] * (n * n)  # filled on first use
        self.masks: list[int] = [-1] * (n * n)  # filled on first use: `removal_mask`

    def combined(self, i: int, j: int) -> SuitTable:
        """`combine` of tables `i` and `j`."""
        c = self._combined[i * self.n + j]
        if c is None:
            c = self._combined[i * self.n + j] = combine(self.tables[i], self.tables[j])
        return c

    def removal_mask(self, full: int, less: int) -> int:
        """The entries (bit i for t[i]) of table `full` that table `less` (its row less one
        tile) leaves unchanged."""
        i = full * self.n + less
        m = self.masks[i]
        if m < 0:
            a, b = self.tables[full], self.tables[less]
            m = 0
            for e in range(10):
                if a[e] == b[e]:
                    m |= 1 << e
            self.masks[i] = m
        return m


_LOADED: list[_Index] = []


def _index() -> _Index:
    if not _LOADED:
        _LOADED.append(_Index())
    return _LOADED[0]


def _keys(counts: Sequence[int]) -> tuple[int, int, int]:
    key = hand_key(counts)
    q, k2 = divmod(key, P9)
    k0, k1 = divmod(q, P9)
    return k0, k1, k2


@lru_cache(maxsize=STD_CACHE)
def _standard_after(i0: int, i1: int, i2: int, sets: int) -> tuple[tuple[int, int], ...]:
    """Per suit, for three suits' table numbers: `_best_entries` of its table against the
    other two combined (cached by the four small ints: hands share their suits' tables)."""
    ix = _index()
    t, c = ix.tables, ix.combined
    return (
        _best_entries(t[i0], c(i1, i2), sets),
        _best_entries(t[i1], c(i0, i2), sets),
        _best_entries(t[i2], c(i0, i1), sets),
    )


def shanten(counts: Sequence[int], n_melds: int) -> int:
    """Exact shanten of a hand (13 or 14 tiles counting each meld as 3): -1 complete, 0 ready."""
    sets = SETS - n_melds
    ix = _index()
    k0, k1, k2 = _keys(counts)
    rows = ix.rows
    kept = _standard_after(rows[k0], rows[k1], rows[k2], sets)[0][0]
    std = 3 * sets + 1 - kept
    if n_melds:
        return std
    offers = ix.offers
    pairs = ix.seven[offers[k0] + offers[k1] + offers[k2]][0]
    return pairs if pairs < std else std


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
    (`_Index.removal_mask`, by the table numbers of the row and the row less that tile), and
    keeps one fewer otherwise."""
    sets = SETS - n_melds
    ix = _index()
    rows = ix.rows
    keys = _keys(counts)
    nums = (rows[keys[0]], rows[keys[1]], rows[keys[2]])
    per_suit = _standard_after(nums[0], nums[1], nums[2], sets)
    if n_melds:
        sp: tuple[int, ...] = (99, 99, 99, 99, 99)
    else:
        offers = ix.offers
        sp = ix.seven[offers[keys[0]] + offers[keys[1]] + offers[keys[2]]]
    top = 3 * sets + 1
    masks, n = ix.masks, ix.n
    out: dict[int, int] = {}
    for s in range(3):
        kept, best = per_suit[s]
        offset = 9 * s
        key, full = keys[s], nums[s]
        for r in range(9):
            h = counts[offset + r]
            if not h:
                continue
            less = rows[key - RANK_UNIT[r]]
            unchanged = masks[full * n + less]
            if unchanged < 0:
                unchanged = ix.removal_mask(full, less)
            std = top - kept if unchanged & best else top - kept + 1
            pairs = sp[h]
            out[offset + r] = pairs if pairs < std else std
    return out


def best_discards(counts: Sequence[int], n_melds: int) -> tuple[int, list[int]]:
    """The lowest exact shanten one discard reaches, and every discard that reaches it (in
    kind order): `discard_shantens`' minimum, without a value per discard."""
    low, found, _ = best_discards_keyed(counts, n_melds)
    return low, found


def best_discards_keyed(
    counts: Sequence[int], n_melds: int
) -> tuple[int, list[int], tuple[int, int, int]]:
    """`best_discards`, and the hand's three suit keys (for a caller that reads rows by key)."""
    low, m0, m1, m2, keys = best_discard_masks(counts, n_melds)
    return low, [*_KINDS0[m0], *_KINDS1[m1], *_KINDS2[m2]], keys


def best_discard_masks(
    counts: Sequence[int], n_melds: int
) -> tuple[int, int, int, int, tuple[int, int, int]]:
    """`best_discards_keyed` with the discards as one rank mask per suit (bit r: rank r of
    that suit), for a caller that goes on by suit.

    The lowest exact shanten one discard reaches, and every discard that reaches it (in
    kind order): `discard_shantens`' minimum, without a value per discard.

    A discard's standard shanten is the hand's best (`top - kept`) when its removal keeps a best
    entry of its suit's table and one more otherwise (`discard_shantens`), so per suit one
    cached rank mask of the discards that keep it (`_keeping`, by suit key and best entries)
    decides; seven pairs' shanten after a discard depends only on the count held, so it is
    compared a count at a time (`_count_masks`) when it can be as low as the standard one."""
    sets = SETS - n_melds
    ix = _index()
    rows = ix.rows
    keys = k0, k1, k2 = _keys(counts)
    (kept, b0), (_, b1), (_, b2) = _standard_after(rows[k0], rows[k1], rows[k2], sets)
    std = 3 * sets + 1 - kept  # after a discard that keeps a best entry; std + 1 otherwise
    memo = _KEEPING  # `_keeping`, its hits inlined (three per decision)
    g0 = memo.get(k0 << 10 | b0)
    if g0 is None:
        g0 = _keeping(k0, b0)
    g1 = memo.get(k1 << 10 | b1)
    if g1 is None:
        g1 = _keeping(k1, b1)
    g2 = memo.get(k2 << 10 | b2)
    if g2 is None:
        g2 = _keeping(k2, b2)
    if n_melds:
        sp: tuple[int, ...] = _NO_PAIRS
    else:
        sp = ix.seven[ix.offers[k0] + ix.offers[k1] + ix.offers[k2]]
    if sp[5] > std:  # seven pairs cannot tie the standard form: the common case
        if g0 or g1 or g2:
            return std, g0, g1, g2, keys
        return std + 1, _count_masks(k0)[0], _count_masks(k1)[0], _count_masks(k2)[0], keys
    c0, c1, c2 = _count_masks(k0), _count_masks(k1), _count_masks(k2)
    low = 99
    m0 = m1 = m2 = 0
    for h in range(1, 5):
        a0, a1, a2 = c0[h], c1[h], c2[h]
        if not (a0 or a1 or a2):
            continue
        p = sp[h]
        for value, x0, x1, x2 in (
            (std if std < p else p, a0 & g0, a1 & g1, a2 & g2),
            (std + 1 if std + 1 < p else p, a0 & ~g0, a1 & ~g1, a2 & ~g2),
        ):
            if not (x0 or x1 or x2) or value > low:
                continue
            if value < low:
                low, m0, m1, m2 = value, x0, x1, x2
            else:
                m0, m1, m2 = m0 | x0, m1 | x1, m2 | x2
    return low, m0, m1, m2, keys


# seven pairs' shanten after a discard per count held (index 1-4), their least at index 5:
# none with a meld
_NO_PAIRS = (99, 99, 99, 99, 99, 99)
KEY_CACHE = 1 << 14  # suit keys kept by `_count_masks`
# (suit key, best entries) kept by `_keeping`: emptied when full, so a small one refills often
# (at 16,384 it was emptied every ~700 rounds of four `normal`, 23 misses a round against 10 at
# this size); 65,536 ints are ~5 MB at most
KEEP_CACHE = 1 << 16
# the kinds of the set bits of a 9-bit rank mask (bit r: rank index r), per suit (the bots read
# `best_discard_masks` with them too)
MASK_KINDS = tuple(
    tuple(tuple(9 * s + r for r in range(9) if m >> r & 1) for m in range(512)) for s in range(3)
)
_KINDS0, _KINDS1, _KINDS2 = MASK_KINDS


@lru_cache(maxsize=KEY_CACHE)
def _count_masks(key: int) -> tuple[int, int, int, int, int]:
    """The rank masks of a suit key: (every rank held, held once, twice, three, four times)."""
    out = [0, 0, 0, 0, 0]
    for r in range(9):
        h = key // RANK_UNIT[r] % 5
        if h:
            out[0] |= 1 << r
            out[h] |= 1 << r
    return out[0], out[1], out[2], out[3], out[4]


_KEEPING: dict[int, int] = {}  # `_keeping` by `key << 10 | best`


def _keeping(key: int, best: int) -> int:
    """The rank mask of the suit's discards whose removal leaves one of the table entries
    `best` (a mask of entries) unchanged (`_Index.removal_mask`). Kept in `_KEEPING` by one int
    (a hit is one dict lookup, no key tuple, no recency list to update), emptied when it holds
    `KEEP_CACHE` entries: bounded, and refilled in a few hundred rounds."""
    ix = _index()
    rows = ix.rows
    full = rows[key]
    row_masks, n = ix.masks, ix.n
    at = full * n
    out = 0
    held = _count_masks(key)[0]
    while held:  # the ranks held, one set bit at a time
        bit = held & -held
        held ^= bit
        r = bit.bit_length() - 1
        less = rows[key - RANK_UNIT[r]]
        unchanged = row_masks[at + less]
        if unchanged < 0:
            unchanged = ix.removal_mask(full, less)
        if unchanged & best:
            out |= bit
    if len(_KEEPING) >= KEEP_CACHE:
        _KEEPING.clear()
    _KEEPING[key << 10 | best] = out
    return out
