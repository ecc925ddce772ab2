"""The door of a table with a password: guesses limited (`server.guesses`), each hash worked
out on a thread (the event loop and every table go on meanwhile), wrong ones logged once a
minute per address with their count (`server.throttle`), never the password itself."""

from __future__ import annotations

import asyncio
import logging
import math
import time
from collections.abc import Callable

from protocol import codes
from server.credentials import hash_password, password_matches
from server.guesses import LIMIT, Guesses
from server.throttle import LogThrottle

log = logging.getLogger("zhuoji.server")


class PasswordGate:
    def __init__(self, limit: int = LIMIT, clock: Callable[[], float] = time.monotonic) -> None:
        self.guesses = Guesses(limit=limit)
        self.throttle = LogThrottle()
        self.clock = clock

    @staticmethod
    def _keys(table: str, address: str) -> tuple[tuple[str, str], tuple[str, str]]:
        return ("table", table), ("address", address)

    def admit(self, table: str, address: str) -> str | None:
        """Count a guess at `table` from `address` now, or say why it is refused without being
        tried (too many lately, on the table or from the address). Counted here, when the
        guess arrives, not when its hash starts on a thread: a burst of guesses in one turn
        of the loop must not all pass the check before any of them counts."""
        keys, now = self._keys(table, address), self.clock()
        wait = self.guesses.wait(keys, now)
        if wait <= 0:
            self.guesses.start(keys, now)
            return None
        self._log(table, address)
        return (
            f"too many attempts at table passwords (at this table or from your address):"
            f" retry in {math.ceil(wait)} s"
        )

    async def check(self, password: str, stored: str, table: str, address: str) -> bool:
        """Whether `password` opens the table whose password hash is `stored`, for a guess
        `admit` counted: the hash worked out on a thread."""
        keys = self._keys(table, address)
        right = await asyncio.to_thread(password_matches, password, stored)
        if right:
            self.guesses.right(keys)
        else:
            self.guesses.wrong(keys, self.clock())
            self._log(table, address)
        return right

    def _log(self, table: str, address: str) -> None:
        """A wrong or refused guess: one line a minute per address, with the count."""
        now = self.clock()
        held = self.throttle.allow(("password", address), now)
        if held is None:
            return
        locked = self.guesses.wait([("address", address)], now)
        log.warning(
            "a wrong table password from %s (table %s)%s%s",
            address,
            table,
            f"; {held} more wrong or refused from it since the last line" if held else "",
            f"; its guesses are refused for {math.ceil(locked)} s" if locked > 0 else "",
            extra={
                "event": "refused",
                "code": codes.BAD_PASSWORD,
                "address": address,
                "table": table,
                "held": held,
            },
        )


async def hashed(password: str) -> str:
    """A new table's password hash (`hash_password`), worked out on a thread."""
    return await asyncio.to_thread(hash_password, password)
