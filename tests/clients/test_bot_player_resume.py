"""A `BotPlayer` that drops again amid the events a resume catches it up on comes back quoting the
last event it was shown, so the server sends it the rest of them: the match's end among them.

The leak audit's seats (tests/server/test_leak_audit.py) once waited for ever on a finished table:
a seat resumed, was sent `joined` and its missed events (the match's end among them), dropped
again before reading them, and resumed quoting the `seq` of that `joined` (the table's latest),
so the server rightly had nothing more to send it. A real server on loopback."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from clients.bot_player import BotPlayer
from clients.client import Client
from server.testkit import running_server
from tests.support import connect, started_table


async def seated_and_started(url: str) -> tuple[Client, dict[str, Any], BotPlayer]:
    """A one-round table of its host and three server bots, started, the host's first moves
    made."""
    host = await connect(url, "host")
    joined, player = await started_table(host, rounds=1, moves=2)
    return host, joined, player


async def until_finished(watcher: Client) -> None:
    """Read a spectator's frames until the match has ended."""
    while True:
        f = await watcher.recv(timeout=30)
        if f["type"] == "match_ended":
            return
        if f["type"] == "snapshot" and f["info"]["state"] == "finished":
            return


async def resumed(url: str, token: str, player: BotPlayer) -> tuple[Client, dict[str, Any]]:
    """The seat back with its token and the last `seq` its player saw: its `joined`."""
    client = await Client.connect(url, "host", token=token, last_seq=player.seq)
    assert (await client.recv())["type"] == "welcome"
    joined = await client.recv()
    assert joined["type"] == "joined" and joined["resume"] == "events", joined
    player.on_frame(joined)
    return client, joined


async def test_a_player_dropped_amid_its_missed_events_is_sent_the_rest_when_it_comes_back(
    tmp_path: Path,
) -> None:
    # No grace: the server moves at once for a seat whose connection dropped, so the match
    # plays to its end while the host is away.
    async with running_server(tmp_path / "z.db", seed="amid", disconnect_grace=0) as (url, _s):
        host, joined, player = await seated_and_started(url)
        host.ws.transport.abort()  # the network went away
        watcher = await connect(url, "watcher")  # it keeps the finished table open
        await watcher.send({"type": "watch", "table": joined["table"]})
        await until_finished(watcher)

        seen = player.seq
        first, first_joined = await resumed(url, joined["token"], player)
        assert first_joined["seq"] > seen  # the events it missed follow, the end among them
        assert player.seq == seen, "a resume's `joined` is not an event seen"
        first.ws.transport.abort()  # gone again before reading any of them

        again, again_joined = await resumed(url, joined["token"], player)
        kinds = []
        while True:  # up to the seat's own return, the last frame a resume sends here
            f = await again.recv(timeout=30)
            kinds.append(f["type"])
            player.on_frame(f)
            if f["type"] == "seat_status" and f["seat"] == 0 and f["connected"]:
                if f["seq"] > again_joined["seq"]:
                    break
        assert "match_ended" in kinds, kinds
        assert player.finished is not None and player.finished["reason"] == "finished"
        await again.ws.close()
        await watcher.ws.close()
