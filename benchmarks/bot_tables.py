"""What tables left to the bots cost the server (issue 22, item 7): `--tables` matches whose
player left them at once (bots and 托管 play on, no clock, `bot_delay` 0, no claim hold), with
`bot_tables_cpu_share` 0 (no limit) and then with the share asked for, one after the other in
this process.

    nice -n 10 python benchmarks/bot_tables.py [--tables 16] [--seconds 20] [--share 0.25]
        [--spectators 4 --watched 4] [--only]

Reported per run: the server's CPU seconds per wall second (`time.process_time`: the event
loop and the store's writer thread together), the event loop's alone (`time.thread_time`), what
the tables were charged against the share, the events they made, and `loop_over_share` (the
loop's CPU a second ÷ the share: the figure item 7 bounds by 1). The tables are made in-process
(`Server.handle_frame`, real SQLite file); with `--spectators N`, `--watched` of them are
watched by N real websocket clients each, from a child process (so their reading is not the
server's CPU), through the server listening on loopback.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from protocol.messages import PROTOCOL_VERSION
from server.app import Server
from server.storage.writer import Store
from server.testkit import InProcessConn

FAST = {"claim_min_ms": 0, "turn_seconds": 0, "bank_seconds": 0, "bot_delay": 0, "rounds": 64}


async def watch(url: str, table: str, ready: asyncio.Event) -> None:
    """One spectator (the child process): watch `table`, read every frame until killed."""
    from websockets.asyncio.client import connect

    async with connect(url, compression=None, max_size=2**20) as ws:
        await ws.send(json.dumps({"type": "hello", "version": PROTOCOL_VERSION, "name": "w"}))
        await ws.send(json.dumps({"type": "watch", "table": table}))
        async for frame in ws:
            if '"joined"' in str(frame):
                ready.set()


async def spectate(url: str, tables: list[str], each: int) -> None:
    events = [asyncio.Event() for _ in range(len(tables) * each)]
    tasks = [
        asyncio.create_task(watch(url, t, events[i * each + j]))
        for i, t in enumerate(tables)
        for j in range(each)
    ]
    await asyncio.gather(*(e.wait() for e in events))
    print("watching", flush=True)
    await asyncio.gather(*tasks)


async def run(
    tables: int, seconds: float, share: float, db: Path, spectators: int = 0, watched: int = 0
) -> dict[str, Any]:
    store = Store(db)
    server = Server(
        store, tables_per_address=0, tables_per_connection=0, bot_tables_cpu_share=share
    )
    child: subprocess.Popen[str] | None = None
    listening = server.listen("127.0.0.1", 0)
    try:
        ws_server = await listening.__aenter__()
        port = next(iter(ws_server.sockets)).getsockname()[1]
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
        if spectators and watched:
            ids = [
                json.loads(next(f for f in c.frames if '"joined"' in f))["table"]
                for c in hosts[:watched]
            ]
            child = subprocess.Popen(
                [sys.executable, __file__, "--spectate", f"ws://127.0.0.1:{port}"]
                + [str(spectators)]
                + [str(i) for i in ids],
                stdout=subprocess.PIPE,
                text=True,
            )
            assert child.stdout is not None
            line = await asyncio.to_thread(child.stdout.readline)
            assert line.strip() == "watching", line
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
        loop_per_second = loop_cpu / wall
        return {
            "share": share,
            "tables": tables,
            "seconds": seconds,
            "spectators": spectators * watched,
            "cpu_per_second": round(cpu / wall, 3),
            "loop_cpu_per_second": round(loop_cpu / wall, 3),
            "charged_per_second": round(
                (server.bot_budget.spent - spent0) / wall if server.bot_budget else 0.0, 3
            ),
            "measured_per_second": round(cost / wall, 3),
            "events_per_second": round(events / wall, 1),
            "unattended": sum(t.unattended() for t in server.tables.values()),
            "loop_over_share": round(loop_per_second / share, 3) if share else None,
            # the loop's work beyond the steps, per second of theirs, as the share last saw it
            "overhead": round(getattr(server.bot_budget, "overhead", 0.0), 3),
        }
    finally:
        if child is not None:
            child.kill()
            child.wait()
        for t in list(server.tables.values()):
            t.task.cancel()
        await listening.__aexit__(None, None, None)
        store.close()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--tables", type=int, default=16)
    ap.add_argument("--seconds", type=float, default=20.0)
    ap.add_argument("--share", type=float, default=0.25)
    ap.add_argument("--only", action="store_true", help="the run with the share only")
    ap.add_argument("--spectators", type=int, default=0, help="spectators per watched table")
    ap.add_argument("--watched", type=int, default=4, help="tables with spectators")
    ap.add_argument("--spectate", nargs="+", help=argparse.SUPPRESS)  # the child: URL N ids
    args = ap.parse_args()
    if args.spectate:
        url, each, *ids = args.spectate
        asyncio.run(spectate(url, ids, int(each)))
        return
    with tempfile.TemporaryDirectory() as tmp:
        for i, share in enumerate((args.share,) if args.only else (0.0, args.share)):
            res = asyncio.run(
                run(
                    args.tables,
                    args.seconds,
                    share,
                    Path(tmp) / f"{i}.db",
                    args.spectators,
                    args.watched,
                )
            )
            print(json.dumps(res))


if __name__ == "__main__":
    main()
