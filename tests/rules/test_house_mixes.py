"""Every house-rule mix settles as RULES.md §13 says (issue 27): random mixes of every §13 option
(each set with some probability to any of its values) and a weekday, on bot-played rounds of
every preset. For each round: the settlement never raises and sums to zero, every payment's
details add up to its amount (docs/ENGINE.md "Settlement details"), every discard (or 抢杠) win
the engine allows is one the settlement pays, and no win the settlement would pay above 平胡 is
refused for want of a 通行证 (§4: only a 平胡 needs a pass; the pattern judged is the one paid).

A few hundred mixes by default; thousands with ZHUOJI_TEST_VOLUME=full (`tests.support.volume`).
Each failure names its mix number, so `_mix(n)` and `_play(n)` rebuild the round.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from rules import PRESETS, Phase, Round, make_options
from rules.actions import Action
from rules.options import RuleOptions
from rules.patterns import best_pattern, is_complete
from rules.players import Bot
from tests.rules.test_settlement_details import _check_payment
from tests.support import volume

# RULES.md §13, every option with every value it may take (a few for the open-ended numbers; the
# bounds' ends included: zeren_extra 0 and pattern values 0 are where issue 27's defects were).
HOUSE_VALUES: dict[str, tuple[Any, ...]] = {
    "chongfeng_value": ("fixed", "double"),  # 1
    "zeren_extra": (0, 1, 2, 3),  # 2
    "wuguji": (False, True),  # 3
    "wuguji_value": (1, 2),  # 3
    "chongfeng_scope": ("kind", "round"),  # 4
    "chickens_need_ready": (False, True),  # 5
    "discards_are_chickens": (False, True),  # 6
    "hanbao_dou": (False, True),  # 7
    "pass_win": ("lock", "penalty", "none"),  # 8
    "first_dealer": ("dice", "seat0"),  # 9
    "flip_chickens": ("next", "both", "none"),  # 10
    "benji": (False, True),  # 11
    "xingqiji": (False, True),  # 12
    "chuifengji": (False, True),  # 13
    "dealer_scoring": ("lianzhuang", "none", "yikouer"),  # 14
    "baodou": (False, True),  # 15
    "patterns.dilong": (None, 0, 1, 10, 40),  # 16
    "patterns.qingdilong": (None, 0, 20, 100),  # 16
    "hand_cap": (None, 1, 5, 20, 100),  # 17
    "hints": (False, True),  # 18
}
PRESET_NAMES = sorted(PRESETS)
DEFAULT_MIXES = 300  # each a round of each preset in turn
FULL_MIXES = 3000
CHUNK = 50  # mixes per test, well inside the per-test timeout on a loaded machine


def test_every_house_option_is_mixed() -> None:
    """A new §13 option must join the mixes: every field whose preset values agree across the
    three presets and that is not a preset's own table is listed above."""
    fields = set(RuleOptions.model_fields) - {"patterns"}
    listed = {k for k in HOUSE_VALUES if "." not in k}
    assert listed <= fields
    for name in listed:
        for value in HOUSE_VALUES[name]:  # every listed value is accepted by every preset
            for preset in PRESET_NAMES:
                make_options(preset, {name: value})


def _mix(n: int) -> tuple[str, dict[str, Any], int | None, int]:
    """Mix number `n`: its preset, its overrides (dotted pattern names, as a house file's
    advanced field writes them), the weekday (or none) and the deal seed."""
    rng = random.Random(f"house-mix-{n}")
    preset = PRESET_NAMES[n % len(PRESET_NAMES)]
    overrides = {k: rng.choice(v) for k, v in HOUSE_VALUES.items() if rng.random() < 0.45}
    weekday = rng.choice((None, 1, 2, 3, 4, 5, 6, 7))
    return preset, overrides, weekday, rng.randrange(2**32)


def _settled_pattern(r: Round, seat: int, tile: int) -> tuple[Any, int] | None:
    """The pattern the settlement would pay for `seat` winning on `tile` (§3, §13.16: the
    single highest the table values, a 地龙 read too)."""
    counts = list(r.hands[seat])
    counts[tile] += 1
    melds = r.melds[seat]
    if not is_complete(r.opts, counts, melds):
        return None
    return best_pattern(r.opts, counts, [m.tile for m in melds], melds)


def _check_window(r: Round, n: int) -> None:
    """The open claim (or 抢杠) window: what the engine offers agrees with the settlement."""
    tile, source = r.claim_tile, r.claim_from
    assert tile is not None and source is not None
    for seat in range(4):
        if seat == source:
            continue
        offered = "hu" in r.claim_options.get(seat, ())
        paid = _settled_pattern(r, seat, tile)
        if offered:
            assert paid is not None, f"mix {n}: seat {seat} may win on a tile no pattern pays"
            _check_win_is_paid(r, seat, n)
            continue
        if paid is None or (r.opts.pass_win == "lock" and r.passed[seat]):
            continue
        if r.phase is Phase.ROB:  # 抢杠 needs no pass (§4)
            pytest.fail(f"mix {n}: seat {seat} refused a 抢杠 win ({paid[0].value})")
        if paid[1] > r.opts.patterns.pinghu:
            reason = r._why_no_hu(seat)
            pytest.fail(f"mix {n}: seat {seat}'s {paid[0].value} {paid[1]} refused: {reason}")


def _check_win_is_paid(r: Round, seat: int, n: int) -> None:
    """Taking the offered win settles, and `seat` is among the winners the settlement pays."""
    won = r.clone()
    won.apply(Action(seat, "hu"))
    for other in list(won.awaiting()):
        won.apply(Action(other, "pass"))
    assert won.phase is Phase.OVER and won.result is not None, f"mix {n}"
    seats = [w["seat"] for w in won.result.to_dict()["wins"]]
    assert seat in seats, f"mix {n}: seat {seat}'s allowed win is not settled"
    _check_settlement(won, n)


def _check_settlement(r: Round, n: int) -> None:
    assert r.result is not None
    assert sum(r.result.net) == 0, f"mix {n}: nets {r.result.net}"
    for p in r.result.to_dict()["payments"]:
        _check_payment(p, r.base)


def _play(n: int) -> Round:
    preset, overrides, weekday, seed = _mix(n)
    opts = make_options(preset, overrides)
    r = Round.deal(opts, seed=seed, dealer=seed % 4, streak=seed % 3, weekday=weekday)
    bot = Bot(seed)
    for _ in range(600):
        if r.phase is Phase.OVER:
            break
        if r.phase in (Phase.CLAIM, Phase.ROB) and not r.claim_answers:
            _check_window(r, n)  # once per window, before anyone answers
        seat = r.awaiting()[0]
        r.apply(bot.choose(r, seat))
    assert r.phase is Phase.OVER, f"mix {n}: the round did not end"
    return r


@pytest.mark.slow
@pytest.mark.parametrize("chunk", range(volume(DEFAULT_MIXES, FULL_MIXES) // CHUNK))
def test_house_mixes_settle_as_rules_md_says(chunk: int) -> None:
    for n in range(chunk * CHUNK, (chunk + 1) * CHUNK):
        _check_settlement(_play(n), n)
