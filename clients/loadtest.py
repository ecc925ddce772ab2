"""Many bot tables against a running server, over real websockets, measured (and, with
`--chaos`, with connections dropped at random).

Each table is four protocol clients (`clients.client.Client`) playing with `BotPlayer`: the first
creates the table, the others take seats, the first starts. Latency is measured from an action
being sent to its delivery at the other seats: for an `act` quoting `seq` N, each other seat's
receipt of event N+1 (the first thing that action caused) is one sample, timed when it arrives:
each seat's socket is read all along, also while its bot thinks about the frame before.

With `think` > 0 each bot waits a random time, uniform between half and one and a half times
`think`, before each answer, as people do: a fixed delay would keep every table in lockstep and
turn a steady load into bursts.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import time
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from websockets.exceptions import ConnectionClosed, InvalidHandshake

from clients.bot_player import BotPlayer
from clients.client import Client, ClientError
from clients.tracker import SeatTracker
from protocol.messages import TABLE_EVENT_TYPES


@dataclass
class Report:
    tables: int
    rounds: int
    rounds_completed: int = 0
    matches_completed: int = 0
    errors: int = 0
    error_samples: list[str] = field(default_factory=list)
    latencies: list[float] = field(default_factory=list)
    actions: int = 0
    zero_sum: bool = True
    elapsed_s: float = 0.0
    lags: list[float] = field(default_factory=list)
    chaos: float = 0.0
    reconnects: int = 0
    checks: int = 0  # rebuilt views compared with a fresh snapshot
    mismatches: int = 0
    mismatch_samples: list[str] = field(default_factory=list)
    fallbacks: int = 0
    fair_deals_checked: int = 0
    storage_notices: int = 0  # the server said its storage is failing: tables wait, not errors
    setup_retries: int = 0
    frames: int = 0  # frames the load test's clients received (every frame the server sent them)
    server_cpu_s: float | None = None  # the server's CPU over the run (its /metrics), if read

    def error(self, text: str) -> None:
        self.errors += 1
        if len(self.error_samples) < 10:
            self.error_samples.append(text[:300])

    def mismatch(self, text: str) -> None:
        self.mismatches += 1
        if len(self.mismatch_samples) < 10:
            self.mismatch_samples.append(text[:500])

    def to_dict(self) -> dict[str, Any]:
        lat = sorted(self.latencies)
        lags = sorted(self.lags)

        def pct(p: float, xs: list[float] = lat) -> float | None:
            if not xs:
                return None
            return round(xs[min(len(xs) - 1, int(p * len(xs)))] * 1000, 2)

        cpu = self.server_cpu_s

        def per(n: int) -> float | None:
            return round(cpu * 1e6 / n, 1) if cpu is not None and n else None

        return {
            "tables": self.tables,
            "rounds": self.rounds,
            "rounds_completed": self.rounds_completed,
            "matches_completed": self.matches_completed,
            "errors": self.errors,
            "error_samples": self.error_samples,
            "storage_notices": self.storage_notices,
            "setup_retries": self.setup_retries,
            "p50_ms": pct(0.50),
            "p90_ms": pct(0.90),
            "p99_ms": pct(0.99),
            "max_ms": round(lat[-1] * 1000, 2) if lat else None,
            "samples": len(lat),
            "actions": self.actions,
            "actions_per_s": round(self.actions / self.elapsed_s, 1) if self.elapsed_s else None,
            "zero_sum": self.zero_sum,
            "elapsed_s": round(self.elapsed_s, 2),
            "frames": self.frames,
            # The server's own CPU (process_cpu_seconds_total of its /metrics, read before and
            # after the run): what one action and one delivered frame cost it.
            "server_cpu_s": None if cpu is None else round(cpu, 3),
            "server_cpu_per_action_us": per(self.actions),
            "server_cpu_per_frame_us": per(self.frames),
            # How late this process's own event loop ran (a 10 ms timer): if this is high, the
            # load test itself, not the server, is the bottleneck.
            "client_lag_p99_ms": pct(0.99, lags),
            "chaos": self.chaos,
            "reconnects": self.reconnects,
            "views_compared": self.checks,
            "mismatches": self.mismatches,
            "mismatch_samples": self.mismatch_samples,
            "bot_fallbacks": self.fallbacks,
            "fair_deals_checked": self.fair_deals_checked,
        }


@dataclass
class Chaos:
    """Dropped connections: after each event a client receives it drops its connection with
    probability `p` (the TCP connection is cut, no close handshake), waits `delay` seconds
    (uniform in the range) and reconnects with its seat token: with the last `seq` it saw
    (the server sends what it missed), or one time in `snapshot_share` without (a snapshot).
    After every reconnect it asks for a fresh snapshot (`sync`) and compares it with the view
    it rebuilt (`clients.tracker.SeatTracker`): a difference is a mismatch."""

    p: float = 0.0
    delay: tuple[float, float] = (0.05, 0.5)
    snapshot_share: float = 0.2


class SeatClient:
    """One seat of a load-test table: plays it with a `BotPlayer`, rebuilds its view, and comes
    back by itself when its connection drops (chaos, or the server going away and returning)."""

    def __init__(
        self,
        url: str,
        name: str,
        client: Client,
        player: BotPlayer,
        report: Report,
        *,
        chaos: Chaos,
        rng: random.Random,
        think: Callable[[], float],
        reconnect_for: float,
    ) -> None:
        self.url = url
        self.name = name
        self.client = client
        self.player = player
        self.report = report
        self.chaos = chaos
        self.rng = rng
        self.think = think
        self.reconnect_for = reconnect_for
        self.tracker = SeatTracker(player.seat)
        self.resume_snapshot = False  # a snapshot that answers the resume is expected
        self.sync_pending = False  # the `sync` answer is expected
        self.last: str = ""  # the last frame type received (for a timeout's report)
        self.ended = False

    async def play(
        self,
        on_frame: Callable[[dict[str, Any], float], None],
        on_send: Callable[[dict[str, Any]], None],
    ) -> dict[str, Any]:
        """Play until `match_ended` (returned), through any number of dropped connections."""
        while True:
            try:
                end = await self._read(on_frame, on_send)
            except ConnectionClosed:
                end = None
            if end is not None:
                self.ended = True
                return end
            self.last = "dropped"
            await self._reconnect()

    async def _read(
        self,
        on_frame: Callable[[dict[str, Any], float], None],
        on_send: Callable[[dict[str, Any]], None],
    ) -> dict[str, Any] | None:
        """Handle frames in order until the match ends (returned) or the connection does
        (None). The socket is read by `_pump` all along, also while the bot thinks: each frame
        is timed when it arrives, not when this seat is done thinking about the one before."""
        client = self.client
        inbox: asyncio.Queue[tuple[float, str | bytes] | None] = asyncio.Queue()
        reader = asyncio.create_task(_pump(client.ws, inbox))
        try:
            while (item := await inbox.get()) is not None:
                end = await self._handle(item, on_frame, on_send)
                if end is not None:
                    return end if end else None
            return None
        finally:
            reader.cancel()

    async def _handle(
        self,
        item: tuple[float, str | bytes],
        on_frame: Callable[[dict[str, Any], float], None],
        on_send: Callable[[dict[str, Any]], None],
    ) -> dict[str, Any] | None:
        """One frame: the match's end (returned), `{}` when chaos cuts the connection here,
        else None."""
        client, tracker, player = self.client, self.tracker, self.player
        arrived, raw = item
        self.report.frames += 1
        frame = json.loads(raw)
        kind = frame["type"]
        self.last = kind if kind != "error" else f"error {frame['code']}"
        on_frame(frame, arrived)
        if kind == "snapshot" and self.sync_pending and not self.resume_snapshot:
            self.sync_pending = False
            self.report.checks += 1
            problems = tracker.differences(frame)
            if problems:
                self.report.mismatch(f"{self.name}: {'; '.join(problems)}")
                tracker.on_frame(frame)  # go on from the server's view
            return None
        tracker.on_frame(frame)
        reply = player.on_frame(frame)
        if kind == "snapshot" and self.resume_snapshot:
            self.resume_snapshot = False
            info = frame["info"]
            if info["state"] == "finished":  # it ended while we were away: the standings
                return {
                    "type": "match_ended",
                    "table": frame["table"],
                    "seq": frame["seq"],
                    "scores": info["scores"],
                    "rounds_played": info["round_no"],
                    "reason": "finished" if info["round_no"] == info["rounds"] else "abandoned",
                }
        if kind == "error" and frame["code"] in ("bad_token", "table_frozen"):
            raise ConnectionError(f"{self.name}: {frame['code']}: {frame['message']}")
        if kind == "joined" and self.sync_pending:
            self.resume_snapshot = frame["resume"] == "snapshot"
            await client.send({"type": "sync"})
        if reply is not None:
            delay = self.think()
            if delay > 0:
                await asyncio.sleep(delay)
            on_send(reply)
            await client.send(reply)
        if kind == "match_ended":
            return frame
        if self.chaos.p and kind in TABLE_EVENT_TYPES and self.rng.random() < self.chaos.p:
            transport = client.ws.transport
            if transport is not None:
                transport.abort()  # a cut connection: no close frame, no goodbye
            return {}
        return None

    async def _reconnect(self) -> None:
        """Back with the seat token, retrying while the server is away."""
        lo, hi = self.chaos.delay
        await asyncio.sleep(lo + (hi - lo) * self.rng.random())
        deadline = time.monotonic() + self.reconnect_for
        last_seq: int | None = self.tracker.seq
        if self.rng.random() < self.chaos.snapshot_share:
            last_seq = None
        while True:
            try:
                client = await Client.connect(
                    self.url,
                    self.name,
                    token=self.player.token,
                    last_seq=last_seq,
                    open_timeout=5,
                )
                break
            except (OSError, TimeoutError, InvalidHandshake) as err:
                if time.monotonic() > deadline:
                    raise ConnectionError(f"{self.name}: could not reconnect: {err}") from None
                await asyncio.sleep(0.1)
        with contextlib.suppress(Exception):
            await self.client.close()
        self.client = client
        self.report.reconnects += 1
        self.sync_pending = True
        self.resume_snapshot = False


async def _pump(ws: Any, inbox: asyncio.Queue[tuple[float, str | bytes] | None]) -> None:
    """Every frame `ws` receives, with when it arrived (`time.perf_counter`), into `inbox`,
    then None when the connection ends (closed or cut: the seat comes back either way)."""
    try:
        async for raw in ws:
            inbox.put_nowait((time.perf_counter(), raw))
    except ConnectionClosed:
        pass
    finally:
        inbox.put_nowait(None)


SETUP_TRIES = 8  # a set-up message refused while the server's storage fails: tried again


def seen_error(report: Report, where: str, frame: dict[str, Any]) -> None:
    """An error frame during play: a `storage_unavailable` notice (the server tells everyone
    its storage is failing; the tables wait and go on) is counted apart, not as an error.

    >>> r = Report(tables=1, rounds=1)
    >>> seen_error(r, "t", {"code": "storage_unavailable", "message": "later"})
    >>> seen_error(r, "t", {"code": "not_your_turn", "message": "no"})
    >>> r.storage_notices, r.errors
    (1, 1)
    """
    if frame["code"] == "storage_unavailable":
        report.storage_notices += 1
    else:
        report.error(f"{where}: {frame['code']}: {frame['message']}")


async def ask_until_stored(
    client: Client, message: dict[str, Any], answer: str, report: Report
) -> dict[str, Any]:
    """Send a set-up message and read its answer; while the server refuses it with
    `storage_unavailable`, wait (0.5 s, doubling to 8 s) and send it again."""
    delay = 0.5
    for attempt in range(SETUP_TRIES):
        await client.send(message)
        try:
            return await client.recv_type(answer)
        except ClientError as err:
            if not str(err).startswith("storage_unavailable") or attempt == SETUP_TRIES - 1:
                raise
        report.setup_retries += 1
        await asyncio.sleep(delay)
        delay = min(delay * 2, 8.0)
    raise AssertionError("unreachable")


async def run_table(
    url: str,
    index: int,
    report: Report,
    *,
    rounds: int,
    think: float,
    table_options: dict[str, Any],
    timeout: float,
    chaos: Chaos | None = None,
    reconnect_for: float = 30.0,
) -> None:
    chaos = chaos or Chaos()
    clients: list[Client] = []
    seats: list[SeatClient] = []
    sent: dict[
        int, tuple[float, int]
    ] = {}  # quoted seq → (when the last act quoting it left, seat)
    try:
        for seat in range(4):
            clients.append(await Client.connect(url, f"lt{index}-{seat}"))
        host = clients[0]
        await host.recv_type("welcome")
        create = {"type": "create_table", "name": f"load {index}", "rounds": rounds}
        joined = [await ask_until_stored(host, {**create, **table_options}, "joined", report)]
        table = joined[0]["table"]
        for c in clients[1:]:
            await c.recv_type("welcome")
            take = {"type": "take_seat", "table": table}
            joined.append(await ask_until_stored(c, take, "joined", report))
        await host.send({"type": "start"})
        players = [BotPlayer(seed=f"{index}:{seat}") for seat in range(4)]
        rng = random.Random(index)

        def pause() -> float:
            return think * (0.5 + rng.random())

        for player, j in zip(players, joined, strict=True):
            player.on_frame(j)
        seats = [
            SeatClient(
                url,
                f"lt{index}-{i}",
                c,
                p,
                report,
                chaos=chaos,
                rng=random.Random(f"chaos:{index}:{i}"),
                think=pause,
                reconnect_for=reconnect_for,
            )
            for i, (c, p) in enumerate(zip(clients, players, strict=True))
        ]
        for s, j in zip(seats, joined, strict=True):
            s.tracker.on_frame(j)
        report.frames += sum(len(c.received) for c in clients)  # the set-up's frames
        ended: set[int] = set()  # the seqs of the round ends seen at this table

        def watcher(seat: int) -> Any:
            def on_frame(frame: dict[str, Any], arrived: float) -> None:
                kind = frame["type"]
                if kind == "error":
                    seen_error(report, f"table {table} seat {seat}", frame)
                elif kind in TABLE_EVENT_TYPES:
                    cause = sent.get(frame["seq"] - 1)
                    if cause is not None and cause[1] != seat:
                        report.latencies.append(arrived - cause[0])
                    if kind == "round_ended" and frame["seq"] not in ended:
                        ended.add(frame["seq"])  # each seat gets it, or missed it away
                        report.rounds_completed += 1
                        if sum(frame["result"]["net"]) != 0:
                            report.zero_sum = False

            return on_frame

        def sender(seat: int) -> Any:
            def on_send(reply: dict[str, Any]) -> None:
                if reply["type"] != "act":
                    return  # `next_round` between rounds: not a move
                sent[reply["seq"]] = (time.perf_counter(), seat)
                report.actions += 1
                stale = reply["seq"] - 64
                sent.pop(stale, None)

            return on_send

        async with asyncio.timeout(timeout):
            ends = await asyncio.gather(
                *(s.play(watcher(i), sender(i)) for i, s in enumerate(seats))
            )
        # A round whose end every seat missed (each was away and came back to a snapshot).
        report.rounds_completed += max(0, ends[0]["rounds_played"] - len(ended))
        scores = [tuple(e["scores"]) for e in ends]
        if len(set(scores)) != 1 or sum(scores[0]) != 0:
            report.zero_sum = False
            report.error(f"table {table}: scores {scores}")
        fallbacks = sum(p.fallbacks for p in players)
        if fallbacks:
            if chaos.p:
                # A bot rebuilt from a snapshot may not know it passed a win (过水); its pick is
                # then not offered and it plays the default. Counted, not an error.
                report.fallbacks += fallbacks
            else:
                report.error(f"table {table}: {fallbacks} bot picks were not among the prompt's")
        for s in seats:
            report.fair_deals_checked += s.tracker.fair_checked
            for problem in s.tracker.fair_problems:
                report.error(f"table {table} {s.name}: fair deal: {problem}")
        if ends[0]["rounds_played"] == rounds and ends[0]["reason"] == "finished":
            report.matches_completed += 1
        else:
            report.error(f"table {table}: match ended {ends[0]['reason']}")
    except Exception as err:  # one table's failure is counted, the others go on
        waiting = ", ".join(
            f"{s.name} after {s.last} at seq {s.tracker.seq}" for s in seats if not s.ended
        )
        report.error(f"table {index}: {type(err).__name__}: {err} ({waiting})")
    finally:
        live = [s.client for s in seats] or clients
        await asyncio.gather(*(c.close() for c in live), return_exceptions=True)


async def run(
    url: str,
    tables: int,
    rounds: int,
    *,
    think: float = 0.0,
    ramp: float = 0.005,
    table_options: dict[str, Any] | None = None,
    timeout: float = 900.0,
    chaos: Chaos | None = None,
    reconnect_for: float = 30.0,
    report: Report | None = None,
) -> Report:
    """Play `tables` matches of `rounds` rounds at once; `ramp` seconds between table starts.

    With `chaos`, clients drop their connections at random and come back (see `Chaos`); any
    client whose connection drops (the server restarting, too) reconnects for up to
    `reconnect_for` seconds. Pass a `report` to watch it fill while the run goes on."""
    chaos = chaos or Chaos()
    report = report if report is not None else Report(tables, rounds)
    report.chaos = chaos.p
    options = {"claim_min_ms": 0, "turn_seconds": 15, "bank_seconds": 30}
    options.update(table_options or {})
    cpu_before = await asyncio.to_thread(server_cpu, url)
    start = time.perf_counter()
    lag_task = asyncio.create_task(_watch_lag(report))

    async def delayed(i: int) -> None:
        await asyncio.sleep(i * ramp)
        await run_table(
            url,
            i,
            report,
            rounds=rounds,
            think=think,
            table_options=options,
            timeout=timeout,
            chaos=chaos,
            reconnect_for=reconnect_for,
        )

    await asyncio.gather(*(delayed(i) for i in range(tables)))
    report.elapsed_s = time.perf_counter() - start
    lag_task.cancel()
    cpu_after = await asyncio.to_thread(server_cpu, url)
    if cpu_before is not None and cpu_after is not None:
        report.server_cpu_s = cpu_after - cpu_before
    return report


def metrics_url(url: str) -> str:
    """The server's `/metrics` address beside its websocket URL.

    >>> metrics_url("ws://127.0.0.1:8765"), metrics_url("wss://h:1/x")
    ('http://127.0.0.1:8765/metrics', 'https://h:1/metrics')
    """
    scheme, _, rest = url.partition("://")
    host = rest.split("/", 1)[0]
    return f"{'https' if scheme == 'wss' else 'http'}://{host}/metrics"


def cpu_from_metrics(text: str) -> float | None:
    """`process_cpu_seconds_total` from a Prometheus text exposition, or None.

    >>> cpu_from_metrics("# HELP x\\nprocess_cpu_seconds_total 12.5\\nother 1\\n")
    12.5
    """
    for line in text.splitlines():
        if line.startswith("process_cpu_seconds_total "):
            return float(line.split()[1])
    return None


def server_cpu(url: str, timeout: float = 10.0) -> float | None:
    """The server's CPU seconds so far, from its own `/metrics`; None if it has none (another
    server, or no process collector on its platform)."""
    try:
        with urllib.request.urlopen(metrics_url(url), timeout=timeout) as answer:
            return cpu_from_metrics(answer.read().decode())
    except (OSError, ValueError):
        return None


async def _watch_lag(report: Report) -> None:
    while True:
        t = time.perf_counter()
        await asyncio.sleep(0.01)
        report.lags.append(time.perf_counter() - t - 0.01)
