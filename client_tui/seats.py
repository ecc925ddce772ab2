"""Seat tokens kept across runs of the client, so a closed terminal or a killed process does not
lose the seat: `zhuoji join` started again says `hello` with the token and the server resumes the
seat with its hand, as after a dropped connection (docs/PROTOCOL.md, "Reconnecting").

One small JSON file in the user's state directory (`ZHUOJI_STATE_DIR` overrides it), readable by
the user only: a token is the seat. Per server URL and table it holds the token, the seat, when it
was saved, which process holds it, and whether the player left on purpose (a left seat is
offered in the lobby, not taken back by itself at the next start). A seat another running client
holds is not taken back by itself either: a second `zhuoji join` in another terminal would close
the first one's connection.

>>> import tempfile
>>> store = SeatStore(Path(tempfile.mkdtemp()) / "seats.json")
>>> store.put("ws://h:1", "7", token="t" * 24, seat=2)
>>> store.latest("ws://h:1").seat
2
>>> store.put("ws://h:1", "7", token="t" * 24, seat=2, left=True)
>>> store.latest("ws://h:1") is None, store.get("ws://h:1", "7").left
(True, True)
>>> store.forget("ws://h:1", "7")
>>> store.get("ws://h:1", "7") is None
True
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

STATE_ENV = "ZHUOJI_STATE_DIR"


def state_dir() -> Path:
    """Where the client keeps its state: `$ZHUOJI_STATE_DIR`, else the platform's user state
    directory for zhuoji (`~/.local/state/zhuoji` on Linux)."""
    override = os.environ.get(STATE_ENV)
    if override:
        return Path(override)
    from platformdirs import user_state_path

    return user_state_path("zhuoji", appauthor=False)


@dataclass(frozen=True, slots=True)
class SavedSeat:
    """A seat this client holds at `table` on the server at `url`."""

    url: str
    table: str
    token: str
    seat: int
    saved_at: float
    left: bool = False
    pid: int | None = None  # the client process that saved it


class SeatStore:
    """The saved seats, in one JSON file (`{url: {table: {...}}}`), rewritten whole and atomically
    on every change. A missing or unreadable file holds no seats: losing it costs only the
    automatic return, never the game."""

    def __init__(self, path: Path, *, clock: Any = time.time) -> None:
        self.path = path
        self.clock = clock

    @classmethod
    def default(cls) -> SeatStore:
        return cls(state_dir() / "seats.json")

    def get(self, url: str, table: str) -> SavedSeat | None:
        entry = self._load().get(url, {}).get(table)
        return _seat(url, table, entry)

    def latest(self, url: str) -> SavedSeat | None:
        """The seat most recently saved for `url` that was not left on purpose and that no other
        running client holds."""
        seats = [_seat(url, t, e) for t, e in self._load().get(url, {}).items()]
        kept = [s for s in seats if s is not None and not s.left and not held_elsewhere(s.pid)]
        return max(kept, key=lambda s: s.saved_at, default=None)

    def put(self, url: str, table: str, *, token: str, seat: int, left: bool = False) -> None:
        data = self._load()
        data.setdefault(url, {})[table] = {
            "token": token,
            "seat": seat,
            "saved_at": self.clock(),
            "left": left,
            "pid": os.getpid(),
        }
        self._save(data)

    def forget(self, url: str, table: str) -> None:
        data = self._load()
        if data.get(url, {}).pop(table, None) is None:
            return
        if not data[url]:
            del data[url]
        self._save(data)

    def _load(self) -> dict[str, dict[str, Any]]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        if not isinstance(data, dict):
            return {}
        return {u: t for u, t in data.items() if isinstance(t, dict)}

    def _save(self, data: dict[str, dict[str, Any]]) -> None:
        """Write a new file next to the old one, then rename it over: a crash mid-write leaves
        the old file whole. Failing to write (a read-only home) only loses the convenience."""
        with contextlib.suppress(OSError):
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=self.path.parent, prefix=".seats-", suffix=".json")
            try:
                with os.fdopen(fd, "w", encoding="utf-8") as f:  # mkstemp: mode 0600
                    json.dump(data, f, ensure_ascii=False, indent=1, sort_keys=True)
                os.replace(tmp, self.path)
            except BaseException:
                with contextlib.suppress(OSError):
                    os.unlink(tmp)
                raise


def _seat(url: str, table: str, entry: Any) -> SavedSeat | None:
    """A stored entry as a `SavedSeat`; None for a missing or malformed one."""
    if not isinstance(entry, dict):
        return None
    token, seat = entry.get("token"), entry.get("seat")
    if not isinstance(token, str) or not isinstance(seat, int) or not 0 <= seat <= 3:
        return None
    saved_at, pid = entry.get("saved_at"), entry.get("pid")
    return SavedSeat(
        url,
        table,
        token,
        seat,
        float(saved_at) if isinstance(saved_at, int | float) else 0.0,
        bool(entry.get("left", False)),
        pid if isinstance(pid, int) and pid > 0 else None,
    )


def held_elsewhere(pid: int | None) -> bool:
    """Whether `pid` is another process that is still running (POSIX; elsewhere, never: there
    `os.kill(pid, 0)` is not a probe)."""
    if pid is None or pid == os.getpid() or os.name != "posix":
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # alive, another user's
    except OSError:
        return False
    return True
