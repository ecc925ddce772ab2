"""The server's CPU per delivered frame, zhuoji beside a plain websockets relay (issue 26).

    nice -n 10 python benchmarks/relay.py [--tables 100,500] [--repeat 3] [--think-ms 300]
                                          [--rounds 1] [--relay-actions 45] [--before DIR] [--json]

Both servers run as their own processes on loopback, one at a time, with the load from this
process (the other core). For each table count and each repeat, in alternating order:

- **zhuoji**: `zhuoji serve` on a fresh database, played by `clients.loadtest` (four bot clients
  per table, `--rounds` rounds each, the bots waiting 0.5-1.5 × `--think-ms` before each answer);
- **relay**: a websockets server of a dozen lines (`relay_handler`; it tells a table's four
  seats when all have sat down) with the same message pattern: a seat sends one action (a JSON object quoting the last `seq`), the relay parses it
  and broadcasts one JSON frame (the next `seq`) to the table's four seats; the next seat answers
  after the same random think time, `--relay-actions` actions per table.

Each run reads the server's CPU time from /proc (user + system, all threads) when the load starts
and when it ends, and counts the frames its clients received: **CPU per delivered frame**, the
cost a table pays, whatever the pace. Latency is measured the same way for both: from an action
leaving its seat to the next event arriving at each other seat (p50 / p99 over all samples):
the frame that shows the action (zhuoji's tables are made with `claim_min_ms` 0, so no claim
window is held open on purpose; a pass that closes a window is shown by the next draw). Beside
it, for zhuoji, the server's own p50 / p99 (its `zhuoji_action_latency_seconds` histogram: the
move read to its first event handed to the sockets, less any claim hold), and for every run the
load generator's share of a core and its loop's lag p99: this process drives every client (2,000
at 500 tables), and what it queues before reading a frame is in the clients' figures, not the
server's.
Each zhuoji server (this checkout's and `--before`'s alike) runs under `--serve-timed`, which
times its garbage collections by generation (wall and CPU, and the objects each freed) once it
has frozen its start-up heap: the pauses that stall every table at once, printed as a third
table; its JSON also has the heap at exit (`exit_*`: frozen at start and at exit, tracked, and
what one last full collection frees once the server has shut down).
With `--turns` each zhuoji server also times its event loop's turns in CPU (`TurnClock`): how
long each turn ran, what ran in it by callback (a table's step, the group commit, a connection's
handler, a collection, ...), in all and in the turns of 10 ms or more, and the ten longest turns
whole; a move that arrives during a long turn waits for it in the kernel, where the server's own
histogram does not see it. It costs some CPU (two clock reads per callback): a profiling run, not
a latency run. `--no-relay` leaves the relay out (profiling).
`--before DIR` adds a third server, `zhuoji serve` from another checkout (DIR first on its path,
e.g. an older commit unpacked with `git archive REV | tar -x -C DIR`), played by the same load
test: before and after a change, side by side. Printed per table count: the medians over the repeats and the ratio zhuoji / relay of the
median CPU per frame (the ratio of two numbers taken in the same minutes on the same machine,
which a shared machine's load shifts far less than either number).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import json
import os
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

SEATS = 4


# ----- the relay server (run as its own process: `relay.py --serve-relay PORT`) -----


async def serve_relay(port: int) -> None:
    """A plain websockets relay: `{"type": "sit", "table": T}` seats a connection at table T;
    every other message is an action, answered by one frame broadcast to the table's seats."""
    from websockets.asyncio.server import broadcast, serve

    tables: dict[str, list[Any]] = {}

    async def relay_handler(ws: Any) -> None:
        sit = json.loads(await ws.recv())
        table = tables.setdefault(sit["table"], [])
        table.append(ws)
        seat = len(table) - 1
        if len(table) == SEATS:  # the table is full: its seats may start
            broadcast(table, json.dumps({"type": "seated", "seat": -1, "seq": -1}))
        try:
            async for raw in ws:
                act = json.loads(raw)
                frame = {
                    "type": "discarded",
                    "table": sit["table"],
                    "seq": act["seq"] + 1,
                    "seat": seat,
                    "tile": act["tile"],
                }
                broadcast(table, json.dumps(frame))
        finally:
            table.remove(ws)

    async with serve(relay_handler, "127.0.0.1", port, compression=None, ping_interval=None):
        print("ready", flush=True)
        await asyncio.Future()


