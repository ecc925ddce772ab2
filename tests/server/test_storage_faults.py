"""Storage faults against real `zhuoji serve` processes and real SQLite files: a second server on
the same database, a disk that fills up (the server's file size limit set from outside with
`prlimit`), a database deleted under the server, and a read-only connection in process. In each,
what the players were told is what is stored, `/healthz` says 503 while the store cannot write,
and the matches go on when it can."""

from __future__ import annotations

import asyncio
import contextlib
import json
import resource
import signal
import sqlite3
import subprocess
import sys
import urllib.error
import urllib.request
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from clients.bot_player import BotPlayer
from clients.client import Client
from protocol import codes
from protocol.messages import TABLE_EVENT_TYPES
from server.app import Server
from server.storage.reads import table_events, table_row
from server.storage.writer import Store
from server.table.projection import PRIVATE_TYPES
from tests.support import ROOT, ServeProc, fast, serving
from zhuoji.cli import main

FAST = fast(turn_seconds=30, bank_seconds=30)


def serving_db(db: Path, *extra: str) -> contextlib.AbstractContextManager[ServeProc]:
    """`zhuoji serve` on `db`, its storage retries short and its bots quick."""
    return serving("--db", str(db), "--retry-max", "0.2", "--bot-delay", "0.005", *extra)


def serve_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "zhuoji", "serve", "--host", "127.0.0.1", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )


class Host:
    """A player who opens a table with three of the server's bots and plays seat 0 (as a bot
    would), keeping every frame it is sent."""

    def __init__(self, url: str, name: str, *, going_after: int = 30) -> None:
        self.url, self.name = url, name
        self.player = BotPlayer(seed=name)
        self.frames: list[dict[str, Any]] = []
        self.events = 0
        self.going_after = going_after
        self.going = asyncio.Event()  # the match is well under way
        self.told = asyncio.Event()  # the storage_unavailable notice came
        # Once going, the host holds its next move until `released` (while the test breaks
        # the disk), so every match is surely in the middle when the fault comes.
        self.holding = asyncio.Event()
        self.released = asyncio.Event()
        self.joined: dict[str, Any] = {}
        self.client: Client | None = None

    def on_frame(self, frame: dict[str, Any]) -> None:
        self.frames.append(frame)
        if frame["type"] in TABLE_EVENT_TYPES:
            self.events += 1
            if self.events >= self.going_after:
                self.going.set()
        if frame["type"] == "error" and frame["code"] == codes.STORAGE_UNAVAILABLE:
            self.told.set()

    async def open(self, rounds: int = 1) -> None:
        client = self.client = await Client.connect(self.url, self.name)
        await client.send({"type": "create_table", "name": self.name, "rounds": rounds, **FAST})
        self.joined = await client.recv_type("joined")
        self.player.on_frame(self.joined)
        for _ in range(3):
            await client.send({"type": "add_bot"})
        seats: set[int] = set()
        while len(seats) < 3:
            f = await client.recv()
            self.player.on_frame(f)
            if f["type"] == "seat_status" and f["connected"] and f["seat"] != 0:
                seats.add(f["seat"])
        await client.send({"type": "start"})

    @property
    def table(self) -> str:
        return str(self.joined["table"])

    async def play(self, timeout: float = 150) -> dict[str, Any]:
        """Play seat 0 until the match ends; return its `match_ended`."""
        client = self.client
        assert client is not None
        try:
            async with asyncio.timeout(timeout):
                while True:
                    frame = await client.recv(timeout)
                    self.on_frame(frame)
                    reply = self.player.on_frame(frame)
                    if reply is not None:
                        if self.going.is_set() and not self.released.is_set():
                            self.holding.set()
                            await self.released.wait()
                        await client.send(reply)
                    if frame["type"] == "match_ended":
                        return frame
        finally:
            await client.close()

    async def hold(self) -> None:
        """Until every host is holding its move, mid-match."""
        await asyncio.wait_for(self.holding.wait(), 90)

    def release(self) -> None:
        self.released.set()

    async def resume(self, url: str, timeout: float = 90) -> dict[str, Any]:
        self.client = await Client.connect(
            url, self.name, token=self.joined["token"], last_seq=self.player.seq
        )
        return await self.play(timeout)


def agrees_with_record(db: Path, host: Host) -> None:
    """Every event the host was sent is the stored event of that number (as that seat may see
    it): nobody was told anything the record does not hold."""
    stored = {e["seq"]: e for e in table_events(db, host.table)}
    sent = [
        f for f in host.frames if f["type"] in TABLE_EVENT_TYPES and f.get("table") == host.table
    ]
    assert sent
    for frame in sent:
        event = stored.get(frame["seq"])
        assert event is not None, f"table {host.table}: seq {frame['seq']} was sent, not stored"
        assert event["type"] == frame["type"], (event, frame)
        if frame["type"] not in PRIVATE_TYPES:
            assert event == frame, (event, frame)


