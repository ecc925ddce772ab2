"""Bot levels and a table's `bot_delay` against real clients: a websockets server on loopback and
a SQLite file in tmp_path. Every frame received is validated against the protocol models.

The delay itself is checked on a fake clock in test_table_core.py; here it is the deadline the
table arms on the event loop's clock (never a measured wait).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from clients.bot_player import BotPlayer
from clients.client import Client, play
from rules.players.bot import Bot
from rules.players.bot_strong import StrongBot
from rules.players.levels import EasyBot
from rules.round import Phase
from server.app import Server
from server.storage.reads import table_row
from server.testkit import running_server
from tests.support import FAST, checked, connect


def levels(frame: dict[str, Any]) -> list[str | None]:
    return [s.get("level") for s in frame["info"]["seats"]]


async def seat_bots(host: Client, player: BotPlayer, asked: list[str | None]) -> None:
    """Add a bot per level asked (None: no level given) and wait until each has arrived."""
    for level in asked:
        await host.send(
            {"type": "add_bot"} if level is None else {"type": "add_bot", "level": level}
        )
    connected: set[int] = set()
    while len(connected) < len(asked):
        frame = checked(await host.recv())
        player.on_frame(frame)
        if frame["type"] == "seat_status" and frame["connected"]:
            connected.add(frame["seat"])


async def test_add_bot_with_a_level_seats_that_bot_and_every_header_shows_it(
    srv: tuple[str, Server, Path],
) -> None:
    url, server, db = srv
    host = await connect(url, "host")
    fields = {"bot_delay": 1.5, "options": {"first_dealer": "seat0"}, **FAST}
    await host.send({"type": "create_table", "name": "级别", **fields})
    joined = checked(await host.recv_type("joined"))
    snapshot = checked(await host.recv_type("snapshot"))
    assert snapshot["info"]["bot_delay"] == 1.5
    player = BotPlayer(seed="host")
    player.on_frame(joined)
    await host.send({"type": "add_bot", "level": "strong"})
    update = checked(await host.recv_type("table"))
    assert levels(update) == [None, "strong", None, None]
    assert update["info"]["seats"][1]["kind"] == "bot"
    await host.send({"type": "add_bot", "level": "easy"})
    await host.send({"type": "add_bot"})
    update = await host.recv_until(lambda f: f["type"] == "table" and levels(f)[3] is not None)
    assert levels(checked(update)) == [None, "strong", "easy", "normal"]
    core = server.tables[joined["table"]].core
    assert [type(core.policies.bots[i]) for i in (1, 2, 3)] == [StrongBot, EasyBot, Bot]

    # The lobby row says the same.
    other = await connect(url, "other")
    await other.send({"type": "list_tables"})
    lobby = checked(await other.recv_type("tables"))
    row = next(t for t in lobby["tables"] if t["id"] == joined["table"])
    assert [s.get("level") for s in row["seats"]] == [None, "strong", "easy", "normal"]
    assert row["bot_delay"] == 1.5

    # Each bot waits the table's 1.5 s (the server's default is 0) after its turn's prompt.
    await host.send({"type": "start"})
    prompt = await host.recv_until(lambda f: f["type"] == "prompt")  # the host deals
    reply = player.on_frame(prompt)
    assert reply is not None
    await host.send(reply)
    # That pace is for turns: a claim answer does not wait for it (issue 22).
    await host.recv_until(lambda f: f["type"] in ("drew", "claimed") and f["seat"] != 0)
    r = core.round
    assert r is not None and r.phase is Phase.TURN and r.turn != 0
    _, bot_at = core.play.seat_deadlines(r.turn)
    assert bot_at is not None
    assert bot_at - core.seats[r.turn].clock.prompt_at == 1.5


async def test_a_bad_level_or_bot_delay_is_refused_naming_the_field(
    srv: tuple[str, Server, Path],
) -> None:
    url, server, db = srv
    host = await connect(url, "host")
    for bad in (0.7, 2, -1, "1"):
        await host.send({"type": "create_table", "name": "x", "bot_delay": bad})
        error = checked(await host.recv_type("error"))
        assert error["code"] == "bad_message" and "bot_delay" in error["message"], bad
    await host.send({"type": "create_table", "name": "x", "bot_delay": 0})
    joined = checked(await host.recv_type("joined"))
    assert checked(await host.recv_type("snapshot"))["info"]["bot_delay"] == 0
    await host.send({"type": "add_bot", "level": "grandmaster"})
    error = checked(await host.recv_type("error"))
    assert error["code"] == "bad_message" and "level" in error["message"]
    await host.send({"type": "add_bot", "level": "easy"})
    update = checked(await host.recv_type("table"))
    assert levels(update)[1] == "easy" and update["table"] == joined["table"]


async def test_the_levels_and_the_delay_are_stored_and_come_back_after_a_restart(
    tmp_path: Path,
) -> None:
    db = tmp_path / "z.db"
    async with running_server(db, bot_delay=0.0) as (url, server):
        host = await connect(url, "host")
        await host.send({"type": "create_table", "name": "存", "rounds": 1, **FAST})
        joined = checked(await host.recv_type("joined"))
        player = BotPlayer(seed="host")
        player.on_frame(joined)
        await seat_bots(host, player, ["strong", "easy", None])
        await host.send({"type": "start"})
        await host.recv_type("match_started")
    row = table_row(db, joined["table"])
    assert row is not None and row["bot_delay"] is None  # the server's default, not chosen
    assert [s.get("level") for s in row["seats"]] == [None, "strong", "easy", "normal"]

    async with running_server(db, bot_delay=0.0) as (url, server):
        core = server.tables[joined["table"]].core
        assert [s.get("level") for s in core.info()["seats"]] == [None, "strong", "easy", "normal"]
        assert [type(core.policies.bots[i]) for i in (1, 2, 3)] == [StrongBot, EasyBot, Bot]
        back = await connect(url, "host", token=joined["token"], last_seq=player.seq)
        checked(await back.recv_type("joined"))
        end = await play(back, player, on_frame=lambda f: None if checked(f) else None, timeout=60)
    assert end["reason"] == "finished" and sum(end["scores"]) == 0


def test_a_version_1_database_gets_the_bot_delay_column_and_keeps_its_tables(
    tmp_path: Path,
) -> None:
    import sqlite3

    from server.storage.dbfile import APPLICATION_ID, SCHEMA, SCHEMA_VERSION
    from server.storage.writer import Store

    db = tmp_path / "v1.db"
    # Version 1's schema: this one without the `bot_delay` column.
    old = SCHEMA.replace(
        ",                    -- JSON: 4 SHA-256", "                     -- JSON: 4 SHA"
    )
    old = "\n".join(line for line in old.splitlines() if "bot_delay" not in line)
    assert "bot_delay" not in old
    with sqlite3.connect(db) as conn:
        conn.executescript(old)
        conn.executescript(
            """
            INSERT INTO tables (id, name, preset, options, base, rounds, turn_seconds,
              bank_seconds, claim_min_ms, has_password, created_at, state)
              VALUES ('3', 'old', 'guiyang', '{}', 1, 2, 30, 60, 300, 0, 1.0, 'finished');
            """
        )
        conn.execute(f"PRAGMA application_id={APPLICATION_ID}")
        conn.execute("PRAGMA user_version=1")
    conn.close()
    assert SCHEMA_VERSION == 3
    Store(db).close()
    with sqlite3.connect(db) as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        assert "bot_delay" in {r[1] for r in conn.execute("PRAGMA table_info(tables)")}
    conn.close()
    row = table_row(db, "3")
    assert row is not None and row["name"] == "old" and row["bot_delay"] is None