# ----- zhuoji serve with its collector timed (`relay.py --serve-timed STATS ARGV...`) -----


GENERATIONS = ("young", "middle", "full")


def serve_timed(stats: str, argv: list[str]) -> None:
    """Run `zhuoji serve` (from whichever checkout is first on PYTHONPATH: before and after
    alike) with every garbage collection timed by generation, wall and CPU, from the moment
    the server has frozen its start-up heap (its own `gc.freeze`); the totals are written as
    JSON to `stats` when it exits."""
    import atexit

    if sys.path and sys.path[0] == str(ROOT):
        sys.path.pop(0)  # this file's checkout: the server comes from PYTHONPATH
    totals: dict[str, Any] = {
        g: {"count": 0, "ms": 0.0, "max_ms": 0.0, "cpu_ms": 0.0, "collected": 0}
        for g in GENERATIONS
    }
    began: list[float] = [0.0, 0.0]
    served = [False]  # the server has set up and tuned its collector (`tune`)

    settlers: list[Any] = []  # what the server's `tune` returned (its `Settler`, if any)

    def timer(phase: str, info: dict[str, Any]) -> None:
        if not served[0]:
            return  # still starting
        if phase == "start":
            began[:] = [time.perf_counter(), time.thread_time()]
            return
        if not began[0]:
            return
        took = (time.perf_counter() - began[0]) * 1000
        row = totals[GENERATIONS[info["generation"]]]
        row["count"] += 1
        row["ms"] += took
        row["max_ms"] = max(row["max_ms"], took)
        row["cpu_ms"] += (time.thread_time() - began[1]) * 1000
        row["collected"] += info["collected"]
        began[0] = 0.0

    def dump() -> None:
        """The totals, and what the heap holds once the clients have gone: tracked objects
        (frozen and not), and how many of them one last full collection finds unreachable
        (cyclic garbage the policy left behind)."""
        gc.callbacks.remove(timer)
        for settler in settlers:  # the server's own policy, as far as it says
            for key in ("freezes", "recounts", "full_collections", "collected"):
                if isinstance(getattr(settler, key, None), int):
                    totals.setdefault("exit", {})[f"settler_{key}"] = getattr(settler, key)
        frozen, tracked = gc.get_freeze_count(), len(gc.get_objects())
        gc.unfreeze()
        totals.setdefault("exit", {}).update(
            frozen=frozen, tracked=frozen + tracked, garbage=gc.collect()
        )
        Path(stats).write_text(json.dumps(totals))

    import server.app
    import server.collector

    tune = server.collector.tune

    def tuned() -> Any:
        """The server's own `tune`: from here on it is serving."""
        settlers.append(tune())
        served[0] = True
        totals["exit"] = {"start_frozen": gc.get_freeze_count()}
        return settlers[-1]

    server.collector.tune = server.app.tune_gc = tuned  # type: ignore[attr-defined,assignment]
    gc.callbacks.append(timer)
    atexit.register(dump)
    if os.environ.get(TURNS_ENV):
        turns = TurnClock(gc_cpu=lambda: sum(totals[g]["cpu_ms"] for g in GENERATIONS))
        turns.install(lambda: served[0])
        atexit.register(
            lambda: Path(stats).with_suffix(".turns.json").write_text(json.dumps(turns.summary()))
        )
    from zhuoji.cli import main as zhuoji_main

    sys.exit(zhuoji_main(argv))


TURNS_ENV = "ZHUOJI_BENCH_TURNS"  # set: `serve_timed` also times the loop's turns (`--turns`)
LONG_TURN_MS = 10.0  # a turn at least this long (CPU) has its callbacks kept by name


