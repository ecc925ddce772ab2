"""The bots' exact shanten (`rules.players.shanten`) against brute force, perft-style.

The brute force reads the definition and nothing else: it lists every target (a multiset of
sets and a pair, at most four of a kind; or seven pairs with a four as two) and counts how many
of the hand's tiles the best one keeps; shanten = tiles of a complete hand - kept - 1. Single
suits are checked exhaustively, table entry by table entry; full hands (with and without melds)
on random deals, and against the rules core's own `is_win_counts` / `wait_mask`.
"""

from __future__ import annotations

import itertools
import random
from functools import cache

import numpy as np
import pytest

from rules.hand import is_win_counts, wait_mask
from rules.players import suit_index
from rules.players.shanten import (
    best_discards,
    discard_shantens,
    indexed_suit_table,
    shanten,
    suit_table,
)
from rules.tiles import parse_tiles, to_counts
from tests.support import parts, volume


def _blocks(kinds: int) -> list[tuple[int, ...]]:
    """Every pung and run over `kinds` kinds laid out as suits of nine."""
    out: list[tuple[int, ...]] = [(k, k, k) for k in range(kinds)]
    out += [(k, k + 1, k + 2) for k in range(kinds) if k % 9 <= 6]
    return out


@cache
def _suit_targets() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every one-suit target of s ≤ 4 sets and p ≤ 1 pair: counts (N × 9), s, p."""
    rows, ss, ps = [], [], []
    blocks = _blocks(9)
    for s in range(5):
        for combo in itertools.combinations_with_replacement(blocks, s):
            base = [0] * 9
            for b in combo:
                for r in b:
                    base[r] += 1
            for pair in [None, *range(9)]:
                t = list(base)
                if pair is not None:
                    t[pair] += 2
                if max(t) <= 4:
                    rows.append(t)
                    ss.append(s)
                    ps.append(0 if pair is None else 1)
    return np.array(rows, dtype=np.int8), np.array(ss), np.array(ps)


def _brute_suit_table(row: tuple[int, ...]) -> tuple[int, ...]:
    targets, ss, ps = _suit_targets()
    kept = np.minimum(targets, np.array(row, dtype=np.int8)).sum(axis=1)
    out = []
    for s in range(5):
        for p in (0, 1):
            out.append(int(kept[(ss <= s) & (ps <= p)].max()))
    return tuple(out)


def _brute_seven_pairs(counts: list[int]) -> int:
    """Most tiles kept by seven pairs: every choice of 0, 1 or 2 pairs per held kind."""
    held = [h for h in counts if h]
    best = 0
    for choice in itertools.product((0, 1, 2), repeat=len(held)):
        pairs = sum(choice)
        if pairs <= 7:
            best = max(best, sum(min(h, 2 * c) for h, c in zip(held, choice, strict=True)))
    return best


def _brute_standard(counts: list[int], n_melds: int) -> int:
    """Most tiles kept by a standard target: every multiset of sets among the blocks touching a
    held kind (a block touching none keeps nothing and fits anywhere) and every pair."""
    held = [k for k in range(27) if counts[k]]
    blocks = [b for b in _blocks(27) if any(counts[r] for r in b)]
    vecs = []
    for s in range(4 - n_melds + 1):
        for combo in itertools.combinations_with_replacement(range(len(blocks)), s):
            v = np.zeros(27, dtype=np.int8)
            for i in combo:
                for r in blocks[i]:
                    v[r] += 1
            vecs.append(v)
    sets = np.array(vecs)
    hand = np.array(counts, dtype=np.int8)
    best = 0
    for pair in [None, *held]:
        t = sets.copy()
        if pair is not None:
            t[:, pair] += 2
        ok = t.max(axis=1) <= 4
        if ok.any():
            best = max(best, int(np.minimum(t[ok], hand).sum(axis=1).max()))
    return best


def _brute_shanten(counts: list[int], n_melds: int) -> int:
    std = 3 * (4 - n_melds) + 1 - _brute_standard(counts, n_melds)
    if n_melds:
        return std
    return min(std, 13 - _brute_seven_pairs(counts))


def _rows(size: int) -> list[tuple[int, ...]]:
    """Every one-suit row of `size` tiles (at most four of a rank)."""
    out = []
    for combo in itertools.combinations_with_replacement(range(9), size):
        row = [0] * 9
        for r in combo:
            row[r] += 1
        if max(row, default=0) <= 4:
            out.append(tuple(row))
    return out


# The sizes whose every row is checked at full volume, each in parts (`tests.support.parts`):
# size 13's 93,600 rows took 108 s a part of 8 on a loaded machine (load 7), size 14's 118,800
# rows 59 s.
SIZE_PARTS = {
    1: parts(1), 2: parts(1), 3: parts(1), 4: parts(1), 5: parts(1),
    8: parts(1), 11: parts(6), 13: parts(12), 14: parts(12),
}  # fmt: skip


@pytest.mark.slow
@pytest.mark.timeout(1800)  # every row at full volume: a minute a part on a loaded core
@pytest.mark.parametrize(
    ("size", "part", "of"),
    [(size, part, len(ps)) for size, ps in SIZE_PARTS.items() for part in ps],
)
def test_every_suit_table_matches_brute_force(size: int, part: int, of: int) -> None:
    rows = _rows(size)
    rng = random.Random(size)
    n = volume(400, len(rows))
    for row in rows[part::of] if n >= len(rows) else rng.sample(rows, n):
        assert suit_table(row) == _brute_suit_table(row), row
        assert indexed_suit_table(row) == suit_table(row), row


@pytest.mark.slow
@pytest.mark.timeout(1800)  # every row at full volume: about half a minute on a quiet core
@pytest.mark.parametrize("part", parts(6))
def test_the_shipped_index_is_the_definition_on_every_row(part: int) -> None:
    """`suit_tables.xz` (what the bots read) against `suit_table` (the definition, itself
    checked against brute force above), on a sample of rows, or all 405,350 at full volume;
    rows of more than 14 tiles are marked as such."""
    index, tables = suit_index.load()
    every = suit_index.rows()
    n = volume(3000, len(every))
    memo: dict[tuple[tuple[int, ...], int, int], tuple[int, ...]] = {}
    sample = every[part :: len(parts(6))] if n >= len(every) else random.Random(5).sample(every, n)
    for key, row in sample:
        assert tables[index[key]] == suit_table(row, memo), row
    assert index[suit_index.P9 - 1] == suit_index.NONE  # nine fours
    assert sum(1 for b in index if b != suit_index.NONE) == len(every)


@pytest.mark.slow
@pytest.mark.timeout(1800)  # 300 hands at full volume, each against the brute force
@pytest.mark.parametrize(("n_melds", "part"), [(0, p) for p in parts(6)] + [(1, 0), (2, 0), (4, 0)])
def test_random_full_hands_match_brute_force_and_the_rules_core(n_melds: int, part: int) -> None:
    rng = random.Random(n_melds)
    wall = [k for k in range(27) for _ in range(4)]
    of = len(parts(6)) if n_melds == 0 else 1
    for i in range(volume(8 if n_melds == 0 else 25, 300)):
        size = 13 - 3 * n_melds + rng.randint(0, 1)
        counts = [0] * 27
        for k in rng.sample(wall, size):
            counts[k] += 1
        if i % of != part:
            continue  # another part's hand (drawn all the same: every part sees one sequence)
        got = shanten(counts, n_melds)
        assert got == _brute_shanten(counts, n_melds), (counts, n_melds)
        if size % 3 == 2:
            assert (got == -1) == is_win_counts(counts, n_melds), counts
        else:
            assert (got == 0) == (wait_mask(counts, n_melds) != 0), counts


@pytest.mark.parametrize(
    ("hand", "melds", "expected"),
    [
        ("33346m789p44567s", 0, 0),  # ready on 5m (issue 24's hand)
        ("33346m789p34567s", 0, 1),  # three sets + two partial sets, no pair: not ready
        ("1111m2222p3333s5s", 0, 0),  # three fours are six pairs (龙七对): ready on 5s
        ("1111m22p33p44s55s6s", 0, 0),  # a four and five pairs wait on the seventh
        ("11223344556677m", 0, -1),  # 清七对, complete
        ("1111m", 3, 1),  # a pung and a single: the pair needs another tile
        ("1234m", 3, 0),  # ready on 1m or 4m
        ("1112223334m", 1, 0),  # ready on 1m, 4m (and 2m, 3m)
        ("1357m456p", 2, 1),  # a gapped pair of ranks and two singles: one from ready
    ],
)
def test_known_hands(hand: str, melds: int, expected: int) -> None:
    counts = to_counts(parse_tiles(hand))
    assert shanten(counts, melds) == expected
    assert shanten(counts, melds) == _brute_shanten(list(counts), melds)


def test_no_fifth_copy() -> None:
    # 1111m + 23m: the run 123 would need a fifth 1m only if 111 stays a pung.
    counts = to_counts(parse_tiles("1111m23m456p789s99s"))
    assert shanten(counts, 0) == _brute_shanten(list(counts), 0)


def test_discard_shantens_are_the_shanten_after_each_discard() -> None:
    rng = random.Random(7)
    wall = [k for k in range(27) for _ in range(4)]
    for _ in range(50):
        counts = [0] * 27
        for k in rng.sample(wall, 14):
            counts[k] += 1
        after = discard_shantens(counts, 0)
        for k, s in after.items():
            counts[k] -= 1
            assert s == shanten(counts, 0)
            counts[k] += 1
        low, found = best_discards(counts, 0)
        assert low == min(after.values()) and set(found) == {
            k for k, s in after.items() if s == low
        }


@pytest.mark.parametrize("melds", [0, 1, 2, 3, 4])
def test_best_discards_is_the_least_of_discard_shantens(melds: int) -> None:
    # `best_discards` reads per-suit rank masks instead of a value per discard; on hands rich in
    # pairs (where seven pairs ties or beats the standard form) as well as on plain deals, it is
    # exactly the least of `discard_shantens` and every discard reaching it, in kind order.
    rng = random.Random(100 + melds)
    wall = [k for k in range(27) for _ in range(4)]
    size = 14 - 3 * melds
    for i in range(volume(3_000, 100_000)):
        pool = wall if i % 2 else [k for k in rng.sample(range(27), 7) for _ in range(4)]
        counts = [0] * 27
        for k in rng.sample(pool, size):
            counts[k] += 1
        after = discard_shantens(counts, melds)
        low = min(after.values())
        assert best_discards(counts, melds) == (low, [k for k, s in after.items() if s == low])
