"""The one deadline-bound poll of the suite, for what gives no event to wait on (a tmux pane, a
child process's progress in its own database)."""

from __future__ import annotations

import asyncio
import os
import select
import subprocess
import time
from collections.abc import Callable


def poll(
    cond: Callable[[], bool],
    what: str,
    timeout: float,
    detail: Callable[[], str] = str,
    every: float = 0.05,
) -> None:
    """Check `cond` every `every` seconds until it holds; fail naming `what` (and `detail()`)
    after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while not cond():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}:\n{detail()}")
        time.sleep(every)


async def apoll(cond: Callable[[], bool], what: str, timeout: float, every: float = 0.01) -> None:
    """`poll` for a test that shares its event loop with an in-process server (a blocking sleep
    would stop the server it waits on): for a server's inner state that sends no frame."""
    deadline = time.monotonic() + timeout
    while not cond():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(every)


def read_until(
    proc: subprocess.Popen[bytes], marker: bytes, timeout: float, detail: Callable[[], str] = str
) -> bytes:
    """What `proc` printed on its stdout up to a whole line holding `marker` (its readiness
    line); fail after `timeout` seconds or if it exits first. The pipe must be unbuffered
    (`bufsize=0`): `select` sees the descriptor, not what a buffered reader already holds."""
    assert proc.stdout is not None
    fd, head = proc.stdout.fileno(), b""
    deadline = time.monotonic() + timeout
    while marker not in head or not head.endswith(b"\n"):
        left = deadline - time.monotonic()
        if left <= 0 or not select.select([fd], [], [], left)[0]:
            raise AssertionError(f"the process did not come up: {head!r} {detail()}")
        chunk = os.read(fd, 65536)
        if not chunk:
            raise AssertionError(f"the process exited: {head!r} {detail()}")
        head += chunk
    return head