def callback_name(handle: asyncio.Handle) -> str:
    """What a ready handle runs: a task's coroutine by name, or the function's qualified name."""
    cb = handle._callback  # type: ignore[attr-defined]
    owner = getattr(cb, "__self__", None)
    if isinstance(owner, asyncio.Task):
        coro = owner.get_coro()
        return "task " + str(getattr(coro, "__qualname__", type(coro).__name__))
    func = getattr(cb, "__func__", cb)
    return str(getattr(func, "__qualname__", type(cb).__name__))


@dataclass
class TurnClock:
    """The event loop's turns timed in CPU (`time.thread_time`, which the machine's other load
    does not inflate): each turn's length, and for every callback its name and CPU, kept in all
    and, per name, within the turns of at least `LONG_TURN_MS`; the longest turns whole. A
    collection inside a callback is counted as `gc`, not as the callback (`gc_cpu` returns the
    collector's CPU so far, ms). Patches asyncio's `BaseEventLoop._run_once` and
    `Handle._run`: a benchmark's instrument, for `serve_timed` only."""

    gc_cpu: Callable[[], float]
    turns: list[float] = field(default_factory=list)  # ms of CPU, one per turn
    per_second: dict[int, float] = field(default_factory=dict)  # second of the run -> ms of CPU
    by_name: dict[str, list[float]] = field(default_factory=dict)  # name -> [count, ms]
    in_long: dict[str, list[float]] = field(default_factory=dict)  # the same, long turns only
    longest: list[tuple[float, float, list[tuple[str, float]]]] = field(default_factory=list)
    current: list[tuple[str, float]] = field(default_factory=list)
    began: float = 0.0

    def install(self, active: Callable[[], bool]) -> None:
        import asyncio.base_events
        import asyncio.events

        run_once = asyncio.base_events.BaseEventLoop._run_once  # type: ignore[attr-defined]
        handle_run = asyncio.events.Handle._run  # type: ignore[attr-defined]
        clock, gc_cpu, current = time.thread_time, self.gc_cpu, self.current

        def timed_run_once(loop: Any) -> None:
            if not active():
                run_once(loop)
                return
            if not self.began:
                self.began = time.monotonic()
            current.clear()
            g0, t0 = gc_cpu(), clock()
            run_once(loop)
            took, gc_ms = (clock() - t0) * 1000, gc_cpu() - g0
            self.turns.append(took)
            second = int(time.monotonic() - self.began)
            self.per_second[second] = self.per_second.get(second, 0.0) + took
            outside = took - gc_ms - sum(ms for _, ms in current)
            current.append(("(select, scheduling)", outside))
            if gc_ms:
                current.append(("gc", gc_ms))
            for name, ms in current:
                self._add(self.by_name, name, ms)
                if took >= LONG_TURN_MS:
                    self._add(self.in_long, name, ms)
            if took >= LONG_TURN_MS:
                self.longest.append((took, time.monotonic() - self.began, list(current)))
                if len(self.longest) > 200:
                    self.longest.sort(key=lambda x: -x[0])
                    del self.longest[50:]

        def timed_handle_run(handle: Any) -> None:
            g0, t0 = gc_cpu(), clock()
            handle_run(handle)
            current.append((callback_name(handle), (clock() - t0) * 1000 - (gc_cpu() - g0)))

        asyncio.base_events.BaseEventLoop._run_once = timed_run_once  # type: ignore[attr-defined]
        asyncio.events.Handle._run = timed_handle_run  # type: ignore[attr-defined]

    @staticmethod
    def _add(table: dict[str, list[float]], name: str, ms: float) -> None:
        row = table.get(name)
        if row is None:
            table[name] = [1, ms]
        else:
            row[0] += 1
            row[1] += ms

    def summary(self) -> dict[str, Any]:
        """The turns' CPU (count, total, quantiles, how many were long) and where it went."""
        xs = sorted(self.turns)
        n = len(xs)

        def q(p: float) -> float | None:
            return round(xs[min(n - 1, int(p * n))], 2) if n else None

        def top(table: dict[str, list[float]], k: int = 15) -> list[list[Any]]:
            rows = sorted(table.items(), key=lambda kv: -kv[1][1])[:k]
            return [[name, int(c), round(ms, 1)] for name, (c, ms) in rows]

        longest = sorted(self.longest, key=lambda x: -x[0])[:10]
        return {
            "turns": n,
            "turn_cpu_s": round(sum(xs) / 1000, 3),
            "turn_p50_ms": q(0.5),
            "turn_p99_ms": q(0.99),
            "turn_p999_ms": q(0.999),
            "turn_max_ms": q(1.0),
            # The loop's busy share (its turns' CPU) in each second of the run: the peak is
            # where a stall's queue takes longest to drain.
            "busy_by_second": [
                round(self.per_second.get(i, 0.0) / 1000, 2)
                for i in range(max(self.per_second, default=-1) + 1)
            ],
            **{f"turns_ge_{t}ms": sum(1 for x in xs if x >= t) for t in (5, 10, 20, 50)},
            **{
                f"cpu_s_in_turns_ge_{t}ms": round(sum(x for x in xs if x >= t) / 1000, 3)
                for t in (10, 20)
            },
            "by_callback": top(self.by_name),
            "in_long_turns": top(self.in_long),
            "longest": [
                {
                    "ms": round(ms, 1),
                    "at_s": round(at, 2),
                    "top": top({n: [c, m] for n, (c, m) in _group(parts).items()}, 6),
                }
                for ms, at, parts in longest
            ],
        }


