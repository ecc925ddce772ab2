"""`zhuoji serve --config` and `zhuoji admin` as a host runs them: real processes, a real port,
real clients over loopback websockets, real SQLite files."""

from __future__ import annotations

import asyncio
import json
import socket
import sqlite3
import subprocess
import sys
import time
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from clients.client import Client
from tests.deadline import poll, read_until

ROOT = Path(__file__).resolve().parents[2]
READY = b"zhuoji serving on "


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def zhuoji(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "zhuoji", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


class Proc:
    """`zhuoji serve ARGS` in a subprocess, ready once it prints its serving line."""

    def __init__(self, *args: str) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "zhuoji", "serve", *args],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            bufsize=0,
        )
        self.head = read_until(self.proc, READY, 60)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            self.proc.communicate(timeout=30)


@pytest.fixture
def procs() -> Iterator[list[Proc]]:
    started: list[Proc] = []
    yield started
    for p in started:
        p.stop()


def write_config(path: Path, port: int, db: Path, extra: str = "") -> Path:
    path.write_text(
        f"""# a host's settings
[server]
host = "127.0.0.1"
port = {port}
db = "{db.name}"

[limits]
tables_per_connection = 1

[pace]
{extra}""",
        encoding="utf-8",
    )
    return path


# ----- the config file -----


@pytest.mark.parametrize(
    ("body", "line", "words"),
    [
        (
            "[server]\nport = 8765\n\n[limits]\nmax_tabels = 10\n",
            5,
            "limits.max_tabels: unknown key",
        ),
        ('[server]\nhost = "127.0.0.1"\nport = 70000\n', 3, "server.port"),
        ('[pace]\nbot_delay = "fast"\n', 2, "pace.bot_delay"),
        ('[server]\nsync = "sometimes"\n', 2, "server.sync"),
        ("[server]\nport = 8765\n[limits\nx = 1\n", 3, "not valid TOML"),
        ('[table]\npreset = "guiyang"\noptions = { no_such_rule = true }\n', 3, "table.options"),
        ("[nosuch]\nx = 1\n", 1, "nosuch: unknown key"),
    ],
)
def test_a_bad_config_is_refused_naming_its_line_and_nothing_starts(
    tmp_path: Path, body: str, line: int, words: str
) -> None:
    config = tmp_path / "server.toml"
    config.write_text(body, encoding="utf-8")
    db = tmp_path / "never.db"
    run = zhuoji("serve", "--config", str(config), "--db", str(db), timeout=60)
    assert run.returncode == 2, run.stdout + run.stderr
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in run.stderr, run.stderr
    assert lines[0].startswith(f"zhuoji serve: {config}:{line}: "), lines[0]
    assert words in lines[0]
    assert not db.exists() and run.stdout == "", "the server never started"


def test_print_config_is_the_effective_settings_and_reads_back(tmp_path: Path) -> None:
    config = write_config(tmp_path / "server.toml", 9999, tmp_path / "z.db")
    run = zhuoji("serve", "--config", str(config), "--port", "7777", "--print-config")
    assert run.returncode == 0, run.stderr
    settings = tomllib.loads(run.stdout)
    assert settings["server"]["port"] == 7777, "the flag overrides the file"
    assert settings["server"]["db"] == str(tmp_path / "z.db"), "relative to the file"
    assert settings["limits"]["tables_per_connection"] == 1
    assert settings["limits"]["idle_minutes"] == 10.0, "the default"
    again = tmp_path / "again.toml"
    again.write_text(run.stdout, encoding="utf-8")
    assert zhuoji("serve", "--config", str(again), "--print-config").stdout == run.stdout


async def _hello(url: str, name: str) -> Client:
    c = await Client.connect(url, name)
    await c.recv_type("welcome")
    return c


async def _bots_and_start(c: Client) -> None:
    for _ in range(3):
        await c.send({"type": "add_bot"})
    arrived: set[int] = set()
    while len(arrived) < 3:
        f = await c.recv_type("seat_status")
        if f["connected"]:
            arrived.add(f["seat"])
    await c.send({"type": "start"})
    await c.recv_type("match_started")


