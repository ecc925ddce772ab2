"""The wire model of the settlement takes exactly what the rules core settles under every house
option (RULES.md §13): every deal script, and bot rounds under random option mixes. Each settlement
validates against `protocol.settlement`, dumps back to the engine's dict, and is worded on the sheet
in Chinese (no English word) and in English (every line)."""

from __future__ import annotations

import io
import json
import random
import re
import typing
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError
from rich.console import Console

from client_tui.i18n import Lang
from client_tui.screens.sheets import sheet_renderable
from client_tui.sheet import Sheet, build_sheet, payment_words
from client_tui.view import ResultV
from protocol.settlement import parse_result
from rules.kinds import BonusKind, ChickenKind, DouKind, PatternKind
from rules.options import PRESETS, RuleOptions, make_options
from rules.players.bot import Bot
from rules.round import Phase, Round
from rules.script import run_script
from tests.support import volume

TESTS = Path(__file__).parents[1]
SCRIPTS = sorted((TESTS / "scenarios").glob("*.json")) + sorted((TESTS / "scripts").glob("*.json"))
ZH_NAMES = ("东家", "南家", "西家", "北家")
EN_NAMES = ("P1", "P2", "P3", "P4")
IDENTIFIERS = {m.value for kind in (PatternKind, BonusKind, ChickenKind, DouKind) for m in kind}

# Values to try for the options that are not a plain bool or Literal (the rest come from the
# annotations of `RuleOptions`).
NUMBERS: dict[str, list[Any]] = {
    "hand_cap": [None, None, 5, 12, 25, 60],
    "zeren_extra": [0, 2, 4],
}
PATTERN_CHOICES: dict[str, list[Any]] = {"dilong": [None, 10], "qingdilong": [None, 20]}


def option_choices() -> dict[str, list[Any]]:
    """Every option of `RuleOptions` that is a bool or a Literal, with its values, and the few
    numbers above."""
    choices: dict[str, list[Any]] = dict(NUMBERS)
    for name, field in RuleOptions.model_fields.items():
        ann = field.annotation
        if ann is bool:
            choices[name] = [False, True]
        elif typing.get_origin(ann) is typing.Literal:
            choices[name] = list(typing.get_args(ann))
    return choices


CHOICES = option_choices()


def random_options(rng: random.Random) -> RuleOptions:
    """A preset with a random mix of about a third of its options changed."""
    overrides: dict[str, Any] = {}
    for name, values in CHOICES.items():
        if rng.random() < 0.35:
            overrides[name] = rng.choice(values)
    overrides["patterns"] = {k: rng.choice(v) for k, v in PATTERN_CHOICES.items()}
    return make_options(rng.choice(sorted(PRESETS)), overrides)


def check_settlement(r: Round, where: str) -> None:
    """Validates, dumps back to the engine's dict, and is worded in both languages."""
    assert r.result is not None
    engine = {**r.result.to_dict(), **r.revealed().to_dict()}
    wire = json.loads(json.dumps(engine))
    model = parse_result(wire)
    # Optional fields the engine leaves out (a winner's `void`, a payment's `cap`) stay out.
    assert model.model_dump(mode="json", exclude_unset=True) == wire, where
    assert parse_result(engine).model_dump(mode="json", exclude_unset=True) == wire, where
    sheet = build_sheet(ResultV(1, wire, tuple(wire["net"])), r.opts)
    console = Console(width=100, record=True, color_system=None, file=io.StringIO())
    console.print(sheet_renderable(sheet, lambda s: ZH_NAMES[s], Lang("zh"), False))
    text = console.export_text()
    assert not re.findall(r"[A-Za-z]", text), f"{where}: English in the Chinese sheet\n{text}"
    en = Lang("en")
    for p in sheet.payments:
        words = payment_words(p.payment, en, lambda s: EN_NAMES[s], str)
        assert re.search(r"[a-z]{3,}", words), f"{where}: not worded in English: {words!r}"
        assert not set(re.findall(r"[A-Za-z]+", words)) & IDENTIFIERS, f"{where}: {words!r}"


