"""What tables left to the bots cost the server (issue 22, item 7): `--tables` matches whose
player left them at once (bots and 托管 play on, no clock, `bot_delay` 0, no claim hold), with
`bot_tables_cpu_share` 0 (no limit) and then with the share asked for, one after the other in
this process.

    nice -n 10 python benchmarks/bot_tables.py [--tables 16] [--seconds 20] [--share 0.25]

Reported per run: the server's CPU seconds per wall second (`time.process_time`: the event
loop and the store's writer thread together), the event loop's alone (`time.thread_time`), what
the tables were charged against the share, and the events they made. The server runs in-process (`Server.handle_frame`, real SQLite file).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import tempfile
import time
from pathlib import Path
from typing import Any

from protocol.messages import PROTOCOL_VERSION
from server.app import Server
from server.storage.writer import Store
from server.testkit import InProcessConn

FAST = {"claim_min_ms": 0, "turn_seconds": 0, "bank_seconds": 0, "bot_delay": 0, "rounds": 64}


async def run(tables: int, seconds: float, share: float, db: Path) -> dict[str, Any]:
    store = Store(db)
    server = Server(
        store, tables_per_address=0, tables_per_connection=0, bot_tables_cpu_share=share
    )
    try:
        hosts = []
        for i in range(tables):
            c = InProcessConn(f"10.0.0.{i}")
            server.handle_frame(
                c, json.dumps({"type": "hello", "version": PROTOCOL_VERSION, "name": f"p{i}"})
            )
            server.handle_frame(c, json.dumps({"type": "create_table", "name": f"t{i}", **FAST}))
            hosts.append(c)
        while not all(any('"joined"' in f for f in c.frames) for c in hosts):
            await asyncio.sleep(0.05)
        for c in hosts:
            for _ in range(3):
                server.handle_frame(c, json.dumps({"type": "add_bot"}))
        while not all(sum('"seat_status"' in f for f in c.frames) >= 3 for c in hosts):
            await asyncio.sleep(0.05)
        for c in hosts:
            server.handle_frame(c, json.dumps({"type": "start"}))
            server.handle_frame(c, json.dumps({"type": "leave"}))  # left to the bots
        await asyncio.sleep(1.0)
        seq0 = sum(t.seq for t in server.tables.values())
        spent0 = server.bot_budget.spent if server.bot_budget else 0.0
        cost0 = sum(t.meter.spent for t in server.tables.values())
        cpu0, loop0, wall0 = time.process_time(), time.thread_time(), time.monotonic()
        await asyncio.sleep(seconds)
        cpu, wall = time.process_time() - cpu0, time.monotonic() - wall0
        loop_cpu = time.thread_time() - loop0
        events = sum(t.seq for t in server.tables.values()) - seq0
        cost = sum(t.meter.spent for t in server.tables.values()) - cost0
        return {
            "share": share,
            "tables": tables,
            "cpu_per_second": round(cpu / wall, 3),
            "loop_cpu_per_second": round(loop_cpu / wall, 3),
            "charged_per_second": round(
                (server.bot_budget.spent - spent0) / wall if server.bot_budget else 0.0, 3
            ),
            "measured_per_second": round(cost / wall, 3),
            "events_per_second": round(events / wall, 1),
            "unattended": sum(t.unattended() for t in server.tables.values()),
        }
    finally:
        for t in list(server.tables.values()):
            t.task.cancel()
        store.close()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--tables", type=int, default=16)
    ap.add_argument("--seconds", type=float, default=20.0)
    ap.add_argument("--share", type=float, default=0.25)
    ap.add_argument("--only", action="store_true", help="the run with the share only")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        for i, share in enumerate((args.share,) if args.only else (0.0, args.share)):
            res = asyncio.run(run(args.tables, args.seconds, share, Path(tmp) / f"{i}.db"))
            print(json.dumps(res))


if __name__ == "__main__":
    main()
