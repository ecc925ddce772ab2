"""The fair-deal commitment: it binds the whole deal order and the salt."""

from __future__ import annotations

from rules.fairdeal import commitment, verify
from rules.options import GUIYANG
from rules.round import Round
from rules.wall import shuffled_wall


def test_a_seeded_deal_commits_to_the_shuffled_wall() -> None:
    r = Round.deal(GUIYANG, seed=42, dealer=2)
    assert list(r.deal_order) == shuffled_wall(42)
    assert len(r.deal_order) == 108


def test_commitment_verifies_and_detects_any_change() -> None:
    r = Round.deal(GUIYANG, seed=7)
    salt = "a1" * 16
    c = commitment(r.deal_order, salt)
    assert verify(r.deal_order, salt, c)
    swapped = list(r.deal_order)
    i = next(i for i in range(1, 108) if swapped[i] != swapped[0])
    swapped[0], swapped[i] = swapped[i], swapped[0]
    assert not verify(swapped, salt, c)
    assert not verify(r.deal_order, "b2" * 16, c)
    assert not verify(r.deal_order, "not hex", c)
