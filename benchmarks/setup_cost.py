"""The server's CPU to set a table up, stage by stage (issue 26: the 500-table ramp).

    python benchmarks/setup_cost.py [--tables 100] [--repeat 3] [--pin] [--before DIR] [--json]

At 500 tables with `--ramp-ms 40` the last tables connect while the first ones play: what each
costs to set up is added to the busiest seconds of the run. This starts `zhuoji serve` (this
checkout's, and `--before`'s with it: side by side, alternating) on a fresh database and sets up
`--tables` tables from this process, all tables at once, one stage at a time, reading the
server's CPU (/proc, all threads) between the stages:

- **connect**: four websocket connections a table (the handshake) and their `hello` / `welcome`;
- **seat**: the first creates the table (`create_table`, `claim_min_ms` 0 as the load test), the
  three others take its seats (`take_seat`), each answered by `joined`;
- **start**: the host starts the match and every seat has its first frame of the deal.

Printed: the server's µs of CPU per table for each stage and in all (medians over the repeats).
No move is played: the tables are left waiting (the server stops after).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.relay import (  # noqa: E402
    LOADGEN_CPU,
    free_port,
    process_cpu,
    serve_args,
    server_env,
    started_server,
)
from clients.client import Client  # noqa: E402

STAGES = ("connect", "seat", "start")


async def set_up(url: str, tables: int, pid: int) -> dict[str, float]:
    """Set up `tables` tables, stage by stage; the server's CPU seconds spent in each."""
    spent: dict[str, float] = {}
    cpu = process_cpu(pid)

    def stage(name: str) -> None:
        nonlocal cpu
        now = process_cpu(pid)
        spent[name], cpu = now - cpu, now

    seats: list[list[Client]] = []

    async def connect(i: int) -> list[Client]:
        clients = [await Client.connect(url, f"s{i}-{s}", open_timeout=60) for s in range(4)]
        for c in clients:
            await c.recv_type("welcome", 60)
        return clients

    seats = list(await asyncio.gather(*(connect(i) for i in range(tables))))
    stage("connect")

    async def seat(i: int, clients: list[Client]) -> None:
        host, *others = clients
        await host.send({"type": "create_table", "name": f"s{i}", "rounds": 1, "claim_min_ms": 0})
        table = (await host.recv_type("joined", 60))["table"]
        for c in others:
            await c.send({"type": "take_seat", "table": table})
            await c.recv_type("joined", 60)

    await asyncio.gather(*(seat(i, c) for i, c in enumerate(seats)))
    stage("seat")

    async def start(clients: list[Client]) -> None:
        marks = [len(c.received) for c in clients]
        await clients[0].send({"type": "start"})
        for c, mark in zip(clients, marks, strict=True):
            while not any("seq" in f for f in c.received[mark:]):
                await c.recv(60)

    await asyncio.gather(*(start(c) for c in seats))
    stage("start")
    await asyncio.gather(*(c.close() for clients in seats for c in clients))
    return spent


def run_one(kind: str, tables: int, args: argparse.Namespace) -> dict[str, Any]:
    root = Path(args.before).resolve() if kind == "before" else ROOT
    port = free_port()
    with tempfile.TemporaryDirectory(prefix="zhuoji-setup-") as tmp:
        argv = [sys.executable, "-m", "zhuoji", *serve_args(port, Path(tmp) / "setup.db", tables)]
        env = server_env(root)
        stderr = subprocess.DEVNULL
        with started_server(argv, root, env, port=port, pin=args.pin, stderr=stderr) as proc:
            spent = asyncio.run(set_up(f"ws://127.0.0.1:{port}", tables, proc.pid))
    per_table = {f"{k}_us": round(v * 1e6 / tables) for k, v in spent.items()}
    per_table["total_us"] = round(sum(spent.values()) * 1e6 / tables)
    return {"server": kind, "tables": tables, **per_table}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=100)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--before", default=None, help="another checkout's zhuoji, side by side")
    parser.add_argument("--pin", action="store_true", help="the server on core 0, this on core 1")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if args.pin:
        os.sched_setaffinity(0, {LOADGEN_CPU})
    kinds = ["zhuoji"] + (["before"] if args.before else [])
    runs = []
    for rep in range(args.repeat):
        for kind in kinds if rep % 2 == 0 else kinds[::-1]:
            runs.append(run_one(kind, args.tables, args))
            print(json.dumps(runs[-1]), file=sys.stderr, flush=True)
    if args.json:
        print(json.dumps(runs))
        return
    keys = [f"{s}_us" for s in STAGES] + ["total_us"]
    print(f"{'server':>7} " + " ".join(f"{k:>10}" for k in keys) + "   (µs of CPU per table)")
    for kind in kinds:
        mine = [r for r in runs if r["server"] == kind]
        print(
            f"{kind:>7} "
            + " ".join(f"{statistics.median(r[k] for r in mine):>10.0f}" for k in keys)
        )


if __name__ == "__main__":
    main()
