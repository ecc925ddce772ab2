"""The settlement sheet built from the engine's real settlements: every shared scenario and deal
script, and many bot rounds of each preset. The per-item lines must add up to the nets."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from client_tui.sheet import Sheet, build_sheet, flip_chickens
from client_tui.view import ResultV
from rules.bot import Bot
from rules.options import PRESETS
from rules.round import Phase, Round
from rules.script import run_script

TESTS = Path(__file__).parent
SCRIPTS = sorted((TESTS / "scenarios").glob("*.json")) + sorted((TESTS / "scripts").glob("*.json"))


def sheet_of(r: Round) -> tuple[dict[str, Any], Sheet]:
    assert r.result is not None
    result: dict[str, Any] = r.result.to_dict()  # type: ignore[attr-defined]
    return result, build_sheet(ResultV(1, result, tuple(result["net"])), r.opts.chickens)


@pytest.mark.parametrize("path", SCRIPTS, ids=[p.stem for p in SCRIPTS])
def test_sheet_of_every_scripted_round_adds_up(path: Path) -> None:
    data = json.loads(path.read_text(encoding="utf-8"))
    if "error" in data.get("expected", {}):
        pytest.skip("a script that is meant to be refused")
    r = run_script(data)
    assert r.phase is Phase.OVER
    result, sheet = sheet_of(r)
    assert sheet.adds_up
    assert list(sheet.net) == result["net"]
    assert len(sheet.payments) == len(result["payments"])
    for seat in range(4):
        total = sum(row[seat] for row in sheet.by_item.values())
        assert total == result["net"][seat]


def test_the_chongfeng_scenario_in_detail() -> None:
    data = json.loads((TESTS / "scenarios" / "guiyang_10_chongfeng_yaoji.json").read_text())
    _, s = sheet_of(run_script(data))
    assert s.flip == "5p" and s.flip_makes == (("6p", "翻牌"),)
    winner = s.chickens[1]
    assert winner.collects and winner.units == 3
    assert [(ln.tile, ln.tag, ln.each) for ln in winner.lines] == [("1s", "冲锋", 3)]
    assert not s.chickens[0].collects
    assert s.by_item == {"hand": (-3, 7, -2, -2), "chicken": (-3, 9, -3, -3)}
    assert s.net == (-6, 16, -5, -5)


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_sheets_of_bot_rounds_add_up(preset: str) -> None:
    tagged: set[str] = set()
    for seed in range(40):
        bots = [Bot(f"{seed}:{s}") for s in range(4)]
        r = Round.deal(PRESETS[preset], seed=seed, dealer=seed % 4)
        while r.phase is not Phase.OVER:
            seat = r.awaiting()[0]
            r.apply(bots[seat].choose(r, seat))
        _, sheet = sheet_of(r)
        assert sheet.adds_up
        tagged |= {ln.tag for row in sheet.chickens for ln in row.lines}
    assert tagged - {""}, "some chickens carry a tag (翻牌, 冲锋, 金, 摇摆 …)"


def test_a_sheet_that_does_not_add_up_says_so() -> None:
    result = {"payments": [{"from": 0, "to": 1, "item": "hand", "amount": 2, "detail": ""}],
              "net": [-2, 3, 0, -1], "winners": [], "ready": [False] * 4}  # fmt: skip
    assert not build_sheet(ResultV(1, result, (0, 0, 0, 0))).adds_up


@pytest.mark.parametrize(
    ("flip", "rule", "want"),
    [
        ("5p", "guiyang", (("6p", "翻牌"),)),
        ("7p", "guiyang", (("8p", "金"),)),  # 乌骨鸡 turns gold
        ("9s", "guiyang", (("1s", "金"),)),  # 9 wraps to 1: 幺鸡 gold
        ("9m", "chuan", (("1m", "翻牌"),)),
        ("2s", "anshun", (("1s", "金"), ("3s", "摇摆"))),
        (None, "guiyang", ()),
    ],
)
def test_what_the_flip_makes(
    flip: str | None, rule: str, want: tuple[tuple[str, str], ...]
) -> None:
    assert flip_chickens(flip, rule) == want


def test_baoji_and_zeren_are_summed_per_seat_on_the_chicken_rows() -> None:
    payments = [
        {"from": 0, "to": 1, "item": "baoji", "amount": 6, "detail": ""},
        {"from": 0, "to": 2, "item": "baoji", "amount": 6, "detail": ""},
        {"from": 3, "to": 2, "item": "zeren", "amount": 4, "detail": ""},
    ]
    result = {
        "payments": payments, "net": [-12, 6, 10, -4], "winners": [{"seat": 2, "pattern": "平胡"}],
        "ready": [False, True, True, False],
        "chickens": [{"seat": s, "units": 0, "lines": []} for s in range(4)],
    }  # fmt: skip
    sheet = build_sheet(ResultV(1, result, (0, 0, 0, 0)))
    assert [row.extras for row in sheet.chickens] == [
        (("包鸡", -12),),
        (("包鸡", 6),),
        (("包鸡", 6), ("责任", 4)),
        (("责任", -4),),
    ]
    assert sheet.adds_up and [row.collects for row in sheet.chickens] == [False, True, True, False]
