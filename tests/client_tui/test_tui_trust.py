"""Issue 23: what the table says is what happened. Pilot tests over an offline table (a bots'
round projected for one seat), at the sizes where each defect showed."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console
from rich.text import Text

from client_tui import tiles as tl
from client_tui.app import ZhuojiApp
from client_tui.i18n import Lang
from client_tui.offline import OfflineTable
from client_tui.screens.history import outcome_text
from client_tui.screens.sheets import SheetScreen, summary_renderable
from client_tui.screens.table import TableScreen
from client_tui.screens.table_view import TableView
from protocol.messages import parse_server
from rules.options import PRESETS
from rules.players.bot import Bot
from rules.round import Phase, Round
from tests.support import until

SEED = 219  # by wall 30: melds at three seats, claimed discards, a 报听 discard
RELATION = {
    "en": {1: "right", 2: "across", 3: "left"},
    "zh": {1: "下家", 2: "对家", 3: "上家"},
}
YOU = {"en": "you", "zh": "你"}


def played(viewer: int, stop: Any, seed: int = SEED, base: int = 1) -> tuple[Round, OfflineTable]:
    r = Round.deal(PRESETS["guiyang"], seed=seed, dealer=0, base=base)
    bots = [Bot(f"{seed}:{s}") for s in range(4)]
    while r.phase is not Phase.OVER and not stop(r):
        seat = r.awaiting()[0]
        r.apply(bots[seat].choose(r, seat))
    return r, OfflineTable(r, viewer=viewer)


def app(lang: str) -> ZhuojiApp:
    return ZhuojiApp(
        "ws://offline",
        name="me",
        lang=lang,
        ascii=True,
        connect=False,
        clock=lambda: 1000.0,
        reveal_seconds=3600,
    )


def late(r: Round) -> bool:
    return r.wall_left <= 30 and r.phase is Phase.TURN


def expected_arrows(r: Round, viewer: int, lang: str) -> dict[int, list[str]]:
    """Each other seat's claimed melds' arrows, named as the viewer's table labels the feeder."""
    out: dict[int, list[str]] = {}
    for seat in range(4):
        if seat == viewer:
            continue
        for m in r.melds[seat]:
            if m.from_seat is None:
                continue
            rel = (m.from_seat - viewer) % 4
            out.setdefault(seat, []).append("←" + (YOU[lang] if rel == 0 else RELATION[lang][rel]))
    return out


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
async def test_a_meld_names_its_feeder_as_the_reader_sees_the_table(
    lang: str, size: tuple[int, int]
) -> None:
    # Seat 1 watches: the melds at seats 0, 2 and 3 came from seats named relative to seat 1.
    r, table = played(1, late)
    arrows = expected_arrows(r, 1, lang)
    # The deal must give a case where the melder's and the reader's directions differ.
    assert any(
        (m.from_seat - seat) % 4 != (m.from_seat - 1) % 4
        for seat in (0, 2, 3)
        for m in r.melds[seat]
        if m.from_seat is not None
    )
    a = app(lang)
    async with a.run_test(size=size) as pilot:
        for frame in table.opening():
            a.apply(frame)
        await pilot.pause()
        screen = a.screen
        assert isinstance(screen, TableScreen)
        if screen.wide:
            panels = [screen.query_one(f"#{w}").render() for w in ("w-right", "w-top", "w-left")]
        else:
            panels = [screen.query_one(f"#seat-{p}").render() for p in range(3)]
        shown = "\n".join(str(p) for p in panels)
        for seat, marks in arrows.items():
            for mark in marks:
                assert mark in shown, (seat, mark, shown)
        wrong = {
            "←" + RELATION[lang][(m.from_seat - seat) % 4]
            for seat in (0, 2, 3)
            for m in r.melds[seat]
            if m.from_seat is not None and (m.from_seat - seat) % 4 != (m.from_seat - 1) % 4
        } - {mk for marks in arrows.values() for mk in marks}
        for mark in wrong:
            assert mark not in shown, (mark, shown)


def over(r: Round) -> bool:
    return False


