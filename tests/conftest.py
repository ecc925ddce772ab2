"""Fixtures the tests share: a real `zhuoji serve` process.

No fixture sleeps to wait for a server: a process is ready when it says so on its output.
"""

from __future__ import annotations

import os
import select
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
READY = b"zhuoji serving on "  # the line `zhuoji serve` prints once it listens


class Serve:
    """`zhuoji serve` in a subprocess on a fixed port and database, as a user starts it."""

    def __init__(self, db: Path, port: int) -> None:
        self.db, self.port = db, port
        self.proc: subprocess.Popen[bytes] | None = None
        self.head = b""  # what the process printed up to its ready line

    def start(self, timeout: float = 60) -> None:
        """Start the server and return once it listens (its ready line), within `timeout`."""
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "zhuoji.cli", "serve", "--host", "127.0.0.1", "--port",
             str(self.port), "--db", str(self.db), "--round-pause", "0"],
            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, bufsize=0,
        )  # fmt: skip
        assert self.proc.stdout is not None
        fd, self.head = self.proc.stdout.fileno(), b""
        deadline = time.monotonic() + timeout
        while READY not in self.head or not self.head.endswith(b"\n"):
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                raise AssertionError(f"the server did not come up: {self.head!r}")
            chunk = os.read(fd, 65536)
            if not chunk:
                raise AssertionError(f"the server exited: {self.head!r}")
            self.head += chunk

    def output(self, timeout: float = 30) -> str:
        """Wait for the process to end; everything it printed."""
        assert self.proc is not None
        rest, _ = self.proc.communicate(timeout=timeout)
        return (self.head + rest).decode(errors="replace")

    def signal(self, sig: int) -> str:
        """Send `sig`; return everything the process printed once it exits."""
        assert self.proc is not None
        self.proc.send_signal(sig)
        return self.output()

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.communicate(timeout=30)


@pytest.fixture
def serve() -> Iterator[Callable[[Path, int], Serve]]:
    """Make `Serve`s (`serve(db, port)`, then `.start()`); any still running are killed after."""
    made: list[Serve] = []

    def make(db: Path, port: int) -> Serve:
        made.append(Serve(db, port))
        return made[-1]

    yield make
    for server in made:
        server.stop()