def test_a_good_config_is_honoured_its_port_and_its_limit(
    tmp_path: Path, procs: list[Proc]
) -> None:
    port = _free_port()
    config = write_config(tmp_path / "server.toml", port, tmp_path / "z.db", "bot_delay = 5.0\n")
    procs.append(Proc("--config", str(config)))
    assert f"ws://127.0.0.1:{port}".encode() in procs[0].head

    async def go() -> dict[str, Any]:
        c = await _hello(f"ws://127.0.0.1:{port}", "房主")
        await c.send({"type": "create_table", "name": "一", "rounds": 8})
        await c.recv_type("joined")
        await _bots_and_start(c)
        await c.send({"type": "leave"})
        await c.recv_type("left")
        await c.send({"type": "create_table", "name": "二"})
        refused = await c.recv_until(lambda f: f["type"] in ("joined", "error"))
        await c.close()
        return refused

    refused = asyncio.run(go())
    assert refused["type"] == "error" and refused["code"] == "tables_per_connection"


# ----- zhuoji admin -----


def admin(config: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return zhuoji("admin", "--config", str(config), *args)


def _counts(db: Path) -> dict[str, dict[str, int]]:
    """Rows per table id in each of the four tables."""
    conn = sqlite3.connect(str(db))
    try:
        out: dict[str, dict[str, int]] = {}
        for part, col in (
            ("tables", "id"),
            ("rounds", "table_id"),
            ("actions", "table_id"),
            ("events", "table_id"),
        ):
            out[part] = dict(conn.execute(f"SELECT {col}, COUNT(*) FROM {part} GROUP BY {col}"))
        return out
    finally:
        conn.close()


def test_admin_backup_during_a_loadtest_is_a_copy_verify_accepts(
    tmp_path: Path, procs: list[Proc]
) -> None:
    port = _free_port()
    db = tmp_path / "z.db"
    config = write_config(tmp_path / "server.toml", port, db)
    procs.append(Proc("--config", str(config)))
    token = tmp_path / "z.db.admin-token"
    assert token.stat().st_mode & 0o777 == 0o600
    load = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "zhuoji",
            "loadtest",
            "--url",
            f"ws://127.0.0.1:{port}",
            "--tables",
            "6",
            "--rounds",
            "3",  # each match lasts a few seconds past the backup taken early in its first round
            "--think-ms",
            "60",
            "--json",
        ],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        # Wait (with a deadline) until every match is being played, then back up.
        def playing() -> bool:
            assert load.poll() is None, f"the load test ended early: {_progress(db)}"
            return not _progress(db) < (6, 100)

        poll(playing, "every match being played", 120, lambda: str(_progress(db)), every=0.2)
        copy = tmp_path / "copy.db"
        run = admin(config, "backup", str(copy))
        assert run.returncode == 0, run.stderr
        assert f"to {copy}" in run.stdout
        stats = json.loads(admin(config, "--json", "stats").stdout)
        assert stats["live"] is not None and stats["stored"]["tables"]["playing"] <= 6
    finally:
        out, err = load.communicate(timeout=300)
    assert load.returncode == 0, out + err
    assert json.loads(out)["matches_completed"] == 6
    conn = sqlite3.connect(str(copy))
    tables = [r[0] for r in conn.execute("SELECT id FROM tables WHERE started_at IS NOT NULL")]
    unfinished = conn.execute("SELECT COUNT(*) FROM rounds WHERE ended_at IS NULL").fetchone()[0]
    conn.close()
    assert len(tables) == 6 and unfinished >= 1, "the copy was taken mid-match"
    for table in tables:
        check = zhuoji("verify", "--db", str(copy), "--table", table, "--json")
        assert check.returncode == 0, check.stdout + check.stderr
        assert json.loads(check.stdout)["ok"] is True
    refused = admin(config, "backup", str(copy))
    assert refused.returncode == 1 and "exists already" in refused.stderr


def _progress(db: Path) -> tuple[int, int]:
    """(tables playing, actions stored) in the live database, read-only."""
    if not db.exists():
        return 0, 0
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=30)
    try:
        playing = conn.execute("SELECT COUNT(*) FROM tables WHERE state='playing'").fetchone()[0]
        actions = conn.execute("SELECT COUNT(*) FROM actions").fetchone()[0]
    except sqlite3.Error:
        return 0, 0
    finally:
        conn.close()
    return int(playing), int(actions)


def _age(db: Path, ids: list[str], days: float) -> None:
    conn = sqlite3.connect(str(db), timeout=30)
    with conn:
        conn.executemany(
            "UPDATE tables SET ended_at = ? WHERE id = ?",
            [(time.time() - days * 86400, i) for i in ids],
        )
    conn.close()


