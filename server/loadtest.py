"""Many bot tables against a running server, over real websockets, measured.

Each table is four protocol clients (`server.client.Client`) playing with `BotPlayer`: the first
creates the table, the others take seats, the first starts. Latency is measured from an action
being sent to its delivery at the other seats: for an `act` quoting `seq` N, each other seat's
receipt of event N+1 (the first thing that action caused) is one sample.

With `think` > 0 each bot waits a random time, uniform between half and one and a half times
`think`, before each answer, as people do: a fixed delay would keep every table in lockstep and
turn a steady load into bursts.
"""

from __future__ import annotations

import asyncio
import random
import time
from dataclasses import dataclass, field
from typing import Any

from server.bot_client import BotPlayer
from server.client import Client, play

EVENT_TYPES = frozenset(
    {
        "round_started", "drew", "discarded", "claimed", "concealed_gang", "add_gang_declared",
        "added_gang", "won", "exhausted", "flipped", "round_ended", "auto_played", "seat_status",
        "match_ended", "match_started", "table",
    }
)  # fmt: skip


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

    def error(self, text: str) -> None:
        self.errors += 1
        if len(self.error_samples) < 10:
            self.error_samples.append(text[:300])

    def to_dict(self) -> dict[str, Any]:
        lat = sorted(self.latencies)
        lags = sorted(self.lags)

        def pct(p: float, xs: list[float] = lat) -> float | None:
            if not xs:
                return None
            return round(xs[min(len(xs) - 1, int(p * len(xs)))] * 1000, 2)

        return {
            "tables": self.tables,
            "rounds": self.rounds,
            "rounds_completed": self.rounds_completed,
            "matches_completed": self.matches_completed,
            "errors": self.errors,
            "error_samples": self.error_samples,
            "p50_ms": pct(0.50),
            "p90_ms": pct(0.90),
            "p99_ms": pct(0.99),
            "max_ms": round(lat[-1] * 1000, 2) if lat else None,
            "samples": len(lat),
            "actions": self.actions,
            "actions_per_s": round(self.actions / self.elapsed_s, 1) if self.elapsed_s else None,
            "zero_sum": self.zero_sum,
            "elapsed_s": round(self.elapsed_s, 2),
            # How late this process's own event loop ran (a 10 ms timer): if this is high, the
            # load test itself, not the server, is the bottleneck.
            "client_lag_p99_ms": pct(0.99, lags),
        }


async def run_table(
    url: str,
    index: int,
    report: Report,
    *,
    rounds: int,
    think: float,
    table_options: dict[str, Any],
    timeout: float,
) -> None:
    clients: list[Client] = []
    sent: dict[
        int, tuple[float, int]
    ] = {}  # quoted seq → (when the last act quoting it left, seat)
    try:
        for seat in range(4):
            clients.append(await Client.connect(url, f"lt{index}-{seat}"))
        host = clients[0]
        await host.recv_type("welcome")
        await host.send({"type": "create_table", "name": f"load {index}", "rounds": rounds,
                         **table_options})  # fmt: skip
        joined = [await host.recv_type("joined")]
        table = joined[0]["table"]
        for c in clients[1:]:
            await c.recv_type("welcome")
            await c.send({"type": "take_seat", "table": table})
            joined.append(await c.recv_type("joined"))
        await host.send({"type": "start"})
        players = [BotPlayer(seed=f"{index}:{seat}") for seat in range(4)]
        rng = random.Random(index)

        def pause() -> float:
            return think * (0.5 + rng.random())

        for player, j in zip(players, joined, strict=True):
            player.on_frame(j)

        def watcher(seat: int) -> Any:
            def on_frame(frame: dict[str, Any]) -> None:
                kind = frame["type"]
                if kind == "error":
                    report.error(f"table {table} seat {seat}: {frame['code']}: {frame['message']}")
                elif kind in EVENT_TYPES:
                    cause = sent.get(frame["seq"] - 1)
                    if cause is not None and cause[1] != seat:
                        report.latencies.append(time.perf_counter() - cause[0])
                    if kind == "round_ended" and seat == 0:
                        report.rounds_completed += 1
                        if sum(frame["result"]["net"]) != 0:
                            report.zero_sum = False

            return on_frame

        def sender(seat: int) -> Any:
            def on_send(reply: dict[str, Any]) -> None:
                sent[reply["seq"]] = (time.perf_counter(), seat)
                report.actions += 1
                stale = reply["seq"] - 64
                sent.pop(stale, None)

            return on_send

        ends = await asyncio.gather(
            *(
                play(c, p, think=pause, on_frame=watcher(i), on_send=sender(i), timeout=timeout)
                for i, (c, p) in enumerate(zip(clients, players, strict=True))
            )
        )
        scores = [tuple(e["scores"]) for e in ends]
        if len(set(scores)) != 1 or sum(scores[0]) != 0:
            report.zero_sum = False
            report.error(f"table {table}: scores {scores}")
        fallbacks = sum(p.fallbacks for p in players)
        if fallbacks:
            report.error(f"table {table}: {fallbacks} bot picks were not among the prompt's")
        if ends[0]["rounds_played"] == rounds and ends[0]["reason"] == "finished":
            report.matches_completed += 1
        else:
            report.error(f"table {table}: match ended {ends[0]['reason']}")
    except Exception as err:  # one table's failure is counted, the others go on
        report.error(f"table {index}: {type(err).__name__}: {err}")
    finally:
        await asyncio.gather(*(c.close() for c in clients), return_exceptions=True)


async def run(
    url: str,
    tables: int,
    rounds: int,
    *,
    think: float = 0.0,
    ramp: float = 0.005,
    table_options: dict[str, Any] | None = None,
    timeout: float = 900.0,
) -> Report:
    """Play `tables` matches of `rounds` rounds at once; `ramp` seconds between table starts."""
    report = Report(tables, rounds)
    options = {"claim_min_ms": 0, "turn_seconds": 15, "bank_seconds": 30}
    options.update(table_options or {})
    start = time.perf_counter()
    lag_task = asyncio.create_task(_watch_lag(report))

    async def delayed(i: int) -> None:
        await asyncio.sleep(i * ramp)
        await run_table(
            url, i, report, rounds=rounds, think=think, table_options=options, timeout=timeout
        )

    await asyncio.gather(*(delayed(i) for i in range(tables)))
    report.elapsed_s = time.perf_counter() - start
    lag_task.cancel()
    return report


async def _watch_lag(report: Report) -> None:
    while True:
        t = time.perf_counter()
        await asyncio.sleep(0.01)
        report.lags.append(time.perf_counter() - t - 0.01)
