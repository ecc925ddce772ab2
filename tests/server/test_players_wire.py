"""A player is a key, on a real server on loopback: the id stays when the name changes, the file
holds only the key's digest, a malformed key gets a clear error and no seat, and `get_records`
answers from the records the rounds left (each answer within the frame limit)."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from client_tui.player_key import new_key
from clients.client import Client
from clients.testkit import play_to_end
from protocol.messages import MAX_FRAME_BYTES, parse_server
from server import standings
from server.players import key_digest
from server.records import COLUMNS
from server.storage.dbfile import open_database
from server.testkit import running_server


async def test_the_id_stays_when_the_name_changes_and_records_follow_the_key(db: Path) -> None:
    key = new_key()
    async with running_server(db) as (url, _server):
        done = await play_to_end(url, name="阿明", rounds=2, player_key=key)
        back = await Client.connect(url, "Ming", player_key=key)
        welcome = await back.recv_type("welcome")
        await back.send({"type": "get_records"})
        frame = await back.recv_type("records")
        await back.send({"type": "get_records", "table": done.table, "player": "p-0000000000ff"})
        summary = await back.recv_type("records")
        other = await Client.connect(url, "阿明")  # the same name without the key
        assert (await other.recv_type("welcome")).get("player") is None
        await other.close()
        await back.close()
    parse_server(json.dumps(frame))
    pid = welcome["player"]
    assert pid.startswith("p-")
    me = frame["me"]
    assert me["player"] == pid and me["name"] == "Ming" and me["rounds"] == 2
    assert me["matches"] == 1 and sum(me["placements"]) == 1
    assert me["rating_change"] == 0.0, "one human among bots: no rated pair"
    (line,) = frame["matches"]
    assert line["table"] == done.table and line["players"][0] == pid
    assert line["names"][0] == "阿明" and sum(line["scores"]) == 0
    assert [p.startswith("bot-") for p in line["players"][1:]] == [True] * 3
    assert len(frame["recent_net"]) == 1 and frame["recent_net"][0] == line["scores"][0]
    # The match summary's line (rating changes: none for a lone human among bots), and a
    # player nobody knows gets a record of zeros, not an error.
    assert summary["match"] == line and summary["match"]["rating_changes"] == [0.0] + [None] * 3
    assert summary["me"]["player"] == "p-0000000000ff" and summary["me"]["rounds"] == 0
    # The file keeps the digest and the id, never the key; the seat knows its player.
    raw = db.read_bytes() + (db.with_name(db.name + "-wal").read_bytes() if
                             db.with_name(db.name + "-wal").exists() else b"")  # fmt: skip
    assert key.encode() not in raw
    conn = sqlite3.connect(db)
    try:
        assert conn.execute("SELECT id FROM players WHERE key_digest=?", (key_digest(key),))\
            .fetchone() == (pid,)  # fmt: skip
        seats = json.loads(conn.execute("SELECT seats FROM tables").fetchone()[0])
        assert seats[0]["player"] == pid and "player" not in seats[1]
    finally:
        conn.close()


@pytest.mark.parametrize("bad", ["zk1_short", "zk2_" + "a" * 43, "a" * 47, "zk1_" + "a" * 42 + "!"])
async def test_a_malformed_key_gets_a_clear_error_and_no_seat(db: Path, bad: str) -> None:
    async with running_server(db) as (url, _server):
        c = await Client.connect(url, "阿明", player_key=bad)
        err = await c.recv_type("error")
        await c.close()
        fine = await Client.connect(url, "other")
        assert (await fine.recv())["type"] == "welcome", "the server goes on"
        await fine.close()
    assert err["message"].startswith("player_key: ") and "not a player key" in err["message"]


def test_a_records_answer_stays_within_the_frame_limit_at_its_largest(tmp_path: Path) -> None:
    """Forty players with the longest names and numbers, every page."""
    conn = open_database(tmp_path / "z.db")
    try:
        conn.execute("BEGIN")
        big = 2**40
        for i in range(40):
            pid = f"p-{i:012x}"
            conn.execute(
                "INSERT INTO players VALUES (?, ?, ?, 'human', 0, 0)",
                (pid, f"{i:064x}", "鸡" * 24),
            )
            conn.execute(
                "INSERT INTO records (table_id, seat, player_id, preset, at, "
                + ", ".join(COLUMNS)
                + ") VALUES (?, ?, ?, 'guiyang', ?, "
                + ", ".join("?" for _ in COLUMNS)
                + ")",
                (f"{i // 4 + 1}", i % 4, pid, 1e9 + i, *[big + 7 for _ in COLUMNS]),
            )
        for t in range(10):
            seats = [{"name": "鸡" * 24, "kind": "human", "player": f"p-{t * 4 + s:012x}"}
                     for s in range(4)]  # fmt: skip
            conn.execute(
                "INSERT INTO tables (id, name, preset, options, base, rounds, turn_seconds,"
                " bank_seconds, claim_min_ms, has_password, created_at, started_at, ended_at,"
                " state, seats, scores, rounds_played) VALUES (?, ?, 'guiyang', '{}', 1, 64, 0,"
                " 0, 0, 0, 0, 1, ?, 'finished', ?, ?, 64)",
                (str(t + 1), "桌" * 32, 1e9 + t, json.dumps(seats), json.dumps([-big] * 4)),
            )
        conn.execute("COMMIT")
        first = standings.answer(conn, player="p-000000000000", table="1")
        for page in range(first["pages"]):
            frame = standings.answer(conn, player="p-000000000000", table="1", page=page)
            text = json.dumps(frame, ensure_ascii=False, separators=(",", ":"))
            assert len(text.encode()) <= MAX_FRAME_BYTES, (page, len(text.encode()))
            parse_server(text)
        assert first["pages"] == 4 and len(first["standings"]) == standings.STANDINGS_PAGE
    finally:
        conn.close()
