"""The bot policy: only legal moves, deterministic from its seed, and whole rounds without error."""

from __future__ import annotations

import pytest

from rules.bot import Bot, shanten
from rules.options import PRESETS
from rules.round import Phase, Round, legal_actions
from rules.tiles import parse_tiles, to_counts
from tests.support import volume


def play_bot_round(preset: str, seed: int, check_legal: bool = False) -> Round:
    bots = [Bot(f"{seed}:{s}") for s in range(4)]
    r = Round.deal(PRESETS[preset], seed=seed, dealer=seed % 4)
    while r.phase is not Phase.OVER:
        seat = r.awaiting()[0]
        action = bots[seat].choose(r, seat)
        if check_legal:
            assert action in legal_actions(r, seat)
        r.apply(action)
    return r


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_bot_only_plays_legal_actions(preset: str) -> None:
    outcomes = set()
    for seed in range(60):
        r = play_bot_round(preset, seed, check_legal=True)
        assert r.result is not None
        assert sum(r.result.net) == 0
        outcomes.add(r.result.outcome)
    assert outcomes == {"win", "draw"}


def test_bot_is_deterministic() -> None:
    a = play_bot_round("guiyang", 5)
    b = play_bot_round("guiyang", 5)
    assert [e.to_dict() for e in a.events] == [e.to_dict() for e in b.events]


@pytest.mark.parametrize(
    ("hand", "melds", "expected"),
    [
        ("11122233344455m", 0, -1),  # complete
        ("1112223334445m", 0, 0),  # ready
        ("11223344556677s", 0, -1),  # seven pairs
        ("1122334455667s", 0, 0),  # seven pairs, ready
        ("147m258p369s1357m", 0, 4),  # 345m run, 11m and 77m pairs
        ("11m", 4, -1),
        ("1m", 4, 0),
    ],
)
def test_shanten(hand: str, melds: int, expected: int) -> None:
    assert shanten(to_counts(parse_tiles(hand)), melds) == expected


def test_bot_wins_when_it_can() -> None:
    for seed in range(200):
        r = Round.deal(PRESETS["guiyang"], seed=seed)
        bots = [Bot(s) for s in range(4)]
        while r.phase is not Phase.OVER:
            seat = r.awaiting()[0]
            legal = legal_actions(r, seat)
            action = bots[seat].choose(r, seat)
            if any(a.act == "hu" for a in legal):
                assert action.act == "hu"
            r.apply(action)


@pytest.mark.slow
@pytest.mark.timeout(900)
@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_ten_thousand_bot_rounds(preset: str) -> None:
    """10,000 bot-played rounds of each preset in the soak step (1,000 in an ordinary run:
    `tests.support.volume`), every one settled and zero-sum."""
    bots = [Bot(s) for s in range(4)]
    dealer = streak = 0
    for seed in range(volume(1000, 10_000)):
        r = Round.deal(PRESETS[preset], seed=seed, dealer=dealer, streak=streak)
        while r.phase is not Phase.OVER:
            seat = r.awaiting()[0]
            r.apply(bots[seat].choose(r, seat))
        result = r.result
        assert result is not None
        assert sum(result.net) == 0
        dealer, streak = result.next_dealer, result.next_streak