def _group(parts: list[tuple[str, float]]) -> dict[str, list[float]]:
    out: dict[str, list[float]] = {}
    for name, ms in parts:
        TurnClock._add(out, name, ms)
    return out


def gc_summary(stats: Path) -> dict[str, Any]:
    """The collector's pauses of one run (`serve_timed`'s file): per generation the count, the
    total and longest pause (ms, wall) and the total CPU (ms)."""
    try:
        totals = json.loads(stats.read_text())
    except (OSError, ValueError):
        return {}
    out = {f"gc_{g}_{k}": round(v, 1) for g in GENERATIONS for k, v in totals[g].items()}
    out.update({f"exit_{k}": v for k, v in totals.get("exit", {}).items()})
    return out


# ----- the relay's load -----


@dataclass
class Load:
    frames: int = 0
    actions: int = 0
    latencies: list[float] = field(default_factory=list)
    errors: int = 0
    lags: list[float] = field(default_factory=list)


async def relay_table(url: str, index: int, actions: int, think: float, load: Load) -> None:
    """Four seats taking turns: the seat after the last frame's sender answers it."""
    from websockets.asyncio.client import connect

    rng = random.Random(index)
    table = f"t{index}"
    conns: list[Any] = []
    sent: dict[int, float] = {}
    done = asyncio.Event()
    try:
        for _ in range(SEATS):
            conns.append(
                await connect(
                    url, compression=None, ping_interval=None, max_size=2**20, open_timeout=60
                )
            )
        for ws in conns:
            await ws.send(json.dumps({"type": "sit", "table": table}))
        for ws in conns:  # all four seated before the first action
            json.loads(await ws.recv())
            load.frames += 1

        async def act(seat: int, seq: int) -> None:
            await asyncio.sleep(think * (0.5 + rng.random()))
            sent[seq] = time.perf_counter()
            load.actions += 1
            await conns[seat].send(json.dumps({"type": "act", "seq": seq, "tile": "5p"}))

        async def read(seat: int) -> None:
            async for raw in conns[seat]:
                load.frames += 1
                frame = json.loads(raw)
                seq = frame["seq"]
                if frame["seat"] != seat:
                    load.latencies.append(time.perf_counter() - sent[seq - 1])
                if seq >= actions:
                    done.set()
                    return
                if (frame["seat"] + 1) % SEATS == seat:
                    await act(seat, seq)

        readers = [asyncio.create_task(read(s)) for s in range(SEATS)]
        await act(0, 0)
        await asyncio.wait_for(asyncio.gather(*readers), timeout=900)
    except Exception:  # counted; the others go on
        load.errors += 1
    finally:
        await asyncio.gather(*(ws.close() for ws in conns), return_exceptions=True)


async def relay_load(url: str, tables: int, actions: int, think: float, ramp: float) -> Load:
    load = Load()

    async def delayed(i: int) -> None:
        await asyncio.sleep(i * ramp)
        await relay_table(url, i, actions, think, load)

    lag = asyncio.create_task(watch_lag(load.lags))
    await asyncio.gather(*(delayed(i) for i in range(tables)))
    lag.cancel()
    return load


