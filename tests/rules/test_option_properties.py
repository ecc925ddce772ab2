"""Bot rounds under every RULES.md §13 house option finish and sum to zero, for each preset
(hypothesis over seeds, dealers, streaks and weekdays); the bot plays legally throughout."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules import PRESETS, Phase, Round, legal_actions, make_options
from rules.players import Bot
from tests.rules.test_settlement_details import _check_payment

HOUSE_OPTIONS: list[dict[str, Any]] = [
    {"chongfeng_value": "double"},
    {"zeren_extra": 1},
    {"wuguji": False},
    {"wuguji": True, "wuguji_value": 1},
    {"chongfeng_scope": "round"},
    {"chickens_need_ready": False},
    {"chickens_need_ready": True},
    {"discards_are_chickens": False},
    {"discards_are_chickens": True},
    {"hanbao_dou": True},
    {"hanbao_dou": False},
    {"pass_win": "none"},
    {"flip_chickens": "both"},
    {"flip_chickens": "none"},
    {"flip_chickens": "next"},
    {"benji": True},
    {"xingqiji": True},
    {"chuifengji": True},
    {"dealer_scoring": "lianzhuang"},
    {"dealer_scoring": "none"},
    {"dealer_scoring": "yikouer"},
    {"baodou": True},
    {"hand_cap": 3},
    {"first_dealer": "seat0"},
    {"hints": False},
    {"patterns": {"dilong": 10, "qingdilong": 20}},
    {"benji": True, "xingqiji": True, "flip_chickens": "both", "baodou": True, "hand_cap": 8},
]
CASES = [
    pytest.param(preset, opts, id=f"{preset}-{'-'.join(f'{k}={v}' for k, v in opts.items())}")
    for preset in sorted(PRESETS)
    for opts in HOUSE_OPTIONS
]


@pytest.mark.parametrize(("preset", "overrides"), CASES)
@settings(max_examples=4, deadline=None)
@given(seed=st.integers(0, 2**32), weekday=st.integers(1, 7))
def test_bot_rounds_finish_and_sum_to_zero(
    preset: str, overrides: dict[str, Any], seed: int, weekday: int
) -> None:
    opts = make_options(preset, overrides)
    r = Round.deal(opts, seed=seed, dealer=seed % 4, streak=seed % 3, weekday=weekday)
    bot = Bot(seed)
    for _ in range(500):
        if r.phase is Phase.OVER:
            break
        seat = r.awaiting()[0]
        action = bot.choose(r, seat)
        assert action in legal_actions(r, seat) or r._normalize(action) in legal_actions(r, seat)
        r.apply(action)
    assert r.phase is Phase.OVER and r.result is not None
    assert sum(r.result.net) == 0
    for p in r.result.to_dict()["payments"]:
        _check_payment(p, r.base)
