"""Between rounds and the rematch over real websockets: two players (bot-driven protocol
clients) and two server bots; the second round waits for both players' `next_round`; after the
match both ask for a rematch and move, with new tokens, to a new table that starts at once; the
old table's tokens lead nowhere any more; a spectator of the old table follows it to the rematch
and watches there (issue 23)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from clients.bot_player import BotPlayer
from clients.client import Client
from server.testkit import running_server
from tests.support import FAST


async def seated(url: str) -> tuple[Client, Client, dict[str, Any], dict[str, Any]]:
    host = await Client.connect(url, "host")
    await host.send({"type": "create_table", "name": "两局", "rounds": 2, **FAST})
    hj = await host.recv_type("joined")
    guest = await Client.connect(url, "guest")
    await guest.send({"type": "take_seat", "table": hj["table"]})
    gj = await guest.recv_type("joined")
    for _ in range(2):
        await host.send({"type": "add_bot"})
    await host.recv_until(
        lambda f: f["type"] == "table" and all(s["kind"] != "empty" for s in f["info"]["seats"])
    )
    await host.send({"type": "start"})
    return host, guest, hj, gj


async def play_until(client: Client, player: BotPlayer, kind: str) -> dict[str, Any]:
    """Answer prompts (never a wait) until a frame of `kind`."""
    while True:
        frame = await client.recv(20)
        if frame["type"] == kind:
            player.on_frame(frame)
            return frame
        reply = player.on_frame(frame)
        if reply is not None and reply["type"] == "act":
            await client.send(reply)


async def test_the_next_round_waits_for_both_players_and_both_play_again(tmp_path: Path) -> None:
    async with running_server(tmp_path / "z.db", seed="between") as (url, server):
        host, guest, hj, gj = await seated(url)
        watcher = await Client.connect(url, "watcher")
        await watcher.send({"type": "watch", "table": hj["table"]})
        wj = await watcher.recv_type("joined")
        assert wj["table"] == hj["table"] and wj["seat"] is None
        ph, pg = BotPlayer(seed="h"), BotPlayer(seed="g")
        ph.on_frame(hj)
        pg.on_frame(gj)
        waits = await asyncio.gather(
            play_until(host, ph, "between_rounds"), play_until(guest, pg, "between_rounds")
        )
        for w in waits:
            assert w["round_no"] == 2 and w["deadline_ms"] == 30_000 and not w["rematch"]
            assert [w["ready"][s] for s in (hj["seat"], gj["seat"])] == [False, False]
        table = server.tables[hj["table"]]
        await host.send({"type": "next_round"})
        half = await guest.recv_type("between_rounds")
        assert half["ready"][hj["seat"]] and not half["ready"][gj["seat"]]
        assert table.core.between.active and table.core.round_no == 1, "the guest is still reading"
        await guest.send({"type": "next_round"})
        await asyncio.gather(
            play_until(host, ph, "round_started"), play_until(guest, pg, "round_started")
        )
        await asyncio.gather(
            play_until(host, ph, "match_ended"), play_until(guest, pg, "match_ended")
        )
        # Play again: the first to ask waits for the other.
        await host.send({"type": "rematch"})
        vote = await guest.recv_type("between_rounds")
        assert vote["rematch"] and vote["ready"][hj["seat"]] and not vote["ready"][gj["seat"]]
        await guest.send({"type": "rematch"})
        again = await asyncio.gather(host.recv_type("joined"), guest.recv_type("joined"))
        new = again[0]["table"]
        assert new != hj["table"] and again[1]["table"] == new
        assert [j["seat"] for j in again] == [hj["seat"], gj["seat"]]
        assert again[0]["token"] not in (hj["token"], None)
        started = await host.recv_type("match_started")
        assert started["table"] == new and started["names"][hj["seat"]] == "host"
        assert server.tables[new].core.state == "playing"
        # The watcher follows the table: joined to the new one as a spectator (no seat, no
        # token), its snapshot, then the new match's events, as a watcher gets them.
        moved = await watcher.recv_type("joined")
        assert moved["table"] == new and moved["seat"] is None and moved.get("token") is None
        snap = await watcher.recv_type("snapshot")
        assert snap["table"] == new and snap["seat"] is None
        dealt = await watcher.recv_type("round_started")
        assert dealt["table"] == new and dealt.get("hand") is None
        assert server.tables[new].core.spectators != []
        assert hj["table"] not in server.tables, "nobody is left at the finished table"
        stale = await Client.connect(url, "host", token=hj["token"])
        assert (await stale.recv_type("error"))["code"] == "bad_token"
        for c in (host, guest, stale, watcher):
            await c.close()
