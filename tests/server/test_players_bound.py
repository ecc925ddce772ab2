"""A new player key costs nothing until its player sits down (review: every `hello` registered
its key, and kept its digest in memory before the row was stored, so anyone could register
infinitely many): the row is written when the player creates a table or takes a seat, one address
says hello with a bounded number of unknown keys an hour, and what the server remembers of the
keys it was offered stays bounded however many come."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from client_tui.player_key import new_key
from clients.client import Client
from server.players import Players, key_digest
from server.testkit import running_server
from tests.deadline import apoll
from tests.server.test_seats_wire import guest_dropped
from tests.support import FAST


def test_an_unknown_key_is_offered_an_id_and_stored_only_when_it_sits_down() -> None:
    reg = Players({})
    key = new_key()
    first = reg.identify(key, "阿明", 0.0, "10.0.0.7")
    again = reg.identify(key, "阿明", 1.0, "10.0.0.7")
    assert first.player is not None and first.player == again.player, "one key, one id"
    assert first.written == [] and reg.by_digest == {}, "nothing written, nothing kept as known"
    assert first.pending is not None
    pid, written = reg.register(first.pending, 2.0)
    assert pid == first.player and [type(r).__name__ for r in written] == ["PlayerJoined"]
    assert written[0].key_digest == key_digest(key)  # type: ignore[union-attr]
    assert reg.register(first.pending, 3.0) == (pid, []), "a second seat writes nothing"
    assert reg.identify(key, "阿明", 4.0, "10.0.0.7").pending is None, "known now"


def test_two_connections_of_one_new_key_are_told_one_id_whatever_came_between() -> None:
    """Two hellos with one new key, a flood of other new keys between them (which made the
    server forget the id it had offered, and offer the second connection another: both sat,
    and the first was told an id that was never its): one id, and one row when both sit."""
    reg = Players({})
    key = new_key()
    first = reg.identify(key, "阿明", 0.0)
    for i in range(5000):
        reg.identify(f"zk1_{i:043d}", "x", 1.0)
    second = reg.identify(key, "阿明", 2.0)
    assert first.player == second.player
    assert first.pending is not None and second.pending is not None
    pid, written = reg.register(second.pending, 3.0)
    assert pid == first.player and len(written) == 1
    assert reg.register(first.pending, 4.0) == (first.player, []), "one row"
    assert Players({}).identify(key, "阿明", 0.0).player != first.player, "another run's id"


def test_an_address_says_hello_with_a_bounded_number_of_new_keys_an_hour() -> None:
    reg = Players({}, new_per_address=3, window=3600.0)
    keys = [new_key() for _ in range(5)]
    got = [reg.identify(k, "x", float(i), "10.0.0.7") for i, k in enumerate(keys[:3])]
    assert all(g.player is not None for g in got)
    assert reg.identify(keys[0], "x", 10.0, "10.0.0.7").player == got[0].player, "counted once"
    over = reg.identify(keys[3], "x", 11.0, "10.0.0.7")
    assert over.player is None and over.pending is None
    assert over.refused is not None and "3 new player keys in the last hour" in over.refused
    assert reg.identify(keys[3], "x", 12.0, "10.0.0.8").player is not None, "another address"
    assert reg.identify(keys[3], "x", 13.0, None).player is not None, "an exempt address"
    assert reg.identify(keys[4], "x", 3600.0).player is not None, "no address: not counted"
    assert reg.identify(keys[4], "x", 3600.5, "10.0.0.7").player is not None, "the hour passed"
    # A known player is never refused, however many new keys their address tried.
    assert got[1].pending is not None
    reg.register(got[1].pending, 20.0)
    reg2 = reg.identify(keys[1], "x", 21.0, "10.0.0.7")
    assert reg2.player == got[1].player and reg2.refused is None


def test_memory_stays_bounded_under_a_flood_of_new_keys_from_many_addresses() -> None:
    reg = Players({}, new_per_address=5, addresses=50)
    for i in range(5000):
        who = reg.identify(f"zk1_{i:043d}", "x", float(i), f"10.{i // 256 % 256}.{i % 256}.1")
        assert who.player is not None
    assert len(reg.fresh) <= 50
    assert sum(len(v) for v in reg.fresh.values()) <= 50 * 5
    assert reg.by_digest == {}, "nothing sat down: nothing known"


async def test_hello_writes_nothing_a_seat_stores_the_player_and_the_cap_refuses_clearly(
    db: Path,
) -> None:
    async with running_server(db, new_players_per_hour=2) as (url, server):
        key = new_key()
        host = await Client.connect(url, "阿明", player_key=key)
        pid = (await host.recv_type("welcome"))["player"]
        assert pid.startswith("p-")
        assert key_digest(key) not in server.players.by_digest
        assert not any(t.get_name().startswith("player-") for t in server._readers)
        await host.send({"type": "create_table", "name": "t", "rounds": 1, **FAST})
        await host.recv_type("joined")
        await apoll(lambda: _stored(db, key) == [pid], "the player's row", timeout=30)

        second = await Client.connect(url, "b", player_key=new_key())
        assert (await second.recv_type("welcome"))["player"] is not None
        third_key = new_key()
        third = await Client.connect(url, "c", player_key=third_key)
        welcome = await third.recv_type("welcome")
        assert "player" not in welcome, "past the cap: no id"
        error = await third.recv_type("error")
        assert error["code"] == "new_players_per_address" and error["ref"] == "hello"
        assert "in the last hour" in error["message"]
        # The connection goes on without an id: it may still watch (and play unrecorded).
        await third.send({"type": "list_tables"})
        assert (await third.recv_type("tables"))["tables"]
        for c in (host, second, third):
            await c.close()
    assert _stored(db, third_key) == []
    conn = sqlite3.connect(db)
    try:
        humans = conn.execute("SELECT COUNT(*) FROM players WHERE kind = 'human'").fetchone()[0]
    finally:
        conn.close()
    assert humans == 1, "only the player who sat down is stored"


def _stored(db: Path, key: str) -> list[str]:
    conn = sqlite3.connect(db)
    try:
        rows = conn.execute("SELECT id FROM players WHERE key_digest = ?", (key_digest(key),))
        return [r[0] for r in rows]
    finally:
        conn.close()


async def test_a_refused_take_seat_stores_nothing_and_a_handed_seat_stores_its_player(
    tmp_path: Path,
) -> None:
    """Sitting down is what stores a key: a `take_seat` refused (wrong password) stores nothing;
    a spectator the creator hands an away seat to is stored, under the id the seat now has
    (review: the handed seat named an id that was never stored)."""
    async with running_server(tmp_path / "z.db", seed="hand") as (url, server):
        host, table, _ = await guest_dropped(url, "4711")

        key = new_key()
        li = await Client.connect(url, "小李", player_key=key)
        offered = (await li.recv_type("welcome"))["player"]
        await li.send({"type": "take_seat", "table": table, "password": "0000"})
        assert (await li.recv_type("error"))["code"] == "bad_password"
        assert key_digest(key) not in server.players.by_digest, "refused, yet stored"
        await li.send({"type": "watch", "table": table, "password": "4711"})
        await li.recv_type("snapshot")
        assert key_digest(key) not in server.players.by_digest, "a spectator is not stored"
        await host.send({"type": "hand_seat", "seat": 1, "to": "小李"})
        assert (await li.recv_type("joined"))["seat"] == 1
        assert server.tables[table].core.seats[1].player == offered
        await apoll(lambda: key_digest(key) in server.players.by_digest, "小李 stored", 30)
        assert server.players.by_digest[key_digest(key)].id == offered
        for c in (host, li):
            await c.close()
