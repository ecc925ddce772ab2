"""The day of the deal on the wire (星期鸡, RULES.md §13.12): `round_started.weekday` and the
snapshot round's `weekday` are the day the server dealt the round on, and a client's seat view
holds it (that the day is stored with the round: tests/server/test_table_core.py). Against a real server on loopback."""

from __future__ import annotations

from pathlib import Path

from clients.bot_player import BotPlayer
from rules.chickens import known_chickens
from rules.options import make_options
from server.app import Server
from tests.server.test_server import FAST, checked, connect, open_table


async def test_round_started_and_the_snapshot_carry_the_day_of_the_deal(
    srv: tuple[str, Server, Path],
) -> None:
    url, server, _ = srv
    host, joined, player = await open_table(url, rounds=1, options={"xingqiji": True}, **FAST)
    table_id, token = joined["table"], joined["token"]
    await host.send({"type": "start"})
    deal = checked(await host.recv_type("round_started"))
    player.on_frame(deal)
    table = server.tables[table_id]
    assert table.round is not None
    day = table.round.weekday
    assert day is not None and 1 <= day <= 7
    assert deal["weekday"] == day
    # The seat's view knows the day, so its bot counts the 星期鸡 among its chickens.
    assert player.view is not None and player.view.weekday == day
    kinds = known_chickens(make_options("guiyang", {"xingqiji": True}), day)
    assert {9 * suit + day - 1 for suit in range(3)} <= set(kinds)

    # A second connection with the token and no last seq gets a snapshot whose round has it.
    again = await connect(url, "host", token=token)
    rejoined = checked(await again.recv_type("joined"))
    assert rejoined["resume"] == "snapshot"
    snapshot = checked(await again.recv_type("snapshot"))
    assert snapshot["round"]["weekday"] == day
    fresh = BotPlayer(seed="again")
    fresh.on_frame(rejoined)
    fresh.on_frame(snapshot)
    assert fresh.view is not None and fresh.view.weekday == day
    await again.close()
    await host.close()
