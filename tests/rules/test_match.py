"""A match's first dealer (RULES.md §13.9, §14.3) and the deal passing between rounds."""

from __future__ import annotations

import pytest

from rules import PRESETS, Match, make_options
from rules.match import first_dealer


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_every_preset_draws_the_first_dealer(preset: str) -> None:
    assert PRESETS[preset].first_dealer == "dice"
    dealers = {Match(PRESETS[preset], rounds=1, seed=f"m{i}").dealer for i in range(40)}
    assert dealers == {0, 1, 2, 3}


def test_the_first_dealer_comes_from_the_match_seed() -> None:
    for seed in ("a", "b", 7, "table-9"):
        m = Match(PRESETS["guiyang"], rounds=2, seed=seed)
        assert m.dealer == first_dealer(seed) == Match(PRESETS["chuan"], rounds=1, seed=seed).dealer
        r = m.next_round()
        assert r.dealer == m.dealer and r.events[0].to_dict()["dealer"] == m.dealer


def test_seat0_and_an_explicit_dealer() -> None:
    seat0 = make_options("anshun", {"first_dealer": "seat0"})
    assert {Match(seat0, rounds=1, seed=f"m{i}").dealer for i in range(20)} == {0}
    assert Match(PRESETS["guiyang"], rounds=1, seed="x", dealer=2).dealer == 2


def test_a_bad_first_dealer_is_refused_by_name() -> None:
    with pytest.raises(ValueError, match="first_dealer"):
        make_options("guiyang", {"first_dealer": "highest"})
