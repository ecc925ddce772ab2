"""The replay browser as a user starts it: a real `python -m zhuoji replay --db` in tmux on the
database of a match a real server stored; the picker lists the match, a round opens, End shows
the round's end, `e` writes a deal script that `zhuoji replay` plays to the stored settlement,
and `q` quits. Skipped only when tmux is not installed."""

from __future__ import annotations

import asyncio
import json
import os
import shlex
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from test_tui_tmux import ROOT, TMUX, Tmux, tmux  # noqa: F401 (the tmux fixture)

from clients.testkit import play_to_end
from server.testkit import running_server

pytestmark = pytest.mark.skipif(TMUX is None, reason="tmux is not installed")


async def _finished(db: Path) -> str:
    async with running_server(db) as (url, _server):
        return (await play_to_end(url, name="Ann[/i]", rounds=2)).table


def test_browse_a_stored_round_in_a_terminal(tmux: Tmux, tmp_path: Path) -> None:  # noqa: F811
    db = tmp_path / "z.db"
    table = asyncio.run(_finished(db))
    out = tmp_path / "out"
    env = f"PYTHONPATH={shlex.quote(str(ROOT))} ZHUOJI_STATE_DIR={shlex.quote(str(tmp_path))}"
    command = (
        f"cd {shlex.quote(str(ROOT))} && {env} {shlex.quote(sys.executable)} -m zhuoji replay"
        f" --db {shlex.quote(str(db))} --lang en --export-dir {shlex.quote(str(out))}"
    )
    w = tmux.window("replay", command)
    tmux.wait(w, lambda s: "Pick a match" in s and "Ann[/i]" in s, "the match picker")
    tmux.keys(w, "Enter")
    tmux.wait(w, lambda s: "Pick a round" in s, "the round picker")
    tmux.keys(w, "Enter")
    tmux.wait(w, lambda s: "round 1/2" in s and "step 0/" in s, "the deal of round 1")
    tmux.keys(w, "End")
    screen = tmux.wait(w, lambda s: "step 0/" not in s and "s sheet" in s, "the end")
    assert "Traceback" not in screen
    tmux.keys(w, "e")
    tmux.wait(w, lambda s: "deal script written" in s, "the export")
    tmux.keys(w, "q")
    tmux.wait_dead(w, "the browser to quit")
    (script,) = out.glob("*.json")
    done = subprocess.run(
        [sys.executable, "-m", "zhuoji", "replay", str(script), "--json"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    with sqlite3.connect(db) as conn:
        (net,) = conn.execute(
            "SELECT net FROM rounds WHERE table_id=? AND round_no=1", (table,)
        ).fetchone()
    assert json.loads(done.stdout)["net"] == json.loads(net)
