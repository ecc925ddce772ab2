"""What the tests share beyond fixtures: the volume knob for long tests."""

from __future__ import annotations

import asyncio
import json
import os
import socket
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from clients.client import Client
from protocol.messages import PROTOCOL_VERSION, parse_server

if TYPE_CHECKING:
    from textual.pilot import Pilot


def volume(default: int, full: int) -> int:
    """How many rounds (mixes, deals, ...) a volume test runs: `default` in an ordinary run,
    `full` when the environment sets ZHUOJI_TEST_VOLUME=full (the soak step of .ci/run)."""
    return full if os.environ.get("ZHUOJI_TEST_VOLUME") == "full" else default


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
    """Let a Textual app run (under its Pilot) until `cond()` holds; fail naming `what` after
    `timeout` seconds. The app's counterpart of `tests.deadline.poll`: it pauses the Pilot, so
    the app's own loop keeps running while the test waits. The deadline only bounds a failure
    (a loaded machine makes a passing wait slower, never a failing one)."""
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while not cond():
        if loop.time() > end:
            raise AssertionError(f"timed out waiting for {what}")
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
