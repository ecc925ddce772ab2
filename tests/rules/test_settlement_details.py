"""Structured settlement details (docs/ENGINE.md "Settlement details"): every payment can be worded
from identifiers and numbers alone, and those numbers add up to its amount."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from rules.kinds import BonusKind, ChickenKind, DouKind, PatternKind, PaymentKind
from rules.script import replay_json, run_script

TESTS = Path(__file__).parents[1]
PLAYABLE = [
    p
    for p in sorted((TESTS / "scenarios").glob("*.json"))
    + sorted((TESTS / "scripts").glob("*.json"))
    if "error" not in json.loads(p.read_text(encoding="utf-8"))["expected"]
]


def _hand_units(d: dict[str, Any]) -> int:
    """A hand share's units from its parts: (pattern + bonuses + dealer + streak) × multiplier
    + what is added after the multiplier, then the cap."""
    assert PatternKind(d["pattern"])
    for b in d["bonuses"] + d["after_multiplier"]:
        assert BonusKind(b["kind"])
    units = d["pattern_units"] + sum(b["units"] for b in d["bonuses"]) + d["dealer"] + d["streak"]
    units = units * d["multiplier"] + sum(b["units"] for b in d["after_multiplier"])
    if d.get("cap") is not None:
        units = min(units, d["cap"])
    return units


def _check_payment(p: dict[str, Any], base: int) -> None:
    d = p["details"]
    assert d["units"] * base == p["amount"]
    kind = PaymentKind(p["kind"])
    if kind in (PaymentKind.HAND, PaymentKind.BAOPAI):
        if "shares" in d:  # 抢杠: the sum of three shares
            assert sum(_hand_units(s) for s in d["shares"]) == d["units"]
            assert len(d["shares"]) == 3
        else:
            assert _hand_units(d) == d["units"]
    elif kind in (PaymentKind.CHICKEN, PaymentKind.BAOJI, PaymentKind.ZEREN):
        assert d["chickens"]
        for line in d["chickens"]:
            assert ChickenKind(line["kind"])
            assert line["count"] * line["each"] == line["units"]
        assert sum(line["units"] for line in d["chickens"]) == d["units"]
    elif kind in (PaymentKind.DOU, PaymentKind.REPAO, PaymentKind.BAODOU):
        assert DouKind(d["dou"]["kind"])
    elif kind is PaymentKind.CHAJIAO:
        assert PatternKind(d["pattern"])
        assert d["pattern_units"] == d["units"]


@pytest.mark.parametrize("path", PLAYABLE, ids=[p.stem for p in PLAYABLE])
def test_details_add_up_to_every_amount(path: Path) -> None:
    data = json.loads(path.read_text(encoding="utf-8"))
    out = replay_json(run_script(data))
    for p in out["payments"]:
        _check_payment(p, data.get("base", 1))
    assert [w["seat"] for w in out["wins"]] == [w["seat"] for w in out["winners"]]
    for w, named in zip(out["wins"], out["winners"], strict=True):
        assert PatternKind(w["pattern"]).zh == named["pattern"]
        assert [BonusKind(b).zh for b in w["bonuses"]] == named["bonuses"]


def test_a_dealers_zimo_with_chongfeng_in_identifiers(
    deal_script: Callable[[str], dict[str, Any]],
) -> None:
    """guiyang_10: seat 1's 平胡 自摸, the dealer paying 坐庄, and a 冲锋幺鸡 worth 3."""
    data = deal_script("guiyang_10_chongfeng_yaoji.json")
    out = replay_json(run_script(data))
    from_dealer = [p["details"] for p in out["payments"] if p["from"] == 0]
    assert from_dealer == [
        {
            "pattern": "pinghu",
            "pattern_units": 1,
            "bonuses": [{"kind": "zimo", "units": 1}],
            "dealer": 1,
            "streak": 0,
            "multiplier": 1,
            "after_multiplier": [],
            "units": 3,
        },
        {
            "chickens": [
                {
                    "kind": "chongfeng",
                    "tile": "1s",
                    "count": 1,
                    "each": 3,
                    "units": 3,
                    "gold": False,
                }
            ],
            "units": 3,
        },
    ]
    assert out["wins"] == [
        {
            "seat": 1,
            "pattern": "pinghu",
            "pattern_units": 1,
            "bonuses": ["zimo"],
            "how": "zimo",
            "tile": "3s",
            "from": None,
            "void": False,
        }
    ]
