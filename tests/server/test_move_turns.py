"""How many turns of the event loop a move takes to reach the other seats (issue 26): on a busy
server every turn is a sweep over every table's ready work, so a move's latency is its number
of turns times the length of a turn. A move is received, stored (the group commit runs after
its table's step, in the same turn: posting the move put the commit after the table's wake-up,
`Store.commit_after_ready`) and sent: its event goes out in the turn the commit wakes its table,
not after a timer's turn and a queued tick, and it is handed to the sockets then, not at the end
of the turn after.

The turns are counted, not timed: `asyncio.sleep(0)` gives the loop one turn, so the count
does not depend on the machine's speed or load."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from clients.bot_player import BotPlayer
from clients.client import Client
from protocol.messages import PROTOCOL_VERSION
from server.testkit import InProcessConn, running_server
from tests.deadline import apoll
from tests.support import FAST

# A move's path: its table wakes and its write is committed after its step (1), the table wakes
# with the write done and sends (2). (3 before the commit came in its step's turn, 6 before that.)
TURNS = 2


def frames_of(conn: InProcessConn, start: int = 0) -> list[dict[str, Any]]:
    return [json.loads(f) for f in conn.frames[start:]]


async def test_a_move_reaches_the_other_seats_and_their_sockets_in_the_turn_it_is_stored(
    tmp_path: Path,
) -> None:
    async with running_server(tmp_path / "z.db", rate_burst=1e6, tables_per_address=0) as (
        url,
        server,
    ):
        seats = [InProcessConn(f"10.0.0.{i}") for i in range(4)]
        for i, conn in enumerate(seats):
            hello = {"type": "hello", "version": PROTOCOL_VERSION, "name": f"p{i}"}
            server.handle_frame(conn, json.dumps(hello))
        server.handle_frame(seats[0], json.dumps({"type": "create_table", "name": "t", **FAST}))
        await apoll(lambda: any('"joined"' in f for f in seats[0].frames), "made", 30)
        table = next(f for f in frames_of(seats[0]) if f["type"] == "joined")["table"]
        for conn in seats[1:]:
            server.handle_frame(conn, json.dumps({"type": "take_seat", "table": table}))
        await apoll(lambda: all('"joined"' in "".join(c.frames) for c in seats), "seated", 30)
        # A real websocket beside them: a spectator, whose frames go through the outbox.
        watcher = await Client.connect(url, "w")
        await watcher.recv_type("welcome")
        await watcher.send({"type": "watch", "table": table})
        await watcher.recv_type("joined")
        server.handle_frame(seats[0], json.dumps({"type": "start"}))

        # The bots read what they were sent until one has a move to make (the dealer's).
        players = [BotPlayer(seed=f"turns:{i}") for i in range(4)]
        read = [0, 0, 0, 0]
        move: tuple[int, dict[str, Any]] | None = None

        def next_move() -> bool:
            nonlocal move
            for i, conn in enumerate(seats):
                for frame in frames_of(conn, read[i]):
                    read[i] += 1
                    reply = players[i].on_frame(frame)
                    if reply is not None and reply["type"] == "act":
                        move = (i, reply)
                        return True
            return False

        await apoll(next_move, "a move to make", 30)
        assert move is not None
        mover, act = move
        others = [c for i, c in enumerate(seats) if i != mover]
        counts = [len(c.frames) for c in others]

        def shown() -> bool:
            return all(
                any(f["seq"] == act["seq"] + 1 for f in frames_of(c, n) if "seq" in f)
                for c, n in zip(others, counts, strict=True)
            )

        server.handle_frame(seats[mover], json.dumps(act))
        turns = 0
        while not shown():
            assert turns < 20, "the move's event never went out"
            await asyncio.sleep(0)
            turns += 1
        assert turns <= TURNS, f"the move's event reached the other seats after {turns} turns"
        # The spectator's copy is with its socket already, not waiting for the turn's end.
        assert not server.outbox.pending
        event = await watcher.recv_until(lambda f: f.get("seq") == act["seq"] + 1)
        assert event["type"] in ("discarded", "declared", "round_ended")
        await watcher.close()
