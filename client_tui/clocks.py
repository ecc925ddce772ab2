"""Every seat's clock, as this client can tell it: the server sends a deadline only with the
player's own prompt, so the other seats' clocks are kept from what the table shows — when a seat's
turn began (the arrival of the frame that gave it the turn), the table's `turn_seconds`, and its
bank (`bank_seconds` a round, less the overtime each of its turns took). An estimate, within a
frame's travel time; the player's own clock is the prompt's deadline.

>>> c = SeatClocks.start(turn_seconds=15, bank_seconds=30)
>>> c = c.moved(turn=1, round_no=1, at=100.0)
>>> c.left(1, now=104.0), c.left(2, now=104.0)
(41.0, None)
>>> c = c.moved(turn=2, round_no=1, at=120.0)  # seat 1 took 20 s: 5 s of its bank
>>> c.banks[1], c.left(2, now=121.0)
(25.0, 44.0)
"""

from __future__ import annotations

from dataclasses import dataclass, replace


@dataclass(frozen=True, slots=True)
class SeatClocks:
    """Whose turn runs since when (`turn` None: nobody's, e.g. a claim window), and each seat's
    bank left this round."""

    turn_seconds: float
    bank_seconds: float
    round_no: int = 0
    turn: int | None = None
    since: float = 0.0
    banks: tuple[float, ...] = (0.0, 0.0, 0.0, 0.0)

    @classmethod
    def start(cls, turn_seconds: float, bank_seconds: float) -> SeatClocks:
        return cls(turn_seconds, bank_seconds, banks=(bank_seconds,) * 4)

    @property
    def running(self) -> bool:
        """The table has a clock at all (0 and 0: none)."""
        return self.turn_seconds > 0 or self.bank_seconds > 0

    def moved(self, *, turn: int | None, round_no: int, at: float) -> SeatClocks:
        """After a frame at `at`: `turn` is the seat on turn now (None: nobody's turn)."""
        c = self
        if round_no != c.round_no:
            c = replace(c, round_no=round_no, turn=None, banks=(c.bank_seconds,) * 4)
        if turn == c.turn:
            return c
        banks = list(c.banks)
        if c.turn is not None:
            over = (at - c.since) - c.turn_seconds
            if over > 0:
                banks[c.turn] = max(0.0, banks[c.turn] - over)
        return replace(c, turn=turn, since=at, banks=tuple(banks))

    def left(self, seat: int, now: float) -> float | None:
        """Seconds left for the seat on turn (its bank included); None for the others."""
        if seat != self.turn or not self.running:
            return None
        return max(0.0, self.turn_seconds + self.banks[seat] - (now - self.since))
