"""The settlement sheet built from the engine's real settlements: every shared scenario and deal
script, and many bot rounds of each preset. The per-kind lines must add up to the nets, the rendered
payment lines too (in both languages), and every seat's revealed hand must hold its tiles."""

from __future__ import annotations

import io
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from client_tui.i18n import HOW, ITEMS, Lang
from client_tui.screens.sheets import sheet_renderable
from client_tui.sheet import Sheet, build_sheet, flip_chickens
from client_tui.view import DiscardV, ResultV, WinV
from rules.bot import Bot
from rules.options import PRESETS
from rules.round import Phase, Round
from rules.script import run_script
from rules.tiles import tile_name

TESTS = Path(__file__).parents[1]
SCRIPTS = sorted((TESTS / "scenarios").glob("*.json")) + sorted((TESTS / "scripts").glob("*.json"))
NAMES = ("P1", "P2", "P3", "P4")


def sheet_of(r: Round) -> tuple[dict[str, Any], Sheet]:
    """The sheet a client builds: the result with the revealed hands, and the wins it saw."""
    assert r.result is not None
    result: dict[str, Any] = {**r.result.to_dict(), **r.revealed()}
    wins = tuple(
        WinV(w.seat, w.how, tile_name(w.tile) if w.tile is not None else None, w.from_seat,
             w.pattern.value)
        for w in r.winners
    )  # fmt: skip
    discards = tuple(tuple(DiscardV(tile_name(d.tile), d.claimed, d.declared) for d in row)
                     for row in r.discards)  # fmt: skip
    res = ResultV(1, result, tuple(result["net"]), r.dealer, wins, discards)
    return result, build_sheet(res, r.opts.chickens)


def render(sheet: Sheet, lang: str, ascii: bool = True, width: int = 220) -> list[str]:
    console = Console(width=width, record=True, color_system=None, file=io.StringIO())
    console.print(sheet_renderable(sheet, lambda s: NAMES[s], Lang(lang), ascii))
    return console.export_text().splitlines()


def payment_lines(lines: list[str], lang: Lang) -> list[tuple[int, int, str, int]]:
    """(payer, payee, label, amount) of each payment line as rendered."""
    start = next(i for i, ln in enumerate(lines) if lang.t("payer_payee") in ln) + 1
    end = next(i for i, ln in enumerate(lines) if ln.strip() == lang.t("totals"))
    out = []
    for ln in lines[start:end]:
        words = ln.split()
        assert words[1] == "→", ln
        at = next(i for i in range(3, len(words)) if words[i].isdigit())
        out.append((NAMES.index(words[0]), NAMES.index(words[2]), " ".join(words[3:at]),
                    int(words[at])))  # fmt: skip
    return out


def check_lines_add_up(sheet: Sheet, net: list[int]) -> None:
    """In each language, every payment line reads as its structured fields say, with the kind's
    label, and the lines as read add up to the nets; so does the sheet's own Net row."""
    for code in ("zh", "en"):
        lang = Lang(code)
        lines = render(sheet, code)
        read = payment_lines(lines, lang)
        # The notes name the players: no engine seat numbers (0–3) are left in them.
        assert not any(re.search(r"\bseat [0-3]\b", ln) for ln in lines)
        assert len(read) == len(sheet.payments)
        totals = [0, 0, 0, 0]
        for (payer, payee, label, amount), p in zip(read, sheet.payments, strict=True):
            assert p.kind in ITEMS and (p.how is None or p.how in HOW), "a kind with no label"
            want = lang.item(p.kind) + (f" {lang.how(p.how)}" if p.how else "")
            assert (payer, payee, label, amount) == (p.payer, p.payee, want, p.amount)
            totals[payer] -= amount
            totals[payee] += amount
        assert totals == net
        net_row = next(ln for ln in lines if ln.split()[:1] == [lang.t("net")])
        assert net_row.split()[1:5] == [f"+{v}" if v > 0 else str(v) for v in net]
        # As wide as the sheet is at 100 columns, with CJK tiles: nothing is cut off.
        narrow = "\n".join(render(sheet, code, ascii=False, width=94))
        assert "…" not in narrow, narrow


def check_hands(r: Round, sheet: Sheet) -> None:
    """Each seat's revealed hand and melds hold 13 tiles (14 with a winner's tile, a 杠 counted
    as 3), the winning tile is set apart, every 暗杠 shows its tile, and every chicken counted
    can be seen on the row."""
    assert len(sheet.hands) == 4
    winners = {w.seat: w for w in r.winners}
    for row in sheet.hands:
        w = winners.get(row.seat)
        assert row.win_tile == (tile_name(w.tile) if w is not None and w.tile is not None
                                else None)  # fmt: skip
        assert len(row.tiles) + (row.win_tile is not None) + 3 * len(row.melds) == (
            14 if w is not None else 13)  # fmt: skip
        assert [m.tile for m in row.melds] == [tile_name(m.tile) for m in r.melds[row.seat]]
        assert all(m.tile is not None for m in row.melds)
        # Every chicken a seat counts is on its row: in the hand, the melds or its discards (the
        # winning tile counts for the first winner only, so it may or may not be one).
        counted: dict[str, int] = {}
        for c in sheet.chickens:  # (none listed in a 荒庄 without chickens)
            for line in c.lines if c.seat == row.seat else ():
                counted[line.tile] = counted.get(line.tile, 0) + line.count
        for tile, n in counted.items():
            shown = (row.tiles.count(tile) + row.discarded.count(tile)
                     + sum(3 if m.kind == "pong" else 4 for m in row.melds if m.tile == tile))  # fmt: skip
            if r.opts.chickens == "chuan":  # a 闷杠 of a chicken tile is one line of 60
                assert 0 < n <= shown + (row.win_tile == tile), (row, tile, n)
            else:
                assert shown <= n <= shown + (row.win_tile == tile), (row, tile, n)
            assert tile in row.chickens


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
    check_lines_add_up(sheet, result["net"])
    check_hands(r, sheet)


def test_the_chongfeng_scenario_in_detail(deal_script: Callable[[str], dict[str, Any]]) -> None:
    data = deal_script("guiyang_10_chongfeng_yaoji.json")
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
    kinds: set[str] = set()
    for seed in range(40):
        bots = [Bot(f"{seed}:{s}") for s in range(4)]
        r = Round.deal(PRESETS[preset], seed=seed, dealer=seed % 4)
        while r.phase is not Phase.OVER:
            seat = r.awaiting()[0]
            r.apply(bots[seat].choose(r, seat))
        result, sheet = sheet_of(r)
        assert sheet.adds_up
        check_hands(r, sheet)
        if seed % 4 == 0:
            check_lines_add_up(sheet, result["net"])
        tagged |= {ln.tag for row in sheet.chickens for ln in row.lines}
        kinds |= {p.kind for p in sheet.payments}
    assert tagged - {""}, "some chickens carry a tag (翻牌, 冲锋, 金, 摇摆 …)"
    assert {"hand", "chicken"} <= kinds


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
