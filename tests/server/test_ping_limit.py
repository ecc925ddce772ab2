"""Pings count against the connection's rate limit: a real server on loopback, a real websocket
client sending ping frames (which the websockets layer answers by itself, below the handler)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from protocol.messages import PROTOCOL_VERSION
from server.testkit import running_server


async def test_a_ping_flood_is_closed_like_any_flood(tmp_path: Path) -> None:
    async with running_server(tmp_path / "z.db", rate_burst=10, rate_per_second=0) as (url, _):
        async with connect(url, ping_interval=None) as ws:
            await ws.send(json.dumps({"type": "hello", "version": PROTOCOL_VERSION, "name": "p"}))
            assert json.loads(await ws.recv(decode=True))["type"] == "welcome"
            for _ in range(30):
                try:
                    ws.protocol.send_ping(b"x")  # a bare ping frame: no pong awaited
                    ws.send_data()
                except ConnectionClosed:
                    break
            frames = []
            with pytest.raises(ConnectionClosed):
                while True:
                    frames.append(json.loads(await ws.recv(decode=True)))
            assert ws.close_code == 1008
            assert [f["code"] for f in frames if f["type"] == "error"] == ["rate_limited"]


async def test_a_few_pings_leave_the_connection_alone(tmp_path: Path) -> None:
    async with running_server(tmp_path / "z.db", rate_burst=10, rate_per_second=0) as (url, _):
        async with connect(url, ping_interval=None) as ws:
            await ws.send(json.dumps({"type": "hello", "version": PROTOCOL_VERSION, "name": "p"}))
            await ws.recv()
            for _ in range(3):
                await (await ws.ping())  # answered
            await ws.send(json.dumps({"type": "list_tables"}))
            assert json.loads(await ws.recv(decode=True))["type"] == "tables"
