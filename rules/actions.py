"""Player actions: what a seat may send to the round, in deal-script vocabulary (RULES.md §9).

>>> Action(0, "discard", 4)
Action(seat=0, act='discard', tile=4)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from rules.tiles import parse_tile, tile_name

ActKind = Literal["discard", "hu", "pong", "gang", "pass", "ready"]
ACT_KINDS: tuple[str, ...] = ("discard", "hu", "pong", "gang", "pass", "ready")


@dataclass(frozen=True, slots=True)
class Action:
    """One seat's move.

    - `discard` tile: on turn. `ready` tile: 报听/天听 declared together with discarding `tile`.
    - `hu`: 自摸 on turn, or a claim of the discard / robbed 补杠 in a claim window.
    - `pong`: claim the discard. `gang`: claim the discard (明杠, tile optional), or on turn a
      暗杠 / 补杠 of `tile`.
    - `pass`: decline every claim in the current window.
    """

    seat: int
    act: ActKind
    tile: int | None = None

    def to_dict(self) -> dict[str, object]:
        d: dict[str, object] = {"seat": self.seat, "act": self.act}
        if self.tile is not None:
            d["tile"] = tile_name(self.tile)
        return d

    @staticmethod
    def from_dict(d: dict[str, object]) -> Action:
        """From `{"seat": 0, "act": "discard", "tile": "9m"}`; raises ValueError if malformed."""
        seat = d.get("seat")
        act = d.get("act")
        tile = d.get("tile")
        if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat <= 3:
            raise ValueError(f"seat must be 0-3, got {seat!r}")
        if act not in ACT_KINDS:
            raise ValueError(f"act must be one of {', '.join(ACT_KINDS)}, got {act!r}")
        kind: int | None = None
        if tile is not None:
            if not isinstance(tile, str):
                raise ValueError(f"tile must be a string like '5p', got {tile!r}")
            kind = parse_tile(tile)
        return Action(seat, act, kind)  # type: ignore[arg-type]


class IllegalAction(Exception):
    """An action that is not legal now; the round is unchanged.

    `code` is stable (`not_your_turn`, `tile_not_in_hand`, `no_pass`, …); `message` is for people.
    """

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
