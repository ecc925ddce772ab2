"""The client's commands: their arguments, and the in-process server `zhuoji play` starts."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

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


def test_collection_is_paused_for_a_start_and_given_back(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """`zhuoji.cli.gc_paused` (issue 26): off in the block; on again at its end, or when the
    start is over (what it made frozen, not scanned again); left off when it was off before; a
    command that ends early leaves it as it was."""
    import gc

    from zhuoji.cli import gc_paused, main

    assert gc.isenabled()
    with gc_paused():
        assert not gc.isenabled()
    assert gc.isenabled()
    frozen = gc.get_freeze_count()
    try:
        with gc_paused() as started:
            made = [[i] for i in range(100)]
            started()
            assert gc.isenabled() and gc.get_freeze_count() >= frozen + len(made)
    finally:
        gc.unfreeze()
    frozen = gc.get_freeze_count()
    gc.disable()
    try:
        with gc_paused() as started:
            started()
            assert not gc.isenabled() and gc.get_freeze_count() == frozen
        assert not gc.isenabled()
    finally:
        gc.enable()
    assert main(["play", "--rounds", "0", "--db", "/nonexistent/play.db"]) == 2
    assert "rounds" in capsys.readouterr().err
    assert gc.isenabled() and gc.get_freeze_count() == frozen
