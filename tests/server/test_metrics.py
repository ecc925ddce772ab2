"""`GET /metrics`: a real server on loopback, scraped over HTTP and parsed with prometheus-client's
own text parser; the counts are checked against what the database stored."""

from __future__ import annotations

import asyncio
import contextlib
import json
import sqlite3
from pathlib import Path
from urllib.parse import urlsplit

from prometheus_client.parser import text_string_to_metric_families
from websockets.exceptions import ConnectionClosed

from clients.bot_player import BotPlayer
from clients.client import play
from clients.loadtest import run as run_loadtest
from server.app import Server
from server.storage.writer import Store
from server.testkit import running_server
from tests.support import FAST, connect


async def http_get(
    url: str, path: str, accept: str | None = None
) -> tuple[int, dict[str, str], bytes]:
    """One plain HTTP GET to the server's port: (status, headers, body)."""
    where = urlsplit(url)
    assert where.hostname is not None and where.port is not None
    reader, writer = await asyncio.open_connection(where.hostname, where.port)
    extra = f"Accept: {accept}\r\n" if accept else ""
    writer.write(f"GET {path} HTTP/1.1\r\nHost: {where.netloc}\r\n{extra}\r\n".encode())
    await writer.drain()
    async with asyncio.timeout(10):
        raw = await reader.read()  # the server closes after answering
    writer.close()
    head, _, body = raw.partition(b"\r\n\r\n")
    lines = head.decode().split("\r\n")
    status = int(lines[0].split()[1])
    headers: dict[str, str] = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        assert name.lower() not in headers, f"{name} twice"
        headers[name.lower()] = value.strip()
    assert int(headers["content-length"]) == len(body)
    return status, headers, body


class Scrape:
    """The samples of one scrape: `scrape["zhuoji_actions_total", {"by": "bot"}]`."""

    def __init__(self, text: str) -> None:
        self.samples: dict[tuple[str, frozenset[tuple[str, str]]], float] = {}
        self.types: dict[str, str] = {}
        for family in text_string_to_metric_families(text):
            self.types[family.name] = family.type
            for s in family.samples:
                self.samples[s.name, frozenset(s.labels.items())] = s.value

    def __getitem__(self, key: str | tuple[str, dict[str, str]]) -> float:
        name, labels = (key, {}) if isinstance(key, str) else key
        return self.samples[name, frozenset(labels.items())]

    def total(self, name: str) -> float:
        """The sum over every label set of `name`."""
        return sum(v for (n, _), v in self.samples.items() if n == name)


async def scrape(url: str) -> Scrape:
    status, headers, body = await http_get(url, "/metrics")
    assert status == 200 and headers["content-type"].startswith("text/plain")
    return Scrape(body.decode())


def stored_actions(db: Path) -> list[tuple[str, int, int, str]]:
    """(table, seat, auto, the seat's kind) of every stored action an event showed: every
    turn's move, and each claim that won its window (a 胡 outranks a 碰 or 杠; a pass shows
    nothing). `/metrics` counts those and no other (issue 22)."""
    with sqlite3.connect(db) as con:
        seats = {
            table: [s["kind"] for s in json.loads(raw)]
            for table, raw in con.execute("SELECT id, seats FROM tables")
        }
        rows = con.execute(
            "SELECT table_id, seat, auto, act, phase FROM actions ORDER BY table_id, round_no, idx"
        ).fetchall()
    shown: list[tuple[str, int, int]] = []
    window: list[tuple[str, int, int, str]] = []

    def close_window() -> None:
        won = any(act == "hu" for *_, act in window)
        shown.extend(
            (t, seat, auto)
            for t, seat, auto, act in window
            if act == "hu" or (act in ("pong", "gang") and not won)
        )
        window.clear()

    for t, seat, auto, act, phase in rows:
        if phase == "turn":
            close_window()
            shown.append((t, seat, auto))
        else:
            window.append((t, seat, auto, act))
    close_window()
    return [(t, seat, auto, seats[t][seat]) for t, seat, auto in shown]


