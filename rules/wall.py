"""The wall from a seed, through the project's own shuffle.

`random.shuffle` may change between Python versions; this Fisher–Yates shuffle uses only
`Random.random()`, which Python keeps the same for a seed, so a seed gives the same wall
everywhere. `SplitMix64` is a small generator of our own for the bots' tie-breaks.

>>> shuffled_wall(7)[:5] == shuffled_wall(7)[:5]
True
"""

from __future__ import annotations

import hashlib
import random

from rules.tiles import COPIES, NUM_KINDS

MASK64 = (1 << 64) - 1


def seed_to_int(seed: int | str | bytes) -> int:
    """Any seed as a 64-bit int; strings and bytes go through SHA-256."""
    if isinstance(seed, int) and not isinstance(seed, bool):
        return seed & MASK64
    data = seed.encode() if isinstance(seed, str) else bytes(seed)
    return int.from_bytes(hashlib.sha256(data).digest()[:8], "big")


class SplitMix64:
    """A tiny, well-mixed 64-bit generator (Steele, Lea and Flood, 2014)."""

    def __init__(self, seed: int | str | bytes) -> None:
        self.state = seed_to_int(seed)

    def next64(self) -> int:
        self.state = (self.state + 0x9E3779B97F4A7C15) & MASK64
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
        return z ^ (z >> 31)

    def below(self, n: int) -> int:
        """Uniform in [0, n) by rejection (no modulo bias)."""
        limit = (1 << 64) - ((1 << 64) % n)
        while True:
            x = self.next64()
            if x < limit:
                return x % n


def full_set() -> list[int]:
    """All 108 tiles, sorted."""
    return [k for k in range(NUM_KINDS) for _ in range(COPIES)]


def shuffled_wall(seed: int | str | bytes) -> list[int]:
    """The 108 tiles in the order the seed gives: our own Fisher–Yates shuffle.

    It draws from `random.Random(seed).random()`, the one output Python promises to repeat for
    a seed across versions (unlike `shuffle`, `randrange` or `choice`). Scaling a 53-bit float
    to at most 108 choices biases no index by more than 1e-14.
    """
    tiles = full_set()
    draw = random.Random(seed_to_int(seed)).random
    for i in range(len(tiles) - 1, 0, -1):
        j = int(draw() * (i + 1))
        tiles[i], tiles[j] = tiles[j], tiles[i]
    return tiles
