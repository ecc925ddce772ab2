"""Matches played to their end by protocol bots, for tests and demos that need a finished match on
a real server (its database then holds every round)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from clients.bot_player import BotPlayer
from clients.client import Client, play


@dataclass
class Finished:
    """A match played to its end from seat 0: the table, seat 0's token, what it received."""

    table: str
    token: str
    frames: list[dict[str, Any]] = field(default_factory=list)


async def play_to_end(
    url: str,
    *,
    name: str = "host",
    table_name: str = "test",
    rounds: int = 2,
    player_key: str | None = None,
) -> Finished:
    """Create a table on the server at `url` (no clock), fill it with three server bots, start,
    and play seat 0 with a `BotPlayer` until the match ends."""
    host = await Client.connect(url, name, player_key=player_key)
    try:
        await host.recv()  # welcome
        await host.send(
            {
                "type": "create_table",
                "name": table_name,
                "rounds": rounds,
                "turn_seconds": 0,
                "bank_seconds": 0,
                "claim_min_ms": 0,
            }
        )
        joined = await host.recv_type("joined")
        player = BotPlayer(seed="host")
        player.on_frame(joined)
        await seat_bots(host, player)
        await host.send({"type": "start"})
        end = await play(host, player, on_frame=host.received.append, timeout=60)
        if end.get("reason") != "finished":
            raise RuntimeError(f"the match did not finish: {end}")
        return Finished(str(joined["table"]), str(joined["token"]), list(host.received))
    finally:
        await host.close()


async def seat_bots(host: Client, player: BotPlayer, bots: int = 3) -> None:
    """Ask for `bots` server bots at the host's table and read the host's frames (fed to its
    `player`) until each has connected and taken its seat."""
    for _ in range(bots):
        await host.send({"type": "add_bot"})
    connected: set[int] = set()
    while len(connected) < bots:  # each bot connects as a client and takes its seat
        frame = await host.recv()
        player.on_frame(frame)
        if frame["type"] == "seat_status" and frame["connected"] and frame["seat"] != player.seat:
            connected.add(frame["seat"])