async def test_zh_says_who_fed_the_win_and_zimo_once() -> None:
    """Seed 202: Bot-3 (seat 2) wins on Bot-4's (seat 3) discard; seed 214: Bot-2 自摸."""
    for seed, want, never in (
        (202, "Bot-3 胡 ← Bot-4 点炮 平胡", ("Bot-3 点炮",)),
        (214, "Bot-2 自摸 平胡", ("+ 自摸", "自摸 平胡 自摸")),
    ):
        _, table = played(0, over, seed=seed)
        a = app("zh")
        async with a.run_test(size=(120, 40)) as pilot:
            for frame in table.opening():
                a.apply(frame)
            await pilot.pause()
            status = str(a.screen.query_one("#status").render())
            head = want.split(" 平胡")[0] if seed == 214 else "Bot-3 胡 Bot-4 的"
            assert head in status, status
            for bad in never:
                assert bad not in status, status
            # The round list and the standings word it the same way.
            assert a.view.history, "the round's result is kept"
            line = outcome_text(a.view.history[-1], a.view.name_of, Lang("zh")).plain
            assert line == want, line
            summary = summary_renderable(
                None, a.view.history, a.view.scores, a.view.name_of, Lang("zh")
            )
            console = Console(width=120, record=True)
            console.print(summary)
            text = console.export_text()
            assert want in text, text
            for bad in never:
                assert bad not in text, text


async def test_a_discard_is_one_verb_in_zh() -> None:
    r, table = played(0, lambda r: r.phase is Phase.CLAIM and 0 in r.awaiting())
    a = app("zh")
    async with a.run_test(size=(120, 40)) as pilot:
        for frame in table.opening():
            a.apply(frame)
        prompt = table.prompt()
        if prompt is not None:
            a.apply(prompt)
        await pilot.pause()
        status = str(a.screen.query_one("#status").render())
        assert " 打 " in status and "打出" not in status, status


def body_text(a: ZhuojiApp, width: int = 110) -> str:
    """The open sheet's body as plain lines."""
    screen = a.screen
    assert isinstance(screen, SheetScreen)
    body = screen.body
    console = Console(width=width, record=True)
    console.print(body)
    return console.export_text()


@pytest.mark.parametrize(("lang", "step"), [("zh", "×底分2"), ("en", "× base 2")])
async def test_with_base_2_every_note_adds_up_to_its_amount(lang: str, step: str) -> None:
    """Seed 214 at 底分 2: Bot-2's 自摸; every payment's note shows the ×底分 step beside an
    amount twice its units."""
    r, table = played(0, over, seed=214, base=2)
    a = app(lang)
    async with a.run_test(size=(120, 40)) as pilot:
        for frame in table.opening():
            a.apply(frame)
        await pilot.pause()
        await pilot.press("x")  # the held round end gives way to the sheet
        await pilot.pause()
        assert isinstance(a.screen, SheetScreen)
        text = body_text(a)
        assert a.view.result is not None
        payments = a.view.result.result["payments"]
        assert payments and all(p["amount"] % 2 == 0 for p in payments)
        assert text.count(step) == len(payments), text
        # The 自摸 hand payments: 平胡 1 + 自摸 1 units, paid 4 at 底分 2 (the dealer's 6 with
        # 坐庄 1), and each note says so.
        hand = [p for p in payments if p["kind"] == "hand"]
        assert [p["amount"] for p in hand] == [4, 4, 6]
        note = {
            "zh": "（平胡 1 + 自摸 1）×底分2",
            "en": "(平胡 plain 1 + 自摸 self-drawn 1) × base 2",
        }
        assert note[lang] in text, text


