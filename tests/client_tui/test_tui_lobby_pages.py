"""The terminal client's lobby asks for one page of the listing at a time (issue 22, item 9: a
`tables` frame holds what fits in 16 KiB): it shows page 1 of N, `]` and `[` turn the pages,
and its refresh asks again for the page on screen. Pilot against a real server on loopback;
the tables are made through that server in-process (`InProcessConn`)."""

from __future__ import annotations

import json
from pathlib import Path

from client_tui.app import ZhuojiApp
from protocol.messages import PROTOCOL_VERSION
from server.testkit import InProcessConn, running_server
from tests.deadline import apoll
from tests.support import until

TABLES = 60  # about 25 rows fit in a frame: three pages


async def test_the_lobby_turns_its_pages_and_refreshes_the_page_it_shows(tmp_path: Path) -> None:
    async with running_server(tmp_path / "z.db", tables_per_address=0) as (url, server):
        hosts = []
        for i in range(TABLES):
            conn = InProcessConn(f"10.0.0.{i}")
            server.handle_frame(
                conn, json.dumps({"type": "hello", "version": PROTOCOL_VERSION, "name": f"p{i}"})
            )
            server.handle_frame(conn, json.dumps({"type": "create_table", "name": f"桌{i:02d}"}))
            hosts.append(conn)
        await apoll(lambda: all(any('"joined"' in f for f in c.frames) for c in hosts), "made", 60)
        app = ZhuojiApp(url, name="guest", lang="en", ascii=True, mode="join")
        async with app.run_test(size=(100, 30)) as pilot:
            await until(pilot, lambda: len(app.view.tables) > 0)
            pages = app.view.tables_pages
            first = [t.id for t in app.view.tables]
            assert pages >= 2 and first[0] == "1" and len(first) < TABLES
            assert f"page 1/{pages}" in str(app.screen.query_one("#lobby-title").render())
            await pilot.press("right_square_bracket")
            await until(pilot, lambda: app.view.tables_page == 1)
            second = [t.id for t in app.view.tables]
            assert second[0] == str(len(first) + 1), "the next page goes on from the first"
            # The refresh asks for the page shown, and sees what changed on it.
            server.handle_frame(hosts[int(second[0]) - 1], json.dumps({"type": "add_bot"}))
            await pilot.press("r")
            await until(pilot, lambda: app.view.tables[0].seated == 2)
            assert app.view.tables_page == 1
            await pilot.press("left_square_bracket")
            await until(pilot, lambda: app.view.tables_page == 0)
            assert [t.id for t in app.view.tables] == first
