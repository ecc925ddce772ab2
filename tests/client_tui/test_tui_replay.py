"""The replay browser over a real server database: a bot match played on a real server on
loopback, its rounds picked in the browser, stepped to the end (the stored settlement), looked at
from every viewpoint, exported as a deal script that `zhuoji replay` plays to the same settlement;
and the round history (`r`) with each round's outcome worded in full."""

from __future__ import annotations

import json
import re
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import OptionList, Static

from client_tui.i18n import Lang
from client_tui.replay import ALL, tape_from_script, view_at
from client_tui.replay_app import MatchPicker, ReplayApp, RoundPicker
from client_tui.screens.history import HistoryScreen, outcome_text
from client_tui.screens.replay import ReplayScreen, export_to
from client_tui.screens.sheets import SheetScreen
from client_tui.tiles import names
from clients.testkit import play_to_end
from server.testkit import running_server
from tests.support import until
from zhuoji import replay_db

ROOT = Path(__file__).resolve().parents[2]
HOST = "主人[/b]"  # markup in a name must show as typed


async def finished_match(db: Path, rounds: int = 2) -> str:
    """A match of `rounds` rounds played to its end on a real server: a protocol bot at seat 0
    (named with markup) and three server bots. Returns the table id."""
    async with running_server(db) as (url, _server):
        done = await play_to_end(url, name=HOST, table_name="回放[x]", rounds=rounds)
    return done.table


def stored_results(db: Path, table: str) -> list[dict[str, Any]]:
    with sqlite3.connect(db) as conn:
        rows = conn.execute(
            "SELECT result FROM rounds WHERE table_id=? ORDER BY round_no", (table,)
        ).fetchall()
    return [json.loads(r[0]) for r in rows]


@pytest.fixture
async def match_db(tmp_path: Path) -> tuple[Path, str]:
    db = tmp_path / "zhuoji.db"
    table = await finished_match(db)
    return db, table


