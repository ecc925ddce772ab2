"""Chaos: clients whose connections drop at random moments and come back, against a real server.
Every table finishes, zero-sum, and every reconnected client's rebuilt view is the server's."""

from __future__ import annotations

import copy
from pathlib import Path

from clients.bot_player import BotPlayer
from clients.client import Client
from clients.loadtest import Chaos
from clients.loadtest import run as loadtest
from clients.tracker import SeatTracker
from rules.round import DiscardRecord
from server.testkit import running_server
from tests.support import fast

FAST = fast(turn_seconds=15, bank_seconds=30)


async def test_a_chaos_run_finishes_every_table_with_no_mismatch(db: Path) -> None:
    async with running_server(db) as (url, server):
        report = await loadtest(
            url,
            6,
            2,
            think=0.002,
            chaos=Chaos(0.04, delay=(0.01, 0.1)),
            timeout=60,
            reconnect_for=10,
        )
    result = report.to_dict()
    assert result["errors"] == 0, result["error_samples"]
    assert result["matches_completed"] == 6 and result["rounds_completed"] == 12
    assert result["zero_sum"] is True
    assert result["mismatches"] == 0, result["mismatch_samples"]
    assert result["reconnects"] >= 30, "connections were dropped all along"
    assert result["views_compared"] >= 15
    assert result["fair_deals_checked"] > 0


async def test_the_view_comparison_notices_a_view_that_went_wrong(db: Path) -> None:
    async with running_server(db) as (url, server):
        client = await Client.connect(url, "host")
        await client.send({"type": "create_table", "name": "t", "rounds": 1, **FAST})
        tracker, player = SeatTracker(None), BotPlayer(seed=1)
        joined = await client.recv_type("joined")
        tracker.on_frame(joined)
        player.on_frame(joined)
        for _ in range(3):
            await client.send({"type": "add_bot"})
        bots = 0
        while bots < 3:
            f = await client.recv()
            tracker.on_frame(f)
            player.on_frame(f)
            bots += f["type"] == "seat_status" and f["connected"] and f["seat"] != 0
        await client.send({"type": "start"})
        claims = 0
        while claims < 1 or sum(map(len, tracker.view.discards if tracker.view else ())) < 12:
            f = await client.recv()
            tracker.on_frame(f)
            reply = player.on_frame(f)
            claims += f["type"] in ("claimed", "concealed_gang", "added_gang") or (
                f["type"] == "round_ended"
            )
            if f["type"] == "round_ended":
                break
            if reply is not None:
                await client.send(reply)
        await client.send({"type": "sync"})
        while (snapshot := await client.recv())["type"] != "snapshot":
            tracker.on_frame(snapshot)  # what happened before the sync was answered
        assert tracker.differences(snapshot) == []
        for key, change in [
            ("hand", lambda v: v._replace(hand=(0,) * 27)),
            (
                "discards",
                lambda v: v._replace(
                    discards=(v.discards[0], v.discards[1] + (DiscardRecord(0),), *v.discards[2:])
                ),
            ),
            (
                "hand_sizes",
                lambda v: v._replace(hand_sizes=(*v.hand_sizes[:2], 99, v.hand_sizes[3])),
            ),
            ("wall_left", lambda v: v._replace(wall_left=1)),
        ]:
            wrong = copy.deepcopy(tracker)
            assert wrong.view is not None
            wrong.view = change(wrong.view)
            problems = wrong.differences(snapshot)
            assert len(problems) == 1 and problems[0].startswith(key), problems
        late = copy.deepcopy(tracker)
        late.seq -= 1
        assert late.differences(snapshot), "a view at another seq is not compared as equal"
