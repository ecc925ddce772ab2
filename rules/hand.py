"""Hand analysis: complete hands, waits, and which shapes a hand can be read as.

Every analysis works on 27 counts (one per tile kind), read as one 27-digit base-5 numeral, 1m
first: the *hand key* (at most four of a kind, so every count is one digit; 5**27 < 2**63). Its
three 9-digit parts are the *suit keys* (a suit's nine counts as a base-5 numeral, rank 1 first).
Two tables are built by enumerating sets and pairs, once: the first import writes them to a
cache beside this module's bytecode (`_tables`), later imports read it back (a start of the
command line pays milliseconds instead of the build):

- `_CLASS`, a bytes object indexed by suit key (5**9 entries, 2 MB): whether the suit's shape is
  "sets only" or "sets + one pair", and whether all its counts are even;
- `_ADD`, for every shape one tile short of complete, the ranks whose addition completes it.

A hand is a standard win when one suit is "sets + one pair" and the other two "sets only", so
`is_win` is three indexings and a sum; seven pairs is "every suit all even" with 14 tiles; and
`waits` adds one `_ADD` lookup per suit that can take the winning tile. A list of tiles becomes a
key by adding `TILE_UNIT[kind]` per tile; 27 counts by `int(…, 5)` on their digits.

Inputs hold at most four of a kind (the wall has four). Counts outside 0–4 are rejected (no win,
no waits, or ValueError from `hand_key`); a tile list with five of a kind is a caller's bug that
the hot path does not pay to detect.

>>> from rules.tiles import parse_tiles
>>> is_win(parse_tiles("11122233344455m"))
True
>>> waits(parse_tiles("1112223334445m"))
['2m', '3m', '4m', '5m', '6m']
"""

from __future__ import annotations

import contextlib
import importlib.util
import marshal
import os
import sys
import zlib
from collections.abc import Sequence
from dataclasses import dataclass

from rules.tiles import NUM_KINDS, tile_name

_P9 = 5**9  # suit keys are below this
TILE_UNIT: tuple[int, ...] = tuple(5 ** (NUM_KINDS - 1 - k) for k in range(NUM_KINDS))
"""`TILE_UNIT[k]` is one tile of kind k in a hand key: a key is `sum(TILE_UNIT[k] for k in tiles)`."""
RANK_UNIT: tuple[int, ...] = TILE_UNIT[-9:]
"""`RANK_UNIT[r]` is one tile of rank index r (0–8) in a suit key."""
_DIGITS = bytes.maketrans(bytes(range(5)), b"01234")  # count → its base-5 digit

SETS_ONLY = 1  # the suit splits into pungs and runs (possibly none)
SETS_PAIR = 2  # the suit splits into pungs, runs and exactly one pair

# _CLASS entries. The codes are chosen so that three suits read as a standard hand exactly when
# their codes add up to 1 + 1 + 4, and the even flags of three suits add up without overflow.
_ONLY = 1
_PAIR = 4
_STANDARD = _ONLY + _ONLY + _PAIR
_CODE = 0b111
_EVEN = 16  # every count of the suit is even (and the suit holds at most 14 tiles)
# _ADD entries: ranks completing the shape as sets only in bits 0-8, as sets + pair in bits 9-17.
# Which of the two a suit needs depends on the other two suits' codes: 1 + 1 → it must become
# sets + pair; 1 + 4 → sets only; anything else → no tile of this suit completes the hand.
_ADD_SHIFT_BY_OTHERS = tuple(
    9 if c == 2 * _ONLY else 0 if c == _ONLY + _PAIR else -1 for c in range(2 * _PAIR + 1)
)


def hand_key(counts: Sequence[int]) -> int:
    """The hand key of 27 counts: their digits read in base 5. ValueError unless each is 0–4.

    >>> hand_key([0] * 25 + [1, 2])
    7
    """
    try:
        return int(bytes(counts).translate(_DIGITS), 5)
    except ValueError:
        raise ValueError(f"tile counts must be 0-4: {list(counts)}") from None