async def test_the_counters_follow_a_match_and_what_was_refused(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    async with running_server(db, seed="m", disconnect_grace=60) as (url, server):
        before = await scrape(url)
        assert before["zhuoji_build_info", {"version": "unknown"}] == 1
        assert before["zhuoji_connections"] == 0
        assert before.total("zhuoji_tables") == 0
        assert before["zhuoji_rounds_played_total"] == 0
        assert before["zhuoji_action_latency_seconds_count"] == 0
        assert before.types["zhuoji_action_latency_seconds"] == "histogram"
        assert before["zhuoji_storage_fault"] == 0
        assert before["process_cpu_seconds_total"] > 0

        # A host and three of the server's bots; the host drops once and comes back.
        host = await connect(url, "host")
        await host.send({"type": "create_table", "name": "m", "rounds": 1, **FAST})
        joined = await host.recv_type("joined")
        player = BotPlayer(seed="host")
        player.on_frame(joined)
        waiting = await scrape(url)
        assert waiting["zhuoji_connections"] == 1
        assert waiting["zhuoji_tables", {"state": "waiting"}] == 1
        assert waiting["zhuoji_tables_created_total"] == 1
        for _ in range(3):
            await host.send({"type": "add_bot"})
        await host.send({"type": "start"})
        while (frame := await host.recv())["type"] != "prompt":
            player.on_frame(frame)
        playing = await scrape(url)
        assert playing["zhuoji_tables", {"state": "playing"}] == 1
        assert playing["zhuoji_tables", {"state": "waiting"}] == 0
        assert playing["zhuoji_matches_started_total"] == 1
        await host.close()
        host = await connect(url, "host", token=joined["token"], last_seq=player.seq)
        ended = await play(host, player, timeout=60)
        assert ended["reason"] == "finished"
        await host.close()

        # Two tables of four bot clients.
        report = await run_loadtest(url, 2, 2, think=0.0, table_options=dict(FAST), timeout=60)
        assert report.to_dict()["rounds_completed"] == 4

        # Refusals: bad JSON, a move away from a table, an unknown token, a flood.
        odd = await connect(url, "odd")
        await odd.send_raw("{")
        assert (await odd.recv())["code"] == "bad_json"
        await odd.send({"type": "act", "seq": 1, "act": "pass"})
        assert (await odd.recv())["code"] == "not_at_table"
        await odd.close()
        stranger = await connect(url, "stranger", token="A" * 24)
        assert (await stranger.recv())["code"] == "bad_token"
        await stranger.close()
        server.rate_burst, server.rate_per_second = 3, 0.001
        flood = await connect(url, "flood")
        for _ in range(6):
            await flood.send({"type": "list_tables"})
        codes = []
        with contextlib.suppress(ConnectionClosed):
            async with asyncio.timeout(10):
                async for raw in flood.ws:
                    codes.append(json.loads(raw).get("code"))
        assert codes[-1] == "rate_limited" and flood.ws.close_code == 1008

        after = await scrape(url)

    actions = stored_actions(db)
    by_player = sum(1 for _, _, auto, kind in actions if not auto and kind == "human")
    by_bot = sum(1 for _, _, auto, kind in actions if not auto and kind == "bot")
    assert by_player > 100 and by_bot > 15  # moves an event showed (passes are not)
    assert after["zhuoji_actions_total", {"by": "player"}] == by_player
    assert after["zhuoji_actions_total", {"by": "bot"}] == by_bot
    assert after.total("zhuoji_actions_total") == len(actions)
    # Every move a client made that an event showed was timed, once.
    assert after["zhuoji_action_latency_seconds_count"] == by_player
    assert after["zhuoji_action_latency_seconds_bucket", {"le": "+Inf"}] == by_player
    assert 0 < after["zhuoji_action_latency_seconds_sum"] / by_player < 5
    p50 = after["zhuoji_action_latency_recent_seconds", {"quantile": "0.5"}]
    p99 = after["zhuoji_action_latency_recent_seconds", {"quantile": "0.99"}]
    assert 0 < p50 <= p99

    assert after["zhuoji_rounds_played_total"] == 1 + 4
    assert after["zhuoji_tables_created_total"] == 3
    assert after["zhuoji_matches_started_total"] == 3
    assert after["zhuoji_matches_ended_total", {"reason": "finished"}] == 3
    assert after["zhuoji_matches_ended_total", {"reason": "abandoned"}] == 0
    assert after["zhuoji_resumes_total", {"how": "events"}] == 1
    assert after["zhuoji_resumes_total", {"how": "snapshot"}] == 0
    assert after["zhuoji_resumes_total", {"how": "refused"}] == 1
    assert after["zhuoji_refused_total", {"code": "bad_json"}] == 1
    assert after["zhuoji_refused_total", {"code": "not_at_table"}] == 1
    assert after["zhuoji_refused_total", {"code": "bad_token"}] == 1
    assert after["zhuoji_refused_total", {"code": "rate_limited"}] == 1
    assert after["zhuoji_rate_limit_closes_total"] == 1
    # 1 host (twice) + 8 load-test clients + odd, stranger, flood.
    assert after["zhuoji_connections_opened_total"] == 13
    assert after["zhuoji_messages_received_total"] > by_player
    commits = after["zhuoji_db_commit_seconds_count"]
    assert 0 < commits <= after["zhuoji_db_writes_total"]
    assert 0 < after["zhuoji_db_commit_seconds_sum"] < commits  # well under a second each


async def test_each_server_counts_alone_and_healthz_stays(tmp_path: Path) -> None:
    async with (
        running_server(tmp_path / "a.db") as (url_a, a),
        running_server(tmp_path / "b.db") as (url_b, b),
    ):
        assert a.metrics.registry is not b.metrics.registry
        client = await connect(url_a, "solo")
        await client.send({"type": "create_table", "name": "t", **FAST})
        await client.recv_type("joined")
        assert (await scrape(url_a))["zhuoji_tables_created_total"] == 1
        assert (await scrape(url_b))["zhuoji_tables_created_total"] == 0
        assert (await scrape(url_b))["zhuoji_connections"] == 0
        status, _, body = await http_get(url_a, "/healthz")
        assert status == 200 and body == b"ok 1 tables\n"
        await client.close()
        status, headers, body = await http_get(url_a, "/metrics?from=test")
        assert status == 200 and b"zhuoji_tables_created_total 1.0" in body
        status, headers, body = await http_get(
            url_a, "/metrics", accept="application/openmetrics-text; version=1.0.0"
        )
        assert status == 200 and headers["content-type"].startswith("application/openmetrics-text")
        assert body.endswith(b"# EOF\n")
        # Not an endpoint: the websocket handshake is asked for, as before.
        status, _, _ = await http_get(url_a, "/nothing")
        assert status == 426


async def test_a_table_of_server_bots_counts_bot_moves_and_no_latency(tmp_path: Path) -> None:
    """Moves nobody sent (the server's bots, 托管) are counted but not timed."""
    db = tmp_path / "b.db"
    async with running_server(db, seed="b") as (url, server):
        host = await connect(url, "host")
        await host.send({"type": "create_table", "name": "b", "rounds": 1, **FAST})
        await host.recv_type("joined")
        for _ in range(3):
            await host.send({"type": "add_bot"})
        await host.send({"type": "auto", "on": True})
        await host.send({"type": "start"})
        await host.recv_type("match_ended", timeout=60)
        after = await scrape(url)
        await host.close()
    actions = stored_actions(db)
    auto = sum(
        1 for _, _, played_by_server, kind in actions if played_by_server and kind == "human"
    )
    assert after["zhuoji_actions_total", {"by": "player"}] == 0
    assert after["zhuoji_actions_total", {"by": "auto"}] == auto > 0
    assert after["zhuoji_actions_total", {"by": "bot"}] == len(actions) - auto > 30
    assert after["zhuoji_action_latency_seconds_count"] == 0
    assert after["zhuoji_rounds_played_total"] == 1


async def test_the_version_label_is_the_one_given(tmp_path: Path) -> None:
    store = Store(tmp_path / "v.db")
    try:
        async with Server(store, version="9.9.9").listen("127.0.0.1", 0) as ws:
            port = next(iter(ws.sockets)).getsockname()[1]
            got = await scrape(f"ws://127.0.0.1:{port}")
    finally:
        store.close()
    assert got["zhuoji_build_info", {"version": "9.9.9"}] == 1


async def test_the_claim_windows_pause_is_left_out_of_the_latency(tmp_path: Path) -> None:
    """Bots answer a claim prompt at once, inside the window's one-second minimum: what
    follows waits for the window (the clients see it), but the server's latency leaves that
    wait out. An answer held until the window closes makes no frame when it arrives, so it is
    counted as a move but not timed. (The window is long, a second, so that "left out" reads
    as "under a second" however slow a loaded machine makes each move.)"""
    hold = {"claim_min_ms": 1000, "turn_seconds": 0, "bank_seconds": 0}
    async with running_server(tmp_path / "h.db", seed="h") as (url, server):
        report = (
            await run_loadtest(url, 1, 1, think=0.0, table_options=hold, timeout=120)
        ).to_dict()
        after = await scrape(url)
    assert report["rounds_completed"] == 1
    assert report["max_ms"] >= 900  # some move's result waited for the window
    timed = after["zhuoji_action_latency_seconds_count"]
    moves = after["zhuoji_actions_total", {"by": "player"}]
    assert 20 < timed <= moves
    assert after["zhuoji_action_latency_seconds_bucket", {"le": "1.0"}] == timed
