"""`zhuoji play` hosts its server in this process, so the player is the host: after the match, `r`
then `v` replays it from the host's database, whole (issue 23: it opened on the seat's own view,
said "your own view only" at once, and export said it needed the host's database). A Pilot test
of the real app on a real loopback server and SQLite file, the rounds read as `zhuoji play` reads
them (`zhuoji.replay_db`)."""

from __future__ import annotations

from pathlib import Path

from client_tui.app import ZhuojiApp
from client_tui.replay import ALL
from client_tui.screens.history import HistoryScreen
from client_tui.screens.replay import ReplayScreen, export_to
from client_tui.screens.sheets import SheetScreen
from client_tui.screens.table import TableScreen
from protocol.messages import CreateTable
from server.testkit import running_server
from tests.support import FAST, until
from zhuoji import replay_db


async def test_r_then_v_replays_the_hosts_match_from_every_viewpoint_and_exports(
    tmp_path: Path,
) -> None:
    db, out = tmp_path / "z.db", tmp_path / "out"
    async with running_server(db, seed="host-replay") as (url, _server):
        create = CreateTable(name="host", rounds=1, next_round_seconds=0, **FAST)  # type: ignore[arg-type]
        app = ZhuojiApp(
            url,
            name="me",
            lang="en",
            ascii=True,
            mode="play",
            create=create,
            show_sheets=False,
            bell=False,
            load_rounds=lambda table: replay_db.tapes(db, table),
            exporter=export_to(out),
        )
        async with app.run_test(size=(120, 40)) as pilot:
            while app.view.match_end is None:  # pass every claim, discard the drawn tile
                await until(
                    pilot,
                    lambda: (
                        app.view.match_end is not None
                        or (app.view.prompt is not None and not app.view.prompt.answered)
                    ),
                    timeout=120,
                )
                prompt = app.view.prompt
                if prompt is not None and not prompt.answered:
                    await pilot.press("space" if prompt.is_claim else "enter")
                    await until(pilot, lambda p=prompt: app.view.prompt is not p)  # type: ignore[misc]
            await until(pilot, lambda: isinstance(app.screen, SheetScreen))  # the standings
            await pilot.press("escape")
            await until(pilot, lambda: isinstance(app.screen, TableScreen))
            await pilot.press("r")
            await until(pilot, lambda: isinstance(app.screen, HistoryScreen))
            await pilot.press("v")
            await until(pilot, lambda: isinstance(app.screen, ReplayScreen))
            screen = app.screen
            assert isinstance(screen, ReplayScreen)
            await pilot.pause()
            assert screen.table.why is None, f"refused at once: {screen.table.why}"
            assert screen.tape.script is not None, "the whole round, from the host's database"
            assert screen.viewpoint == ALL
            await pilot.press("v")  # the next viewpoint: the first seat's
            assert screen.viewpoint == 0 and screen.table.why is None
            await pilot.press("end", "e")
            assert screen.table.why is None, screen.table.why
            files = sorted(out.glob("*.json"))
            assert [f.name for f in files] == [
                f"table-{screen.tape.table}-round-1-step-{screen.tape.last}.json"
            ]
            await pilot.press("escape")
            await until(pilot, lambda: isinstance(app.screen, TableScreen))
            assert app.view.match_end is not None and app.view.table_id is not None
