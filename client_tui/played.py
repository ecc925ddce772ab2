"""The matches this client played to their end, per server: the seat token of each, so the
lobby can ask the server for that match's rounds later (`get_rounds`) and browse them. Kept in
one JSON file beside the saved seats, the newest `KEEP` per server.

>>> import tempfile, pathlib
>>> store = PlayedStore(pathlib.Path(tempfile.mkdtemp()) / "played.json", clock=iter(range(99)).__next__)
>>> store.put("ws://h:1", "7", token="t" * 24, seat=2, name="周五")
>>> store.put("ws://h:1", "9", token="u" * 24, seat=0, name="周六")
>>> store.put("ws://h:1", "11", token="v" * 24, seat=1, name="周日", score=-4, voted=True)
>>> [(p.table, p.seat, p.name) for p in store.matches("ws://h:1")]
[('11', 1, '周日'), ('9', 0, '周六'), ('7', 2, '周五')]
>>> store.matches("ws://h:1")[0].label("投票解散").endswith("-4  (投票解散)")
True
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from client_tui.seats import SeatStore

KEEP = 20
"""Finished matches remembered per server."""


@dataclass(frozen=True, slots=True)
class PlayedMatch:
    url: str
    table: str
    token: str
    seat: int
    name: str
    saved_at: float
    score: int | None = None  # the player's net for the match (None: saved by an older client)
    voted: bool = False  # its players ended it together (解散)

    def label(self, voted_word: str = "ended by vote") -> str:
        """The line the lobby's `h` lists: table, name, when it ended, the player's result, and
        `voted_word` for a match its players ended by vote (its result is not a placement)."""
        when = datetime.fromtimestamp(self.saved_at).strftime("%Y-%m-%d %H:%M")
        score = "" if self.score is None else f"  {self.score:+d}"
        voted = f"  ({voted_word})" if self.voted else ""
        return f"#{self.table}  {self.name}  {when}{score}{voted}"


class PlayedStore:
    """`{url: {table: {token, seat, name, saved_at}}}`, rewritten whole and atomically (as the
    saved seats are); an unreadable file holds nothing (it only costs browsing old matches)."""

    def __init__(self, path: Path, *, clock: Any = time.time) -> None:
        self.path = path
        self.clock = clock
        self._file = SeatStore(path, clock=clock)  # the same atomic JSON file handling

    def _load(self) -> dict[str, dict[str, Any]]:
        return self._file._load()

    def _save(self, data: dict[str, dict[str, Any]]) -> None:
        self._file._save(data)

    def put(
        self,
        url: str,
        table: str,
        *,
        token: str,
        seat: int,
        name: str,
        score: int | None = None,
        voted: bool = False,
    ) -> None:
        data = self._load()
        rows = data.setdefault(url, {})
        rows[table] = {"token": token, "seat": seat, "name": name, "saved_at": self.clock()}
        if score is not None:
            rows[table]["score"] = score
        if voted:
            rows[table]["voted"] = True
        newest = sorted(rows, key=lambda t: rows[t]["saved_at"], reverse=True)[:KEEP]
        data[url] = {t: rows[t] for t in newest}
        self._save(data)

    def matches(self, url: str) -> list[PlayedMatch]:
        """The matches played on `url`, newest first."""
        out = []
        for table, e in self._load().get(url, {}).items():
            try:
                out.append(
                    PlayedMatch(
                        url,
                        table,
                        str(e["token"]),
                        int(e["seat"]),
                        str(e["name"]),
                        float(e["saved_at"]),
                        None if e.get("score") is None else int(e["score"]),
                        e.get("voted") is True,
                    )
                )
            except (KeyError, TypeError, ValueError):
                continue
        return sorted(out, key=lambda p: p.saved_at, reverse=True)