def finished_and_verified(db: Path, host: Host, end: dict[str, Any]) -> None:
    row = table_row(db, host.table)
    assert row is not None and row["state"] == "finished", row
    assert end["reason"] == "finished" and row["scores"] == end["scores"]
    assert sum(end["scores"]) == 0
    assert main(["verify", "--db", str(db), "--table", host.table]) == 0


async def opened(url: str, n: int, going_after: int = 30, rounds: int = 2) -> list[Host]:
    """`n` hosts at tables of their own. With two rounds a host is surely asked something after
    its first `going_after` events (at the latest, to go on to the second round), so `hold`
    cannot wait for a match that ended first."""
    hosts = [Host(url, f"host{i}", going_after=going_after) for i in range(n)]
    await asyncio.gather(*(h.open(rounds) for h in hosts))
    return hosts


# ----- one server per database -----


@pytest.mark.timeout(400)
def test_a_second_server_on_the_same_database_is_refused_and_the_first_plays_on(
    tmp_path: Path,
) -> None:
    db = tmp_path / "z.db"
    with serving_db(db) as first:

        async def scenario() -> tuple[list[Host], list[dict[str, Any]]]:
            hosts = await opened(first.url, 2)
            plays = [asyncio.create_task(h.play()) for h in hosts]
            await asyncio.gather(*(h.hold() for h in hosts))
            port = first.url.rsplit(":", 1)[1]
            # The same port and another one: both refused before they read anything.
            for argv in (("--port", port), ("--port", "0")):
                second = await asyncio.to_thread(serve_cli, *argv, "--db", str(db))
                assert second.returncode == 1, second
                lines = second.stderr.strip().splitlines()
                assert lines == [
                    f"zhuoji serve: {db} is in use by another zhuoji server (pid {first.pid},"
                    f" serving {first.url}); one server owns a database"
                ], second.stderr
            for h in hosts:
                h.release()
            return hosts, await asyncio.gather(*plays)

        hosts, ends = asyncio.run(scenario())
        assert first.health()[0] == 200
        code, _, err = first.stop()
    assert code == 0 and "Traceback" not in err, err
    for host, end in zip(hosts, ends, strict=True):
        finished_and_verified(db, host, end)
        agrees_with_record(db, host)


# ----- a full disk -----


@pytest.mark.timeout(400)
def test_a_full_disk_pauses_the_tables_says_503_and_they_finish_when_it_has_room(
    tmp_path: Path,
) -> None:
    db = tmp_path / "z.db"
    with serving_db(db) as server:

        async def scenario() -> tuple[list[Host], list[dict[str, Any]], tuple[int, str]]:
            hosts = await opened(server.url, 2)
            plays = [asyncio.create_task(h.play()) for h in hosts]
            await asyncio.gather(*(h.hold() for h in hosts))
            # The disk is full: no file of the server's may grow past a byte.
            resource.prlimit(server.pid, resource.RLIMIT_FSIZE, (1, resource.RLIM_INFINITY))
            for h in hosts:
                h.release()  # their moves are the next writes
            await asyncio.wait_for(asyncio.gather(*(h.told.wait() for h in hosts)), 90)
            during = await asyncio.to_thread(server.health)
            resource.prlimit(server.pid, resource.RLIMIT_FSIZE, (resource.RLIM_INFINITY,) * 2)
            return hosts, await asyncio.gather(*plays), during

        hosts, ends, during = asyncio.run(scenario())
        assert during[0] == 503 and during[1].startswith("storage unavailable: "), during
        assert server.health()[0] == 200
        code, _, err = server.stop()
    assert code == 0, err
    lines = err.strip().splitlines()
    assert len([x for x in lines if "storage fault:" in x]) == 1, err
    assert len([x for x in lines if "storage back after" in x]) == 1, err
    assert "Traceback" not in err and "table_frozen" not in err, err
    for host, end in zip(hosts, ends, strict=True):
        assert not any(f.get("code") == "table_frozen" for f in host.frames)
        finished_and_verified(db, host, end)
        agrees_with_record(db, host)


# ----- a database deleted under the server -----


@pytest.mark.timeout(400)
def test_a_database_deleted_under_the_server_is_noticed_and_nothing_is_lost(
    tmp_path: Path,
) -> None:
    db = tmp_path / "z.db"
    with serving_db(db) as server:

        async def until_deleted() -> list[Host]:
            hosts = await opened(server.url, 2)
            plays = [asyncio.create_task(h.play()) for h in hosts]
            await asyncio.gather(*(h.hold() for h in hosts))
            for suffix in ("", "-wal", "-shm"):  # rm z.db*
                Path(f"{db}{suffix}").unlink(missing_ok=True)
            for h in hosts:
                h.release()
            await asyncio.wait_for(asyncio.gather(*(h.told.wait() for h in hosts)), 90)
            status, body = await asyncio.to_thread(server.health)
            assert status == 503 and "was deleted" in body, body
            for task in plays:
                task.cancel()
            await asyncio.gather(*plays, return_exceptions=True)
            return hosts

        hosts = asyncio.run(until_deleted())
        code, _, err = server.stop()
    assert code == 0, err
    rescued = tmp_path / "z.db.rescued"
    assert "was deleted while the server ran" in err and str(rescued) in err, err
    assert not db.exists() and rescued.exists()
    # Nothing a player was told is missing from the copy, and no match was ended.
    for host in hosts:
        agrees_with_record(rescued, host)
        assert not any(f["type"] == "match_ended" for f in host.frames)
        row = table_row(rescued, host.table)
        assert row is not None and row["state"] == "playing"
    # Put back, it serves again: the matches resume and finish.
    rescued.rename(db)
    with serving_db(db) as again:
        assert again.health()[0] == 200

        async def resume() -> list[dict[str, Any]]:
            return await asyncio.gather(*(h.resume(again.url) for h in hosts))

        ends = asyncio.run(resume())
        again.stop()
    for host, end in zip(hosts, ends, strict=True):
        finished_and_verified(db, host, end)
        agrees_with_record(db, host)