def suit_keys(counts: Sequence[int]) -> tuple[int, int, int]:
    """The three suit keys (m, p, s) of a 27-count vector (the keys of `SUIT_TABLE`).

    >>> suit_keys([1] + [0] * 17 + [0, 0, 0, 0, 0, 0, 0, 1, 2])
    (390625, 0, 7)
    """
    key = hand_key(counts)
    q = key // _P9
    return q // _P9, q % _P9, key % _P9


def _build_tables() -> tuple[dict[int, int], bytes, dict[int, int]]:
    """(SUIT_TABLE, _CLASS, _ADD), from every complete single-suit shape of at most 14 tiles."""
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

    unit = RANK_UNIT
    table: dict[int, int] = {}
    adds: dict[int, int] = {}

    def complete(shape: tuple[int, ...], key: int, flag: int) -> None:
        table[key] = flag
        bit = 1 if flag == SETS_ONLY else 1 << 9
        for r in range(9):
            if shape[r]:
                short = key - unit[r]
                adds[short] = adds.get(short, 0) | bit << r

    for shape in sets_only:
        key = sum(c * unit[r] for r, c in enumerate(shape))
        complete(shape, key, SETS_ONLY)
        for r in range(9):
            if shape[r] <= 2:
                with_pair = shape[:r] + (shape[r] + 2,) + shape[r + 1 :]
                complete(with_pair, key + 2 * unit[r], SETS_PAIR)

    classes = bytearray(_P9)
    for key, flag in table.items():
        classes[key] = _ONLY if flag == SETS_ONLY else _PAIR

    def mark_evens(rank: int, key: int, left: int) -> None:
        if rank == 9:
            classes[key] |= _EVEN
            return
        for c in (0, 2, 4):
            if c <= left:
                mark_evens(rank + 1, key + c * unit[rank], left - c)

    mark_evens(0, 0, 14)
    return table, bytes(classes), adds


Tables = tuple[dict[int, int], bytes, dict[int, int]]


def _tables(folder: str | None) -> Tables:
    """`_build_tables()`, read from the cache file in `folder` when this very source wrote it
    (the file holds the CRC-32 of hand.py), else built and written there for the next start.
    A folder that cannot be written, or a cache that cannot be read, only costs the build. No
    folder (None): build. The cache file is marshal data (trusted like the bytecode beside it)."""
    with open(__file__, "rb") as source:
        stamp = zlib.crc32(source.read())
    path = None
    if folder is not None:
        path = os.path.join(folder, f"hand_tables.{sys.implementation.cache_tag}.marshal")
        try:
            with open(path, "rb") as f:
                held, table, classes, adds = marshal.loads(f.read())
            if held == stamp and len(classes) == _P9:
                return table, classes, adds
        except (OSError, ValueError, EOFError, TypeError):
            pass
    tables = _build_tables()
    if path is not None and not sys.dont_write_bytecode:
        try:
            os.makedirs(os.path.dirname(path), exist_ok=True)
        except OSError:
            return tables
        part = f"{path}.{os.getpid()}"
        try:
            with open(part, "wb") as f:
                f.write(marshal.dumps((stamp, *tables)))
            os.replace(part, path)  # whole or not at all, for a start running beside
        except OSError:
            with contextlib.suppress(OSError):
                os.remove(part)  # a full disk leaves no half-written part behind
    return tables


def _cache_folder() -> str:
    """Where the bytecode of this module goes (`__pycache__` beside it, or under
    `sys.pycache_prefix` when one is set): the cache file lives beside its own bytecode."""
    return os.path.dirname(importlib.util.cache_from_source(__file__))


SUIT_TABLE: dict[int, int]
"""Suit key → SETS_ONLY or SETS_PAIR, for every complete single-suit shape."""
SUIT_TABLE, _CLASS, _ADD = _tables(_cache_folder())

# the names / kinds of the set bits of a 9-bit rank mask, per suit
_MASK_NAMES = tuple(
    tuple(tuple(tile_name(9 * s + r) for r in range(9) if m >> r & 1) for m in range(512))
    for s in range(3)
)
_MASK_KINDS = tuple(
    tuple(tuple(9 * s + r for r in range(9) if m >> r & 1) for m in range(512)) for s in range(3)
)


# --- complete hands -----------------------------------------------------------------------------


