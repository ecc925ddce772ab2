"""What the tests share beyond fixtures: the volume knob for long tests, the table options of
quick tests, connecting, and a real `zhuoji serve` process (`serving`)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import select
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from clients.bot_player import BotPlayer
from clients.client import Client
from clients.testkit import seat_bots
from protocol.messages import PROTOCOL_VERSION, parse_server
from tests.deadline import read_until

if TYPE_CHECKING:
    from textual.pilot import Pilot


def volume(default: int, full: int) -> int:
    """How many rounds (mixes, deals, ...) a volume test runs: `default` in an ordinary run,
    `full` when the environment sets ZHUOJI_TEST_VOLUME=full (`.ci/soak`, and the soak slice
    of `.ci/run`)."""
    return full if os.environ.get("ZHUOJI_TEST_VOLUME") == "full" else default


def parts(full: int) -> range:
    """The parts a volume test too long for one soak slice is split into (`@parametrize`d
    over them; part `p` of `n` takes every `n`-th item from the `p`-th): one part in an
    ordinary run, `full` at full volume. So a slice of the soak (`soak_slice`) runs a few
    minutes at most, and the parts of one test land in different slices."""
    return range(volume(1, full))


def soak_slice(spec: str | None = None) -> tuple[int, int] | None:
    """The slice of the volume tests a run keeps, from ZHUOJI_TEST_SLICE="I/K" (slice I of K,
    0 <= I < K; `.ci/run` picks I from the commit), or None (no such variable: all of them).
    A bad value is an error that says what it should be."""
    spec = os.environ.get("ZHUOJI_TEST_SLICE") if spec is None else spec
    if spec is None or spec == "":
        return None
    index, _, count = spec.partition("/")
    try:
        i, k = int(index), int(count)
    except ValueError:
        i = k = -1
    if not 0 <= i < k:
        raise ValueError(f"ZHUOJI_TEST_SLICE={spec!r}: expected I/K with 0 <= I < K, e.g. 3/16")
    return i, k


def in_slice(slow_ids: list[str], which: tuple[int, int]) -> set[str]:
    """The volume tests (their node ids) slice `which` = (I, K) keeps: in the order of their
    ids, every K-th from the I-th. Neighbours in that order (the parts of one test, one test's
    parameters) go to different slices, so the slices are of about equal length, and the K
    slices together are every volume test once.

    >>> sorted(in_slice(["a[0]", "a[1]", "a[2]", "b"], (1, 2)))
    ['a[1]', 'b']
    """
    i, k = which
    return set(sorted(slow_ids)[i::k])


# ---------------------------------------------------------------------------------------------
# The helpers the test files used to copy (one place each; the waiting primitives for things
# that give no event are tests/deadline.py's `poll` and `read_until`).

# A table's clock options for tests that play as fast as the players answer: no claim window
# minimum, no turn clock, no time bank.
FAST: dict[str, Any] = {"claim_min_ms": 0, "turn_seconds": 0, "bank_seconds": 0}


def fast(turn_seconds: float = 0, bank_seconds: float = 0) -> dict[str, Any]:
    """`FAST` with a turn clock and a time bank: for tests where a seat must stay seated while
    it is away (a resume, a dropped connection) instead of being played for at once."""
    return {**FAST, "turn_seconds": turn_seconds, "bank_seconds": bank_seconds}


async def until(
    pilot: Pilot[Any], cond: Callable[[], bool], timeout: float = 30.0, what: str = "the app"
) -> None:
    """Let a Textual app run (under its Pilot) until `cond()` holds; fail naming `what` once
    this process has spent `timeout` seconds of CPU time on it (the app's work and that of a
    server in the same process), or after ten times that of wall-clock time if it spends none
    (waiting on another process). The app's counterpart of `tests.deadline.poll`: it pauses
    the Pilot, so the app's own loop keeps running while the test waits. The deadline only
    bounds a failure: a loaded machine stretches the wall-clock time of a passing wait, not
    the CPU time it takes (at load 11, opening every section of the create form took minutes).
    The Pilot's own 30 s bound on the app's pending messages is a sign of the same: the app is
    busy, so the wait goes on."""
    from textual.pilot import WaitForScreenTimeout

    loop = asyncio.get_running_loop()
    cpu_end, wall_end = time.process_time() + timeout, loop.time() + 10 * timeout
    while not cond():
        if time.process_time() > cpu_end or loop.time() > wall_end:
            raise AssertionError(f"timed out waiting for {what}")
        with contextlib.suppress(WaitForScreenTimeout):
            await pilot.pause(0.01)


def free_port() -> int:
    """A loopback TCP port that is free now (for a process that must be told its port)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def checked(frame: dict[str, Any]) -> dict[str, Any]:
    """`frame`, after checking that it is a valid server frame of the protocol."""
    parse_server(json.dumps(frame))
    return frame


async def connect(url: str, name: str, **kw: Any) -> Client:
    """A protocol client connected to `url` as `name`, past the server's valid `welcome`."""
    client = await Client.connect(url, name, **kw)
    welcome = checked(await client.recv())
    assert welcome["type"] == "welcome" and welcome["version"] == PROTOCOL_VERSION
    return client


