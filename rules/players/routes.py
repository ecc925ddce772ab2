"""Pattern routes for the strong bot: how far a hand is from a ready 大对子 (RULES.md §3).

The exact shanten (`rules.players.shanten`) is the distance to the nearest complete hand of any
shape; it does not say which pattern that hand would be. In guiyang a 平胡 pays 1 and wins on a
discard only with a 通行证, while a 大对子 pays 5 and wins on any discard, and its sets are
pungs, which a 碰 takes from any of the three other seats. This is the shanten restricted to
that pattern, in the same units (0 = ready, -1 complete):

    all-pungs distance = 3 * sets + 1 - kept

where `sets` is four less the hand's melds (all pungs already) and `kept` is the most of the
concealed tiles a target of `sets` pungs and one pair keeps, a kind giving `min(h, 3)` to a pung
and `min(h, 2)` to the pair.
"""

from __future__ import annotations

from collections.abc import Sequence

from rules.players.shanten import SETS


def pungs_distance(counts: Sequence[int], n_melds: int) -> int:
    """The all-pungs (大对子) shanten of a hand: concealed `counts` and `n_melds` pung/gang
    melds (13 or 14 tiles counting each meld as 3)."""
    sets = SETS - n_melds
    held = sorted((h for h in counts if h), reverse=True)
    pung = [min(h, 3) for h in held]
    best = 0
    for j, h in enumerate(held):  # kind j is the pair; the best `sets` others make the pungs
        if j and held[j - 1] == h:
            continue  # the same count as the kind before: the same total
        best = max(best, min(h, 2) + sum((pung[:j] + pung[j + 1 :])[:sets]))
    return 3 * sets + 1 - best


def best_pungs_distance(counts: Sequence[int], n_melds: int) -> int:
    """The least all-pungs distance one discard from a hand on turn (14 tiles counting melds)
    reaches: a tile outside the best target goes, so the hand keeps what it kept, unless all
    of it is the target (complete): then one of them goes, and it is ready."""
    return max(0, pungs_distance(counts, n_melds))
