"""The client's commands: their arguments, and the in-process server `zhuoji play` starts."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from protocol.messages import PROTOCOL_VERSION
from zhuoji.cli import build_parser
from zhuoji.play import LocalServer


def test_play_join_watch_arguments() -> None:
    parser = build_parser()
    args = parser.parse_args(["play", "--lang", "en", "--ascii", "--preset", "chuan"])
    assert (args.lang, args.ascii, args.preset) == ("en", True, "chuan")
    from zhuoji.cmd_play import table_request

    request = table_request(args)
    assert isinstance(request, dict) and (request["preset"], request["rounds"]) == ("chuan", 8)
    args = parser.parse_args(["join", "ws://h:1", "--name", "阿明"])
    assert (args.url, args.name, args.lang) == ("ws://h:1", "阿明", None)
    args = parser.parse_args(["watch", "h:1", "7"])
    assert (args.url, args.table) == ("h:1", "7")


def test_the_local_server_starts_answers_and_stops(tmp_path: Path) -> None:
    server = LocalServer(tmp_path / "play.db")
    url = server.start()
    assert url.startswith("ws://127.0.0.1:")

    async def hello() -> dict[str, object]:
        from websockets.asyncio.client import connect

        async with connect(url) as ws:
            await ws.send(json.dumps({"type": "hello", "version": PROTOCOL_VERSION, "name": "me"}))
            return json.loads(await ws.recv())  # type: ignore[no-any-return]

    try:
        assert asyncio.run(hello())["type"] == "welcome"
    finally:
        server.stop()
    assert server._thread is not None and not server._thread.is_alive()
    assert (tmp_path / "play.db").exists()
