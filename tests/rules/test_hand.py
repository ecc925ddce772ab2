"""Hand analysis, proved exhaustively against an independent brute-force decomposer.

The "perft" tests enumerate every single-suit shape (0-4 of each rank) of 14 and 13 concealed
tiles, and of 11/10, 8/7, 5/4 and 2/1 beside 1-4 melds, and compare `is_win_counts` and
`wait_kinds` with a recursive decomposer written here, sharing no code with `rules/hand.py`
(which reads lookup tables). The golden totals below were computed by the brute force and
double-checked by a second, constructive enumeration (`test_golden_totals_constructive`).
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator
from functools import cache

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from rules.hand import (
    Shape,
    hand_key,
    is_win,
    is_win_counts,
    read_shape,
    wait_kinds,
    wait_mask,
    waits,
)
from rules.tiles import (
    NUM_KINDS,
    TileParseError,
    parse_tiles,
    tile_name,
    tiles_str,
    to_counts,
)

# ---------------------------------------------------------------------------------------------
# The oracle: a brute-force decomposer over count tuples (9 counts for one suit, 27 for a hand).


@cache
def _decomposes(counts: tuple[int, ...], need_pair: bool) -> bool:
    """The counts split into pungs and runs, plus one pair if `need_pair`.

    The lowest tile present must be part of a pung, the start of a run or (once) the pair;
    try each. Runs never cross a suit boundary (rank index 7 and 8 of a suit start none).
    """
    first = next((i for i, c in enumerate(counts) if c), None)
    if first is None:
        return not need_pair
    rest = list(counts)
    if counts[first] >= 3:
        rest[first] -= 3
        if _decomposes(tuple(rest), need_pair):
            return True
        rest[first] += 3
    if first % 9 <= 6 and counts[first + 1] and counts[first + 2]:
        rest[first] -= 1
        rest[first + 1] -= 1
        rest[first + 2] -= 1
        if _decomposes(tuple(rest), need_pair):
            return True
        rest[first] += 1
        rest[first + 1] += 1
        rest[first + 2] += 1
    if need_pair and counts[first] >= 2:
        rest[first] -= 2
        if _decomposes(tuple(rest), False):
            return True
    return False


def _seven_pairs(counts: tuple[int, ...]) -> bool:
    """Fourteen tiles in seven pairs; four of a kind is two pairs (龙七对)."""
    return all(c % 2 == 0 for c in counts) and sum(c // 2 for c in counts) == 7


@cache
def brute_win(counts: tuple[int, ...], n_melds: int = 0) -> bool:
    if sum(counts) + 3 * n_melds != 14:
        return False
    if n_melds == 0 and _seven_pairs(counts):
        return True
    return _decomposes(counts, True)


def brute_waits(counts: tuple[int, ...], n_melds: int = 0) -> list[int]:
    """Indices whose addition completes the hand, never a kind already held four times."""
    found = []
    for k, c in enumerate(counts):
        if c < 4 and brute_win(counts[:k] + (c + 1,) + counts[k + 1 :], n_melds):
            found.append(k)
    return found


def suit_shapes(n_tiles: int, ranks: int = 9) -> Iterator[tuple[int, ...]]:
    """Every tuple of `ranks` counts in 0..4 summing to `n_tiles`."""
    if ranks == 0:
        if n_tiles == 0:
            yield ()
        return
    for c in range(min(4, n_tiles) + 1):
        for rest in suit_shapes(n_tiles - c, ranks - 1):
            yield (c, *rest)


def in_suit(shape: tuple[int, ...], suit: int) -> list[int]:
    counts = [0] * NUM_KINDS
    counts[suit * 9 : suit * 9 + 9] = shape
    return counts


# ---------------------------------------------------------------------------------------------
# Golden totals, per number of melds: (shapes, complete shapes) for 14 - 3n concealed tiles and
# (shapes, ready shapes, shape-and-wait pairs) for 13 - 3n.

GOLDEN_WIN = {0: (118800, 15349), 1: (48879, 4475), 2: (11385, 996), 3: (1278, 135), 4: (45, 9)}
GOLDEN_READY = {
    0: (93600, 47933, 95247),
    1: (32211, 12533, 24171),
    2: (6030, 2406, 4184),
    3: (495, 249, 375),
    4: (9, 9, 9),
}


@pytest.mark.parametrize("n_melds", range(5))
def test_perft_is_win(n_melds: int) -> None:
    """Every single-suit shape of 14 - 3n tiles, placed in each suit in turn."""
    total = wins = 0
    for shape in suit_shapes(14 - 3 * n_melds):
        expected = brute_win(shape, n_melds)
        for suit in range(3):
            got = is_win_counts(in_suit(shape, suit), n_melds)
            assert got == expected, (tiles_str_of(shape, suit), n_melds, got)
        total += 1
        wins += expected
    assert (total, wins) == GOLDEN_WIN[n_melds]


@pytest.mark.parametrize("n_melds", range(5))
def test_perft_waits(n_melds: int) -> None:
    """Every single-suit shape of 13 - 3n tiles: exactly the brute-force waits, in order."""
    total = ready = pairs = 0
    for shape in suit_shapes(13 - 3 * n_melds):
        expected = brute_waits(shape, n_melds)
        for suit in range(3):
            counts = in_suit(shape, suit)
            got = wait_kinds(counts, n_melds)
            assert got == [suit * 9 + r for r in expected], (tiles_str_of(shape, suit), n_melds)
            assert wait_mask(counts, n_melds) == sum(1 << k for k in got)
        total += 1
        ready += bool(expected)
        pairs += len(expected)
    assert (total, ready, pairs) == GOLDEN_READY[n_melds]


def test_golden_totals_constructive() -> None:
    """The golden totals again, built up from sets and pairs instead of broken down."""
    sets = [tuple(3 if i == r else 0 for i in range(9)) for r in range(9)]
    sets += [tuple(1 if r <= i <= r + 2 else 0 for i in range(9)) for r in range(7)]
    for n_melds in range(5):
        complete: set[tuple[int, ...]] = set()
        for combo in itertools.combinations_with_replacement(sets, 4 - n_melds):
            base = [sum(col) for col in zip(*combo, strict=True)] if combo else [0] * 9
            for r in range(9):
                shape = list(base)
                shape[r] += 2
                if max(shape) <= 4:
                    complete.add(tuple(shape))
        if n_melds == 0:
            # seven pairs: counts 0, 2 or 4 summing to 14
            complete |= {s for s in suit_shapes(14) if all(c % 2 == 0 for c in s)}
        ready = {(s[:r] + (s[r] - 1,) + s[r + 1 :], r) for s in complete for r in range(9) if s[r]}
        assert len(complete) == GOLDEN_WIN[n_melds][1]
        assert len({s for s, _ in ready}) == GOLDEN_READY[n_melds][1]
        assert len(ready) == GOLDEN_READY[n_melds][2]


def tiles_str_of(shape: tuple[int, ...], suit: int) -> str:
    return tiles_str(k for k, c in enumerate(in_suit(shape, suit)) for _ in range(c))


# ---------------------------------------------------------------------------------------------
# Three-suit hands at random (hypothesis), checked against the same decomposer over 27 counts.

WALL = [k for k in range(NUM_KINDS) for _ in range(4)]


@st.composite
def random_hands(draw: st.DrawFn, size: int) -> tuple[list[int], int]:
    """(concealed kinds, n_melds): `size - 3 * n_melds` tiles drawn from a full wall."""
    n_melds = draw(st.integers(0, 4))
    ids = draw(
        st.lists(
            st.integers(0, len(WALL) - 1),
            min_size=size - 3 * n_melds,
            max_size=size - 3 * n_melds,
            unique=True,
        )
    )
    return [WALL[i] for i in ids], n_melds


@st.composite
def complete_hands(draw: st.DrawFn) -> tuple[list[int], int]:
    """(concealed kinds, n_melds) of a complete hand built from sets and a pair."""
    n_melds = draw(st.integers(0, 4))
    kinds: list[int] = []
    for _ in range(4 - n_melds):
        if draw(st.booleans()):
            kinds += [draw(st.integers(0, NUM_KINDS - 1))] * 3
        else:
            suit, rank = draw(st.integers(0, 2)), draw(st.integers(0, 6))
            kinds += [suit * 9 + rank + i for i in range(3)]
    kinds += [draw(st.integers(0, NUM_KINDS - 1))] * 2
    assume(max(to_counts(kinds)) <= 4)
    return draw(st.permutations(kinds)), n_melds


@settings(max_examples=400, deadline=None)
@given(random_hands(14))
def test_random_hands_is_win(hand: tuple[list[int], int]) -> None:
    kinds, n_melds = hand
    assert is_win(kinds, n_melds) == brute_win(tuple(to_counts(kinds)), n_melds)


@settings(max_examples=200, deadline=None)
@given(complete_hands())
def test_complete_hands_win_and_wait(hand: tuple[list[int], int]) -> None:
    kinds, n_melds = hand
    assert is_win(kinds, n_melds)
    # take any tile away: the hand waits on (at least) that tile
    for i in range(len(kinds)):
        rest = kinds[:i] + kinds[i + 1 :]
        got = waits(rest, n_melds)
        assert tile_name(kinds[i]) in got
        assert got == [tile_name(k) for k in brute_waits(tuple(to_counts(rest)), n_melds)]


@settings(max_examples=400, deadline=None)
@given(random_hands(13))
def test_random_hands_waits(hand: tuple[list[int], int]) -> None:
    kinds, n_melds = hand
    expected = brute_waits(tuple(to_counts(kinds)), n_melds)
    assert wait_kinds(to_counts(kinds), n_melds) == expected
    assert waits(kinds, n_melds) == [tile_name(k) for k in expected]


@settings(max_examples=200, deadline=None)
@given(random_hands(14))
def test_wrong_sizes_are_never_complete(hand: tuple[list[int], int]) -> None:
    kinds, n_melds = hand
    assert not is_win(kinds[:-1], n_melds)
    assert not is_win(kinds, n_melds + 1)
    assert waits(kinds, n_melds) == []


# ---------------------------------------------------------------------------------------------
# Examples in tile notation.


@pytest.mark.parametrize(
    ("hand", "expected"),
    [
        ("11122233344455m", True),
        ("11223344556677s", True),  # seven pairs, and standard too
        ("1111m2233p445566s", True),  # 龙七对: a concealed four as two pairs
        ("11112222333344m", True),
        ("123m456p789s123s55p", True),
        ("123m456p789s12s355p", False),
        ("1m1p1s2m2p2s3m3p3s4m4m5m5m4m", True),  # unsorted input
        ("19m19p19s1m1p1s9m9p9s5m5m", True),  # seven pairs
        ("19m19p19s1m1p1s9m9p9s5m6m", False),
    ],
)
def test_is_win_examples(hand: str, expected: bool) -> None:
    assert is_win(parse_tiles(hand)) is expected


@pytest.mark.parametrize(
    ("hand", "n_melds", "expected"),
    [
        ("1112223334445m", 0, "2m 3m 4m 5m 6m"),
        ("1112345678999m", 0, "1m 2m 3m 4m 5m 6m 7m 8m 9m"),  # 九莲宝灯
        ("1122335566778m", 0, "5m 8m"),  # 8m also as seven pairs
        ("1111223344556m", 0, "2m 3m 5m 6m"),  # 1m is held four times
        ("2222m", 3, ""),  # never the fifth 2m
        ("2224m", 3, "3m 4m"),
        ("5m", 4, "5m"),  # 单钓
        ("1m", 4, "1m"),
        ("13m", 0, ""),  # wrong size
        ("123m456p789s1235s", 0, "5s"),
        ("123m456p789s5s", 1, "5s"),
        ("1235s", 3, "5s"),
        ("1122m", 0, ""),  # wrong size
        ("1133557799m22p4p", 0, "4p"),  # seven pairs only
    ],
)
def test_waits_examples(hand: str, n_melds: int, expected: str) -> None:
    assert waits(parse_tiles(hand), n_melds) == expected.split()


# ---------------------------------------------------------------------------------------------
# read_shape: which readings a complete hand has (RULES.md §3), in tile notation.

F, T = False, True


@pytest.mark.parametrize(
    ("concealed", "melds", "expected"),
    [
        # pattern: (standard, all_pungs, seven_pairs, dragon, one_suit)
        ("123m456p789s234m11s", "", (T, F, F, F, F)),  # 平胡
        ("111m222p333s444m55s", "", (T, T, F, F, F)),  # 大对子
        ("222m33m444s", "1m 9p", (T, T, F, F, F)),  # 大对子 with two melds
        ("55m", "1m 2p 3s 4m", (T, T, F, F, F)),  # 单钓 shape
        ("55s", "1s 2s 3s 4s", (T, T, F, F, T)),  # 清单钓 shape
        ("11m22m33p44p55s66s88s", "", (F, F, T, F, F)),  # 七对
        ("1111m22p33p44s55s66s", "", (F, F, T, T, F)),  # 龙七对
        ("11335577992244p", "", (F, F, T, F, T)),  # 清七对
        ("11112255668899s", "", (F, F, T, T, T)),  # 青龙背
        ("11223344556677m", "", (T, F, T, F, T)),  # 清七对 that also reads as 清一色
        ("12345678999m", "1m", (T, F, F, F, T)),  # 清一色 beside a 1m meld
        ("123456789m", "1m", None),  # 12 tiles: not a hand
        ("12345678999m", "1p", (T, F, F, F, F)),  # the meld's suit counts
        ("111222333m44455m", "", (T, T, F, F, T)),  # 清大对 (also readable as runs)
        ("11122233344455s", "", (T, T, F, F, T)),
        ("123m456p789s12s355p", "", None),
        ("11222m", "1p 2p 3p", (T, T, F, F, F)),
        ("1122m", "1p 2p 3p", None),  # 13 tiles
    ],
)
def test_read_shape(concealed: str, melds: str, expected: tuple[bool, ...] | None) -> None:
    meld_kinds = parse_tiles(melds)
    got = read_shape(to_counts(parse_tiles(concealed)), meld_kinds)
    if expected is None:
        assert got is None
    else:
        assert got == Shape(*expected)


def test_read_shape_agrees_with_is_win() -> None:
    """Every single-suit 14-shape: read_shape is None exactly when the hand is not complete."""
    for shape in suit_shapes(14):
        counts = in_suit(shape, 1)
        assert (read_shape(counts, []) is not None) == brute_win(shape)


# ---------------------------------------------------------------------------------------------
# Notation.


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(0, NUM_KINDS - 1), max_size=20))
def test_tiles_str_round_trip(kinds: list[int]) -> None:
    text = tiles_str(kinds)
    assert parse_tiles(text) == sorted(kinds)
    assert tiles_str(parse_tiles(text)) == text


@pytest.mark.parametrize(
    ("text", "kinds"),
    [
        ("", []),
        ("1m", [0]),
        ("9s", [26]),
        ("123m456p789s11s", [0, 1, 2, 12, 13, 14, 24, 25, 26, 18, 18]),
        ("1m 2m 9s", [0, 1, 26]),
        ("5p5p", [13, 13]),
    ],
)
def test_parse_tiles(text: str, kinds: list[int]) -> None:
    assert parse_tiles(text) == kinds


@pytest.mark.parametrize(
    ("text", "bad"),
    [
        ("123x", "'x'"),
        ("12m0p", "'0'"),
        ("1z", "'z'"),
        ("1M", "'M'"),
        ("m12", "'m'"),
        ("11m,2p", "','"),
        ("一万", "'一'"),
    ],
)
def test_parse_errors_name_the_character(text: str, bad: str) -> None:
    with pytest.raises(TileParseError, match=re.escape(bad)):
        parse_tiles(text)


@pytest.mark.parametrize("text", ["123", "1m2", "5p 5"])
def test_parse_errors_trailing_ranks(text: str) -> None:
    with pytest.raises(TileParseError, match="no suit letter"):
        parse_tiles(text)


def test_counts_out_of_range() -> None:
    """Five of a kind is no hand, whichever entry point reads it."""
    counts = to_counts(parse_tiles("11111m234p567s"))
    assert sum(counts) == 11
    assert not is_win_counts(counts, 1)
    assert not is_win(parse_tiles("11111m234p567s"), 1)
    assert wait_kinds(to_counts(parse_tiles("11111m23p567s")), 1) == []
    with pytest.raises(ValueError, match="0-4"):
        hand_key(counts)


def test_tile_names_round_trip() -> None:
    assert [parse_tiles(tile_name(k)) for k in range(NUM_KINDS)] == [[k] for k in range(NUM_KINDS)]