async def watch_lag(lags: list[float], every: float = 0.01) -> None:
    """How late this process's own loop wakes for a timer (as `clients.loadtest`): the load
    generator's queueing, which every latency sample of the run carries too."""
    while True:
        t = time.perf_counter()
        await asyncio.sleep(every)
        lags.append(time.perf_counter() - t - every)


# ----- the runs -----


SERVER_CPU, LOADGEN_CPU = 0, 1  # --pin: "the load generator on the other core" (issue 26)


def pin_to(cpu: int) -> Callable[[], None]:
    """A `preexec_fn` that keeps the child on one core."""
    return lambda: os.sched_setaffinity(0, {cpu})


def serve_args(port: int, db: Path, tables: int) -> list[str]:
    """`zhuoji serve`'s arguments for a load run: loopback, a fresh database, no per-address or
    per-connection limits, room for every table, warnings only."""
    return [
        "serve",
        "--port",
        str(port),
        "--host",
        "127.0.0.1",
        "--db",
        str(db),
        "--connections-per-address",
        "0",
        "--tables-per-address",
        "0",
        "--tables-per-connection",
        "0",
        "--max-tables",
        str(max(5000, tables)),
        "--log-level",
        "warning",
    ]


def server_env(root: Path) -> dict[str, str]:
    """The environment of a server from checkout `root`, as it is deployed (no frame checks)."""
    env = {**os.environ, "PYTHONPATH": str(root)}
    env.pop("ZHUOJI_CHECK_FRAMES", None)
    return env


@contextlib.contextmanager
def started_server(
    argv: list[str],
    root: Path,
    env: dict[str, str],
    *,
    port: int,
    pin: bool,
    stderr: int = subprocess.PIPE,
) -> Iterator[subprocess.Popen[bytes]]:
    """A server process from checkout `root`, listening on `port` (on `SERVER_CPU` with `pin`),
    stopped when the block is left."""
    proc = subprocess.Popen(
        argv,
        cwd=root,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=stderr,
        preexec_fn=pin_to(SERVER_CPU) if pin else None,
    )
    try:
        wait_port(port, proc)
        yield proc
    finally:
        proc.terminate()
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def process_cpu(pid: int) -> float:
    """CPU seconds a running process has used so far (all its threads; /proc, Linux)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def wait_port(port: int, proc: subprocess.Popen[bytes], timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"the server exited ({proc.returncode})")
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 0.2):
            return
        time.sleep(0.05)
    raise SystemExit("the server did not start")


def server_latency(port: int) -> dict[str, float | None]:
    """p50 / p99 (ms) of zhuoji's own `zhuoji_action_latency_seconds` histogram (a move's
    frame read by its connection's handler to its first event handed to the sockets, the
    claim window's deliberate minimum left out), interpolated within its buckets as
    Prometheus' `histogram_quantile` does: the server's part of the latency, without the
    load generator's queueing. None for a server without it."""
    import urllib.request

    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=30) as answer:
            text = answer.read().decode()
    except OSError:
        return {"server_p50_ms": None, "server_p99_ms": None}
    buckets = []
    for line in text.splitlines():
        if line.startswith("zhuoji_action_latency_seconds_bucket"):
            le = line.split('le="', 1)[1].split('"', 1)[0]
            buckets.append((float(le), float(line.rsplit(" ", 1)[1])))
    return {
        "server_p50_ms": bucket_quantile(buckets, 0.5),
        "server_p99_ms": bucket_quantile(buckets, 0.99),
    }


def bucket_quantile(buckets: list[tuple[float, float]], q: float) -> float | None:
    """The `q` quantile (ms) of cumulative histogram `buckets` ((upper bound s, count)),
    linear within the bucket that holds it; the last finite bound if it is beyond.

    >>> bucket_quantile([(0.001, 50), (0.002, 100), (float("inf"), 100)], 0.75)
    1.5
    """
    if not buckets or buckets[-1][1] == 0:
        return None
    rank = q * buckets[-1][1]
    lower, below = 0.0, 0.0
    for bound, count in buckets:
        if count >= rank:
            if bound == float("inf"):
                return round(lower * 1000, 2)
            share = (rank - below) / (count - below) if count > below else 1.0
            return round((lower + (bound - lower) * share) * 1000, 2)
        lower, below = bound, count
    return None


