"""Ruleset options: presets are instances of one model; overrides are checked and named."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from rules.options import CHUAN, GUIYANG, PRESETS, OptionsError, Pattern, make_options, overrides_of
from rules.script import ScriptError, run_script


def test_presets_differ_where_rules_md_says() -> None:
    assert GUIYANG.patterns.value(Pattern.DANDIAO) == 10
    assert CHUAN.patterns.value(Pattern.DANDIAO) is None
    assert PRESETS["anshun"].pass_gangs == "concealed_or_added"
    assert (GUIYANG.dou_dian, GUIYANG.dou_men, GUIYANG.dou_zhuanwan) == (1, 2, 3)
    assert (CHUAN.dou_dian, CHUAN.dou_men, CHUAN.dou_zhuanwan) == (10, 20, 10)


def test_override_and_report_it() -> None:
    opts = make_options("guiyang", {"zimo_bonus": 2, "patterns": {"qidui": 9}})
    assert opts.zimo_bonus == 2
    assert opts.patterns.qidui == 9
    assert opts.patterns.pinghu == 1  # the rest of the table is kept
    assert overrides_of(opts, "guiyang") == {"zimo_bonus": 2, "patterns": {"qidui": 9}}
    assert overrides_of(GUIYANG, "guiyang") == {}


@pytest.mark.parametrize(
    ("ruleset", "overrides", "named"),
    [
        ("mahjong", {}, "unknown ruleset 'mahjong'"),
        ("guiyang", {"zimo_bonsu": 1}, "unknown option 'zimo_bonsu'"),
        ("guiyang", {"zimo_bonus": -1}, "option 'zimo_bonus'"),
        ("guiyang", {"pass_win": "maybe"}, "option 'pass_win'"),
        ("guiyang", {"patterns": {"qidui": "seven"}}, "option 'patterns.qidui'"),
        ("guiyang", {"patterns": {"tianhu": 3}}, "unknown option 'patterns.tianhu'"),
    ],
)
def test_bad_options_are_refused_by_name(ruleset: str, overrides: dict, named: str) -> None:
    with pytest.raises(OptionsError) as info:
        make_options(ruleset, overrides)
    assert named in str(info.value)


def test_deal_script_options_change_the_settlement(
    deal_script: Callable[[str], dict[str, Any]],
) -> None:
    """guiyang_05 (七对 自摸 by seat 1) with 七对 worth 9 instead of 7: each share grows by 2."""
    data = deal_script("guiyang_05_qidui_zimo.json")
    data["options"] = {"patterns": {"qidui": 9}, "dealer_bonus": False}
    r = run_script(data)
    assert r.result is not None
    assert r.result.net == [-10, 30, -10, -10]


def test_deal_script_with_a_bad_option_is_an_error() -> None:
    with pytest.raises(ScriptError, match="unknown option 'bogus'"):
        run_script({"ruleset": "guiyang", "options": {"bogus": True}, "hands": []})


@pytest.mark.parametrize(
    ("overrides", "named"),
    [
        ({"chongfeng_value": "triple"}, "option 'chongfeng_value'"),
        ({"zeren_extra": -1}, "option 'zeren_extra'"),
        ({"wuguji": "perhaps"}, "option 'wuguji'"),
        ({"wuguji_value": 3}, "option 'wuguji_value'"),
        ({"chongfeng_scope": "game"}, "option 'chongfeng_scope'"),
        ({"chickens_need_ready": "rarely"}, "option 'chickens_need_ready'"),
        ({"discards_are_chickens": 2}, "option 'discards_are_chickens'"),
        ({"hanbao_dou": "maybe"}, "option 'hanbao_dou'"),
        ({"pass_win": "never"}, "option 'pass_win'"),
        ({"first_dealer": "oldest"}, "option 'first_dealer'"),
        ({"flip_chickens": "prev"}, "option 'flip_chickens'"),
        ({"benji": "sometimes"}, "option 'benji'"),
        ({"xingqiji": 7}, "option 'xingqiji'"),
        ({"chuifengji": "5p"}, "option 'chuifengji'"),
        ({"dealer_scoring": "yikousan"}, "option 'dealer_scoring'"),
        ({"baodou": "x"}, "option 'baodou'"),
        ({"hand_cap": 0}, "option 'hand_cap'"),
        ({"hand_cap": "ten"}, "option 'hand_cap'"),
        ({"hints": "never"}, "option 'hints'"),
        ({"dealer_bonus": "yes"}, "option 'dealer_bonus'"),
    ],
)
def test_bad_house_options_are_refused_by_name(overrides: dict, named: str) -> None:
    with pytest.raises(OptionsError) as info:
        make_options("guiyang", overrides)
    assert named in str(info.value)


def test_house_option_defaults_are_each_presets_behaviour() -> None:
    """RULES.md §13 defaults (and §14): what each preset played before the options existed."""
    g, c, a = PRESETS["guiyang"], PRESETS["chuan"], PRESETS["anshun"]
    assert (g.wuguji, g.wuguji_value, g.zeren_extra, g.chongfeng_value) == (True, 2, 2, "fixed")
    assert (g.discards_are_chickens, c.discards_are_chickens, a.discards_are_chickens) == (
        True,
        False,
        True,
    )
    assert (g.flip_chickens, c.flip_chickens, a.flip_chickens) == ("next", "next", "both")
    assert (g.chickens_need_ready, c.chickens_need_ready, a.chickens_need_ready) == (
        True,
        False,
        True,
    )
    assert (g.hanbao_dou, c.hanbao_dou, a.hanbao_dou) == (True, False, False)
    assert (g.dealer_scoring, c.dealer_scoring, a.dealer_scoring) == ("lianzhuang", "none", "none")
    for p in (g, c, a):
        assert p.first_dealer == "dice" and p.hints and p.hand_cap is None
        assert not (p.benji or p.xingqiji or p.chuifengji or p.baodou)


def test_the_old_dealer_bonus_name_is_still_read() -> None:
    assert make_options("chuan", {"dealer_bonus": True}).dealer_scoring == "lianzhuang"
    assert make_options("guiyang", {"dealer_bonus": False}).dealer_scoring == "none"
