"""The legality library (rules/legality.py): one set of functions behind the engine and the seat
view, the reason for a refusal, and caches keyed by the options' value."""

from __future__ import annotations

import rules
import rules.round
import rules.view
from rules import legality
from rules.actions import Action
from rules.options import make_options, options_key
from rules.round import Round


def test_the_round_and_the_view_decide_with_the_same_functions() -> None:
    for name in ("turn_actions", "may_declare", "discard_claims", "rob_claims", "seat_wait_mask"):
        assert getattr(rules.round, name) is getattr(legality, name), name
    for name in ("turn_actions", "discard_claims", "rob_claims", "seat_wait_mask"):
        assert getattr(rules.view, name) is getattr(legality, name), name
    assert rules.Phase is rules.round.Phase  # the public surface is unchanged


def test_why_illegal_names_the_rule() -> None:
    r = Round.deal(make_options("guiyang"), seed=7, dealer=0)
    assert legality.why_illegal(r, Action(1, "discard", 0)) == (
        "not_your_turn",
        "it is seat 0's turn, not seat 1's",
    )
    missing = next(k for k in range(27) if not r.hands[0][k])
    code, message = legality.why_illegal(r, Action(0, "discard", missing))
    assert code == "tile_not_in_hand" and message.endswith("is not in your hand")
    assert r._why_illegal(Action(0, "pong")) == (
        "bad_action",
        "pong is not a move on your own turn",
    )


def test_option_caches_are_keyed_by_value_not_identity() -> None:
    a = make_options("chuan", {"benji": True, "patterns.dilong": 10})
    b = make_options("chuan", {"patterns": {"dilong": 10}, "benji": True})
    assert a is not b and options_key(a) == options_key(b)
    assert options_key(a) != options_key(make_options("chuan", {"benji": True}))
    assert options_key(a) is options_key(a)  # computed once per object