async def started_table(
    host: Client, *, rounds: int, moves: int, **fields: Any
) -> tuple[dict[str, Any], BotPlayer]:
    """At `host`'s connection: a `rounds`-round table (no clock, unless `fields` say otherwise),
    three server bots, started, and the host's first `moves` answers (turns and claims) made by
    a `BotPlayer` fed every frame. Returns the `joined` frame and the player."""
    table = {"type": "create_table", "name": "t", "rounds": rounds, **FAST, **fields}
    await host.send(table)
    joined = await host.recv_type("joined")
    player = BotPlayer(seed="p")
    player.on_frame(joined)
    await seat_bots(host, player)
    await host.send({"type": "start"})
    made = 0
    while made < moves:
        reply = player.on_frame(await host.recv())
        if reply is not None:
            await host.send(reply)
            made += 1
    return joined, player


# ---------------------------------------------------------------------------------------------
# A real `zhuoji serve` process, started as a user starts it.

ROOT = Path(__file__).resolve().parents[1]
SERVING = b"zhuoji serving on "  # the line `zhuoji serve` prints once it listens


class ServeProc:
    """`python -m zhuoji serve --host 127.0.0.1 --port 0 ARGS` (this interpreter: the code
    under test), up once it has printed where it serves (`line`, `url`). Its pipes are raw, so
    that waiting on them has a deadline (`tests.deadline.read_until`, `stderr_until`); what
    was read is kept and given back whole by `stop`."""

    def __init__(self, *args: str, timeout: float = 60.0) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "zhuoji", "serve", "--host", "127.0.0.1", "--port", "0",
             *args],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            bufsize=0,
        )  # fmt: skip
        self._err = b""  # stderr read so far (`stderr_until`)
        self.returncode: int | None = None
        self.out = self.err = ""  # everything it printed, once stopped
        head = read_until(self.proc, SERVING, timeout, self._dead)
        self._out = head
        lines = head.decode(errors="replace").splitlines()
        self.line = next(x for x in lines if x.startswith(SERVING.decode()))
        self.url = self.line.split()[3]

    def _dead(self) -> str:
        """Why it did not come up: it is killed (if it still runs) and its stderr read."""
        code, _, err = self.stop(signal.SIGKILL)
        return f"(exit {code}) {err}"

    @property
    def pid(self) -> int:
        return self.proc.pid

    @property
    def http(self) -> str:
        """Its HTTP base URL (`/healthz`, `/metrics`)."""
        return self.url.replace("ws://", "http://")

    def get(self, path: str) -> tuple[int, str]:
        """GET `path` (`/healthz`, `/metrics`): the status and the body."""
        try:
            with urllib.request.urlopen(self.http + path, timeout=10) as r:
                return r.status, r.read().decode()
        except urllib.error.HTTPError as err:
            return err.code, err.read().decode()

    def health(self) -> tuple[int, str]:
        return self.get("/healthz")

    def stderr_until(self, marker: str, timeout: float) -> str:
        """What it wrote on stderr so far, up to a line holding `marker`; fails after
        `timeout` seconds, or if it exits first."""
        assert self.proc.stderr is not None
        fd = self.proc.stderr.fileno()
        deadline = time.monotonic() + timeout
        while marker.encode() not in self._err:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                raise AssertionError(f"no {marker!r} on stderr: {self._err.decode()}")
            chunk = os.read(fd, 65536)
            if not chunk:
                raise AssertionError(f"the server exited ({self.proc.wait()}): {self._err!r}")
            self._err += chunk
        return self._err.decode(errors="replace")

    def stop(self, sig: int | None = signal.SIGTERM, timeout: float = 60.0) -> tuple[int, str, str]:
        """Signal it (if it still runs; `sig` None: only wait for it to end) and wait: its exit
        code, all it printed on stdout and on stderr. Killed if it does not stop within
        `timeout` seconds. Once stopped, the same again."""
        if self.returncode is None:
            if sig is not None and self.proc.poll() is None:
                self.proc.send_signal(sig)
            try:
                out, err = self.proc.communicate(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                out, err = self.proc.communicate()
            self.out = (getattr(self, "_out", b"") + out).decode(errors="replace")
            self.err = (self._err + err).decode(errors="replace")
            self.returncode = self.proc.returncode
        return self.returncode, self.out, self.err


class Serve:
    """`zhuoji serve` on a fixed port and database that can be started again on both (a restart
    after a kill): a `ServeProc` for each start. What it printed comes back as one text,
    stdout then stderr."""

    def __init__(self, db: Path, port: int) -> None:
        self.db, self.port = db, port
        self.server: ServeProc | None = None

    @property
    def proc(self) -> subprocess.Popen[bytes] | None:
        """The running (or last) process."""
        return None if self.server is None else self.server.proc

    def start(self, timeout: float = 60) -> None:
        """Start the server and return once it listens, within `timeout` seconds."""
        self.server = ServeProc("--port", str(self.port), "--db", str(self.db), timeout=timeout)

    def output(self, timeout: float = 30) -> str:
        """Wait for the process to end; everything it printed."""
        assert self.server is not None
        _, out, err = self.server.stop(None, timeout)
        return out + err

    def signal(self, sig: int) -> str:
        """Send `sig`; return everything the process printed once it exits."""
        assert self.server is not None
        _, out, err = self.server.stop(sig, 30)
        return out + err

    def stop(self) -> None:
        """Kill it if it still runs."""
        if self.server is not None:
            self.server.stop(signal.SIGKILL, 30)


@contextlib.contextmanager
def serving(*args: str, timeout: float = 60.0) -> Iterator[ServeProc]:
    """A `ServeProc` for the block (`timeout`: its start-up's deadline); stopped after it
    (SIGTERM, a kill if that does not end it) if the block did not stop it: its `returncode`,
    `out` and `err` are there to assert on after the block."""
    server = ServeProc(*args, timeout=timeout)
    try:
        yield server
    finally:
        server.stop()