async def test_a_move_asked_over_an_open_sheet_brings_the_table_back_at_once() -> None:
    """Seat 0 reads round 1's sheet (with the countdown to round 2 under it); round 2 is dealt
    with seat 0 as dealer, asked to discard: the sheet gives way to the table at once."""
    _, table = played(0, over, seed=202)
    now = [1000.0]
    a = ZhuojiApp(
        "ws://offline",
        name="me",
        lang="en",
        ascii=True,
        connect=False,
        clock=lambda: now[0],
        reveal_seconds=0,
    )
    async with a.run_test(size=(80, 24)) as pilot:
        for frame in table.opening():
            a.apply(frame)
        await pilot.pause()
        assert isinstance(a.screen, SheetScreen)
        a.apply(
            parse_server(
                '{"type": "between_rounds", "table": "1", "seq": '
                + str(table.seq + 1)
                + ', "round_no": 2, "ready": [false, true, true, true], "deadline_ms": 30000,'
                ' "rematch": false}'
            )
        )
        table.seq += 1

        def status() -> str:
            return str(a.screen.query_one("#sheet-status").render())

        # The sheet's status line is redrawn on its own timer: wait for it (a deadline, no sleep).
        await until(pilot, lambda: "Round 2 starts in 30 s" in status(), what="the countdown")
        nxt = Round.deal(PRESETS["guiyang"], seed=203, dealer=0)
        follow = OfflineTable(nxt, viewer=0, round_no=2)
        follow.seq = table.seq
        for frame in follow.events():
            a.apply(frame)
        prompt = follow.prompt()
        assert prompt is not None
        a.apply(prompt)
        await pilot.pause()
        assert isinstance(a.screen, TableScreen), a.screen
        assert a.view.prompt is not None and not a.view.prompt.is_claim
        assert a.screen.query_one("#hand").display


async def test_q_and_a_are_not_swallowed_by_a_sheet() -> None:
    """Over the settlement sheet, `q` asks to quit (mid-match) and `a` reaches the table (托管:
    here offline, so the table says it is not connected); the standings close with one Esc."""
    _, table = played(0, over, seed=202)
    a = app("en")
    a.reveal_seconds = 0
    async with a.run_test(size=(80, 24)) as pilot:
        for frame in table.opening():
            a.apply(frame)
        await pilot.pause()
        assert isinstance(a.screen, SheetScreen)
        await pilot.press("q")
        await pilot.pause()
        assert type(a.screen).__name__ == "ConfirmScreen", a.screen_stack
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(a.screen, SheetScreen)
        await pilot.press("a")
        await pilot.pause()
        await pilot.pause()
        assert isinstance(a.screen, TableScreen)
        said = [n.message for n in a._notifications]
        assert a.lang.t("not_connected") in said, said
        await pilot.press("m")
        await pilot.pause()
        a.open_summary()  # the match's end opens it again over the one open
        await pilot.pause()
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(a.screen, TableScreen), a.screen_stack


@pytest.mark.parametrize("lang", ["en", "zh"])
async def test_a_draw_sheet_says_why_nobody_pays_and_why_no_flip(lang: str) -> None:
    """Seed 226: a 荒庄 with no payment at all."""
    _, table = played(0, over, seed=226)
    a = app(lang)
    a.reveal_seconds = 0
    async with a.run_test(size=(80, 24)) as pilot:
        for frame in table.opening():
            a.apply(frame)
        await pilot.pause()
        assert a.view.result is not None and a.view.result.result["payments"] == []
        text = body_text(a, 74)
        assert a.lang.t("no_flip_draw") in text, text
        assert a.lang.t("no_payments_draw") in text, text


async def test_a_watcher_and_the_last_sheet_are_not_asked_to_get_ready() -> None:
    r, _ = played(0, over, seed=202)
    watcher = OfflineTable(r, viewer=None)
    a = app("en")
    a.reveal_seconds = 0
    async with a.run_test(size=(80, 24)) as pilot:
        for frame in watcher.opening():
            a.apply(frame)
        await pilot.pause()
        assert isinstance(a.screen, SheetScreen)
        hint = str(a.screen.query_one("#sheet-hint").render())
        assert hint == a.lang.t("close_hint"), hint
    _, player = played(0, over, seed=202)
    a = app("en")
    a.reveal_seconds = 0
    async with a.run_test(size=(80, 24)) as pilot:
        for frame in player.opening():
            a.apply(frame)
        await pilot.pause()
        assert str(a.screen.query_one("#sheet-hint").render()) == a.lang.t("next_hint")
        a.apply(
            parse_server(
                '{"type": "match_ended", "table": "1", "seq": '
                + str(player.seq + 1)
                + ', "scores": [0, 0, 0, 0], "rounds_played": 8, "reason": "finished"}'
            )
        )
        await pilot.pause()
        hints = [str(s.query_one("#sheet-hint").render()) for s in a.screen_stack[1:]]
        assert a.lang.t("next_hint") not in hints, hints