def pct(xs: list[float], p: float) -> float | None:
    if not xs:
        return None
    xs = sorted(xs)
    return round(xs[min(len(xs) - 1, int(p * len(xs)))] * 1000, 2)


def run_one(kind: str, tables: int, args: argparse.Namespace) -> dict[str, Any]:
    port = free_port()
    url = f"ws://127.0.0.1:{port}"
    root = Path(args.before).resolve() if kind == "before" else ROOT
    ramp = args.ramp_ms / 1000
    with tempfile.TemporaryDirectory(prefix="zhuoji-relay-") as tmp:
        if kind == "relay":
            argv = [sys.executable, __file__, "--serve-relay", str(port)]
        else:
            argv = [
                sys.executable,
                __file__,
                "--serve-timed",
                str(Path(tmp) / "gc.json"),
                *serve_args(port, Path(tmp) / "load.db", tables),
            ]
        env = server_env(root)
        env.pop(TURNS_ENV, None)
        if args.turns:
            env[TURNS_ENV] = "1"
        with started_server(argv, root, env, port=port, pin=args.pin) as proc:
            cpu0, t0 = process_cpu(proc.pid), time.perf_counter()
            mine0 = time.process_time()
            samples: list[str] = []
            server: dict[str, float | None] = {"server_p50_ms": None, "server_p99_ms": None}
            if kind == "relay":
                load = asyncio.run(
                    relay_load(url, tables, args.relay_actions, args.think_ms / 1000, ramp)
                )
                frames, actions, lat, errors, lags = (
                    load.frames,
                    load.actions,
                    load.latencies,
                    load.errors,
                    load.lags,
                )
            else:
                from clients.loadtest import run as run_loadtest

                report = asyncio.run(
                    run_loadtest(
                        url,
                        tables,
                        args.rounds,
                        think=args.think_ms / 1000,
                        ramp=ramp,
                        table_options={"claim_min_ms": 0},
                    )
                )
                frames, actions, lat, errors, lags = (
                    report.frames,
                    report.actions,
                    report.latencies,
                    report.errors,
                    report.lags,
                )
                samples = report.error_samples[:3]
            cpu = process_cpu(proc.pid) - cpu0
            wall = time.perf_counter() - t0
            mine = time.process_time() - mine0
            if kind != "relay":
                server = server_latency(port)
        pauses = gc_summary(Path(tmp) / "gc.json") if kind != "relay" else {}
        turns = Path(tmp) / "gc.turns.json"
        if turns.exists():
            pauses["turns"] = json.loads(turns.read_text())
    return {
        "server": kind,
        "tables": tables,
        "frames": frames,
        "actions": actions,
        "errors": errors,
        "cpu_s": round(cpu, 3),
        "wall_s": round(wall, 2),
        "cpu_per_frame_us": round(cpu * 1e6 / frames, 1) if frames else None,
        "cpu_per_action_us": round(cpu * 1e6 / actions, 1) if actions else None,
        "p50_ms": pct(lat, 0.5),
        "p99_ms": pct(lat, 0.99),
        **server,
        # The load generator (this process): its share of a core over the run and how late
        # its loop ran (p99 of a 10 ms timer). A busy generator queues frames before it
        # reads them, and the client-side p99 then measures it, not the server.
        "loadgen_busy": round(mine / wall, 2) if wall else None,
        "loadgen_lag_p99_ms": pct(lags, 0.99),
        "error_samples": samples,
        # zhuoji's garbage collections during the run, by generation (`serve_timed`).
        **pauses,
    }


GC_KEYS = tuple(f"gc_{g}_{k}" for g in GENERATIONS for k in ("count", "ms", "max_ms", "cpu_ms"))