# ----- a read-only connection, in process -----


@contextlib.asynccontextmanager
async def in_process(db: Path) -> AsyncIterator[tuple[str, Server, Store]]:
    store = Store(db, retry_max=0.1)
    server = Server(store, bot_delay=0.005)
    try:
        async with server.listen("127.0.0.1", 0) as ws:
            port = next(iter(ws.sockets)).getsockname()[1]
            yield f"ws://127.0.0.1:{port}", server, store
    finally:
        store.close()


def _health(url: str) -> int:
    try:
        with urllib.request.urlopen(url.replace("ws://", "http://") + "/healthz", timeout=10) as r:
            return int(r.status)
    except urllib.error.HTTPError as err:
        return err.code


async def test_a_read_only_store_answers_every_request_and_the_table_waits(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    db = tmp_path / "z.db"
    async with in_process(db) as (url, server, store):
        host = Host(url, "host", going_after=20)
        await host.open()
        game = asyncio.create_task(host.play())
        await host.hold()
        # The connection can no longer write (as on a file system remounted read-only).
        store._db.execute("PRAGMA query_only=1")
        host.release()
        await asyncio.wait_for(host.told.wait(), 60)
        assert store.fault is not None and "readonly" in store.fault
        assert await asyncio.to_thread(_health, url) == 503
        # A new table is refused at once, and no dead table shows in the lobby.
        other = await Client.connect(url, "other")
        assert (await other.recv_type("welcome"))["name"] == "other"
        notice = await other.recv_type("error")
        assert notice["code"] == codes.STORAGE_UNAVAILABLE and notice.get("ref") is None
        await other.send({"type": "create_table", "name": "new", **FAST})
        refused = await other.recv_type("error")
        assert refused["code"] == codes.STORAGE_UNAVAILABLE and refused["ref"] == "create_table"
        await other.send({"type": "watch", "table": host.table})
        assert (await other.recv_type("error"))["ref"] == "watch"
        await other.send({"type": "list_tables"})
        lobby = await other.recv_type("tables")
        assert [t["id"] for t in lobby["tables"]] == [host.table]
        seen = host.events
        # The fault ends: the table goes on where it waited.
        store._db.execute("PRAGMA query_only=0")
        end = await game
        assert host.events > seen
        assert await asyncio.to_thread(_health, url) == 200
        assert store.fault is None and store.faults == 1
    assert [r.getMessage() for r in caplog.records if "storage fault" in r.getMessage()]
    assert not any(r.exc_info for r in caplog.records), "no traceback for a storage fault"
    finished_and_verified(db, host, end)
    agrees_with_record(db, host)


def test_sighup_stops_the_server_like_sigterm(tmp_path: Path) -> None:
    with serving_db(tmp_path / "z.db") as server:
        code, out, err = server.stop(signal.SIGHUP)
    assert code == 0 and "stopping for a restart" in out, (out, err)


def test_a_refused_write_still_fails_alone_and_is_not_a_fault(tmp_path: Path) -> None:
    """A duplicate key is a bug in what was asked, not a fault of the disk: that write fails,
    the others are stored, and the store stays healthy."""
    from server.storage.record_sql import op_insert_table
    from server.storage.writer import StoreError

    row = {
        "id": "1",
        "name": "t",
        "preset": "guiyang",
        "options": {},
        "base": 1,
        "rounds": 1,
        "turn_seconds": 0.0,
        "bank_seconds": 0.0,
        "claim_min_ms": 0,
        "has_password": False,
        "created_at": 0.0,
    }

    async def go() -> list[Any]:
        store = Store(tmp_path / "s.db")
        try:
            await store.write([op_insert_table(row)])
            return [
                await asyncio.gather(
                    store.write([op_insert_table({**row, "id": "2"})]),
                    store.write([op_insert_table(row)]),
                    return_exceptions=True,
                ),
                store.fault,
            ]
        finally:
            store.close()

    results, fault = asyncio.run(go())
    assert isinstance(results[0], float) and isinstance(results[1], StoreError) and fault is None
    with sqlite3.connect(tmp_path / "s.db") as conn:
        assert [r[0] for r in conn.execute("SELECT id FROM tables ORDER BY id")] == ["1", "2"]
    assert json.loads(json.dumps(results[0])) == results[0]
