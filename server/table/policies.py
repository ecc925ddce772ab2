"""Who chooses the moves the server makes at a table: `Policies`, a value of its own that never
calls back into the core.

A server bot's seat has its bot's policy, of the level it was added at, seeded by the table
and the seat (and, after a restart, the `seq` it came back at: its choices from there on are
its own). A player's seat the server plays for (托管, a clock that ran out, a seat away) gets
one policy of the server's `auto_level`, made the first time it is needed and kept. A policy
that raises costs the seat its chosen move, never the table: `choose` gives None and the core
plays the seat's default, counted in `fallbacks`.

>>> p = Policies("t1", auto_level="strong")
>>> p.seat_bot(1, "easy")
>>> type(p.of(1)).__name__, type(p.of(2)).__name__   # a bot's own; a player's seat: auto_level
('EasyBot', 'StrongBot')
>>> p.of(2) is p.of(2)   # one per seat, kept
True
>>> p.remove_bot(1); 1 in p.bots
False
"""

from __future__ import annotations

from rules.actions import Action
from rules.players.levels import LevelPolicy, policy_for
from rules.round import Round


class Policies:
    """The server bots' policies and the 托管 policies, by seat; the moves that fell back."""

    def __init__(self, table_id: str, auto_level: str) -> None:
        self.table_id = table_id
        self.auto_level = auto_level
        self.bots: dict[int, LevelPolicy] = {}  # the server's bots, by seat
        self.auto: dict[int, LevelPolicy] = {}  # 托管 and timeouts, by seat
        self.fallbacks = 0  # moves where the policy failed and the default was played

    def seat_bot(self, index: int, level: str, *, since: int | None = None) -> None:
        """A server bot of `level` plays seat `index` (`since`: the `seq` it came back at
        after a restart; its seed differs from the first run's)."""
        seed = f"{self.table_id}:{index}" + ("" if since is None else f":{since}")
        self.bots[index] = policy_for(level, seed)

    def remove_bot(self, index: int) -> None:
        self.bots.pop(index, None)

    def of(self, index: int) -> LevelPolicy:
        """The policy that moves for a seat: a server bot's own; for a player's seat (托管,
        timeouts) one of the server's `auto_level`, one per seat."""
        policy = self.bots.get(index) or self.auto.get(index)
        if policy is None:
            policy = policy_for(self.auto_level, f"{self.table_id}:{index}:auto")
            self.auto[index] = policy
        return policy

    def choose(self, r: Round, index: int) -> Action | None:
        """The seat's policy's move, or None if the policy failed (a bug in it costs the seat
        its move, not the table: the core plays the default and calls `fell_back`)."""
        try:
            return self.of(index).choose(r, index)
        except Exception:
            return None

    def fell_back(self) -> None:
        """The default was played for a seat: its policy failed or chose an illegal move."""
        self.fallbacks += 1
