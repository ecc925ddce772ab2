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
from client_tui.sheet import Sheet, build_sheet, flip_chickens, payment_words
from client_tui.view import ResultV
from protocol.settlement import parse_result
from rules.kinds import BonusKind, ChickenKind, DouKind, ExtraKind, PatternKind
from rules.options import PRESETS
from rules.players.bot import Bot
from rules.round import Phase, Round
from rules.script import run_script
from rules.tiles import tile_name

TESTS = Path(__file__).parents[1]
SCRIPTS = sorted((TESTS / "scenarios").glob("*.json")) + sorted((TESTS / "scripts").glob("*.json"))
NAMES = ("P1", "P2", "P3", "P4")


def wire_result(r: Round) -> dict[str, Any]:
    """The settlement as a client gets it in `round_ended` (through JSON, validated)."""
    assert r.result is not None
    result: dict[str, Any] = json.loads(
        json.dumps({**r.result.to_dict(), **r.revealed().to_dict()})
    )
    parse_result(result)
    return result


def sheet_of(r: Round) -> tuple[dict[str, Any], Sheet]:
    """The sheet a client builds: the result with the revealed hands, and the discards it saw."""
    result = wire_result(r)
    discards = tuple(tuple(row) for row in r.discards)
    res = ResultV(1, result, tuple(result["net"]), r.dealer, discards)
    return result, build_sheet(res, r.opts.chickens)


def render(sheet: Sheet, lang: str, ascii: bool = True, width: int = 220) -> list[str]:
    console = Console(width=width, record=True, color_system=None, file=io.StringIO())
    console.print(sheet_renderable(sheet, lambda s: NAMES[s], Lang(lang), ascii))
    return console.export_text().splitlines()


def payment_lines(lines: list[str], lang: Lang) -> list[tuple[int, int, str, int, str]]:
    """(payer, payee, label, amount, note) of each payment line as rendered (a long note goes on
    over the next lines)."""
    heads = [i for i, ln in enumerate(lines) if lang.t("payer_payee") in ln]
    if not heads:  # no payment: the sheet says why instead of an empty table
        assert any(lang.t("no_payments_draw") in ln or lang.t("no_payments") in ln for ln in lines)
        return []
    start = heads[0] + 1
    end = next(i for i, ln in enumerate(lines) if ln.strip() == lang.t("totals"))
    out: list[tuple[int, int, str, int, str]] = []
    note_at = lines[start - 1].index(lang.t("detail"))
    for ln in lines[start:end]:
        words = ln.split()
        if words[0] not in NAMES:  # the note of the line above, wrapped
            payer, payee, label, amount, note = out.pop()
            out.append((payer, payee, label, amount, f"{note} {ln[note_at:].strip()}"))
            continue
        assert words[1] == "→", ln
        at = next(i for i in range(3, len(words)) if words[i].isdigit())
        out.append(
            (
                NAMES.index(words[0]),
                NAMES.index(words[2]),
                " ".join(words[3:at]),
                int(words[at]),
                ln[note_at:].strip(),
            )
        )
    return out


IDENTIFIERS = {m.value for kind in (PatternKind, BonusKind, ChickenKind, DouKind) for m in kind}


