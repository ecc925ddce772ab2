"""What a table is: the settings `create_table` fixed, and the server's time limits."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from rules.options import RuleOptions

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
