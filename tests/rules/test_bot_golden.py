"""Golden of the `normal` and `easy` bots' choices: speed work must not change a decision.

Each case plays seeded rounds with four bots of one level and hashes every action taken (seat,
kind, tile). The digests were recorded from main's bots before the shanten speed-up (issue 24);
a change here is a change of behaviour, to be made on purpose and measured in the arena.
"""

from __future__ import annotations

import hashlib

import pytest

from rules.options import make_options
from rules.players.levels import policy_for
from rules.round import Phase, Round

ROUNDS = 40

GOLDEN = {
    ("normal", "guiyang"): "13a23041ebe1ca55",
    ("normal", "chuan"): "5a0c232b428b9497",
    ("easy", "guiyang"): "2e1dbf4d51c4feea",
    ("easy", "anshun"): "8d836be3ed1204be",
}


def _digest(level: str, preset: str) -> str:
    opts = make_options(preset, {})
    h = hashlib.sha256()
    for i in range(ROUNDS):
        r = Round.deal(opts, seed=f"golden-{preset}-{i}", dealer=i % 4)
        bots = [policy_for(level, f"golden-{level}-{i}-{s}") for s in range(4)]
        while r.phase is not Phase.OVER:
            seat = r.awaiting()[0]
            a = bots[seat].choose(r, seat)
            h.update(f"{a.seat}{a.act}{a.tile};".encode())
            r.apply(a)
        assert r.result is not None
        h.update(f"|{tuple(r.result.net)}|".encode())
    return h.hexdigest()[:16]


@pytest.mark.parametrize(("level", "preset"), sorted(GOLDEN))
def test_decisions_match_the_golden(level: str, preset: str) -> None:
    assert _digest(level, preset) == GOLDEN[(level, preset)]