@pytest.mark.parametrize(
    ("lang", "words"),
    [
        ("en", ("first discard only", "a * after a name marks you")),
        ("zh", ("只能在自己的第一张出牌时宣布", "名字后的 * 是你自己")),
    ],
)
async def test_help_says_baoting_is_first_discard_only_and_what_the_star_means(
    lang: str, words: tuple[str, ...]
) -> None:
    a = app(lang)
    async with a.run_test(size=(120, 40)) as pilot:
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(a.screen, SheetScreen)
        text = body_text(a, 110)
        for w in words:
            assert w in text, text


def test_en_hints_word_the_claim_moves() -> None:
    from client_tui.hints import move_label
    from rules.actions import Action
    from rules.players.hints import Hint

    for act, word in (("pass", "过 Pass"), ("pong", "碰 Pong")):
        hint = Hint(Action(0, act), 0.0, "keeps")  # type: ignore[arg-type]
        assert move_label(hint, Lang("en"), True) == word


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("width", [100, 120])
async def test_the_header_never_cuts_what_matters_for_play(lang: str, width: int) -> None:
    """House options set, a long table name: round, dealer, wall, base and the reader's seat
    are on screen at 100 and 120 columns; the option list is what gets cut."""
    from client_tui.view import TableV

    _, table = played(0, late)
    a = app(lang)
    async with a.run_test(size=(width, 32)) as pilot:
        for frame in table.opening():
            a.apply(frame)
        await pilot.pause()
        assert a.view.table is not None and a.view.round is not None
        house = TableV(
            id=a.view.table.id,
            name="周五晚上的家规桌 Friday house table",
            options=(("hand_cap", 20), ("benji", True), ("xingqiji", True), ("wuguji", False)),
            base=2,
            seats=a.view.table.seats,
            state="playing",
        )
        a.view = replace(a.view, table=house)
        screen = a.screen
        assert isinstance(screen, TableScreen)
        screen.show(a.view)
        await pilot.pause()
        shown = screen_line(a, 0)
        r = a.view.round
        for must in (
            a.lang.t("round", n=a.view.round_no, of=8),
            a.lang.t("wall", n=r.wall_left),
            a.lang.t("base", n=a.view.round_base),
            a.lang.t("you"),
        ):
            assert must in shown, (must, shown)


def screen_line(a: ZhuojiApp, y: int) -> str:
    """What the terminal shows on row `y`."""
    strips = a.screen._compositor.render_update(full=True)  # type: ignore[union-attr]
    del strips
    lines = a.screen._compositor.render_strips()
    return "".join(seg.text for seg in lines[y])


@pytest.mark.parametrize("viewer", [None, 0])
async def test_a_watcher_in_the_waiting_room_sees_only_leave(viewer: int | None) -> None:
    _, table = played(0, late)
    table.viewer = viewer
    a = app("en")
    async with a.run_test(size=(100, 30)) as pilot:
        for frame in table.opening()[:3]:  # welcome, joined, the waiting table's snapshot
            a.apply(frame)
        await pilot.pause()
        screen = a.screen
        assert isinstance(screen, TableScreen)
        shown = {b: screen.query_one(f"#{b}").display for b in ("add-bot", "start", "leave")}
        room = str(screen.query_one("#room-seats").render())
        if viewer is None:
            assert shown == {"add-bot": False, "start": False, "leave": True}
            assert "a adds a bot" not in room and a.lang.t("room_watching") in room
        else:
            assert shown == {"add-bot": True, "start": True, "leave": True}