def summary(runs: list[dict[str, Any]], tables: int) -> dict[str, Any]:
    out: dict[str, Any] = {"tables": tables}
    for kind in ("relay", "zhuoji", "before"):
        mine = [r for r in runs if r["server"] == kind and r["tables"] == tables]
        for key in (
            "cpu_per_frame_us",
            "cpu_per_action_us",
            "p50_ms",
            "p99_ms",
            "server_p50_ms",
            "server_p99_ms",
            "loadgen_busy",
            "loadgen_lag_p99_ms",
            *GC_KEYS,
        ):
            values = [r[key] for r in mine if r.get(key) is not None]
            out[f"{kind}_{key}"] = round(statistics.median(values), 2) if values else None
    a, b = out["zhuoji_cpu_per_frame_us"], out["relay_cpu_per_frame_us"]
    ratios = [
        z["cpu_per_frame_us"] / r["cpu_per_frame_us"]
        for z, r in zip(
            [x for x in runs if x["server"] == "zhuoji" and x["tables"] == tables],
            [x for x in runs if x["server"] == "relay" and x["tables"] == tables],
            strict=False,
        )
        if z["cpu_per_frame_us"] and r["cpu_per_frame_us"]
    ]
    out["ratio_of_medians"] = round(a / b, 2) if a and b else None
    out["ratio_per_repeat"] = [round(x, 2) for x in ratios]
    c = out["before_cpu_per_frame_us"]
    out["before_ratio_of_medians"] = round(c / b, 2) if c and b else None
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--serve-relay", type=int, default=None, help=argparse.SUPPRESS)
    parser.add_argument("--tables", default="100,500", help="table counts, comma-separated")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--think-ms", type=float, default=300.0)
    parser.add_argument("--rounds", type=int, default=1, help="rounds per zhuoji table")
    parser.add_argument("--relay-actions", type=int, default=45, help="actions per relay table")
    parser.add_argument(
        "--ramp-ms", type=float, default=5.0, help="delay between starting tables (default 5)"
    )
    parser.add_argument("--before", default=None, help="another checkout's zhuoji, side by side")
    parser.add_argument(
        "--pin",
        action="store_true",
        help="server on core 0, this load generator on core 1 (needs two cores)",
    )
    parser.add_argument(
        "--turns",
        action="store_true",
        help="also time zhuoji's event-loop turns in CPU, by callback (costs some CPU)",
    )
    parser.add_argument("--no-relay", action="store_true", help="zhuoji only (profiling)")
    parser.add_argument("--json", action="store_true")
    if sys.argv[1:2] == ["--serve-timed"]:  # zhuoji serve's own arguments follow
        serve_timed(sys.argv[2], sys.argv[3:])
        return
    args = parser.parse_args()
    if args.serve_relay is not None:
        asyncio.run(serve_relay(args.serve_relay))
        return
    if args.pin:
        if len(os.sched_getaffinity(0)) < 2:
            parser.error("--pin needs two cores")
        os.sched_setaffinity(0, {LOADGEN_CPU})
    gc.collect()
    gc.freeze()
    gc.disable()  # the load generator adds no pauses of its own (as `zhuoji loadtest`)
    sizes = [int(x) for x in args.tables.split(",")]
    runs = []
    for rep in range(args.repeat):
        for tables in sizes:
            kinds = ["relay"] * (not args.no_relay) + ["zhuoji"] + ["before"] * bool(args.before)
            order = kinds if rep % 2 == 0 else kinds[::-1]
            for kind in order:
                result = run_one(kind, tables, args)
                runs.append(result)
                print(json.dumps(result), file=sys.stderr, flush=True)
    summaries = [summary(runs, t) for t in sizes]
    if args.json:
        print(json.dumps({"runs": runs, "summary": summaries}))
        return
    print_summaries(summaries, before=bool(args.before))
    print_pauses(summaries, before=bool(args.before))
    if args.turns:
        print_turns(runs)


TARGET_P99_MS = {100: 10.0, 500: 50.0}  # issue 26: zhuoji's p99 at 100 and 500 tables