def check_lines_add_up(sheet: Sheet, net: list[int]) -> None:
    """In each language, every payment line reads as its structured fields say, with the kind's
    label and a note worded from its details, and the lines as read add up to the nets; so does
    the sheet's own Net row."""
    for code in ("zh", "en"):
        lang = Lang(code)
        lines = render(sheet, code)
        read = payment_lines(lines, lang)
        # The notes name the players: no engine seat numbers (0–3) are left in them.
        assert not any(re.search(r"\bseat [0-3]\b", ln) for ln in lines)
        assert len(read) == len(sheet.payments)
        totals = [0, 0, 0, 0]
        for (payer, payee, label, amount, note), p in zip(read, sheet.payments, strict=True):
            assert p.kind in ITEMS and (p.how is None or p.how in HOW), "a kind with no label"
            want = lang.item(p.kind) + (f" {lang.how(p.how)}" if p.how else "")
            assert (payer, payee, label, amount) == (p.payer, p.payee, want, p.amount)
            assert note, f"payment {p} has no words"
            words = set(re.findall(r"[A-Za-z]+", note))
            assert not words & IDENTIFIERS, f"an identifier left unworded: {note}"
            if code == "en":
                assert re.search(r"[a-z]{3,}", note), f"not worded in English: {note}"
            else:
                assert not re.search(r"[A-Za-z]{2,}", note), f"English in the zh sheet: {note}"
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
        assert row.win_tile == (tile_name(w.tile) if w is not None and w.tile is not None else None)
        assert len(row.tiles) + (row.win_tile is not None) + 3 * len(row.melds) == (
            14 if w is not None else 13
        )
        assert [m.tile for m in row.melds] == [tile_name(m.tile) for m in r.melds[row.seat]]
        assert all(m.tile is not None for m in row.melds)
        # Every chicken a seat counts is on its row: in the hand, the melds or its discards (the
        # winning tile counts for the first winner only, so it may or may not be one).
        counted: dict[str, int] = {}
        for c in sheet.chickens:  # (none listed in a 荒庄 without chickens)
            for line in c.lines if c.seat == row.seat else ():
                counted[line.tile] = counted.get(line.tile, 0) + line.count
        for tile, n in counted.items():
            shown = (
                row.tiles.count(tile)
                + row.discarded.count(tile)
                + sum(3 if m.kind == "pong" else 4 for m in row.melds if m.tile == tile)
            )
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
    assert s.flip == "5p" and s.flip_makes == (("6p", ChickenKind.FANPAI),)
    winner = s.chickens[1]
    assert winner.collects and winner.units == 3
    assert [(ln.tile, ln.kind, ln.each) for ln in winner.lines] == [
        ("1s", ChickenKind.CHONGFENG, 3)
    ]
    assert not s.chickens[0].collects
    assert s.by_item == {"hand": (-3, 7, -2, -2), "chicken": (-3, 9, -3, -3)}
    assert s.net == (-6, 16, -5, -5)


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_sheets_of_bot_rounds_add_up(preset: str) -> None:
    tagged: set[ChickenKind] = set()
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
        tagged |= {ln.kind for row in sheet.chickens for ln in row.lines}
        kinds |= {p.kind for p in sheet.payments}
    assert tagged - {ChickenKind.YAOJI, ChickenKind.WUGUJI}, "翻牌, 冲锋, 摇摆 … chickens"
    assert {"hand", "chicken"} <= kinds


def scripted(name: str) -> Round:
    return run_script(json.loads((TESTS / "scripts" / name).read_text(encoding="utf-8")))


def test_a_sheet_that_does_not_add_up_says_so() -> None:
    result = wire_result(scripted("guiyang_23_zerenji.json"))
    result["net"] = [v + d for v, d in zip(result["net"], (-1, 1, 0, 0), strict=True)]
    assert not build_sheet(ResultV(1, result, (0, 0, 0, 0))).adds_up
    result["net"][0] += 1  # the nets no longer sum to zero
    assert not build_sheet(ResultV(1, result, (0, 0, 0, 0))).adds_up


@pytest.mark.parametrize(
    ("flip", "rule", "want"),
    [
        ("5p", "guiyang", (("6p", ChickenKind.FANPAI),)),
        ("7p", "guiyang", (("8p", ChickenKind.JIN),)),  # 乌骨鸡 turns gold
        ("9s", "guiyang", (("1s", ChickenKind.JIN),)),  # 9 wraps to 1: 幺鸡 gold
        ("9m", "chuan", (("1m", ChickenKind.FANPAI),)),
        ("2s", "anshun", (("1s", ChickenKind.JIN), ("3s", ChickenKind.YAOBAI))),
        (None, "guiyang", ()),
    ],
)
def test_what_the_flip_makes(
    flip: str | None, rule: str, want: tuple[tuple[str, ChickenKind], ...]
) -> None:
    assert flip_chickens(flip, rule) == want


