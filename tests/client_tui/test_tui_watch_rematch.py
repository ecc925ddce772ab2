"""A watcher follows the table to its rematch (issue 23: it was left on the finished table,
"waiting for … to press n", its sheets open over nothing). Two protocol players and two server
bots play a one-round match on a real server; the watcher is the real app, driven by Pilot."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from textual.widgets import Button

from client_tui.app import ZhuojiApp
from client_tui.screens.sheets import SheetScreen
from client_tui.screens.table import TableScreen
from clients.bot_player import BotPlayer
from clients.client import Client
from server.testkit import running_server
from tests.support import FAST, until


async def play_until(client: Client, player: BotPlayer, kind: str) -> dict[str, Any]:
    """Answer prompts until a frame of `kind`."""
    while True:
        frame = await client.recv(30)
        reply = player.on_frame(frame)
        if frame["type"] == kind:
            return frame
        if reply is not None and reply["type"] == "act":
            await client.send(reply)


async def test_the_watcher_follows_the_table_to_its_rematch(tmp_path: Path) -> None:
    async with running_server(tmp_path / "z.db", seed="watch-rematch") as (url, _server):
        host = await Client.connect(url, "host")
        await host.send({"type": "create_table", "name": "again", "rounds": 1, **FAST})
        hj = await host.recv_type("joined")
        guest = await Client.connect(url, "guest")
        await guest.send({"type": "take_seat", "table": hj["table"]})
        gj = await guest.recv_type("joined")
        for _ in range(2):
            await host.send({"type": "add_bot"})
        app = ZhuojiApp(
            url, name="watcher", lang="en", ascii=True, mode="watch", watch_table=hj["table"]
        )
        async with app.run_test(size=(120, 40)) as pilot:
            await until(pilot, lambda: app.view.watching and app.view.table is not None)
            screen = app.screen
            assert isinstance(screen, TableScreen)
            # The waiting room shows a watcher only what it can do: leave.
            shown = [b.id for b in screen.query(Button) if b.display]
            assert shown == ["leave"], shown
            await host.recv_until(
                lambda f: (
                    f["type"] == "table" and all(s["kind"] != "empty" for s in f["info"]["seats"])
                )
            )
            await host.send({"type": "start"})
            ph, pg = BotPlayer(seed="h"), BotPlayer(seed="g")
            ph.on_frame(hj)
            pg.on_frame(gj)
            await asyncio.gather(
                play_until(host, ph, "match_ended"), play_until(guest, pg, "match_ended")
            )
            old = hj["table"]
            await until(pilot, lambda: app.view.match_end is not None)
            await host.send({"type": "rematch"})
            await guest.send({"type": "rematch"})
            joined = await host.recv_type("joined")
            new = joined["table"]
            assert new != old
            await until(
                pilot,
                lambda: app.view.table_id == new and app.view.round is not None,
                what="the watcher at the rematch",
            )
            assert app.view.watching and app.view.match_end is None
            assert not isinstance(app.screen, SheetScreen), "the old match's sheets are gone"
            assert isinstance(app.screen, TableScreen)
            header = str(app.screen.query_one("#header").render())
            assert "watching" in header.lower(), header
        for c in (host, guest):
            await c.close()
