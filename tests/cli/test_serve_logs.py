"""`zhuoji serve --log-format json|plain --log-level L`: the log of a real server process.

A match is played against it (a password table, a seat dropped and taken back, refused moves,
a spectator), then it is stopped; every line of its log must be one JSON object, the events that
matter must be there, and nothing secret may be: no seat token or its digest, no password or its
hash, no match seed or deal salt, and no tile at all (the server's own lines never name one, so
any tile in the log could be a hidden one).
"""

from __future__ import annotations

import asyncio
import json
import re
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

from clients.bot_player import BotPlayer
from clients.client import play
from rules.tiles import tile_name
from tests.deadline import read_until
from tests.support import FAST, connect, free_port

ROOT = Path(__file__).resolve().parents[2]
READY = b"zhuoji serving on "
PASSWORD = "open-sesame-4417"
TILE = re.compile(r"(?<![A-Za-z0-9])[1-9][mps](?![A-Za-z0-9])")
ALL_TILES = [tile_name(k) for k in range(27)]


class Serving:
    """`python -m zhuoji serve ...` with its log (stderr) going to a file."""

    def __init__(self, db: Path, log: Path, *flags: str) -> None:
        self.port = free_port()
        self.log = log
        self._log_file = log.open("wb")
        self.proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "zhuoji",
                "serve",
                "--host",
                "127.0.0.1",
                "--port",
                str(self.port),
                "--db",
                str(db),
                *flags,
            ],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=self._log_file,
            bufsize=0,
        )
        try:
            read_until(self.proc, READY, 60, log.read_text)
        except AssertionError:
            self.kill()
            raise
        self.url = f"ws://127.0.0.1:{self.port}"

    def stop(self) -> str:
        """SIGTERM; once it has exited, its log."""
        self.proc.send_signal(signal.SIGTERM)
        self.proc.communicate(timeout=60)
        self._log_file.close()
        assert self.proc.returncode == 0
        return self.log.read_text(encoding="utf-8")

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.communicate(timeout=30)
        self._log_file.close()


async def a_match_with_everything(url: str) -> list[str]:
    """Play one round at a password table; return the seat tokens handed out."""
    host = await connect(url, "host")
    await host.send(
        {"type": "create_table", "name": "logged", "rounds": 1, "password": PASSWORD, **FAST}
    )
    joined = await host.recv_type("joined")
    table, tokens = joined["table"], [joined["token"]]
    hosting = BotPlayer(seed="host")
    hosting.on_frame(joined)
    for _ in range(2):
        await host.send({"type": "add_bot"})

    guest = await connect(url, "guest")
    await guest.send({"type": "take_seat", "table": table, "password": "wrong-password-9"})
    assert (await guest.recv())["code"] == "bad_password"
    await guest.send({"type": "take_seat", "table": table, "password": PASSWORD})
    seated = await guest.recv_type("joined")
    tokens.append(seated["token"])
    guesting = BotPlayer(seed="guest")
    guesting.on_frame(seated)
    watcher = await connect(url, "watcher")
    await watcher.send({"type": "watch", "table": table, "password": PASSWORD})
    await watcher.recv_type("joined")

    await host.send({"type": "start"})

    async def hosting_part() -> dict[str, Any]:
        while (frame := await host.recv())["type"] != "prompt":
            hosting.on_frame(frame)
        assert hosting.view is not None and hosting.view.hand is not None
        absent = next(t for t, n in zip(ALL_TILES, hosting.view.hand, strict=True) if n == 0)
        # A refused move: its error's text names the tile; the log must not.
        await host.send({"type": "act", "seq": frame["seq"], "act": "discard", "tile": absent})
        while (other := await host.recv())["type"] != "error":
            hosting.on_frame(other)
        assert other["code"] != "tile_not_in_hand" or absent in other["message"]
        reply = hosting.on_frame(frame)
        assert reply is not None
        await host.send(reply)
        return await play(host, hosting, timeout=90)

    async def guesting_part() -> dict[str, Any]:
        # Some moves, then the connection drops; the guest comes back with its token.
        nonlocal guest
        answered = 0
        while answered < 3:
            reply = guesting.on_frame(await guest.recv(30))
            if reply is not None:
                await guest.send(reply)
                answered += 1
        await guest.close()
        guest = await connect(url, "guest", token=seated["token"], last_seq=guesting.seq)
        stranger = await connect(url, "stranger", token="Z" * 22)
        assert (await stranger.recv())["code"] == "bad_token"
        await stranger.close()
        return await play(guest, guesting, timeout=90)

    ends = await asyncio.gather(
        hosting_part(), guesting_part(), watcher.recv_type("match_ended", timeout=90)
    )
    assert all(e["reason"] == "finished" for e in ends)
    for c in (host, guest, watcher):
        await c.close()
    return tokens


def secrets_of(db: Path) -> list[str]:
    """What the database holds that no log may show."""
    with sqlite3.connect(db) as con:
        found: list[str] = []
        for seed, password_hash, tokens in con.execute(
            "SELECT seed, password_hash, tokens FROM tables"
        ):
            found += [seed, password_hash, *(json.loads(tokens) if tokens else [])]
        found += [salt for (salt,) in con.execute("SELECT salt FROM rounds") if salt]
    return [s for s in found if s]


def test_a_json_log_has_each_event_and_no_secret(tmp_path: Path) -> None:
    db = tmp_path / "logged.db"
    server = Serving(db, tmp_path / "log.jsonl", "--log-format", "json", "--log-level", "debug")
    try:
        tokens = asyncio.run(a_match_with_everything(server.url))
    except BaseException:
        server.kill()
        raise
    log = server.stop()

    lines = [json.loads(line) for line in log.splitlines()]  # each line one JSON object
    assert all({"time", "level", "logger", "event", "msg"} <= set(x) for x in lines)
    events = [x["event"] for x in lines]
    for event in (
        "server_started",
        "table_created",
        "match_started",
        "round_ended",
        "match_ended",
        "table_closed",
        "seat_resumed",
        "refused",
        "server_stopping",
        "server_stopped",
    ):
        assert event in events, (event, events)
    refused = {x["code"] for x in lines if x["event"] == "refused"}
    assert {"bad_password", "bad_token"} <= refused
    assert len(refused) >= 3  # and the refused move's code
    resumed = next(x for x in lines if x["event"] == "seat_resumed")
    assert resumed["seat"] == 3 and resumed["how"] == "events"
    assert any(x["event"] == "conn_opened" for x in lines)  # debug: connections too

    forbidden = [PASSWORD, "wrong-password-9", *tokens, *secrets_of(db)]
    assert len(forbidden) >= 6
    for secret in forbidden:
        assert secret not in log, f"a secret in the log: {secret[:6]}…"
    assert not TILE.findall(log), TILE.findall(log)[:5]


def test_a_plain_log_is_one_line_per_event_and_warning_hides_info(tmp_path: Path) -> None:
    server = Serving(tmp_path / "p.db", tmp_path / "plain.log", "--log-format", "plain")
    log = server.stop()
    line = re.compile(
        r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z (DEBUG|INFO|WARNING|ERROR) zhuoji\.\w+: "
    )
    assert log and all(line.match(x) for x in log.splitlines()), log
    assert "serving on 127.0.0.1:" in log and "server stopped (for a restart)" in log
    assert "conn " not in log  # connections are debug

    quiet = Serving(tmp_path / "q.db", tmp_path / "quiet.log", "--log-level", "warning")
    assert quiet.stop() == ""
