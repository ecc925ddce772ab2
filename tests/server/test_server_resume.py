"""Crash safety and graceful stops: a real `zhuoji serve` killed with SIGKILL or stopped with
SIGTERM mid-match, started again on the same database; tables that cannot be rebuilt; and
`zhuoji verify` over the stored rounds."""

from __future__ import annotations

import asyncio
import json
import signal
import socket
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from websockets.exceptions import ConnectionClosed

from clients.bot_player import BotPlayer
from clients.client import Client, play
from clients.loadtest import Chaos, Report, SeatClient
from clients.loadtest import run as loadtest
from protocol.fairdeal import check_deal
from protocol.messages import parse_server
from server.storage.reads import round_events, table_events, table_row
from server.testkit import running_server
from tests.support import fast, started_table
from zhuoji.cli import main

ROOT = Path(__file__).resolve().parents[2]
FAST = fast(turn_seconds=15, bank_seconds=30)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class CountingReport(Report):
    """A load test's report that says (`reached`) when `until` moves have been made."""

    def __init__(self, tables: int, rounds: int, *, until: int) -> None:
        self.reached = asyncio.Event()
        self.until = until
        super().__init__(tables, rounds)

    def __setattr__(self, name: str, value: Any) -> None:
        super().__setattr__(name, value)
        if name == "actions" and value >= self.until:
            self.reached.set()


async def bots_connected(client: Client) -> None:
    """Read until the three bots added have connected to their seats."""
    seats: set[int] = set()
    while len(seats) < 3:
        f = await client.recv()
        if f["type"] == "seat_status" and f["connected"] and f["seat"] != 0:
            seats.add(f["seat"])


async def bot_table(
    url: str, report: Report, rounds: int, started: asyncio.Event
) -> dict[str, Any]:
    """A host (played by a reconnecting `SeatClient`) and three of the server's own bots."""
    client = await Client.connect(url, "host")
    await client.recv_type("welcome")
    await client.send({"type": "create_table", "name": "bots", "rounds": rounds, **FAST})
    player = BotPlayer(seed="host")
    player.on_frame(await client.recv_type("joined"))
    for _ in range(3):
        await client.send({"type": "add_bot"})
    await bots_connected(client)
    await client.send({"type": "start"})
    await client.recv_until(lambda f: player.on_frame(f) is not None)  # the first prompt
    started.set()
    seat = SeatClient(
        url,
        "host",
        client,
        player,
        report,
        chaos=Chaos(),
        rng=__import__("random").Random(1),
        think=lambda: 0.04,
        reconnect_for=30,
    )
    await client.send({"type": "sync"})  # the prompt again, after a snapshot
    end = await seat.play(lambda f, arrived: None, lambda r: None)
    await seat.client.close()
    return end


def _zero_sum_rounds(db: Path, table: str) -> list[list[int]]:
    with sqlite3.connect(db) as conn:
        nets = [
            json.loads(r[0])
            for r in conn.execute(
                "SELECT net FROM rounds WHERE table_id=? ORDER BY round_no", (table,)
            )
        ]
    assert nets and all(sum(n) == 0 for n in nets), nets
    return nets


def test_a_server_killed_with_sigkill_resumes_every_table_and_the_matches_finish(
    tmp_path: Path, serve: Callable[..., Any]
) -> None:
    db, port = tmp_path / "kill.db", _free_port()
    url = f"ws://127.0.0.1:{port}"
    server = serve(db, port)
    server.start()

    async def scenario() -> tuple[Report, dict[str, Any], str]:
        report = CountingReport(4, 2, until=80)
        started = asyncio.Event()
        bots = asyncio.create_task(bot_table(url, report, 2, started))
        async with asyncio.timeout(10):
            await started.wait()
        run = asyncio.create_task(
            loadtest(
                url,
                4,
                2,
                think=0.01,
                table_options=FAST,
                timeout=60,
                report=report,
                reconnect_for=30,
            )
        )
        reached = asyncio.create_task(report.reached.wait())  # into the first round everywhere
        done, _ = await asyncio.wait(
            {reached, bots, run}, timeout=60, return_when=asyncio.FIRST_COMPLETED
        )
        assert done == {reached}, (done, report.error_samples)
        out = await asyncio.to_thread(server.signal, signal.SIGKILL)
        assert server.proc is not None and server.proc.returncode == -signal.SIGKILL
        await asyncio.to_thread(server.start)  # the same database, the same port
        return await run, await bots, out

    try:
        report, bot_end, _ = asyncio.run(scenario())
        restarted = server.signal(signal.SIGINT)
    finally:
        server.stop()
    result = report.to_dict()
    assert result["errors"] == 0, result["error_samples"]
    assert result["matches_completed"] == 4 and result["zero_sum"] is True
    assert result["mismatches"] == 0, result["mismatch_samples"]
    assert result["reconnects"] >= 4 * 4 + 1, "every client came back after the kill"
    assert bot_end["reason"] == "finished" and bot_end["rounds_played"] == 2
    assert "5 unfinished matches resumed" in restarted, restarted
    for table in ("1", "2", "3", "4", "5"):
        row = table_row(db, table)
        assert row is not None and row["state"] == "finished", (table, row)
        nets = _zero_sum_rounds(db, table)
        assert [sum(col) for col in zip(*nets, strict=True)] == row["scores"]
        # The log has no hole and no repeat across the restart, and every round verifies.
        seqs = [e["seq"] for e in table_events(db, table)]
        assert seqs == list(range(1, len(seqs) + 1))
        assert main(["verify", "--db", str(db), "--table", table]) == 0


