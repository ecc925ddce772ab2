"""Ending a match together (解散) on a real server on loopback, with real clients: bad votes get
clear errors and the match goes on; then both players agree, the match ends "by vote" with the
scores so far on every screen (a watcher's too), the file stores it as `voted`, and the records
count its rounds and nets with no placement and no rating change."""

from __future__ import annotations

import asyncio
import json
import sqlite3
from pathlib import Path
from typing import Any

from client_tui.player_key import new_key
from clients.bot_player import BotPlayer
from clients.client import Client, play
from protocol.messages import parse_server
from server.testkit import running_server
from tests.support import FAST


async def test_two_players_end_the_match_by_vote_and_the_records_show_it(db: Path) -> None:
    async with running_server(db, seed="vote") as (url, _server):
        a = await Client.connect(url, "阿明", player_key=new_key())
        b = await Client.connect(url, "小红", player_key=new_key())
        watcher = await Client.connect(url, "看客")
        ids = [(await c.recv_type("welcome"))["player"] for c in (a, b)]
        await watcher.recv_type("welcome")
        await a.send({"type": "create_table", "name": "解散", "rounds": 8, **FAST})
        table = (await a.recv_type("joined"))["table"]
        await b.send({"type": "take_seat", "table": table, "seat": 1})
        await b.recv_type("joined")
        for _ in range(2):
            await a.send({"type": "add_bot"})
        arrived: set[int] = set()
        while arrived != {2, 3}:  # each bot connects and takes its seat
            f = await a.recv()
            if f["type"] == "seat_status" and f["connected"]:
                arrived.add(f["seat"])
        await watcher.send({"type": "watch", "table": table})
        await watcher.recv_type("joined")
        # Bad input before the match: clear errors, nothing changes.
        await a.send({"type": "propose_end"})
        assert (await a.recv_type("error"))["code"] == "not_playing"
        await a.send({"type": "start"})

        loop = asyncio.get_running_loop()
        step: list[str] = []
        a_refused = asyncio.Event()  # A's vote_end with no vote open was answered
        b_refused = asyncio.Event()  # B's proposal inside the cooldown was answered

        async def bad_then_good() -> None:
            await a.send({"type": "vote_end", "agree": True})
            await watcher.send({"type": "propose_end"})
            await a_refused.wait()
            await b.send({"type": "propose_end"})  # A refuses it (below)

        async def again() -> None:
            await b.send({"type": "propose_end"})  # within 5 minutes of the last: refused
            await b_refused.wait()
            await a.send({"type": "propose_end"})  # B agrees (below): the match ends

        def on_a(f: dict[str, Any]) -> None:
            a.received.append(f)
            kind = f["type"]
            if kind == "round_ended" and not step:
                step.append("bad")
                loop.create_task(bad_then_good())
            elif kind == "error" and f["code"] == "no_vote":
                a_refused.set()
            elif kind == "end_vote" and f["outcome"] == "open" and f["proposer"] == 1:
                loop.create_task(a.send({"type": "vote_end", "agree": False}))
            elif kind == "end_vote" and f["outcome"] == "refused":
                loop.create_task(again())

        def on_b(f: dict[str, Any]) -> None:
            b.received.append(f)
            if f["type"] == "error":
                b_refused.set()
            elif f["type"] == "end_vote" and f["outcome"] == "open" and not f["agreed"][1]:
                loop.create_task(b.send({"type": "vote_end", "agree": True}))

        async def watch() -> dict[str, Any]:
            """The watcher's screen: the match's end, then the vote's last word after it."""
            end = await watcher.recv_until(lambda f: f["type"] == "match_ended", timeout=90)
            await watcher.recv_until(lambda f: f["type"] == "end_vote" and f["outcome"] != "open")
            return end

        ends = await asyncio.gather(
            play(a, BotPlayer(seed="a"), on_frame=on_a, timeout=90),
            play(b, BotPlayer(seed="b"), on_frame=on_b, timeout=90),
            watch(),
        )
        for c in (a, b, watcher):
            await c.close()

    errors = {
        who: [(f["code"], f["ref"]) for f in c.received if f["type"] == "error"]
        for who, c in (("a", a), ("b", b), ("w", watcher))
    }
    assert errors["a"] == [("not_playing", "propose_end"), ("no_vote", "vote_end")]
    assert errors["w"] == [("not_seated", "propose_end")]
    assert errors["b"] == [("vote_too_soon", "propose_end")]
    b_err = next(f for f in b.received if f["type"] == "error")
    assert "again in" in b_err["message"]

    for end in ends:
        assert end["reason"] == "vote" and end == {**ends[0], "seq": end["seq"]}
    played, scores = ends[0]["rounds_played"], ends[0]["scores"]
    assert played >= 1 and sum(scores) == 0
    votes = [f for f in watcher.received if f["type"] == "end_vote"]
    assert [v["outcome"] for v in votes if v["outcome"] != "open"] == ["refused", "passed"]
    for frame in votes:
        parse_server(json.dumps(frame))
    assert votes[-1]["voters"] == [True, True, False, False]

    conn = sqlite3.connect(db)
    try:
        state, stored, rounds = conn.execute(
            "SELECT state, scores, rounds_played FROM tables WHERE id=?", (table,)
        ).fetchone()
    finally:
        conn.close()
    assert (state, json.loads(stored), rounds) == ("voted", scores, played)

    async with running_server(db) as (url, _server):
        async with await Client.connect(url, "阿明") as asker:
            await asker.recv_type("welcome")
            await asker.send({"type": "get_records", "player": ids[0], "table": table})
            records = await asker.recv_type("records")
    parse_server(json.dumps(records))
    (line,) = records["matches"]
    assert line["state"] == "voted" and line["scores"] == scores
    assert line["rating_changes"] == [None, None, None, None], "no rating from a vote"
    me = records["me"]
    assert (me["rounds"], me["net"], me["voted"]) == (played, scores[0], 1)
    assert me["matches"] == 0 and me["placements"] == [0, 0, 0, 0]
    assert me["rating_change"] == 0.0
    assert records["recent_places"] == [0]
