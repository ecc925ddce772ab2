"""What a table is: the settings `create_table` fixed, and the server's time limits."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from rules.options import RuleOptions
from server.credentials import password_matches
from server.storage.records import TableCreated

AUTO_LEVEL = (
    "strong"  # the policy that plays a seat in 托管 or after a timeout (`rules.players.levels`)
)


@dataclass
class Timing:
    """The server's time limits (seconds), and its cap on each table's spectators."""

    disconnect_grace: float = 20.0
    finished_linger: float = 600.0
    bot_delay: float = 0.0
    auto_level: str = AUTO_LEVEL  # the bot level that plays 托管 seats and timeouts
    idle_pause: float = 600.0  # nobody connected this long: the table pauses (0: never)
    idle_close: float = 7200.0  # nobody connected this long: it is closed (0: never)
    spectators: int = 16  # spectators one table takes at most (0: no cap)


@dataclass
class Settings:
    """What `create_table` fixed."""

    name: str
    preset: str
    overrides: dict[str, Any]
    options: RuleOptions
    base: int
    rounds: int
    turn_seconds: float
    bank_seconds: float
    claim_min_ms: int
    password_hash: str | None = field(default=None, repr=False)  # `hash_password`
    bot_delay: float | None = None  # seconds the bots wait before moving (None: the server's)
    next_round_seconds: float = 30.0  # the longest wait between rounds (0: no limit)

    @property
    def timed(self) -> bool:
        """Whether moves have a time limit (a turn's time or a bank)."""
        return self.turn_seconds > 0 or self.bank_seconds > 0

    @property
    def holds_claims(self) -> bool:
        """Whether claim windows are held open for `claim_min_ms`."""
        return self.claim_min_ms > 0

    def pace(self, timing: Timing) -> float:
        """Seconds the table's bots wait before each move: its choice, else the server's."""
        return timing.bot_delay if self.bot_delay is None else self.bot_delay

    def password_ok(self, given: str | None) -> bool:
        """Whether `given` opens the table (a table without a password opens to anyone)."""
        if self.password_hash is None:
            return True
        return given is not None and password_matches(given, self.password_hash)

    def header(self, timing: Timing) -> dict[str, Any]:
        """The settings' part of the table header (protocol `TableInfo`)."""
        return {
            "name": self.name,
            "preset": self.preset,
            "options": self.overrides,
            "base": self.base,
            "rounds": self.rounds,
            "turn_seconds": self.turn_seconds,
            "bank_seconds": self.bank_seconds,
            "claim_min_ms": self.claim_min_ms,
            "bot_delay": self.pace(timing),
            "next_round_seconds": self.next_round_seconds,
            "has_password": self.password_hash is not None,
        }

    def created(self, table_id: str, seed: str, wall: float) -> TableCreated:
        """The table's record as created (`seed`: its match's)."""
        return TableCreated(
            id=table_id,
            name=self.name,
            preset=self.preset,
            options=self.overrides,
            base=self.base,
            rounds=self.rounds,
            turn_seconds=self.turn_seconds,
            bank_seconds=self.bank_seconds,
            claim_min_ms=self.claim_min_ms,
            bot_delay=self.bot_delay,
            next_round_seconds=self.next_round_seconds,
            password_hash=self.password_hash,
            seed=seed,
            created_at=wall,
        )
