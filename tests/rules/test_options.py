"""Ruleset options: presets are instances of one model; overrides are checked and named."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from rules import Phase, Round
from rules.options import (
    CHUAN,
    GUIYANG,
    PRESETS,
    OptionsError,
    Pattern,
    inert_options,
    make_options,
    normalize_overrides,
    overrides_of,
)
from rules.players import Bot
from rules.script import ScriptError, replay_json, run_script

SCENARIOS = Path(__file__).parents[1] / "scenarios"


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


# ----- issue 27: dotted names, and the options that change nothing -----


def test_a_dotted_pattern_name_is_the_nested_one() -> None:
    dotted = make_options("guiyang", {"patterns.dilong": 10, "patterns.qingdilong": 20})
    nested = make_options("guiyang", {"patterns": {"dilong": 10, "qingdilong": 20}})
    assert dotted == nested and dotted.patterns.dilong == 10
    both = make_options("chuan", {"patterns.dilong": 10, "patterns": {"qingdilong": 20}})
    assert (both.patterns.dilong, both.patterns.qingdilong, both.patterns.pinghu) == (10, 20, 10)
    assert normalize_overrides({"patterns.pinghu": 2}) == {"patterns": {"pinghu": 2}}


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"patterns.dilongg": 10}, "unknown option 'patterns.dilongg': the patterns are pinghu, "),
        ({"hand_cap.max": 10}, "only pattern values have a dotted name (patterns.<name>); write"),
        ({"house.cap": 1}, "unknown option 'house.cap': only pattern values have a dotted name"),
        (
            {"patterns.dilong": 10, "patterns": {"dilong": 20}},
            "option 'patterns.dilong' is given twice, as 10 and 20",
        ),
    ],
)
def test_a_dotted_name_that_is_no_option_is_refused_clearly(
    overrides: dict[str, Any], message: str
) -> None:
    with pytest.raises(OptionsError) as info:
        make_options("guiyang", overrides)
    assert message in str(info.value)


def test_a_deal_script_reads_the_dotted_form() -> None:
    data = json.loads((SCENARIOS / "opt_dilong_01_discard_win.json").read_text(encoding="utf-8"))
    data["options"] = {"patterns.dilong": 10, "patterns.qingdilong": 20}
    assert replay_json(run_script(data))["net"] == data["expected"]["net"]


def test_the_options_that_change_nothing_are_those_rules_md_13_names() -> None:
    """§13 fine points: chuan 冲锋/责任 and 8p, anshun 8p and 责任; guiyang none."""
    assert inert_options(PRESETS["guiyang"]) == {}
    assert set(inert_options(PRESETS["chuan"])) == {
        "wuguji",
        "wuguji_value",
        "chongfeng_value",
        "chongfeng_scope",
        "zeren_extra",
    }
    assert inert_options(PRESETS["anshun"]) == {
        "wuguji": "no 乌骨鸡 in 安顺捉鸡",
        "wuguji_value": "no 乌骨鸡 in 安顺捉鸡",
        "zeren_extra": "no 责任鸡 in 安顺捉鸡",
    }
    assert inert_options(PRESETS["chuan"], "zh")["wuguji"] == "捉鸡川麻将没有乌骨鸡"
    # it follows the chickens, not the preset's name
    assert inert_options(make_options("chuan", {"chickens": "guiyang"})) == {}


@pytest.mark.parametrize("preset", ["chuan", "anshun"])
def test_an_inert_option_changes_no_payment(preset: str) -> None:
    """What `inert_options` names really changes nothing: bot rounds settle identically with
    every inert option set away from the preset."""
    base = PRESETS[preset]
    flipped = {
        "wuguji": not base.wuguji,
        "wuguji_value": 1,
        "chongfeng_value": "double",
        "chongfeng_scope": "round",
        "zeren_extra": 0,
    }
    inert = inert_options(base)
    changed = make_options(preset, {k: v for k, v in flipped.items() if k in inert})
    for seed in range(12):
        nets = []
        for opts in (base, changed):
            r = Round.deal(opts, seed=seed, dealer=seed % 4)
            bot = Bot(seed)
            while r.phase is not Phase.OVER:
                r.apply(bot.choose(r, r.awaiting()[0]))
            assert r.result is not None
            nets.append([(p.payer, p.payee, p.amount) for p in r.result.payments])
        assert nets[0] == nets[1], f"seed {seed}"
