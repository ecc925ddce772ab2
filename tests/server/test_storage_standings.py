"""Standings the database holds are never overwritten by a table that did not sum them: a match
that cannot be rebuilt at start is frozen with its stored scores and rounds kept (and is not
counted as resumed), and a match abandoned mid-round counts only the rounds that ended.

The database is one the code of commit 6911e85 wrote (tests/server/schema_dumps/v1-dice.sql,
made by make_dump.py there), loaded into a real SQLite file; the server is a real `zhuoji serve`.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from clients.bot_player import BotPlayer
from clients.client import Client
from server.storage.reads import table_row
from server.testkit import running_server
from tests.support import serving

DUMP = Path(__file__).parent / "schema_dumps" / "v1-dice.sql"


def load(db: Path) -> None:
    conn = sqlite3.connect(db)
    try:
        conn.executescript(DUMP.read_text(encoding="utf-8"))
    finally:
        conn.close()


def test_a_table_frozen_at_start_keeps_its_stored_standings_and_is_not_counted_resumed(
    tmp_path: Path,
) -> None:
    db = tmp_path / "z.db"
    load(db)
    conn = sqlite3.connect(db)
    try:
        # Table 3 has two rounds ended and a third in progress: someone edits that round's
        # first discard, so it no longer replays to its stored events.
        scores, played = conn.execute(
            "SELECT scores, rounds_played FROM tables WHERE id='3'"
        ).fetchone()
        assert json.loads(scores) != [0, 0, 0, 0] and played == 2
        idx, tile = conn.execute(
            "SELECT idx, tile FROM actions WHERE table_id='3' AND round_no=3 AND act='discard'"
            " ORDER BY idx"
        ).fetchone()
        conn.execute(
            "UPDATE actions SET tile=? WHERE table_id='3' AND round_no=3 AND idx=?",
            ("1m" if tile != "1m" else "2m", idx),
        )
        conn.commit()
    finally:
        conn.close()
    with serving("--db", str(db)) as server:
        line = server.line
        assert "3 unfinished matches resumed, 1 could not be resumed" in line, line
        metrics = server.get("/metrics")[1]
        assert "zhuoji_matches_resumed_at_start 3.0" in metrics
        assert "zhuoji_matches_frozen_at_start 1.0" in metrics
    err = server.err
    assert "table 3: cannot resume its match" in err
    assert "resumed 3 unfinished matches; 1 could not be resumed" in err
    row = table_row(db, "3")
    assert row is not None and row["state"] == "abandoned" and row["ended_at"] is not None
    assert row["scores"] == json.loads(scores) and row["rounds_played"] == 2


async def test_a_match_closed_mid_round_counts_only_the_rounds_that_ended(
    tmp_path: Path,
) -> None:
    db = tmp_path / "z.db"
    async with running_server(db, seed="mid") as (url, server):
        client = await Client.connect(url, "host")
        await client.recv_type("welcome")
        await client.send(
            {"type": "create_table", "name": "t", "rounds": 2, "claim_min_ms": 0,
             "turn_seconds": 30, "bank_seconds": 30}
        )  # fmt: skip
        joined = await client.recv_type("joined")
        player = BotPlayer(seed="host")
        player.on_frame(joined)
        for _ in range(3):
            await client.send({"type": "add_bot"})
        await client.send({"type": "start"})
        moves = 0
        while moves < 2:  # round 1 under way
            reply = player.on_frame(await client.recv())
            if reply is not None:
                await client.send(reply)
                moves += 1
        table = server.tables[joined["table"]]
        await table.ask("close")
        end = await client.recv_until(lambda f: f["type"] == "match_ended")
        await client.close()
    assert end["reason"] == "abandoned" and end["rounds_played"] == 0
    row = table_row(db, joined["table"])
    assert row is not None and row["state"] == "abandoned" and row["rounds_played"] == 0
