"""What the store gives back of a match: its rounds (`StoredRound`) and, for a table the server
resumes, everything it needs (`StoredTable`). Plain values: a table reads them without knowing
where they came from."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

ActionRow = tuple[int, str, str | None, str]
"""A stored action: seat, act, tile (on turn only), phase."""


@dataclass
class StoredRound:
    """One round as the `rounds` table holds it (tiles in notation)."""

    round_no: int
    seed: str
    dealer: int
    streak: int
    base: int
    hands: list[list[str]]
    wall: list[str]
    salt: str | None
    commitment: str | None
    result: dict[str, Any] | None  # the settlement once the round ended
    weekday: int | None = None  # the day of the deal (1 Monday … 7 Sunday), for 星期鸡

    @classmethod
    def of_row(cls, r: Mapping[str, Any]) -> StoredRound:
        """A `rounds` row (a `sqlite3.Row` or a dict); the columns later schemas added
        (`salt`, `commitment`, `weekday`) are None in a file read before its upgrade."""
        keys = r.keys()
        return cls(
            round_no=r["round_no"],
            seed=r["seed"],
            dealer=r["dealer"],
            streak=r["streak"],
            base=r["base"],
            hands=json.loads(r["hands"]),
            wall=json.loads(r["wall"]),
            salt=r["salt"] if "salt" in keys else None,
            commitment=r["commitment"] if "commitment" in keys else None,
            result=None if r["result"] is None else json.loads(r["result"]),
            weekday=r["weekday"] if "weekday" in keys else None,
        )


@dataclass
class StoredTable:
    """An unfinished match as stored: its row, its rounds, and the last round's actions and
    events; `seq` is the table's last event number, `log` its latest events in order."""

    id: str
    row: dict[str, Any]
    rounds: list[StoredRound] = field(default_factory=list)
    actions: list[ActionRow] = field(default_factory=list)
    round_events: list[dict[str, Any]] = field(default_factory=list)
    log: list[dict[str, Any]] = field(default_factory=list)
    seq: int = 0
    error: str | None = None
