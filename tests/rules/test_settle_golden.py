"""Golden of settlements and views: engine speed work must not change a payment or a view.

Each case plays seeded rounds of four `normal` bots and hashes every action, every view after
it (each seat's and a spectator's, `rules.view.view_of`), and the settlement: every payment
(payer, payee, item, amount, kind, readable detail, details), the net, ready flags, chicken,
豆 and win lines. The digests were recorded from main before issue 24's engine speed-up
(session 9); `benchmarks/settle_digests.py` runs the same check over 10,000 rounds per preset
and every deal script. A change here is a change of the rules' output, to be made on purpose.
"""

from __future__ import annotations

import hashlib
import json

import pytest

from rules.options import make_options
from rules.players.levels import policy_for
from rules.round import Phase, Round
from rules.view import view_of

ROUNDS = 30

GOLDEN = {
    "guiyang": "81650fe1f84fe74e",
    "chuan": "d3d20cd5fb0eec52",
    "anshun": "f6e752d56ddec271",
}


def _digest(preset: str) -> str:
    opts = make_options(preset, {})
    h = hashlib.sha256()
    for i in range(ROUNDS):
        r = Round.deal(opts, seed=f"settle-golden-{preset}-{i}", dealer=i % 4)
        bots = [policy_for("normal", f"settle-golden-{i}-{s}") for s in range(4)]
        while r.phase is not Phase.OVER:
            seat = r.awaiting()[0]
            a = bots[seat].choose(r, seat)
            r.apply(a)
            h.update(f"{a.seat}{a.act}{a.tile};".encode())
            h.update(repr([view_of(r, v) for v in (0, 1, 2, 3, None)]).encode())
        s = r.result
        assert s is not None
        payments = [
            [p.payer, p.payee, p.item, p.amount, p.kind, p.detail, p.details] for p in s.payments
        ]
        h.update(json.dumps([s.to_dict(notes=True), payments], sort_keys=True).encode())
    return h.hexdigest()[:16]


@pytest.mark.parametrize("preset", sorted(GOLDEN))
def test_settlements_and_views_match_the_golden(preset: str) -> None:
    assert _digest(preset) == GOLDEN[preset]
