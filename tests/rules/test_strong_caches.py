"""The strong bot's process-wide caches (issue 24): keyed by the options' value, bounded."""

from __future__ import annotations

import pytest

from rules.options import make_options
from rules.players import bot_strong
from rules.players.bot_strong import StrongBot, cache_sizes, options_token
from rules.round import Phase, Round


def test_equal_options_share_a_token_and_other_options_do_not() -> None:
    a = make_options("guiyang")
    b = a.model_copy()  # equal, and another object (make_options itself hands out one)
    assert a is not b
    assert options_token(a) == options_token(b)
    assert options_token(make_options("guiyang", {"zimo_bonus": 2})) != options_token(a)
    assert options_token(make_options("chuan")) != options_token(a)


def test_a_token_dropped_from_the_lru_is_never_given_again() -> None:
    first = options_token(make_options("anshun", {"dou_dian": 3}))
    for i in range(bot_strong._TOKEN_CACHE + 1):  # push it out
        options_token(make_options("anshun", {"zimo_bonus": i % 10, "dou_dian": 5 + i // 10}))
    again = options_token(make_options("anshun", {"dou_dian": 3}))
    assert again != first  # a new token: states keyed by the old one can never be read


def test_the_state_cache_stays_within_its_size(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bot_strong, "STATE_CACHE", 300)
    bot_strong._STATES.clear()
    opts = make_options("guiyang")
    for seed in range(3):
        r = Round.deal(opts, seed=f"cache:{seed}", dealer=seed % 4)
        bots = [StrongBot(f"cache:{seed}:{s}") for s in range(4)]
        while r.phase is not Phase.OVER:
            seat = r.awaiting()[0]
            r.apply(bots[seat].choose(r, seat))
            assert cache_sizes()["states"] <= 300
    assert cache_sizes()["states"] == 300  # it filled and evicted
