"""The SQLite store: what a table writes, and reading a stored round back as a deal script."""

from __future__ import annotations

import asyncio
import json
import sqlite3
from pathlib import Path

import pytest

from rules.script import ScriptError, run_script
from server.storage.reads import RoundNotFound, load_round_script, round_events, table_row
from server.storage.record_sql import op_insert_table
from server.storage.writer import Store, StoreError
from server.testkit import running_server
from zhuoji.cli import main


def _row(table_id: str) -> dict[str, object]:
    return {
        "id": table_id,
        "name": "t",
        "preset": "guiyang",
        "options": {},
        "base": 1,
        "rounds": 1,
        "turn_seconds": 0.0,
        "bank_seconds": 0.0,
        "claim_min_ms": 0,
        "has_password": False,
        "created_at": 0.0,
    }


async def test_writes_in_one_loop_turn_share_a_commit_and_a_bad_one_fails_alone(
    tmp_path: Path,
) -> None:
    store = Store(tmp_path / "s.db")
    try:
        await store.write([op_insert_table(_row("1"))])
        results = await asyncio.gather(
            store.write([op_insert_table(_row("2"))]),
            store.write([op_insert_table(_row("1"))]),  # the same id again: refused
            store.write([op_insert_table(_row("3"))]),
            return_exceptions=True,
        )
        assert isinstance(results[0], float) and isinstance(results[2], float)
        assert isinstance(results[1], StoreError)
    finally:
        store.close()
    with sqlite3.connect(tmp_path / "s.db") as db:
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        ids = [r[0] for r in db.execute("SELECT id FROM tables ORDER BY id")]
    assert ids == ["1", "2", "3"]
    with pytest.raises(StoreError):
        await store.write([op_insert_table(_row("4"))])


async def test_a_stored_match_replays_round_by_round(tmp_path: Path) -> None:
    db = tmp_path / "z.db"
    async with running_server(db, seed="store") as (url, server):
        from clients.client import Client

        host = await Client.connect(url, "host")
        await host.send(
            {
                "type": "create_table",
                "name": "t",
                "rounds": 3,
                "claim_min_ms": 0,
                "turn_seconds": 0,
                "bank_seconds": 0,
            }
        )
        table = (await host.recv_type("joined"))["table"]
        await host.send({"type": "auto", "on": True})  # the server plays seat 0 by default
        for _ in range(3):
            await host.send({"type": "add_bot"})
        await host.recv_until(
            lambda f: f["type"] == "table" and all(s["kind"] != "empty" for s in f["info"]["seats"])
        )
        await host.send({"type": "start"})
        end = await host.recv_type("match_ended", timeout=30)
    row = table_row(db, table)
    assert row is not None and row["state"] == "finished" and row["rounds_played"] == 3
    assert row["scores"] == end["scores"]
    assert [s["kind"] for s in row["seats"]] == ["human", "bot", "bot", "bot"]
    total = [0, 0, 0, 0]
    for round_no in (1, 2, 3):
        script = load_round_script(db, table, round_no)
        assert json.loads(json.dumps(script)) == script
        r = run_script(script)
        stored = round_events(db, table, round_no)
        engine = [e for e in stored if e["type"] not in ("auto_played", "seat_status", "table")]
        strip = ("table", "seq", "round_no", "base", "scores", "commitment", "deal")
        assert [{k: v for k, v in e.items() if k not in strip} for e in engine] == [
            e.to_dict() for e in r.events
        ]
        assert r.result is not None
        total = [a + b for a, b in zip(total, r.result.net, strict=True)]
    assert total == end["scores"]
    # What `zhuoji replay --db` prints comes from the same function.
    assert main(["replay", "--db", str(db), "--table", table, "--round", "2", "--json"]) == 0


def test_missing_rounds_are_a_script_error_naming_what_exists(tmp_path: Path) -> None:
    with pytest.raises(RoundNotFound, match="no database"):
        load_round_script(tmp_path / "none.db", "1", 1)
    store = Store(tmp_path / "s.db")
    store.close()
    with pytest.raises(ScriptError, match="no table '9'"):
        load_round_script(tmp_path / "s.db", "9", 1)


async def test_each_write_is_told_its_part_of_the_commit_it_went_in(tmp_path: Path) -> None:
    """The group commit's time split by statements (what a table adds to its cost)."""
    store = Store(tmp_path / "s.db")
    try:
        one, three = await asyncio.gather(
            store.write([op_insert_table(_row("1"))]),
            store.write([op_insert_table(_row(str(i))) for i in (2, 3, 4)]),
        )
        assert one > 0 and abs(three - 3 * one) < 1e-9
    finally:
        store.close()


async def turns_until(task: asyncio.Future[float]) -> int:
    """The loop's turns until `task` is done (`asyncio.sleep(0)` gives the loop one turn)."""
    turns = 0
    while not task.done():
        assert turns < 20, "the write never completed"
        await asyncio.sleep(0)
        turns += 1
    return turns


async def test_a_write_made_after_a_post_is_committed_in_the_turn_it_is_made(
    tmp_path: Path,
) -> None:
    """A writer woken for the next turn (a table an input was posted to), then
    `commit_after_ready`: the group commit runs after its step in that turn, so the writer has
    its answer a turn later, not two (the commit at the turn after its step, then its wake)."""
    store = Store(tmp_path / "s.db")
    try:
        writer = asyncio.ensure_future(store.write([op_insert_table(_row("1"))]))
        store.commit_after_ready()  # as `Table.post` asks, once the table is woken
        assert await turns_until(writer) == 2
        plain = asyncio.ensure_future(store.write([op_insert_table(_row("2"))]))
        assert await turns_until(plain) == 3  # without: the commit is scheduled by the write
    finally:
        store.close()


async def test_the_commit_is_not_pushed_past_the_turn_it_was_scheduled_for(
    tmp_path: Path,
) -> None:
    """An input posted in the commit's own turn, before it runs (a table's step posting to
    another), does not move it to the turn after: else posts could hold it off indefinitely."""
    store = Store(tmp_path / "s.db")
    loop = asyncio.get_running_loop()
    try:
        writer = asyncio.ensure_future(store.write([op_insert_table(_row("1"))]))
        store.commit_after_ready()
        loop.call_soon(store.commit_after_ready)  # runs in the commit's turn, before it...
        store.commit_after_ready()  # ... as this moves the commit after it
        assert await turns_until(writer) == 2
    finally:
        store.close()