async def test_browse_a_stored_match_to_its_settlement_and_export_it(
    match_db: tuple[Path, str], tmp_path: Path
) -> None:
    db, table = match_db
    stored = stored_results(db, table)
    out = tmp_path / "exported"
    app = ReplayApp(
        matches=replay_db.matches(db),
        load=lambda t: replay_db.tapes(db, t),
        exporter=export_to(out),
        bell=False,
    )
    async with app.run_test(size=(120, 40)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, MatchPicker))
        picker = app.screen
        assert isinstance(picker, MatchPicker)
        assert [m.table for m in picker.matches] == [table]
        assert picker.matches[0].players[0] == HOST and picker.matches[0].rounds == 2
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, RoundPicker))
        await pilot.press("down", "enter")  # round 2
        await until(pilot, lambda: isinstance(app.screen, ReplayScreen))
        screen = app.screen
        assert isinstance(screen, ReplayScreen)
        assert screen.tape.round_no == 2 and screen.step == 0
        await pilot.press("left_square_bracket")  # back to round 1
        assert screen.tape.round_no == 1

        # The deal: from the all-hands viewpoint every seat's 13 or 14 tiles are open.
        assert screen.tape.script is not None
        dealt = screen.tape.script["hands"]
        r = screen.view.round
        assert r is not None and r.hands is not None
        assert [sorted(names(h)) for h in r.hands] == [sorted(h) for h in dealt]
        await pilot.press("v")  # seat 0: only its own hand
        assert screen.viewpoint == 0
        r = screen.view.round
        assert r is not None and r.hand is not None and r.hands is None
        assert sorted(names(r.hand)) == sorted(dealt[0])

        # Forward and back one move; the start refuses a step back.
        await pilot.press("right")
        after_one = screen.view.round
        assert screen.step == 1 and after_one is not None
        # No running clock in a replay (issue 23): a recorded turn's clock means nothing now.
        assert screen.table.clocks is None
        centre = str(screen.query_one("#w-centre", Static).render())
        assert "⏱" not in centre and "bank " not in centre, centre
        await pilot.press("left", "left")
        assert screen.step == 0

        # The end is the stored settlement.
        await pilot.press("end")
        assert screen.step == screen.tape.last
        res = screen.view.result
        assert res is not None
        assert res.result["net"] == stored[0]["net"]
        assert res.result["payments"] == stored[0]["payments"]
        await pilot.press("s")
        await until(pilot, lambda: isinstance(app.screen, SheetScreen))
        await pilot.press("escape")
        await until(pilot, lambda: app.screen is screen)

        # Export at the end: `zhuoji replay` plays it to the same settlement.
        await pilot.press("e")
        files = sorted(out.glob("*.json"))
        assert len(files) == 1
        mid_step = screen.tape.last // 2
        await pilot.press("home", *["right"] * mid_step, "e")
        assert screen.step == mid_step
        files = sorted(out.glob("*.json"))
        assert len(files) == 2

        # Round 2 after round 1: the history holds round 1; `r` lists it and opens its sheet.
        await pilot.press("right_square_bracket", "end")
        assert screen.tape.round_no == 2
        res2 = screen.view.result
        assert res2 is not None and res2.result["net"] == stored[1]["net"]
        assert [h.round_no for h in screen.view.history] == [1, 2]
        await pilot.press("r")
        await until(pilot, lambda: isinstance(app.screen, HistoryScreen))
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, SheetScreen))
        assert app.screen.name == "settlement"

    full = next(f for f in files if f.name.endswith(f"step-{screen.tapes[0].last}.json"))
    done = subprocess.run(
        [sys.executable, "-m", "zhuoji", "replay", str(full), "--json"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    replayed = json.loads(done.stdout)
    # `replay --json` keeps its version-2 form (each payment's engine note, `detail`); the
    # stored settlement is read in the wire's version-3 form, without it
    paid = [{k: v for k, v in p.items() if k != "detail"} for p in replayed["payments"]]
    assert replayed["net"] == stored[0]["net"] and paid == stored[0]["payments"]
    partial = next(f for f in files if f.name.endswith(f"step-{mid_step}.json"))
    script = json.loads(partial.read_text(encoding="utf-8"))
    assert script["hands"] == json.loads(full.read_text(encoding="utf-8"))["hands"]
    assert len(script["actions"]) == screen.tapes[0].steps[mid_step].actions
    cut = subprocess.run(
        [sys.executable, "-m", "zhuoji", "replay", str(partial)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
    )
    assert cut.returncode == 2 and "ran out" in cut.stderr


def test_every_step_from_each_seat_is_what_that_seat_saw() -> None:
    """A seat's view at every step holds its own hand and no other (the rules core's masking),
    and the all-hands viewpoint holds each seat's own hand."""
    data = json.loads((ROOT / "tests/scenarios/guiyang_10_chongfeng_yaoji.json").read_text())
    tape = tape_from_script(data)
    for step in range(tape.last + 1):
        open_view = view_at(tape, step, ALL)
        for seat in range(4):
            own = view_at(tape, step, seat)
            assert own.seat == seat and own.round is not None
            assert own.round.hands is None or step == tape.last
            if open_view.round is not None and own.round.hand is not None and step < tape.last:
                assert open_view.round.hands is not None
                assert open_view.round.hands[seat] == own.round.hand
        watcher = view_at(tape, step, None).round
        assert watcher is not None and watcher.hand is None
    end = view_at(tape, tape.last, 1)
    assert end.result is not None and end.result.net == tape.net


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_a_declared_win_reads_with_its_bonus_never_as_a_plain_pattern(lang: str) -> None:
    data = json.loads((ROOT / "tests/scripts/anshun_09_tianting_zimo.json").read_text())
    tape = tape_from_script(data)
    res = view_at(tape, tape.last, None).result
    assert res is not None
    text = outcome_text(res, lambda s: f"P{s}", Lang(lang)).plain
    win = tape.events[-1]["result"]["wins"][0]
    assert win["bonuses"], "the script's win carries a bonus"
    names = {"zh": {"tianting": "天听", "zimo": "自摸"}, "en": {"zimo": "self-drawn"}}[lang]
    assert f"P{win['seat']}" in text and " + " in text
    assert names["zimo"] in text
    if lang == "zh":
        assert "天听" in text


def test_the_cli_browser_needs_a_terminal(match_db: tuple[Path, str]) -> None:
    db, _table = match_db
    done = subprocess.run(
        [sys.executable, "-m", "zhuoji", "replay", "--db", str(db)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 2
    assert "needs a terminal" in done.stderr and "Traceback" not in done.stderr


async def test_a_player_replays_a_finished_match_from_the_lobby(tmp_path: Path) -> None:
    """The lobby's `h`: the matches this client played on the server; the one picked comes back
    from the server (`get_rounds`) as that seat saw it, opens in the browser, steps to the stored
    settlement, and Escape returns to the lobby, which kept up meanwhile."""
    from client_tui.app import ZhuojiApp
    from client_tui.played import PlayedStore
    from client_tui.screens.forms import ChoiceScreen
    from client_tui.screens.lobby import LobbyScreen
    from client_tui.seats import SeatStore

    db = tmp_path / "z.db"
    async with running_server(db) as (url, _server):
        done = await play_to_end(url, name="我", table_name="周五[x]", rounds=2)
        seats = SeatStore(tmp_path / "state" / "seats.json")
        stored = stored_results(db, done.table)
        mine = sum(r["net"][0] for r in stored)
        PlayedStore(seats.path.with_name("played.json")).put(
            url, done.table, token=done.token, seat=0, name="周五[x]", score=mine
        )
        app = ZhuojiApp(url, name="我", lang="zh", mode="join", seats=seats, bell=False)
        async with app.run_test(size=(120, 40)) as pilot:
            await until(
                pilot,
                lambda: isinstance(app.screen, LobbyScreen) and app.view.status == "connected",
            )
            await pilot.press("h")
            await until(pilot, lambda: isinstance(app.screen, ChoiceScreen))
            # The list says when each match was played and how it went (issue 23).
            listed = str(app.screen.query_one(OptionList).get_option_at_index(0).prompt)
            assert re.search(r"\d{4}-\d\d-\d\d \d\d:\d\d", listed), listed
            assert listed.endswith(f"{mine:+d}") and "周五[x]" in listed, listed
            await pilot.press("enter")
            await until(pilot, lambda: isinstance(app.screen, ReplayScreen))
            screen = app.screen
            assert isinstance(screen, ReplayScreen)
            assert [t.round_no for t in screen.tapes] == [1, 2]
            assert screen.tape.seat == 0 and screen.tape.script is None
            r = screen.view.round
            assert r is not None and r.hand is not None and r.hands is None  # own hand only
            await pilot.press("v")  # one seat's view: nothing else to switch to
            assert screen.viewpoint != 1 and screen.view.seat == 0
            await pilot.press("end")
            res = screen.view.result
            assert res is not None and res.result["net"] == stored[0]["net"]
            await pilot.press("right_square_bracket", "end")
            res = screen.view.result
            assert res is not None and res.result["net"] == stored[1]["net"]
            await pilot.press("escape")
            await until(pilot, lambda: isinstance(app.screen, LobbyScreen))
            assert app.view.round is None and app.view.seat is None, (
                "the replay left the view alone"
            )
            assert app.view.status == "connected" and app.view.table_id is None
