"""The phases of a round: who must act now (`rules.round.Round.phase`)."""

from __future__ import annotations

from enum import StrEnum


class Phase(StrEnum):
    TURN = "turn"  # `turn` must act: 自摸, gang, 报听 or discard
    CLAIM = "claim"  # the seats in `claim_options` answer the discard
    ROB = "rob"  # the seats in `claim_options` may rob the declared 补杠
    OVER = "over"
