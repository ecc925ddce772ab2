"""The all-pungs (大对子) distance of `rules.players.routes`, against its definition."""

from __future__ import annotations

import random
from itertools import combinations

from rules.options import GUIYANG, Pattern
from rules.patterns import best_pattern
from rules.players.routes import best_pungs_distance, pungs_distance
from rules.players.shanten import shanten
from rules.tiles import NUM_KINDS, parse_tiles, to_counts

DADUI = {Pattern.DADUIZI, Pattern.QINGDADUI}


def brute_distance(counts: list[int], n_melds: int) -> int:
    """`3 * sets + 1` less the most tiles any target of `sets` pungs and a pair keeps, over
    every pair kind and every set of distinct pung kinds (a kind not held keeps nothing, so
    unheld kinds enter only as many as a target could need)."""
    sets = 4 - n_melds
    held = [k for k in range(NUM_KINDS) if counts[k]]
    spare = [k for k in range(NUM_KINDS) if not counts[k]][: sets + 1]
    kinds = held + spare
    best = 0
    for pair in kinds:
        others = [k for k in kinds if k != pair]
        for pungs in combinations(others, sets):
            kept = min(counts[pair], 2) + sum(min(counts[k], 3) for k in pungs)
            best = max(best, kept)
    return 3 * sets + 1 - best


def random_hand(rng: random.Random, n_melds: int) -> list[int]:
    """Concealed counts of a 13-tile hand with `n_melds` melds, drawn from a wall with
    clustered kinds (so pairs and pungs are common)."""
    kinds = rng.sample(range(NUM_KINDS), 9)
    wall = [k for k in kinds for _ in range(4)]
    counts = [0] * NUM_KINDS
    for k in rng.sample(wall, 13 - 3 * n_melds):
        counts[k] += 1
    return counts


def test_pungs_distance_is_its_definition() -> None:
    rng = random.Random(24)
    for i in range(400):
        n = i % 4
        counts = random_hand(rng, n)
        assert pungs_distance(counts, n) == brute_distance(counts, n), (counts, n)


def test_zero_is_a_hand_ready_for_a_daduizi() -> None:
    """Distance 0 exactly when some tile completes the hand as 大对子 (or 清大对); and the
    distance is never below the exact shanten (an all-pungs hand is a standard hand)."""
    rng = random.Random(7)
    seen_ready = 0
    for i in range(1500):
        n = i % 3
        counts = random_hand(rng, n)
        melds = [k for k in range(NUM_KINDS) if not counts[k]][:n]  # pungs of other kinds
        ready = False
        for t in range(NUM_KINDS):
            if counts[t] < 4:
                counts[t] += 1
                found = best_pattern(GUIYANG, counts, melds)
                counts[t] -= 1
                ready = ready or (found is not None and found[0] in DADUI)
        d = pungs_distance(counts, n)
        assert (d == 0) == ready, (counts, n)
        assert d >= shanten(counts, n)
        seen_ready += ready
    assert seen_ready > 5


def test_best_pungs_distance_is_the_best_discard() -> None:
    rng = random.Random(3)
    for i in range(300):
        n = i % 4
        counts = random_hand(rng, n)
        counts[rng.choice([k for k in range(NUM_KINDS) if counts[k] < 4])] += 1  # a 14th tile
        best = min(
            pungs_distance([c - (k == j) for k, c in enumerate(counts)], n)
            for j in range(NUM_KINDS)
            if counts[j]
        )
        assert best_pungs_distance(counts, n) == best


def test_examples() -> None:
    # three pungs, two pairs and a single: ready (on either pair)
    assert pungs_distance(to_counts(parse_tiles("111m 222p 333s 44s 55s 6s")[:13]), 0) == 0
    # five pairs and three singles: three steps (three pairs must become pungs)
    assert pungs_distance(to_counts(parse_tiles("11m 33m 55p 77p 99s 2s 4s 6p")), 0) == 3
    # a pung melded, four pairs and a single left
    assert pungs_distance(to_counts(parse_tiles("33m 55p 77p 99s 2s")), 1) == 2
