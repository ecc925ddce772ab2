"""Bot levels: one registry, legal moves only, the same decision from a round or a seat's view."""

from __future__ import annotations

import pytest

from rules.options import PRESETS
from rules.players.bot_strong import StrongBot
from rules.players.levels import LEVELS, policy_for
from rules.round import Phase, Round, legal_actions
from rules.view import view_of


def play(level: str, preset: str, seed: int) -> Round:
    bots = [policy_for(level, f"{seed}:{s}") for s in range(4)]
    twins = [policy_for(level, f"{seed}:{s}") for s in range(4)]
    r = Round.deal(PRESETS[preset], seed=seed, dealer=seed % 4)
    while r.phase is not Phase.OVER:
        seat = r.awaiting()[0]
        action = bots[seat].choose(r, seat)
        assert action in legal_actions(r, seat)
        assert twins[seat].choose_for(view_of(r, seat)) == action
        r.apply(action)
    assert r.result is not None and sum(r.result.net) == 0
    return r


@pytest.mark.parametrize("preset", sorted(PRESETS))
@pytest.mark.parametrize("level", ["easy", "normal"])
def test_levels_play_legal_moves_the_same_from_a_view(level: str, preset: str) -> None:
    for seed in range(12):
        play(level, preset, seed)


def test_easy_is_deterministic_from_its_seed() -> None:
    a, b = play("easy", "guiyang", 3), play("easy", "guiyang", 3)
    assert [e.to_dict() for e in a.events] == [e.to_dict() for e in b.events]


def test_unknown_level_names_the_levels() -> None:
    with pytest.raises(
        ValueError, match="unknown bot level 'hard': choose from easy, normal, strong"
    ):
        policy_for("hard", 1)
    assert list(LEVELS) == ["easy", "normal", "strong"]
    assert isinstance(policy_for("strong", 1), StrongBot)


@pytest.mark.parametrize("level", list(LEVELS))
def test_a_seat_with_nothing_to_do_is_refused(level: str) -> None:
    r = Round.deal(PRESETS["guiyang"], seed=4, dealer=0)
    policy = policy_for(level, 1)
    with pytest.raises(ValueError, match="seat 2 has nothing to do now"):
        policy.choose(r, 2)
    with pytest.raises(ValueError, match="seat None has nothing to do now"):
        policy.choose_for(view_of(r, None))