def test_sigterm_tells_clients_closes_with_1012_and_the_match_waits_for_the_restart(
    tmp_path: Path, serve: Callable[..., Any]
) -> None:
    db, port = tmp_path / "term.db", _free_port()
    url = f"ws://127.0.0.1:{port}"
    server = serve(db, port)
    server.start()

    async def until_stopped() -> tuple[Client, dict[str, Any], BotPlayer]:
        client = await Client.connect(url, "host")
        await client.send({"type": "create_table", "name": "t", "rounds": 1, **FAST})
        player = BotPlayer(seed="h")
        joined = await client.recv_type("joined")
        player.on_frame(joined)
        for _ in range(3):
            await client.send({"type": "add_bot"})
        await bots_connected(client)
        await client.send({"type": "start"})
        prompt = await client.recv_until(lambda f: player.on_frame(f) is not None)
        assert prompt["type"] == "prompt"
        server.proc.send_signal(signal.SIGTERM)  # type: ignore[union-attr]
        with pytest.raises(ConnectionClosed):
            while True:
                parse_server(json.dumps(await client.recv(10)))
        return client, joined, player

    try:
        client, joined, player = asyncio.run(until_stopped())
        assert server.proc is not None
        out = server.output()
        assert server.proc.returncode == 0, out
    finally:
        server.stop()
    assert "stopping for a restart" in out
    notice = client.received[-1]
    assert notice["type"] == "shutdown" and notice["restart"] is True
    assert client.ws.close_code == 1012
    row = table_row(db, joined["table"])
    assert row is not None and row["state"] == "playing"
    stored = [e["seq"] for e in table_events(db, joined["table"])]
    seen = [f["seq"] for f in client.received if f.get("table") and f["type"] != "prompt"]
    assert max(seen) <= max(stored), "nothing was sent that is not on disk"

    # Started again, the seat is waiting and the match finishes.
    async def resume() -> dict[str, Any]:
        async with running_server(db) as (url2, srv):
            assert srv.tables[joined["table"]].round is not None
            back = await Client.connect(url2, "host", token=joined["token"], last_seq=player.seq)
            return await play(back, player, timeout=30)

    end = asyncio.run(resume())
    assert end["reason"] == "finished" and sum(end["scores"]) == 0


async def _started_table(url: str, rounds: int = 1) -> tuple[Client, dict[str, Any], BotPlayer]:
    client = await Client.connect(url, "host")
    joined, player = await started_table(client, rounds=rounds, moves=3, **FAST)
    return client, joined, player


