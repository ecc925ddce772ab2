"""Ending a match together (解散) in the app, driven with Pilot against a real server: another
player's proposal shows as a prompt with the countdown and who has agreed, `n` refuses it (the
match goes on), `e` proposes, and once the other player agrees the standings say "Ended by vote".
The help lists the keys."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

from rich.console import Console
from textual.widgets import DataTable, Static

from client_tui.app import ZhuojiApp
from client_tui.played import PlayedStore
from client_tui.player_key import new_key
from client_tui.screens.help import KEYS
from client_tui.screens.records import RecordsScreen
from client_tui.screens.sheets import SheetScreen
from client_tui.screens.table import TableScreen
from client_tui.seats import SeatStore
from clients.client import Client
from protocol.messages import TakeSeat
from server.testkit import running_server
from tests.support import FAST, until

SIZE = (120, 32)


def clock_line(app: ZhuojiApp) -> str:
    table = next(s for s in app.screen_stack if isinstance(s, TableScreen))
    return str(table.query_one("#clock", Static).render())


def is_vote(f: dict[str, Any], **want: Any) -> bool:
    return f["type"] == "end_vote" and all(f[k] == v for k, v in want.items())


async def test_the_vote_prompt_shows_who_agreed_and_the_keys_answer_and_propose(
    tmp_path: Path,
) -> None:
    async with running_server(tmp_path / "z.db", seed="vote-tui") as (url, server):
        bob = await Client.connect(url, "bob", player_key=new_key())
        await bob.recv_type("welcome")
        await bob.send({"type": "create_table", "name": "vote", "rounds": 4, **FAST})
        table_id = (await bob.recv_type("joined"))["table"]
        seats = SeatStore(tmp_path / "state" / "seats.json")
        app = ZhuojiApp(
            url,
            name="me",
            lang="en",
            ascii=True,
            mode="join",
            player_key=new_key(),
            seats=seats,
        )
        async with app.run_test(size=SIZE) as pilot:
            await until(pilot, lambda: app.view.status == "connected")
            app.send(TakeSeat(table=table_id, seat=1))  # as the lobby's `j` does
            await until(pilot, lambda: app.view.seat == 1)
            for _ in range(2):
                await bob.send({"type": "add_bot"})
            await bob.recv_until(lambda f: f["type"] == "seat_status" and f["seat"] == 3)
            await bob.send({"type": "auto", "on": True})  # the server plays bob's moves
            await bob.send({"type": "start"})
            await until(pilot, lambda: app.view.round is not None)

            await bob.send({"type": "propose_end"})
            await until(pilot, lambda: app.view.end_vote is not None, what="the vote prompt")
            await until(pilot, lambda: "bob proposes" in clock_line(app), what="the vote line")
            line = clock_line(app)
            assert "agreed: bob" in line and "waiting: me*" in line
            assert "y agree · n refuse" in line and "s" in line.split("·")[3]
            assert 0 <= int(line.split("·")[3].strip().rstrip("s")) <= 30, line  # counting down
            await pilot.press("n")  # refuse: the match goes on
            await until(pilot, lambda: app.view.end_vote is None)
            await bob.recv_until(lambda f: is_vote(f, outcome="refused", refused_by=1))
            table = server.tables[table_id]
            assert table.core.state == "playing" and app.view.match_end is None

            await pilot.press("e")  # my own proposal: bob agrees
            await bob.recv_until(lambda f: is_vote(f, outcome="open", proposer=1))
            await until(pilot, lambda: "me* proposes" in clock_line(app))
            assert "you agreed" in clock_line(app)
            await bob.send({"type": "vote_end", "agree": True})
            await until(pilot, lambda: app.view.match_end is not None, what="the match's end")
            assert app.view.match_end is not None and app.view.match_end.reason == "vote"
            await until(
                pilot,
                lambda: isinstance(app.screen, SheetScreen) and app.screen.name == "summary",
                what="the standings",
            )
            sheet = app.screen
            assert isinstance(sheet, SheetScreen)
            body = sheet.body  # the standings, as the sheet shows them
            console = Console(width=100, record=True, file=io.StringIO())
            console.print(body)
            assert console.export_text().startswith("Ended by vote")
            assert app.view.end_vote is None
            await pilot.press("e")  # after the end: nothing to vote on, and it says so
            await pilot.pause(0.1)
            assert table.core.ended_as == "voted"
            # The records say so too: the match's line is marked "ended by vote".
            await pilot.press("escape")
            await until(pilot, lambda: isinstance(app.screen, TableScreen))
            await pilot.press("g")
            await until(pilot, lambda: isinstance(app.screen, RecordsScreen))
            records = app.screen
            assert isinstance(records, RecordsScreen)
            await until(pilot, lambda: records.last is not None, what="the records")
            assert records.last is not None and records.last.matches[0].state == "voted"
            matches = records.query_one("#rec-matches", DataTable)
            _, _, players = matches.get_row_at(0)
            assert "ended by vote" in str(players) and "bob" in str(players)
        # The lobby's `h` list of played matches marks it too.
        (played,) = PlayedStore(seats.path.with_name("played.json")).matches(url)
        assert played.table == table_id and played.voted
        assert played.label("ended by vote").endswith("(ended by vote)"), played.label()
        await bob.close()


def test_the_help_lists_the_vote_keys() -> None:
    keys = {k: (zh, en) for k, zh, en in KEYS}
    assert "end the match" in keys["e"][1] and "解散" in keys["e"][0]
    assert "agree" in keys["y  n"][1] and "同意" in keys["y  n"][0]