@pytest.mark.parametrize("path", SCRIPTS, ids=[p.stem for p in SCRIPTS])
def test_every_scripted_settlement_is_on_the_wire_as_settled(path: Path) -> None:
    data = json.loads(path.read_text(encoding="utf-8"))
    if "error" in data.get("expected", {}):
        pytest.skip("a script that is meant to be refused")
    r = run_script(data)
    assert r.phase is Phase.OVER
    check_settlement(r, path.stem)


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_bot_rounds_under_random_option_mixes_are_on_the_wire_as_settled() -> None:
    """150 rounds (300 in the soak step, `tests.support.volume`); every payment kind below is
    reached by the 69th."""
    rng = random.Random(13)
    kinds: set[str] = set()
    for n in range(volume(150, 300)):
        opts = random_options(rng)
        bots = [Bot(f"{n}:{s}") for s in range(4)]
        r = Round.deal(opts, seed=n, dealer=n % 4, streak=n % 3, weekday=n % 7 + 1)
        while r.phase is not Phase.OVER:
            seat = r.awaiting()[0]
            r.apply(bots[seat].choose(r, seat))
        check_settlement(r, f"round {n}: {opts.model_dump()}")
        assert r.result is not None
        for p in r.result.to_dict()["payments"]:
            kinds.add(p["kind"])
            kinds |= {c["kind"] for c in p["details"].get("chickens", ())}
            kinds |= {b["kind"] for b in p["details"].get("bonuses", ())}
            kinds |= {"cap"} if "cap" in p["details"] else set()
    # The mixes reach the house options' payments (the seed is fixed, so this is stable).
    assert {"hand", "repao", "dou", "baodou", "chicken", "baoji", "zeren", "chajiao"} <= kinds
    assert {"yikouer", "benji", "xingqi", "yaobai", "cap"} <= kinds


def sheet_of_script(name: str) -> Sheet:
    path = next(p for p in SCRIPTS if p.name == name)
    r = run_script(json.loads(path.read_text(encoding="utf-8")))
    assert r.result is not None
    wire = json.loads(json.dumps({**r.result.to_dict(), **r.revealed().to_dict()}))
    return build_sheet(ResultV(1, wire, tuple(wire["net"])), r.opts)


def test_the_sheet_says_what_the_flip_makes_under_the_options() -> None:
    benji = sheet_of_script("opt_benji_01_flip_kind.json")
    assert benji.flip == "4m" and not benji.blown
    assert benji.flip_makes == (("5m", ChickenKind.FANPAI), ("4m", ChickenKind.BENJI))
    both = sheet_of_script("opt_flip_chickens_01_both_guiyang.json")
    assert both.flip is not None and len(both.flip_makes) == 2
    assert {kind for _, kind in both.flip_makes} <= {ChickenKind.YAOBAI, ChickenKind.JIN}
    blown = sheet_of_script("opt_chuifengji_01_flip_5p.json")
    assert blown.flip == "5p" and blown.blown and blown.flip_makes == ()
    assert not any(p.payment.item == "chicken" for p in blown.payments)
    for code, words in (("zh", "吹风鸡：本局鸡不计分"), ("en", "no chicken scores this round")):
        console = Console(width=100, record=True, color_system=None, file=io.StringIO())
        console.print(sheet_renderable(blown, lambda s: EN_NAMES[s], Lang(code), True))
        assert words in console.export_text()


def test_a_capped_repao_and_a_baodou_are_worded() -> None:
    sheet = sheet_of_script("opt_hand_cap_03_repao_inside_cap.json")
    repao = next(p.payment for p in sheet.payments if p.kind == "repao")
    assert payment_words(repao, Lang("zh"), lambda s: ZH_NAMES[s], str) == (
        "杠后热炮，转弯豆 5m作废，与牌型合计封顶25"
    )
    assert payment_words(repao, Lang("en"), lambda s: EN_NAMES[s], str) == (
        "hot discard after 转弯豆 added kong 5m, which is void, capped at 25 with the hand"
    )
    baodou = sheet_of_script("opt_baodou_01_unready_mendou_pays.json")
    pays = [p.payment for p in baodou.payments if p.kind == "baodou"]
    assert [payment_words(p, Lang("zh"), lambda s: ZH_NAMES[s], str) for p in pays] == [
        "未叫牌，包豆：闷豆 9m"
    ] * 2


def test_a_cap_out_of_bounds_or_an_unknown_detail_is_refused() -> None:
    path = next(p for p in SCRIPTS if p.name == "opt_hand_cap_03_repao_inside_cap.json")
    r = run_script(json.loads(path.read_text(encoding="utf-8")))
    assert r.result is not None
    wire = json.loads(json.dumps({**r.result.to_dict(), **r.revealed().to_dict()}))
    at = next(i for i, p in enumerate(wire["payments"]) if p["kind"] == "repao")
    for bad, field in (({"cap": 0}, "cap"), ({"why": "cap"}, "why")):
        broken = json.loads(json.dumps(wire))
        broken["payments"][at]["details"].update(bad)
        with pytest.raises(ValidationError, match=rf"payments\.{at}\.repao\.details\.{field}"):
            parse_result(broken)