@pytest.mark.parametrize(
    ("script", "extras", "collects"),
    [
        # 包鸡 is paid to each collector in turn: summed on the payer's row.
        (
            "guiyang_25_baoji_chongfeng_ready_collects.json",
            [(("baoji", -18),), (("baoji", 9),), (), (("baoji", 9),)],
            [False, True, False, True],
        ),
        (
            "guiyang_49_ready_nonwinners_chongfeng_zeren.json",
            [(("zeren", -4),), (), (("zeren", 4),), ()],
            [False, True, True, True],
        ),
    ],
)
def test_baoji_and_zeren_are_summed_per_seat_on_the_chicken_rows(
    script: str, extras: list[tuple[tuple[str, int], ...]], collects: list[bool]
) -> None:
    sheet = build_sheet(ResultV(1, wire_result(scripted(script)), (0, 0, 0, 0)))
    assert [row.extras for row in sheet.chickens] == extras
    assert sheet.adds_up and [row.collects for row in sheet.chickens] == collects


ZH_NAMES = ("东家", "南家", "西家", "北家")
WORDED = [
    "guiyang_16_qianggang_quanshao.json",  # 抢杠: three shares, 全烧
    "guiyang_38_zerenji_wuguji_gold_diandou.json",  # gold 乌骨鸡, 点豆, 责任鸡
    "guiyang_25_baoji_chongfeng_ready_collects.json",  # 包鸡, 冲锋鸡
    "guiyang_28_qingdadui_dealer_streak.json",  # 坐庄, 连庄
    "anshun_13_shabao_on_zimo.json",  # 自摸 × 2, then 杀报
    "anshun_08_repao_mendou_pinghu.json",  # 热炮 voiding a 闷豆
    "chuan_05_baopai_void_win.json",  # 包牌
    "chuan_02_dou_no_ready_mendou_chicken_60.json",  # chuan's 闷豆鸡
    "chuan_09_huangzhuang_three_ready.json",  # 荒庄: 查叫
]


def worded_rounds() -> list[tuple[str, Round]]:
    shared = TESTS.parent.parent / "shared" / "scenarios"
    paths = [TESTS / "scripts" / n for n in WORDED] + sorted((TESTS / "scenarios").glob("*.json"))
    paths += sorted(shared.glob("*.json")) if shared.is_dir() else []
    scripts = [(p.stem, json.loads(p.read_text(encoding="utf-8"))) for p in paths]
    return [
        (stem, run_script(data))
        for stem, data in scripts
        if "error" not in data.get("expected", {})
    ]


def test_the_chinese_sheet_has_no_english_and_the_english_one_words_every_line() -> None:
    """Rendered in zh (Chinese player names), no ASCII letter is left with CJK tiles and no ASCII
    word with ASCII tiles; rendered in en, every payment line has English words and no raw
    identifier. Every payment kind, 豆 kind and wording path of the rules core is covered."""
    kinds: set[str] = set()
    for stem, r in worded_rounds():
        res = ResultV(1, wire_result(r), (0, 0, 0, 0))
        sheet = build_sheet(res, r.opts.chickens)
        kinds |= {p.kind for p in sheet.payments}
        for ascii, english in ((False, r"[A-Za-z]"), (True, r"[A-Za-z]{2,}")):
            console = Console(width=100, record=True, color_system=None, file=io.StringIO())
            console.print(sheet_renderable(sheet, lambda s: ZH_NAMES[s], Lang("zh"), ascii))
            text = console.export_text()
            found = re.findall(english, text)
            assert not found, f"{stem}: English in the Chinese sheet: {found}\n{text}"
        en = Lang("en")
        for p in sheet.payments:
            words = payment_words(p.payment, en, lambda s: NAMES[s], str)
            assert re.search(r"[a-z]{3,}", words), f"{stem}: {words!r}"
            assert not set(re.findall(r"[A-Za-z]+", words)) & IDENTIFIERS, f"{stem}: {words!r}"
    assert kinds >= {"hand", "repao", "baopai", "dou", "chicken", "baoji", "zeren", "chajiao"}