def _class_sum(key: int) -> int:
    """The three suits' _CLASS entries of a hand key, added up (0, "nothing", if the key is out
    of range: a count above 4 carried past the first suit)."""
    c = _CLASS
    try:
        return c[key % _P9] + c[(q := key // _P9) % _P9] + c[q // _P9]
    except IndexError:
        return 0


def is_standard(counts: Sequence[int]) -> bool:
    """The concealed counts split into sets plus exactly one pair (any number of melds beside)."""
    return _class_sum(hand_key(counts)) & 0b1111 == _STANDARD


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


# Whether a hand is complete, by the sum of its three suits' _CLASS entries (≤ 3 × (4 + 16)).
_WIN_CONCEALED = tuple(s & 0b1111 == _STANDARD or s >> 4 == 3 for s in range(64))
_WIN_MELDED = tuple(s & 0b1111 == _STANDARD for s in range(64))


def is_win_key(key: int, n_tiles: int, n_melds: int = 0) -> bool:
    """`is_win` of a hand key (see `hand_key`) holding `n_tiles` concealed tiles."""
    if n_tiles + 3 * n_melds != 14:
        return False
    return (_WIN_MELDED if n_melds else _WIN_CONCEALED)[_class_sum(key)]


def is_win_counts(counts: Sequence[int], n_melds: int = 0) -> bool:
    """A complete hand: concealed counts plus `n_melds` pung/gang melds (RULES.md §3).

    >>> from rules.tiles import parse_tiles, to_counts
    >>> is_win_counts(to_counts(parse_tiles("22m345p")), 3)
    True
    """
    try:
        key = int(bytes(counts).translate(_DIGITS), 5)
    except ValueError:
        return False  # a count outside 0-4
    cl = _CLASS
    s = cl[key % 1953125] + cl[(q := key // 1953125) % 1953125] + cl[q // 1953125]  # 5**9
    if not (_WIN_MELDED if n_melds else _WIN_CONCEALED)[s]:
        return False
    return sum(counts) + 3 * n_melds == 14  # checked last: most hands are not complete


def is_win(tiles: Sequence[int], n_melds: int = 0) -> bool:
    """`tiles` are the concealed tile kinds (winning tile included) beside `n_melds` melds.

    >>> from rules.tiles import parse_tiles
    >>> is_win(parse_tiles("11223344556677s"))
    True
    """
    if len(tiles) == 14:
        if n_melds:
            return False
        # The usual case, unrolled and inlined: a loop would cost half of the whole call.
        a, b, c, d, e, f, g, h, i, j, k, l, m, o = tiles  # noqa: E741
        u = TILE_UNIT
        key = (
            u[a]
            + u[b]
            + u[c]
            + u[d]
            + u[e]
            + u[f]
            + u[g]
            + u[h]
            + u[i]
            + u[j]
            + u[k]
            + u[l]
            + u[m]
            + u[o]
        )
        cl = _CLASS
        try:
            return _WIN_CONCEALED[
                cl[key % 1953125] + cl[(q := key // 1953125) % 1953125] + cl[q // 1953125]
            ]  # 1953125 is 5**9 (_P9): a constant loads faster than a global
        except IndexError:  # five or more of a kind
            return False
    key = 0
    for t in tiles:
        key += TILE_UNIT[t]
    return is_win_key(key, len(tiles), n_melds)


# --- waits --------------------------------------------------------------------------------------


def _wait_masks(key: int, n_melds: int) -> tuple[int, int, int]:
    """Per suit (m, p, s), the 9-bit mask of ranks completing a hand key of 13 tiles (melds
    counting 3; the caller checks the size)."""
    k2 = key % _P9
    q = key // _P9
    k1 = q % _P9
    k0 = q // _P9
    cl = _CLASS
    try:
        a = cl[k0]
        b = cl[k1]
        c = cl[k2]
    except IndexError:  # five or more of a kind
        return 0, 0, 0
    sel = _ADD_SHIFT_BY_OTHERS
    get = _ADD.get
    m0 = m1 = m2 = 0
    s = sel[(b & _CODE) + (c & _CODE)]
    if s >= 0:
        m0 = get(k0, 0) >> s & 511
    s = sel[(a & _CODE) + (c & _CODE)]
    if s >= 0:
        m1 = get(k1, 0) >> s & 511
    s = sel[(a & _CODE) + (b & _CODE)]
    if s >= 0:
        m2 = get(k2, 0) >> s & 511
    if not n_melds and (a + b + c) >> 4 == 2:
        # two suits all in pairs: seven pairs waits on the third's odd kind, if it has just one
        rest = k0 if not a & _EVEN else k1 if not b & _EVEN else k2
        odd = 0
        for r in range(8, -1, -1):  # the last digit is rank 9
            if rest % 5 & 1:
                odd |= 1 << r
            rest //= 5
        if not odd & (odd - 1):
            if not a & _EVEN:
                m0 |= odd
            elif not b & _EVEN:
                m1 |= odd
            else:
                m2 |= odd
    return m0, m1, m2


def wait_kinds(counts: Sequence[int], n_melds: int = 0) -> list[int]:
    """The kinds that complete a hand of 13 (melds counting 3), in sort order.

    Kinds already held four times in the concealed counts are impossible and never listed; the
    caller excludes kinds held four times counting melds (RULES.md §7).

    >>> from rules.tiles import parse_tiles, to_counts
    >>> wait_kinds(to_counts(parse_tiles("1m")), 4)
    [0]
    """
    if sum(counts) + 3 * n_melds != 13:
        return []
    try:
        key = int(bytes(counts).translate(_DIGITS), 5)
    except ValueError:
        return []  # a count outside 0-4
    m0, m1, m2 = _wait_masks(key, n_melds)
    k0, k1, k2 = _MASK_KINDS
    return [*k0[m0], *k1[m1], *k2[m2]]


def wait_mask(counts: Sequence[int], n_melds: int = 0) -> int:
    """`wait_kinds` as a bitmask: bit k set when kind k completes the hand.

    >>> from rules.tiles import parse_tiles, to_counts
    >>> bin(wait_mask(to_counts(parse_tiles("1112223334445m"))))
    '0b111110'
    """
    if sum(counts) + 3 * n_melds != 13:
        return 0
    try:
        key = int(bytes(counts).translate(_DIGITS), 5)
    except ValueError:
        return 0  # a count outside 0-4
    m0, m1, m2 = _wait_masks(key, n_melds)
    return m0 | m1 << 9 | m2 << 18


def waits(tiles: Sequence[int], n_melds: int = 0) -> list[str]:
    """The names of the tiles that complete the concealed `tiles` beside `n_melds` melds.

    >>> from rules.tiles import parse_tiles
    >>> waits(parse_tiles("1122335566778m"))
    ['5m', '8m']
    """
    n = len(tiles)
    if n + 3 * n_melds != 13:
        return []
    u = TILE_UNIT
    if n == 13:
        a, b, c, d, e, f, g, h, i, j, k, l, m = tiles  # noqa: E741
        key = (
            u[a] + u[b] + u[c] + u[d] + u[e] + u[f] + u[g] + u[h] + u[i] + u[j] + u[k] + u[l] + u[m]
        )
    else:
        key = 0
        for t in tiles:
            key += u[t]
    m0, m1, m2 = _wait_masks(key, n_melds)
    n0, n1, n2 = _MASK_NAMES
    return [*n0[m0], *n1[m1], *n2[m2]]


# --- shapes -------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Shape:
    """Which readings a complete hand has (RULES.md §3)."""

    standard: bool
    all_pungs: bool
    seven_pairs: bool
    dragon: bool  # seven pairs with a concealed four (龙七对)
    one_suit: bool


def read_shape(counts: Sequence[int], meld_kinds: Sequence[int]) -> Shape | None:
    """The readings of a complete hand (concealed counts incl. the winning tile), or None.

    >>> from rules.tiles import parse_tiles, to_counts
    >>> read_shape(to_counts(parse_tiles("1111m22p33p44s55s66s")), [])
    Shape(standard=False, all_pungs=False, seven_pairs=True, dragon=True, one_suit=False)
    """
    n_melds = len(meld_kinds)
    if sum(counts) + 3 * n_melds != 14:
        return None
    standard = is_standard(counts)
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