async def test_a_table_that_cannot_be_rebuilt_is_frozen_and_the_others_resume(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    db = tmp_path / "z.db"
    async with running_server(db, seed="freeze") as (url, server):
        _, bad, _ = await _started_table(url)
        _, good, good_player = await _started_table(url)
    # Someone edits the record: a discard of another tile.
    with sqlite3.connect(db) as conn:
        idx, tile = conn.execute(
            "SELECT idx, tile FROM actions WHERE table_id=? AND act='discard' ORDER BY idx",
            (bad["table"],),
        ).fetchone()
        other = "1m" if tile != "1m" else "2m"
        conn.execute(
            "UPDATE actions SET tile=? WHERE table_id=? AND idx=?", (other, bad["table"], idx)
        )
    async with running_server(db, seed="freeze") as (url, server):
        assert "cannot resume its match" in caplog.text and f"table {bad['table']}" in caplog.text
        back = await Client.connect(url, "host", token=bad["token"])
        await back.recv_type("welcome")
        error = await back.recv_type("error")
        assert error["code"] == "table_frozen"
        back2 = await Client.connect(url, "host", token=good["token"], last_seq=good_player.seq)
        end = await play(back2, good_player, timeout=30)
        assert end["reason"] == "finished"
        # The frozen connection is not stuck: it may open a table of its own.
        await back.send({"type": "create_table", "name": "again", **FAST})
        assert (await back.recv_type("joined"))["seat"] == 0
    row = table_row(db, bad["table"])
    assert row is not None and row["state"] == "abandoned"
    assert main(["verify", "--db", str(db), "--table", bad["table"]]) == 1
    assert main(["verify", "--db", str(db), "--table", good["table"]]) == 0


async def test_verify_and_the_clients_check_every_fair_deal(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "z.db"
    async with running_server(db, seed="fair") as (url, server):
        client, joined, player = await _started_table(url, rounds=2)
        frames = list(client.received)
        end = await play(client, player, on_frame=frames.append, timeout=30)
    assert end["reason"] == "finished"
    table = joined["table"]
    # What a seat was sent: a commitment at each deal, opened at the end, matching its hand.
    started = [f for f in frames if f["type"] == "round_started"]
    ended = [f for f in frames if f["type"] == "round_ended"]
    assert len(started) == len(ended) == 2
    for s, e in zip(started, ended, strict=True):
        assert len(s["commitment"]) == 64 and len(e["deal"]["order"]) == 108
        assert (
            check_deal(s["commitment"], e["deal"], dealer=s["dealer"], seat=0, hand=s["hand"]) == []
        )
        wrong = sorted(s["hand"])[:-1] + ["9s" if sorted(s["hand"])[-1] != "9s" else "1m"]
        assert check_deal(s["commitment"], e["deal"], dealer=s["dealer"], seat=0, hand=wrong)
    assert started[0]["commitment"] != started[1]["commitment"]

    capsys.readouterr()
    assert main(["verify", "--db", str(db), "--table", table]) == 0
    out = capsys.readouterr().out
    assert f"table {table} round 1: ok" in out and f"table {table} round 2: ok" in out
    assert main(["verify", "--db", str(db), "--table", table, "--round", "2", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["rounds"][0]["ok"] is True
    assert main(["verify", "--db", str(db), "--table", table, "--round", "3"]) == 2
    assert main(["verify", "--db", str(db), "--table", "99"]) == 2
    assert main(["verify", "--db", str(tmp_path / "none.db"), "--table", table]) == 2
    assert main(["verify", "--db", str(db)]) == 2

    # A salt changed after the fact, a deal swapped, an event edited: each is caught.
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE rounds SET salt=? WHERE table_id=? AND round_no=1", ("00" * 16, table))
        hands = json.loads(
            conn.execute(
                "SELECT hands FROM rounds WHERE table_id=? AND round_no=2", (table,)
            ).fetchone()[0]
        )
        hands[0], hands[1] = hands[1], hands[0]
        conn.execute(
            "UPDATE rounds SET hands=? WHERE table_id=? AND round_no=2", (json.dumps(hands), table)
        )
    capsys.readouterr()
    assert main(["verify", "--db", str(db), "--table", table]) == 1
    out = capsys.readouterr().out
    assert "round 1: MISMATCH" in out and "commitment does not open" in out
    assert "round 2: MISMATCH" in out and "seed" in out
    events = round_events(db, table, 1)
    assert events  # the stored log is untouched by verify


async def test_a_player_who_dropped_before_the_end_sees_it_after_a_restart(
    tmp_path: Path,
) -> None:
    db = tmp_path / "z.db"
    async with running_server(db, seed="end", disconnect_grace=0.2) as (url, server):
        client = await Client.connect(url, "host")
        # Seat 0 deals (the seed was chosen for it): the match is still on when the host drops.
        await client.send(
            {
                "type": "create_table",
                "name": "t",
                "rounds": 1,
                "options": {"first_dealer": "seat0"},
                **FAST,
            }
        )
        joined = await client.recv_type("joined")
        for _ in range(3):
            await client.send({"type": "add_bot"})
        await bots_connected(client)
        await client.send({"type": "start"})
        last = (await client.recv_type("round_started"))["seq"]
        # The round waits for the dealer's first move, which the host never makes: it drops
        # while the match is on whatever the pace, and the server plays its seat once the
        # disconnection grace is over.
        watcher = await Client.connect(url, "看客")  # sees the end
        await watcher.send({"type": "watch", "table": joined["table"]})
        await watcher.recv_type("joined")
        await client.close()  # gone before the end
        await watcher.recv_type("match_ended", timeout=30)
        assert server.tables[joined["table"]].state == "finished"
        # The watcher leaves; a table left idle goes away as its task handles the leave,
        # before it handles the watcher's next join: the table is still there.
        await watcher.send({"type": "leave"})
        await watcher.recv_type("left")
        await watcher.send({"type": "watch", "table": joined["table"]})
        await watcher.recv_type("joined")
        assert joined["table"] in server.tables, "the table waits for the player who dropped"
        await watcher.close()
    async with running_server(db, seed="end") as (url, server):
        assert server.tables[joined["table"]].state == "finished" and server.resumed == 0
        back = await Client.connect(url, "host", token=joined["token"], last_seq=last)
        assert (await back.recv_type("joined"))["resume"] == "events"
        end = await back.recv_type("match_ended")
    assert end["reason"] == "finished" and sum(end["scores"]) == 0
    row = table_row(db, joined["table"])
    assert row is not None and row["scores"] == end["scores"]


async def test_events_lost_in_a_power_loss_are_not_caught_up_under_reused_numbers(
    tmp_path: Path,
) -> None:
    from protocol.messages import ROUND_EVENT_TYPES
    from rules.actions import Action
    from rules.options import make_options
    from rules.round import Round
    from server.storage.writer import Store

    db = tmp_path / "z.db"
    async with running_server(db, seed="power") as (url, server):
        client, joined, player = await _started_table(url, rounds=1)
        for _ in range(3):  # a few more moves, all seen by the client
            while (reply := player.on_frame(await client.recv())) is None:
                pass
            await client.send(reply)
        while player.on_frame(await client.recv()) is None:  # the table waits for the client
            pass
        table_id = joined["table"]
        seen = server.tables[table_id].seq
    # A power loss with synchronous=NORMAL: the last commits (two moves) never reached the disk.
    store = Store(db)
    stored = next(t for t in store.unfinished() if t.id == table_id)
    store.close()
    keep = len(stored.actions) - 2
    opts = make_options("guiyang", {})
    rnd = stored.rounds[-1]
    replay = Round.deal(opts, seed=int(rnd.seed), dealer=rnd.dealer, streak=rnd.streak)
    for seat, act, tile, _ in stored.actions[:keep]:
        replay.apply(Action.from_dict({"seat": seat, "act": act, "tile": tile}))
    engine = [e for e in stored.round_events if e["type"] in ROUND_EVENT_TYPES]
    cut = engine[len(replay.events) - 1]["seq"]
    with sqlite3.connect(db) as conn:
        conn.execute("DELETE FROM events WHERE table_id=? AND seq>?", (table_id, cut))
        conn.execute("DELETE FROM actions WHERE table_id=? AND idx>=?", (table_id, keep))
    assert cut < seen

    async with running_server(db, seed="power", disconnect_grace=0.01) as (url, server):
        table = server.tables[table_id]
        assert table.round is not None and table.seq == cut + 1
        watcher = await Client.connect(url, "看客")
        await watcher.send({"type": "watch", "table": table_id})
        # The seat is played for its absent player, past the old numbers.
        await watcher.recv_until(lambda f: f["type"] != "joined" and f.get("seq", 0) > seen + 5, 30)
        assert table.seq > seen + 5
        back = await Client.connect(url, "host", token=joined["token"], last_seq=seen)
        rejoined = await back.recv_type("joined")
        assert rejoined["resume"] == "snapshot", "numbers it saw were reused: no catch-up"
        snapshot = await back.recv_type("snapshot")
        assert snapshot["seq"] == rejoined["seq"]
        await watcher.close()


async def test_a_stopping_server_accepts_no_one_new_and_tells_everyone(tmp_path: Path) -> None:
    # Seeded: with this deal no one wins the one round before the host stops answering, so the
    # match is still unfinished when the server stops (unseeded, someone sometimes won first).
    async with running_server(tmp_path / "z.db", seed="stopping") as (url, server):
        watcher = await Client.connect(url, "看客")
        await watcher.recv_type("welcome")
        host, joined, _ = await _started_table(url)
        await watcher.send({"type": "watch", "table": joined["table"]})
        await watcher.recv_type("joined")
        stopping = asyncio.create_task(server.shutdown(server.ws_server, restart=True))
        await asyncio.sleep(0)
        with pytest.raises(OSError):
            await Client.connect(url, "late", open_timeout=2)
        await stopping
        for client in (host, watcher):
            with pytest.raises(ConnectionClosed):
                while True:
                    await client.recv(5)
            notice = client.received[-1]
            assert notice["type"] == "shutdown" and notice["restart"] is True
            assert client.ws.close_code == 1012
        assert server.tables[joined["table"]].task.done()
    row = table_row(tmp_path / "z.db", joined["table"])
    assert row is not None and row["state"] == "playing"
