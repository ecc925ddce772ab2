"""Table passwords (issue 22 item 4) on a real server over loopback: guesses are limited per table
and per address (5 a minute, then a lock that doubles), each hash is worked out off the event
loop (another table's events flow while one is), and the wrong ones are logged once a minute per
address with their count. The gate's clock is a fake one the test moves."""

from __future__ import annotations

import asyncio
import logging
import re
import threading
from pathlib import Path

import pytest

from clients.client import Client
from server import password_gate
from server.app import Server
from server.testkit import running_server
from tests.support import FAST, connect

PASSWORD = "4711"


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


async def _table(url: str, name: str, password: str = PASSWORD) -> tuple[Client, str]:
    host = await connect(url, name)
    await host.send({"type": "create_table", "name": name, "password": password, **FAST})
    return host, (await host.recv_type("joined"))["table"]


async def _guess(c: Client, table: str, password: str) -> dict[str, object]:
    """A `watch` with `password`: the error, or the `joined` it got."""
    await c.send({"type": "watch", "table": table, "password": password})
    frame = await c.recv_until(lambda f: f["type"] in ("error", "joined"))
    if frame["type"] == "joined":
        await c.send({"type": "leave"})
        await c.recv_type("left")
    return frame


def _clocked(server: Server) -> FakeClock:
    clock = FakeClock()
    server.passwords.clock = clock
    return clock


async def test_the_sixth_guess_within_a_minute_is_refused_even_with_the_right_one(
    tmp_path: Path,
) -> None:
    async with running_server(tmp_path / "z.db", seed="pin") as (url, server):
        clock = _clocked(server)
        host, table = await _table(url, "pin")
        _, other = await _table(url, "other", "芝麻")
        guesser = await connect(url, "guesser")
        for pin in ("0000", "0001", "0002", "0003", "0004"):
            clock.now += 1
            assert (await _guess(guesser, table, pin))["code"] == "bad_password"
        clock.now += 1
        refused = await _guess(guesser, table, PASSWORD)
        assert refused["code"] == "too_many_attempts", refused
        said = str(refused["message"])
        wait = int(re.search(r"retry in (\d+) s", said).group(1))  # type: ignore[union-attr]
        assert "too many attempts" in said and 50 <= wait <= 60, said
        # From the same address another table is refused too (per address), untried.
        assert (await _guess(guesser, other, "芝麻"))["code"] == "too_many_attempts"
        # A minute on, the right password opens the table again.
        clock.now += 61
        assert (await _guess(guesser, table, PASSWORD))["type"] == "joined"
        # Five more wrong ones: locked again, twice as long.
        for pin in ("1000", "1001", "1002", "1003", "1004"):
            assert (await _guess(guesser, table, pin))["code"] == "bad_password"
        again = await _guess(guesser, table, PASSWORD)
        assert again["code"] == "too_many_attempts" and "retry in 120 s" in str(again["message"])
        for c in (host, guesser):
            await c.close()


async def test_a_table_is_locked_whoever_guesses(tmp_path: Path) -> None:
    """Per table: five wrong guesses from several connections lock the table for everyone
    (here one address: loopback; the address's own lock is the test above)."""
    async with running_server(tmp_path / "z.db", seed="pin", password_guesses=3) as (url, server):
        _clocked(server)
        host, table = await _table(url, "pin")
        _, other = await _table(url, "other", "芝麻")
        guessers = [await connect(url, f"g{i}") for i in range(3)]
        for i, g in enumerate(guessers):
            assert (await _guess(g, table, f"000{i}"))["code"] == "bad_password"
        assert (await _guess(guessers[0], table, PASSWORD))["code"] == "too_many_attempts"
        await host.close()


async def test_another_tables_events_flow_while_a_password_is_hashed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """While a guess's hash is being worked out — here a hash that does not finish until the
    test lets it — the creator of another table adds and removes a bot six times, each
    answered by a `table` event. With the hash on the event loop (or in the table's step) the
    loop would stand still and no event would come until the hash gave up."""
    release = threading.Event()

    def held_hash(password: str, stored: str) -> bool:
        release.wait(timeout=60)  # bounded: a hash on the loop fails the test, never hangs it
        return False

    monkeypatch.setattr(password_gate, "password_matches", held_hash)
    async with running_server(tmp_path / "z.db", seed="loop") as (url, server):
        _, table = await _table(url, "slow")
        other = await connect(url, "other")
        await other.send({"type": "create_table", "name": "busy", **FAST})
        await other.recv_type("joined")
        guesser = await connect(url, "guesser")
        await guesser.send({"type": "watch", "table": table, "password": "guess"})
        answer = asyncio.create_task(guesser.recv_type("error", timeout=120))
        for _ in range(6):
            await other.send({"type": "add_bot", "seat": 1})
            await other.recv_type("table", timeout=30)
            await other.send({"type": "remove_bot", "seat": 1})
            await other.recv_type("table", timeout=30)
        assert not answer.done(), "the guess was answered before its hash was let finish"
        release.set()
        assert (await answer)["code"] == "bad_password"


async def test_wrong_passwords_are_logged_once_a_minute_per_address_with_a_count(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="zhuoji")
    async with running_server(tmp_path / "z.db", seed="log") as (url, server):
        clock = _clocked(server)
        host, table = await _table(url, "pin")
        guesser = await connect(url, "guesser")
        for i in range(8):  # five wrong, then three refused untried
            await _guess(guesser, table, f"{i:04d}")
        lines = [r.getMessage() for r in caplog.records if "wrong table password" in r.getMessage()]
        assert len(lines) == 1 and "127.0.0.1" in lines[0], lines
        assert PASSWORD not in caplog.text and "0003" not in caplog.text
        clock.now += 61
        await _guess(guesser, table, "9999")
        lines = [r.getMessage() for r in caplog.records if "wrong table password" in r.getMessage()]
        assert len(lines) == 2 and "7 more wrong or refused" in lines[1], lines
        for c in (host, guesser):
            await c.close()


async def test_a_burst_of_guesses_sent_at_once_is_counted_as_it_arrives(tmp_path: Path) -> None:
    """Twenty guesses from one address sent before any is answered: five are tried, the rest
    are refused untried (a guess is counted when it arrives, not when its hash starts)."""
    async with running_server(tmp_path / "z.db", seed="burst") as (url, server):
        _clocked(server)
        host, table = await _table(url, "burst")
        guessers = [await connect(url, f"g{i}") for i in range(20)]
        await asyncio.gather(
            *(
                c.send({"type": "watch", "table": table, "password": f"{i:04d}"})
                for i, c in enumerate(guessers)
            )
        )
        answers = [await c.recv_until(lambda f: f["type"] in ("error", "joined")) for c in guessers]
        codes = sorted(str(a.get("code")) for a in answers)
        assert codes.count("bad_password") == 5, codes
        assert codes.count("too_many_attempts") == 15, codes
        for c in (host, *guessers):
            await c.close()
