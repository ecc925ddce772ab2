"""The players' records become statements a real database takes, and read back as written."""

from __future__ import annotations

from pathlib import Path

from server.players import Players, key_digest
from server.storage.dbfile import open_database
from server.storage.players import find_player, known_players, player_names
from server.storage.record_sql import ops_of


def test_a_player_joins_is_renamed_and_is_known_again_at_start(tmp_path: Path) -> None:
    db = open_database(tmp_path / "p.db")
    key = "zk1_" + "b" * 43
    players = Players.load(known_players(db))
    offered = players.identify(key, "阿明", 10.0)
    assert offered.pending is not None and offered.written == []  # stored once seated
    pid, joined = players.register(offered.pending, 10.0)
    assert pid == offered.player
    renamed = players.identify(key, "Ming", 20.0).written
    for written in (joined, renamed):
        db.execute("BEGIN")
        for sql, params in ops_of(written):
            db.execute(sql, params)
        db.execute("COMMIT")
    assert known_players(db) == [(key_digest(key), pid, "Ming")]
    assert db.execute(
        "SELECT kind, created_at, seen_at FROM players WHERE id=?", (pid,)
    ).fetchone() == (
        "human",
        10.0,
        20.0,
    )
    assert player_names(db)[pid] == "Ming" and player_names(db)["bot-normal"] == "Bot (normal)"
    assert (
        find_player(db, "Ming")
        == find_player(db, pid)
        == [{"id": pid, "name": "Ming", "kind": "human"}]
    )
    assert find_player(db, "阿明") == []
    again = Players.load(known_players(db))  # a restarted server knows the key, and its name
    known = again.identify(key, "Ming", 30.0)
    assert (known.player, known.written, known.pending) == (pid, [], None)
    db.close()
