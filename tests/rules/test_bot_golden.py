"""Golden of the `normal` and `easy` bots' choices: speed work must not change a decision.

Each case plays seeded rounds with four bots of one level and hashes every action taken (seat,
kind, tile). The digests were recorded from main's bots before the shanten speed-up (issue 24);
a change here is a change of behaviour, to be made on purpose and measured in the arena.
"""

from __future__ import annotations

import pytest

from rules.options import make_options
from rules.players.levels import action_digest, policy_for
from rules.round import Round

ROUNDS = 40

GOLDEN = {
    ("normal", "guiyang"): "13a23041ebe1ca55",
    ("normal", "chuan"): "5a0c232b428b9497",
    ("easy", "guiyang"): "2e1dbf4d51c4feea",
    ("easy", "anshun"): "8d836be3ed1204be",
}


def _digest(level: str, preset: str) -> str:
    opts = make_options(preset, {})
    return action_digest(
        (
            Round.deal(opts, seed=f"golden-{preset}-{i}", dealer=i % 4),
            [policy_for(level, f"golden-{level}-{i}-{s}") for s in range(4)],
        )
        for i in range(ROUNDS)
    )


@pytest.mark.parametrize(("level", "preset"), sorted(GOLDEN))
def test_decisions_match_the_golden(level: str, preset: str) -> None:
    assert _digest(level, preset) == GOLDEN[(level, preset)]
