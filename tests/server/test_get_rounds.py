"""`get_rounds`: a finished match's rounds for one of its players, on a real server on loopback —
exactly the round frames that seat was sent at the table (its own hand, nobody else's until each
round's end); refused to anyone who did not play it, and while the match is still on."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from clients.client import Client
from clients.testkit import play_to_end
from protocol.messages import ROUND_EVENT_TYPES, parse_server
from server.testkit import running_server


async def hello(url: str, name: str) -> Client:
    c = await Client.connect(url, name)
    assert (await c.recv())["type"] == "welcome"
    return c


def round_frames(frames: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The round events a seat received, without the numbering."""
    return [
        {k: v for k, v in f.items() if k not in ("table", "seq")}
        for f in frames
        if f["type"] in ROUND_EVENT_TYPES
    ]


async def test_a_player_gets_back_exactly_what_their_seat_saw(db: Path) -> None:
    async with running_server(db) as (url, _server):
        done = await play_to_end(url, rounds=2)
        back = await hello(url, "host")
        await back.send({"type": "get_rounds", "table": done.table, "token": done.token})
        frame = await back.recv_type("rounds")
        parse_server(json.dumps(frame))  # a valid protocol frame
        await back.close()
    assert frame["seat"] == 0 and frame["state"] == "finished" and frame["rounds"] == 2
    assert [log["round_no"] for log in frame["logs"]] == [1, 2]
    sent = [e for log in frame["logs"] for e in log["events"]]
    assert [{k: v for k, v in e.items() if k not in ("table", "seq")} for e in sent] == (
        round_frames(done.frames)
    )
    # Seat 0's own draws are named; the others' are not, and no deal shows another hand.
    draws = [e for e in sent if e["type"] == "drew"]
    assert all((e["tile"] is not None) == (e["seat"] == 0) for e in draws)
    deals = [e for e in sent if e["type"] == "round_started"]
    assert all(e["hand"] is not None and "hands" not in e for e in deals)


async def test_others_are_refused_and_the_server_goes_on(db: Path) -> None:
    async with running_server(db) as (url, _server):
        done = await play_to_end(url, rounds=1)
        stranger = await hello(url, "stranger")
        for ask in (
            {"type": "get_rounds", "table": done.table},
            {"type": "get_rounds", "table": done.table, "token": "x" * 24},
            {"type": "get_rounds", "table": "999", "token": done.token},
        ):
            await stranger.send(ask)
            err = await stranger.recv_type("error")
            assert err["code"] == "not_your_match", err
        # A match still being played: its own player is told to wait.
        await stranger.send(
            {
                "type": "create_table",
                "name": "on",
                "rounds": 1,
                "turn_seconds": 0,
                "bank_seconds": 0,
                "claim_min_ms": 0,
            }
        )
        joined = await stranger.recv_type("joined")
        await stranger.send({"type": "get_rounds", "table": joined["table"]})
        err = await stranger.recv_type("error")
        assert err["code"] == "match_not_over"
        # The connection and the server go on.
        await stranger.send({"type": "list_tables"})
        assert (await stranger.recv_type("tables"))["type"] == "tables"
        await stranger.close()