def test_payment_words_in_both_languages() -> None:
    """Exact wording of a few payments, from their details alone."""
    r = scripted("guiyang_38_zerenji_wuguji_gold_diandou.json")
    sheet = build_sheet(ResultV(1, wire_result(r), (0, 0, 0, 0)))
    zh = [payment_words(p.payment, Lang("zh"), lambda s: ZH_NAMES[s], str) for p in sheet.payments]
    en = [payment_words(p.payment, Lang("en"), lambda s: NAMES[s], str) for p in sheet.payments]
    assert zh == [
        "平胡 1",
        "点豆 8p（东家点杠）",
        "金乌骨鸡 8p×4，每张4=16",
        "金乌骨鸡 8p×4，每张4=16",
        "金乌骨鸡 8p×4，每张4=16",
        "首张被碰杠：金责任鸡 8p×1，每张8=8",
    ]
    assert en[:3] == [
        "平胡 plain 1",
        "点豆 kong of a discard 8p (fed by P1)",
        "金 gold 乌骨鸡 standing 8p×4 @4 = 16",
    ]
    rob = build_sheet(
        ResultV(1, wire_result(scripted("guiyang_16_qianggang_quanshao.json")), (0, 0, 0, 0))
    )
    assert payment_words(rob.payments[0].payment, Lang("zh"), lambda s: ZH_NAMES[s], str) == (
        "抢杠包三家：替东家付 平胡 1 + 自摸 1 + 坐庄 1 + 连庄 1；替南家付 平胡 1 + 自摸 1；"
        "替西家付 平胡 1 + 自摸 1"
    )


def test_every_identifier_has_a_name_in_both_languages() -> None:
    for kind in (PatternKind, BonusKind, ChickenKind, DouKind, ExtraKind):
        for member in kind:
            zh, en = Lang("zh").name(member), Lang("en").name(member)
            assert zh == member.zh and en.startswith(member.zh + " ") and en != zh


def test_a_chicken_rows_total_adds_up_the_baoji_printed_on_it_at_any_base() -> None:
    """Issue 23, defect 9: the 包鸡 on a chicken row is printed in units (the payment's
    `details.units`; units × base = amount) and the row's total includes it. At 底分 3 the
    payer of 包鸡 18 units pays 54; its row reads 包鸡 -18 and totals -18 (its own chickens are
    not paid: it is not ready); a collector's row totals its chickens plus the 9 it is paid."""
    data = json.loads(
        (TESTS / "scripts" / "guiyang_25_baoji_chongfeng_ready_collects.json").read_text(
            encoding="utf-8"
        )
    )
    data["base"] = 3
    sheet = build_sheet(ResultV(1, wire_result(run_script(data)), (0, 0, 0, 0)))
    rows = {row.seat: row for row in sheet.chickens}
    assert rows[0].extras == (("baoji", -54),) and rows[0].extra_units == (("baoji", -18),)
    assert rows[0].total == -18
    assert rows[1].extras == (("baoji", 27),) and rows[1].extra_units == (("baoji", 9),)
    assert rows[1].total == rows[1].units + 9
    console = Console(width=120, record=True, color_system=None, file=io.StringIO())
    console.print(sheet_renderable(sheet, lambda s: "ABCD"[s], Lang("en"), True, width=120))
    text = console.export_text()
    line = next(ln for ln in text.splitlines() if "B" in ln.split() and "+9" in ln)
    assert re.search(rf"\b{rows[1].units + 9} ✓", line), line
