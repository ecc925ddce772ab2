"""The round being played, as the table keeps its books: the fair deal's salt and commitment,
the index of the next stored action, and the records and event context of a deal, a move and
an end. A value: it reads no clock and never calls back into the core, which tells it the round,
the match's numbers and the records' time (`wall`).

>>> from rules.options import make_options
>>> from rules.round import Round
>>> r = Round.deal(make_options("guiyang", {}), seed=1, dealer=0, streak=0, base=1)
>>> book = RoundBook("7")
>>> book.deal(r, salt="ab" * 16)
>>> book.commitment == commitment(r.deal_order, "ab" * 16), book.actions
(True, 0)
>>> book.context({"type": "round_started"}, r, round_no=1, base=2, scores=[0] * 4)["base"]
2
>>> book.end_handled(), book.end_handled()
(True, False)
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from rules.actions import Action
from rules.fairdeal import commitment
from rules.round import Round
from rules.tiles import tile_name
from server.storage.records import ActionPlayed, Record, RoundDealt, RoundEnded, RoundTallied


def weekday_of(wall: float) -> int:
    """Monday 1 … Sunday 7 of the server's local date at `wall` (epoch seconds): the deal's
    weekday for 星期鸡 (RULES.md §13.12)."""
    return datetime.fromtimestamp(wall).isoweekday()


class RoundBook:
    """The books of the table's current round."""

    def __init__(self, table_id: str) -> None:
        self.table_id = table_id
        self.salt: str | None = None  # the fair deal's secret, revealed at the round's end
        self.commitment: str | None = None  # its published commitment to the deal order
        self.actions = 0  # the actions of the round stored so far: the next one's index
        self.ended = False  # the round's end has been handled

    def deal(self, r: Round, salt: str) -> None:
        """A new round: commit to its whole deal order with a secret `salt` (fair deal)."""
        self.salt, self.commitment = salt, commitment(r.deal_order, salt)
        self.actions, self.ended = 0, False

    def dealt(self, r: Round, round_no: int, seed: str, hands: Any, wall: float) -> RoundDealt:
        """The record of the deal (`hands`: as its `round_started` event has them)."""
        return RoundDealt(
            self.table_id,
            round_no,
            seed,
            r.dealer,
            r.streak,
            r.base,
            hands,
            [tile_name(k) for k in r.wall],
            wall,
            self.salt,
            self.commitment,
            r.weekday,
        )

    def context(
        self, d: dict[str, Any], r: Round | None, *, round_no: int, base: int, scores: list[int]
    ) -> dict[str, Any]:
        """An engine event (`to_dict()`) with the table's context: a deal says the round, the
        base and the commitment; an end the match's scores and the deal revealed."""
        if d["type"] == "round_started":
            d["round_no"] = round_no
            d["base"] = base
            d["commitment"] = self.commitment
        elif d["type"] == "round_ended":
            d["scores"] = list(scores)  # the round is recorded in the match by now
            if r is not None and self.salt is not None:
                d["deal"] = {"order": [tile_name(k) for k in r.deal_order], "salt": self.salt}
        return d

    def played(
        self, round_no: int, action: Action, phase: str, auto: bool, wall: float
    ) -> ActionPlayed:
        """The record of a move, numbered in the round. A claim's tile is not stored (it is
        the tile claimed; a pass has none)."""
        tile = None if action.tile is None or phase != "turn" else tile_name(action.tile)
        record = ActionPlayed(
            self.table_id,
            round_no,
            self.actions,
            action.seat,
            action.act,
            tile,
            phase,
            auto,
            wall,
        )
        self.actions += 1
        return record

    def end_handled(self) -> bool:
        """Whether the round's end is news (the core handles it once)."""
        if self.ended:
            return False
        self.ended = True
        return True

    def over(
        self,
        r: Round,
        round_no: int,
        result: dict[str, Any],
        scores: list[int],
        seats: list[dict[str, Any]],
        wall: float,
    ) -> list[Record]:
        """The records of a round's end: its result and the match's scores, and what the
        players' records are tallied from (`seats` as stored)."""
        return [
            RoundEnded(self.table_id, round_no, result, result["net"], list(scores), wall),
            RoundTallied(self.table_id, r.dealer, r.streak, list(r.declared), result, seats, wall),
        ]
