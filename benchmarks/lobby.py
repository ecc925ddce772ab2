"""What a full lobby costs the server: 500 tables, then `list_tables` asked again and again
(issue 22, item 9: every frame ≤ 16 KiB, ≤ 2 ms of server CPU per request).

    nice -n 10 python benchmarks/lobby.py [--tables 500] [--requests 200] [--json]

The tables are made through the real server in-process (`Server.handle_frame`, the path every
websocket frame takes, real SQLite file): one connection per table says `hello` and
`create_table` (a long Chinese name, as the issue's probe did), a third of them fill their
seats with bots. Then one lobby connection asks for the listing — every page of it, as a client
that shows the whole lobby would — `--requests` times; between two listings one table changes
(a bot added or removed), as in a live lobby. Reported: the frames' sizes, and the server's CPU
time (`time.thread_time` of the event loop's thread, where the server handles a request; the
store's writer thread is not counted) per request (one `list_tables`, one frame: median and
worst; `changed_request`: the first request after a change, which makes the pages again) and
per full listing (every page's request).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from protocol.messages import PROTOCOL_VERSION
from server.app import Server, tune_gc
from server.storage.writer import Store
from server.testkit import InProcessConn as Collector


async def settle(server: Server) -> None:
    """Until every table has taken what was posted to it."""
    while any(not t.inbox.empty() for t in server.tables.values()):
        await asyncio.sleep(0.01)
    await asyncio.sleep(0.05)


async def fill(server: Server, count: int) -> list[Collector]:
    hosts = []
    for i in range(count):
        c = Collector(f"10.0.{i // 250}.{i % 250}")
        server.handle_frame(
            c, json.dumps({"type": "hello", "version": PROTOCOL_VERSION, "name": f"玩家{i:03d}号"})
        )
        name = f"周五晚上的麻将桌第{i:03d}号"
        server.handle_frame(c, json.dumps({"type": "create_table", "name": name, "rounds": 8}))
        hosts.append(c)
        if i % 50 == 49:
            await settle(server)
    await settle(server)
    for c in hosts[::3]:
        for _ in range(3):
            server.handle_frame(c, json.dumps({"type": "add_bot", "level": "strong"}))
    await settle(server)
    return hosts


def listing(server: Server, lobby: Collector) -> tuple[list[int], float, list[float]]:
    """Every page of the lobby: the frames' sizes, the CPU seconds of the whole listing (the
    server's, its requests') and of each request."""
    sizes, per_request = [], []
    page, pages = 0, 1
    while page < pages:
        lobby.frames.clear()
        t0 = time.thread_time()
        msg: dict[str, Any] = {"type": "list_tables"}
        if page:
            msg["page"] = page
        server.handle_frame(lobby, json.dumps(msg))
        per_request.append(time.thread_time() - t0)
        (text,) = lobby.frames
        sizes.append(len(text.encode()))
        pages = json.loads(text).get("pages", 1)
        page += 1
    return sizes, sum(per_request), per_request


async def measure(tables: int, requests: int, db: Path) -> dict[str, Any]:
    tune_gc()  # as `zhuoji serve` does before it serves
    store = Store(db)
    server = Server(store, tables_per_address=0, tables_per_connection=0, rate_burst=1e9)
    try:
        hosts = await fill(server, tables)
        lobby = Collector("10.9.9.9")
        server.handle_frame(
            lobby, json.dumps({"type": "hello", "version": PROTOCOL_VERSION, "name": "看看"})
        )
        listing(server, lobby)  # warm-up
        full, per_request, first, sizes = [], [], [], []
        for r in range(requests):
            host = hosts[(r * 7) % len(hosts)]  # one table changes between two listings
            kind = "remove_bot" if r % 2 else "add_bot"
            msg = {"type": kind, "seat": 3} if kind == "remove_bot" else {"type": kind}
            server.handle_frame(host, json.dumps(msg))
            await settle(server)
            s, cpu, each = listing(server, lobby)
            sizes += s
            full.append(cpu)
            per_request += each
            first.append(each[0])
        ms = 1000.0
        return {
            "tables": len(server.tables),
            "pages": len(s),
            "frame_bytes_max": max(sizes),
            "frame_bytes_median": statistics.median(sizes),
            "listing_bytes": sum(s),
            "request_cpu_ms_median": round(statistics.median(per_request) * ms, 3),
            "request_cpu_ms_p99": round(statistics.quantiles(per_request, n=100)[98] * ms, 3),
            "request_cpu_ms_max": round(max(per_request) * ms, 3),
            "changed_request_cpu_ms_median": round(statistics.median(first) * ms, 3),
            "listing_cpu_ms_median": round(statistics.median(full) * ms, 3),
            "listing_cpu_ms_max": round(max(full) * ms, 3),
            "requests": len(per_request),
            # times the pages were cut again over every table (none before this was counted)
            "cuts": getattr(server.listing, "cuts", None),
            "python": sys.version.split()[0],
        }
    finally:
        for t in list(server.tables.values()):
            t.task.cancel()
        store.close()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--tables", type=int, default=500)
    ap.add_argument("--requests", type=int, default=200)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        res = asyncio.run(measure(args.tables, args.requests, Path(tmp) / "lobby.db"))
    if args.json:
        print(json.dumps(res))
        return
    for key, value in res.items():
        print(f"{key:24} {value}")


if __name__ == "__main__":
    main()