async def test_an_empty_cap_is_not_drawn_as_an_error(tmp_path: Path) -> None:
    """封顶 empty means no cap: the field is valid (not red); a bad number still is not."""
    from textual.widgets import Collapsible, Input

    from client_tui.screens.forms import CreateTableScreen, option_id

    a = app("zh")
    async with a.run_test(size=(120, 40)) as pilot:
        form = CreateTableScreen(a.lang, "me", houses=tmp_path)
        a.push_screen(form)
        await until(pilot, lambda: form.complete)  # its sections are there to open
        a.screen.query_one("#fold-score", Collapsible).collapsed = False
        await until(pilot, lambda: bool(a.screen.query(f"#{option_id('hand_cap')}")))
        cap = a.screen.query_one(f"#{option_id('hand_cap')}", Input)
        cap.focus()
        cap.value = "20"
        await pilot.pause()
        cap.value = ""
        await pilot.pause()
        assert not cap.has_class("-invalid")
        cap.value = "x1"
        await pilot.pause()
        assert cap.has_class("-invalid")


async def test_a_radio_set_highlights_its_choice(tmp_path: Path) -> None:
    """Every radio set of the form opens with the highlight on the chosen button."""
    from textual.widgets import Collapsible, RadioSet

    from client_tui.screens.forms import CreateTableScreen

    a = app("zh")
    async with a.run_test(size=(120, 40)) as pilot:
        form = CreateTableScreen(a.lang, "me", houses=tmp_path)
        a.push_screen(form)
        await until(pilot, lambda: form.complete)  # its sections are there to open
        for fold in a.screen.query(Collapsible):
            fold.collapsed = False  # each section is built when it opens
        await until(pilot, lambda: len(a.screen.query(RadioSet)) >= 5)
        await pilot.pause()
        sets = list(a.screen.query(RadioSet))
        assert any(r.pressed_index > 0 for r in sets), "some preset choice is not the first"
        for r in sets:
            lit = [i for i, b in enumerate(r.query("RadioButton")) if b.has_class("-selected")]
            assert lit == [r.pressed_index], (r.id, lit, r.pressed_index)


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_help_wraps_every_line_at_80_by_24(lang: str) -> None:
    """Issue 23, defect 10: the help's key lines wrap instead of being cut with "…" (Chinese has
    no spaces for Rich to wrap at), at the widths an 80-column help screen gives them."""
    import io

    from client_tui.screens.help import KEYS, help_renderable

    for width in (60, 70, 76):
        console = Console(width=width, record=True, file=io.StringIO(), color_system=None)
        console.print(help_renderable(Lang(lang)))
        text = console.export_text()
        assert "…" not in text, (width, [ln for ln in text.splitlines() if "…" in ln])
        flat = "".join(ln.strip() for ln in text.splitlines()).replace(" ", "")
        for _key, zh, en in KEYS:
            assert (zh if lang == "zh" else en).replace(" ", "") in flat, (width, zh)


