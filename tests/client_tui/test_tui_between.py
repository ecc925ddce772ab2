"""Between rounds in the app: the settlement sheet says when the next round starts and who is
still reading it, the next round waits for the player's Enter (no clock runs meanwhile), and
after the match `n` plays again with the same seats. Pilot tests against a real server, and
one offline with a fake clock for the countdown."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.pilot import Pilot
from textual.widgets import Static

from client_tui.app import ZhuojiApp
from client_tui.screens.sheets import SheetScreen
from client_tui.screens.table import TableScreen
from protocol.messages import CreateTable, parse_server
from server.testkit import running_server
from tests.support import FAST, until

SIZE = (100, 30)


def status_of(app: ZhuojiApp) -> str:
    screen = app.screen
    assert isinstance(screen, SheetScreen)
    return str(screen.query_one("#sheet-status", Static).render())


async def play_to_the_sheet(pilot: Pilot[Any], app: ZhuojiApp) -> None:
    """Answer every prompt with a legal key (pass a claim, discard the drawn tile) until the
    settlement sheet is up."""
    while not (isinstance(app.screen, SheetScreen) and app.screen.name == "settlement"):
        await until(
            pilot,
            lambda: (
                isinstance(app.screen, SheetScreen)
                or (app.view.prompt is not None and not app.view.prompt.answered)
            ),
        )
        prompt = app.view.prompt
        if isinstance(app.screen, SheetScreen) or prompt is None:
            continue
        await pilot.press("space" if prompt.is_claim else "enter")
        await until(pilot, lambda p=prompt: app.view.prompt is not p)  # type: ignore[misc]


async def test_the_next_round_waits_for_enter_on_the_sheet_then_n_plays_again(
    tmp_path: Path,
) -> None:
    async with running_server(tmp_path / "z.db", seed="between") as (url, server):
        create = CreateTable(name="between", rounds=2, next_round_seconds=0, **FAST)  # type: ignore[arg-type]
        app = ZhuojiApp(url, name="me", lang="en", ascii=True, mode="play", create=create)
        async with app.run_test(size=SIZE) as pilot:
            await play_to_the_sheet(pilot, app)
            await until(pilot, lambda: app.view.wait is not None)
            await until(pilot, lambda: "still reading: me*" in status_of(app))
            assert status_of(app).startswith("Round 2 starts when everyone is ready")
            table = server.tables[app.view.table_id or ""]
            await pilot.pause(0.3)
            assert table.core.between and table.core.round_no == 1, "it waits for me"
            await pilot.press("enter")
            await until(pilot, lambda: app.view.round is not None and app.view.round_no == 2)
            assert isinstance(app.screen, TableScreen) and app.view.wait is None
            await play_to_the_sheet(pilot, app)
            await pilot.press("enter")  # the last sheet; the summary follows
            await until(
                pilot, lambda: isinstance(app.screen, SheetScreen) and app.screen.name == "summary"
            )
            old = app.view.table_id
            await pilot.press("n")  # play again: the same seats, a new table
            await until(
                pilot,
                lambda: (
                    app.view.table_id not in (None, old)
                    and app.view.round is not None
                    and app.view.match_end is None
                ),
            )
            assert app.view.seat == 0 and app.view.table is not None
            assert [s.kind for s in app.view.table.seats] == ["human", "bot", "bot", "bot"]
            assert app.view.table.name == "between" and app.view.table.rounds == 2


async def test_the_sheet_counts_down_and_names_who_is_still_reading() -> None:
    now = [1000.0]
    app = ZhuojiApp(
        "ws://offline", name="me", lang="en", ascii=True, connect=False, clock=lambda: now[0]
    )
    async with app.run_test(size=SIZE) as pilot:
        app.apply(
            parse_server(
                '{"type": "joined", "table": "3", "seq": 40, "seat": 1,'
                ' "token": "t0k3n-t0k3n-t0k3n-t0k3n", "resume": "snapshot"}'
            )
        )
        seats = ",".join(
            f'{{"name": "{n}", "kind": "human", "connected": true, "auto": false}}'
            for n in ("ann", "me", "bob", "cy")
        )
        app.apply(
            parse_server(
                '{"type": "table", "table": "3", "seq": 41, "info": {"id": "3", "name": "t",'
                ' "preset": "guiyang", "options": {}, "base": 1, "rounds": 8, "turn_seconds": 15,'
                ' "bank_seconds": 30, "claim_min_ms": 500, "next_round_seconds": 30,'
                f' "has_password": false, "seats": [{seats}], "spectators": 0, "state": "playing",'
                ' "round_no": 1, "scores": [0, 0, 0, 0]}}'
            )
        )
        wait = (
            '{"type": "between_rounds", "table": "3", "seq": 41, "round_no": 2,'
            ' "ready": [true, false, false, true], "deadline_ms": 30000, "rematch": false}'
        )
        app.apply(parse_server(wait))
        assert app.wait_line() == "Round 2 starts in 30 s · still reading: me*, bob"
        now[0] += 12.5
        assert app.wait_line() == "Round 2 starts in 18 s · still reading: me*, bob"
        await pilot.pause(0.3)  # the table's clock line shows the wait too
        table = next(s for s in app.screen_stack if isinstance(s, TableScreen))
        clock = str(table.query_one("#clock", Static).render())
        assert clock == "Round 2 starts in 18 s · still reading: me*, bob · Enter when ready"
        app.apply(parse_server(wait.replace("false, false", "true, false")))
        assert app.wait_line().endswith("still reading: bob · you are ready")
        await pilot.pause(0)
