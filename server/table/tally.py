"""What a table counts for the server's metrics: `Tally`, a value of its own that never calls
back into the core (the shell takes its counts after each input, `take`).

The counts: `action:<by>` — each move an event shows, by whom as far as the table already
shows it (player, bot, auto, timeout, disconnected); never a pass, and a claim only by its own
event (a 碰, 杠 or 胡), so `/metrics` tells nobody who could claim —, `round` (a round ended),
`resume:<how>` (events, snapshot, refused). It also keeps which seats' moves an event showed
during the input (`showed`): only those moves are timed.

>>> t = Tally()
>>> t.turn(2, reason=None, bot=True); t.turn(0, reason="timeout", bot=False)
>>> t.showed(2), t.showed(1)
(True, False)
>>> t.round_ended(); t.resumed("snapshot")
>>> t.take()
{'action:bot': 1, 'action:timeout': 1, 'round': 1, 'resume:snapshot': 1}
>>> t.take()
{}
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Iterable
from typing import Any, Literal, TypeVar

from rules.events import Claimed, Won
from server.table.seating import AutoReason, Seats

M = TypeVar("M", bound=Hashable)


class Tally:
    """The counts of one input (or more, until taken) and the seats whose move it showed."""

    def __init__(self) -> None:
        self.counts: Counter[str] = Counter()
        self.shown: set[int] = set()  # seats whose move an event of this input showed

    def new_move(self) -> None:
        """A player's move is about to be played: which seats it shows starts afresh."""
        self.shown.clear()

    def showed(self, seat: int) -> bool:
        """Whether an event showed the seat's move since `new_move`."""
        return seat in self.shown

    def turn(self, seat: int, *, reason: AutoReason | None, bot: bool) -> None:
        """A move on the seat's turn (always shown): by the server for the seat (`reason`), by
        a server `bot`, or by its player."""
        self._moved(seat, reason or ("bot" if bot else "player"))

    def claims(self, events: Iterable[Any], seats: Seats[M]) -> None:
        """The claims a claim window's close shows (a 碰, 杠 or 胡 by its own event), each by
        whom the table already shows (`SeatState.public_by`). Answers no event shows (a pass, a
        碰 outranked by a 胡) are not counted: how many seats were asked is nobody's business,
        `/metrics` included."""
        for e in events:
            if isinstance(e, Claimed | Won):
                self._moved(e.seat, seats[e.seat].public_by())

    def round_ended(self) -> None:
        self.counts["round"] += 1

    def resumed(self, how: Literal["events", "snapshot", "refused"]) -> None:
        """A seat's token came back: how it caught up (or that it was refused)."""
        self.counts["resume:" + how] += 1

    def take(self) -> dict[str, int]:
        """The counts so far, cleared (the shell hands them to the metrics)."""
        counts = dict(self.counts)
        self.counts.clear()
        return counts

    def _moved(self, seat: int, by: str) -> None:
        self.counts["action:" + by] += 1
        self.shown.add(seat)
