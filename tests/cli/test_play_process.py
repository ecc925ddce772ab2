"""`zhuoji play`'s server in a process of its own (issue 26): it answers like the in-process one,
ends when asked (its database closed and its lock given back), and a server that cannot start is
one line from `zhuoji play`, not a hang. That it dies with a killed client is in
tests/client_tui/test_tui_tmux.py (a real `zhuoji play` in a terminal)."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from protocol.messages import PROTOCOL_VERSION
from server.storage.dbfile import DatabaseInUse
from zhuoji.play import LocalServerError
from zhuoji.play_process import ServerProcess

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="the server is forked")


async def _hello(url: str) -> dict[str, object]:
    from websockets.asyncio.client import connect

    async with connect(url) as ws:
        await ws.send(json.dumps({"type": "hello", "version": PROTOCOL_VERSION, "name": "me"}))
        return json.loads(await ws.recv())  # type: ignore[no-any-return]


def _reaped(pid: int) -> bool:
    """Whether `pid` is no child of this process any more (ended and waited for)."""
    try:
        os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        return True
    return False


def test_the_forked_server_answers_holds_the_lock_and_stops_cleanly(tmp_path: Path) -> None:
    db = tmp_path / "play.db"
    server = ServerProcess(db)
    url = server.start()
    pid = server.pid
    assert pid is not None and pid != os.getpid()
    try:
        assert asyncio.run(_hello(url))["type"] == "welcome"
        held = json.loads((tmp_path / "play.db.lock").read_text())
        assert held["pid"] == pid and held["url"] == url  # the child holds the database
        second = ServerProcess(db)
        with pytest.raises(LocalServerError) as refused:
            second.start()
        assert isinstance(refused.value.cause, DatabaseInUse)
        assert refused.value.cause.holder["url"] == url
        assert second.pid is None  # the refused one is gone too
    finally:
        server.stop()
    assert _reaped(pid)
    assert json.loads((tmp_path / "play.db.lock").read_text() or "{}") == {}, "closed cleanly"


def test_a_server_that_cannot_start_is_an_error_not_a_hang(tmp_path: Path) -> None:
    server = ServerProcess(tmp_path)  # a directory is no database
    with pytest.raises(LocalServerError) as failed:
        server.start()
    assert (
        str(failed.value)
        == f"the local server failed: {tmp_path} is a directory, not a database file"
    )
    assert server.pid is None


def test_zhuoji_play_says_why_its_server_did_not_start(tmp_path: Path) -> None:
    bad = tmp_path / "play.db"
    bad.write_bytes(b"not a database " * 100)
    env = {**os.environ, "PYTHONPATH": str(ROOT), "ZHUOJI_STATE_DIR": str(tmp_path / "state")}
    done = subprocess.run(
        [sys.executable, "-m", "zhuoji", "play", "--db", str(bad), "--name", "me", "--new"],
        cwd=ROOT,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=25,  # less than the server's 30 s to come up: a hang fails here
    )
    assert done.returncode == 1, done.stderr[-2000:]
    assert done.stdout.strip().splitlines() == [
        f"zhuoji play: the local server failed: {bad} is not a readable SQLite database"
        " (file is not a database)"
    ]
    assert "Traceback" not in done.stderr
    assert bad.read_bytes() == b"not a database " * 100
