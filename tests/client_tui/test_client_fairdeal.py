"""The terminal client checks each round's fair deal from the frames a real server sent it, and the
settlement sheet says so."""

from __future__ import annotations

import copy
import io
import json
from pathlib import Path
from typing import Any

from rich.console import Console

from client_tui.i18n import Lang
from client_tui.reducer import reduce
from client_tui.screens.sheets import sheet_renderable
from client_tui.sheet import build_sheet
from client_tui.view import View
from clients.bot_player import BotPlayer
from clients.client import Client, play
from protocol.messages import parse_server
from server.testkit import running_server
from tests.support import FAST


async def _frames_of_a_match(db: Path) -> list[dict[str, Any]]:
    async with running_server(db, seed="tui-fair") as (url, server):
        client = await Client.connect(url, "me")
        await client.send({"type": "create_table", "name": "t", "rounds": 2, **FAST})
        player = BotPlayer(seed="me")
        frames = [await client.recv_type("joined")]
        player.on_frame(frames[0])
        for _ in range(3):
            await client.send({"type": "add_bot"})
        bots: set[int] = set()
        while len(bots) < 3:
            f = await client.recv()
            frames.append(f)
            player.on_frame(f)
            if f["type"] == "seat_status" and f["connected"]:
                bots.add(f["seat"])
        await client.send({"type": "start"})
        await play(client, player, on_frame=frames.append, timeout=30)
    return [f for f in client.received if f["type"] == "welcome"] + frames


def _reduce(frames: list[dict[str, Any]]) -> View:
    v = View()
    for f in frames:
        v = reduce(v, parse_server(json.dumps(f)))
    return v


def _sheet_text(v: View) -> str:
    console = Console(width=200, record=True, color_system=None, file=io.StringIO())
    sheet = build_sheet(v.history[-1])
    console.print(sheet_renderable(sheet, lambda s: f"P{s}", Lang("en"), True))
    return console.export_text()


async def test_the_client_verifies_each_deal_and_the_sheet_shows_it(db: Path) -> None:
    frames = await _frames_of_a_match(db)
    v = _reduce(frames)
    assert len(v.history) == 2 and all(res.fair is True for res in v.history)
    assert "✓ fair deal verified" in _sheet_text(v)

    # A server that reveals another deal than it committed to is caught.
    tampered = copy.deepcopy(frames)
    last = next(f for f in reversed(tampered) if f["type"] == "round_ended")
    order = last["deal"]["order"]
    i = next(i for i in range(1, 108) if order[i] != order[0])
    order[0], order[i] = order[i], order[0]
    v = _reduce(tampered)
    assert v.history[0].fair is True and v.history[-1].fair is False
    assert "✗ the deal does not match its commitment" in _sheet_text(v)

    # Without a commitment (an older server) nothing is claimed either way.
    bare = copy.deepcopy(frames)
    for f in bare:
        if f["type"] == "round_started":
            f.pop("commitment", None)
    v = _reduce(bare)
    assert all(res.fair is None for res in v.history)
    assert "fair deal" not in _sheet_text(v)