def lobby_row(preset: str, options: dict[str, Any], base: int) -> dict[str, Any]:
    """A lobby row of a started house table (a `tables` frame's entry)."""
    seat = {"name": "Bot", "kind": "bot", "connected": True, "auto": False, "level": "strong"}
    return {
        "id": "7",
        "name": "周五晚上的家规桌 Friday house table",
        "preset": preset,
        "options": options,
        "base": base,
        "rounds": 8,
        "turn_seconds": 15,
        "bank_seconds": 60,
        "claim_min_ms": 0,
        "has_password": True,
        "seats": [{"name": "me", "kind": "human", "connected": False, "auto": True}] + [seat] * 3,
        "spectators": 2,
        "state": "playing",
        "round_no": 3,
        "scores": [0, 0, 0, 0],
    }


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("size", [(100, 30), (120, 40)])
async def test_the_lobby_never_cuts_your_seat_and_wraps_the_house_rules(
    tmp_path: Path, lang: str, size: tuple[int, int]
) -> None:
    """Issue 23, defect 7: at 100–120 columns a house table's row keeps the "your seat" marker
    the `l` dialog tells the player to look for, and every override is said in full under the
    list (the options column may be cut, the wrapped line below it is not)."""
    from client_tui.render import options_summary
    from client_tui.screens.lobby import LobbyScreen
    from client_tui.seats import SeatStore

    seats = SeatStore(tmp_path / "seats.json")
    seats.put("ws://offline", "7", token="t" * 32, seat=0, left=True)
    options = {
        "hand_cap": 20,
        "benji": True,
        "xingqiji": True,
        "wuguji": False,
        "chuifengji": True,
        "zimo_double": True,
        "baodou": True,
    }
    a = ZhuojiApp(
        "ws://offline", name="me", lang=lang, connect=False, seats=seats, clock=lambda: 1000.0
    )
    async with a.run_test(size=size) as pilot:
        a.apply(parse_server('{"type": "welcome", "version": 1, "server": "t", "name": "me"}'))
        frame = {"type": "tables", "tables": [lobby_row("guiyang", options, 2)]}
        a.apply(parse_server(json.dumps(frame)))
        await until(pilot, lambda: isinstance(a.screen, LobbyScreen) and bool(a.view.tables))
        await pilot.pause()
        lines = [screen_line(a, y) for y in range(size[1])]
        row = next(line for line in lines if line.lstrip().startswith("7 "))
        assert a.lang.t("your_seat") in row, row
        said = options_summary(a.view.tables[0], a.lang)
        assert Text(said).cell_len > 60, said  # longer than the options column leaves it
        text = "".join(line.strip() for line in lines)
        assert said.replace(" ", "") in text.replace(" ", ""), (said, lines)


@pytest.mark.parametrize("ascii", [False, True])
async def test_at_80_by_24_en_the_status_line_and_the_sheets_keys_are_whole(ascii: bool) -> None:
    """Issue 23, defect 9: at 80×24 in English the status line said `discarded 八…` and the
    sheet's key line lost `· s shows it`. Every part is whole: the last discard beside why a key
    did nothing, the round's end (the win, "round over", the countdown to the sheet), then every
    key of the settlement sheet."""
    r, table = played(0, late)
    a = app("en")
    a.ascii = ascii
    now = [1000.0]
    a.clock = lambda: now[0]
    async with a.run_test(size=(80, 24)) as pilot:
        for frame in table.opening():
            a.apply(frame)
        await pilot.pause()
        last = a.view.last
        assert last is not None and last.kind == "discarded" and last.tile is not None
        await pilot.press("p")  # no pong offered: the status line says why, beside the discard
        await pilot.pause()
        tile = tl.label(last.tile, ascii)
        said = [a.lang.t("last_discarded", name=a.view.name_of(last.seat), tile=tile)]
        view = a.screen.query_one(TableView)
        assert view.why is not None
        said.append(view.why[0])
        whole(a, said)
        now[0] += 10  # the why goes after a while
        await until(pilot, lambda: view.why is None)
        bots = [Bot(f"end:{s}") for s in range(4)]
        while r.phase is not Phase.OVER:  # the round played on to its end, held on the table
            seat = r.awaiting()[0]
            for frame in table.apply(bots[seat].choose(r, seat)):
                a.apply(frame)
        await until(pilot, lambda: a.held is not None)
        await pilot.pause()
        assert a.held.round is not None and a.held.round.wins, "won: its line is the longest"
        whole(a, [a.lang.t("round_over"), a.lang.t("reveal_hint", s=3600)])
        await pilot.press("x")  # any key: the sheet
        await until(pilot, lambda: isinstance(a.screen, SheetScreen))
        await pilot.pause()
        hint = a.settlement_hint()
        assert "s shows it again" in hint
        whole(a, [hint])


def whole(a: ZhuojiApp, parts: list[str]) -> None:
    """Each of `parts` is on the screen whole, and no line of the screen is cut (`…`)."""
    lines = [screen_line(a, y) for y in range(a.size.height)]
    for part in parts:
        assert any(part in line for line in lines), (part, "\n".join(lines))
    assert not any("…" in line for line in lines), lines