def test_prune_removes_exactly_the_old_finished_matches_it_names(
    tmp_path: Path, procs: list[Proc]
) -> None:
    port = _free_port()
    db = tmp_path / "z.db"
    config = write_config(tmp_path / "server.toml", port, db)
    procs.append(Proc("--config", str(config)))
    load = zhuoji(
        "loadtest",
        "--url",
        f"ws://127.0.0.1:{port}",
        "--tables",
        "5",
        "--rounds",
        "1",
        "--think-ms",
        "2",
        "--json",
    )
    assert load.returncode == 0, load.stdout + load.stderr
    before = _counts(db)
    finished = sorted(before["tables"], key=int)
    assert len(finished) == 5
    # Two matches ended 40 days ago, one 20 days ago; the rest just now.
    old, recent = finished[:2], finished[2]
    _age(db, old, 40)
    _age(db, [recent], 20)
    run = admin(config, "prune", "--older-than", "30d")
    assert run.returncode == 0, run.stderr
    assert "removed 2 matches" in run.stdout
    for t in old:
        assert f"table {t} " in run.stdout
    removed_rounds = sum(before["rounds"][t] for t in old)
    removed_events = sum(before["events"][t] for t in old)
    assert (
        f"with {removed_rounds} rounds" in run.stdout and f"{removed_events} events" in run.stdout
    )
    after = _counts(db)
    assert sorted(after["tables"], key=int) == finished[2:]
    for part in ("rounds", "actions", "events"):
        assert after[part] == {t: n for t, n in before[part].items() if t not in old}, part
    # With the server stopped, prune works on the file itself (under the database's lock).
    procs[0].stop()
    run = admin(config, "--json", "prune", "--older-than", "15d")
    assert run.returncode == 0, run.stderr
    pruned = json.loads(run.stdout)
    assert [t["id"] for t in pruned["tables"]] == [recent]
    assert sorted(_counts(db)["tables"], key=int) == finished[3:]
    run = admin(config, "tables")
    assert run.returncode == 0 and "no server is serving" in run.stdout


def test_admin_close_and_kick_act_on_the_live_server_and_tell_the_players(
    tmp_path: Path, procs: list[Proc]
) -> None:
    port = _free_port()
    db = tmp_path / "z.db"
    config = write_config(tmp_path / "server.toml", port, db, "bot_delay = 2.0\n")
    procs.append(Proc("--config", str(config)))
    url = f"ws://127.0.0.1:{port}"

    async def go() -> None:
        host = await _hello(url, "房主")
        await host.send({"type": "create_table", "name": "周五", "rounds": 8})
        joined = await host.recv_type("joined")
        table = joined["table"]
        guest = await _hello(url, "客人")
        await guest.send({"type": "take_seat", "table": table})
        token = (await guest.recv_type("joined"))["token"]
        for _ in range(2):
            await host.send({"type": "add_bot"})
        await host.recv_until(
            lambda f: f["type"] == "table" and all(s["kind"] != "empty" for s in f["info"]["seats"])
        )
        await host.send({"type": "start"})
        await host.recv_type("match_started")

        listing = await asyncio.to_thread(admin, config, "tables")
        assert listing.returncode == 0, listing.stderr
        assert (
            "周五" in listing.stdout and "playing" in listing.stdout and "1:客人" in listing.stdout
        )

        kick = await asyncio.to_thread(admin, config, "kick", table, "1")
        assert kick.returncode == 0, kick.stderr
        assert "removed 客人 from seat 1" in kick.stdout
        told = await guest.recv_until(lambda f: f["type"] == "error")
        assert told["code"] == "kicked"
        await guest.recv_type("left")
        status = await host.recv_until(lambda f: f["type"] == "seat_status" and f["seat"] == 1)
        assert status["connected"] is False and status["auto"] is True
        back = await Client.connect(url, "客人", token=token)
        assert (await back.recv_until(lambda f: f["type"] == "error"))["code"] == "bad_token"

        close = await asyncio.to_thread(admin, config, "close", table)
        assert close.returncode == 0, close.stderr
        assert f"closed table {table} (it was playing)" in close.stdout
        told = await host.recv_until(lambda f: f["type"] == "error")
        assert told["code"] == "table_closed"
        ended = await host.recv_type("match_ended")
        assert ended["reason"] == "abandoned"
        await host.recv_type("left")
        gone = await asyncio.to_thread(admin, config, "close", table)
        assert gone.returncode == 1 and f"no open table {table}" in gone.stderr
        for c in (host, guest, back):
            await c.close()

    asyncio.run(go())
    conn = sqlite3.connect(str(db))
    state = conn.execute("SELECT state FROM tables").fetchall()
    conn.close()
    assert state == [("abandoned",)]
    # The endpoint wants the token.
    wrong = admin(config, "--token", "x" * 20, "close", "1")
    assert wrong.returncode == 1 and "401" in wrong.stderr