def print_summaries(summaries: list[dict[str, Any]], *, before: bool) -> None:
    """Two tables: CPU per frame (zhuoji beside the relay), then each server's latency as its
    clients saw it, as the server itself timed it, and what the load generator was doing."""
    print(
        f"{'tables':>6} {'relay µs/frame':>14} {'zhuoji µs/frame':>15} {'ratio':>6}"
        f" {'relay p50/p99 ms':>17} {'zhuoji p50/p99 ms':>18}"
    )
    for s in summaries:
        print(
            f"{s['tables']:>6} {s['relay_cpu_per_frame_us']!s:>14}"
            f" {s['zhuoji_cpu_per_frame_us']!s:>15} {s['ratio_of_medians']!s:>6}"
            f" {ms(s, 'relay'):>17} {ms(s, 'zhuoji'):>18}"
            f"   (per repeat: {s['ratio_per_repeat']})"
        )
        if before:
            print(
                f"{'':>6} before: {s['before_cpu_per_frame_us']} µs/frame,"
                f" ratio {s['before_ratio_of_medians']}, p50/p99 {ms(s, 'before')} ms"
            )
    print()
    print(
        f"{'tables':>6} {'server':>7} {'clients p50/p99 ms':>19} {'server p50/p99 ms':>18}"
        f" {'load gen busy':>13} {'lag p99 ms':>10}  target p99"
    )
    for s in summaries:
        for kind in ("relay", "zhuoji", "before") if before else ("relay", "zhuoji"):
            target = TARGET_P99_MS.get(s["tables"]) if kind != "relay" else None
            server = ms(s, f"{kind}_server") if kind != "relay" else "-"
            print(
                f"{s['tables']:>6} {kind:>7} {ms(s, kind):>19} {server:>18}"
                f" {s[f'{kind}_loadgen_busy']!s:>13} {s[f'{kind}_loadgen_lag_p99_ms']!s:>10}"
                f"  {'' if target is None else f'≤ {target:g}'}"
            )


def print_turns(runs: list[dict[str, Any]]) -> None:
    """Each zhuoji run's event-loop turns (`--turns`): their CPU quantiles, how many were long,
    the loop's busiest second, and what ran most in the turns of `LONG_TURN_MS` or more."""
    print()
    print(
        f"{'tables':>6} {'server':>7}  turns: p50 / p99 / p99.9 / max ms CPU; ≥ 20 ms, ≥ 50 ms;"
        " busiest second; CPU ms in the long turns by callback"
    )
    for r in runs:
        t = r.get("turns")
        if not t:
            continue
        busiest = max(t.get("busy_by_second", []), default=0.0)
        top = ", ".join(f"{name} {ms:g}" for name, _, ms in t["in_long_turns"][:4])
        print(
            f"{r['tables']:>6} {r['server']:>7}  {t['turn_p50_ms']} / {t['turn_p99_ms']} /"
            f" {t['turn_p999_ms']} / {t['turn_max_ms']}; {t['turns_ge_20ms']}, {t['turns_ge_50ms']};"
            f" {busiest:.0%}; {top}"
        )


def print_pauses(summaries: list[dict[str, Any]], *, before: bool) -> None:
    """zhuoji's garbage collections per run (medians over the repeats): by generation, how
    many, their pauses in all and the longest (ms, wall), and their CPU in all (ms)."""
    print()
    print(f"{'tables':>6} {'server':>7}  collections: count / total ms / longest ms / CPU ms")
    for s in summaries:
        for kind in ("zhuoji", "before") if before else ("zhuoji",):
            parts = []
            for g in GENERATIONS:
                row = [s.get(f"{kind}_gc_{g}_{k}") for k in ("count", "ms", "max_ms", "cpu_ms")]
                shown = "-" if row[0] is None else " / ".join(f"{x:g}" for x in row)
                parts.append(f"{g} {shown}")
            print(f"{s['tables']:>6} {kind:>7}  " + ";  ".join(parts))


def ms(s: dict[str, Any], kind: str) -> str:
    """`p50 / p99` of `kind` in summary `s` (a dash for what was not measured)."""
    p50, p99 = s.get(f"{kind}_p50_ms"), s.get(f"{kind}_p99_ms")
    if p50 is None or p99 is None:
        return "-"
    return f"{p50:.1f} / {p99:.1f}"


if __name__ == "__main__":
    main()
