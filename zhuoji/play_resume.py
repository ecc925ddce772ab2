"""`zhuoji play` keeps its matches: the unfinished one found again, and the others closed.

`zhuoji play` records its games in one database in the user's data directory, and keeps the
player's seat token in the client's seat store under the database's name (`play_key`: the
local server's port changes every run). At the next start `find_unfinished` finds the match the
player was in, if the database still has it playing; `ask_resume` offers it in the terminal
before the interface starts. Whatever is not resumed is closed as abandoned
(`close_unfinished`), so no match stays "playing" in the file for ever: only its own player could
take it up again. Only the tables `zhuoji play` opens (named `PLAY_TABLE`) are closed so: a
server's file given to `--db` keeps its own matches.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from client_tui.seats import SavedSeat, SeatStore

PLAY_TABLE = "zhuoji play"  # the name of every table `zhuoji play` opens (rematches keep it)


def default_play_db() -> Path:
    """`zhuoji play`'s database in the user's data directory (platformdirs), beside the one of
    `zhuoji serve`."""
    from platformdirs import user_data_path

    return user_data_path("zhuoji", appauthor=False) / "play.db"


def play_key(db: Path) -> str:
    """The seat store's name for the local server of `zhuoji play` on `db`."""
    return f"play:{db.expanduser().resolve()}"


@dataclass(frozen=True, slots=True)
class Unfinished:
    """The player's unfinished match in a `zhuoji play` database."""

    seat: SavedSeat
    rounds_played: int
    rounds: int
    scores: tuple[int, ...]
    started_at: float | None

    def describe(self) -> str:
        """One line for the player: how far it got, the player's score, when it began."""
        mine = self.scores[self.seat.seat] if len(self.scores) == 4 else 0
        when = ""
        if self.started_at is not None:
            when = f", begun {datetime.fromtimestamp(self.started_at):%Y-%m-%d %H:%M}"
        return (
            f"{self.rounds_played} of {self.rounds} rounds played, you {mine:+d}{when}"
            f" (table {self.seat.table})"
        )


def find_unfinished(db: Path, seats: SeatStore) -> Unfinished | None:
    """The match the player left unfinished on `db` (a crash, a closed terminal, a quit), if the
    database still has it playing; a saved seat whose match is over is forgotten."""
    key = play_key(db)
    saved = seats.latest(key)
    if saved is None or not db.exists():
        return None
    import sqlite3

    from server.store import RoundNotFound, table_row

    try:
        row = table_row(db, saved.table)
    except (RoundNotFound, OSError, ValueError, sqlite3.Error):
        return None  # a file that cannot be read (not ours, damaged): nothing to offer
    if row is None or row.get("state") != "playing":
        seats.forget(key, saved.table)
        return None
    scores = row.get("scores") or [0, 0, 0, 0]
    return Unfinished(
        seat=saved,
        rounds_played=int(row.get("rounds_played") or 0),
        rounds=int(row["rounds"]),
        scores=tuple(int(s) for s in scores),
        started_at=row.get("started_at"),
    )


def ask_resume(
    found: Unfinished,
    db: Path,
    *,
    ask: Callable[[str], str] = input,
    interactive: bool = True,
    say: Callable[[str], None] = print,
) -> bool:
    """Offer the unfinished match: True to resume it (Enter or y), False for a new one (n).
    Without a terminal to ask in, it is resumed."""
    say(f"zhuoji play: your unfinished match is in {db}: {found.describe()}.")
    if not interactive:
        say("zhuoji play: resuming it (zhuoji play --new starts a new match instead)")
        return True
    while True:
        try:
            answer = ask("Resume it? [Y/n] (n starts a new match) ").strip().lower()
        except EOFError:
            return True
        if answer in ("", "y", "yes", "r"):
            return True
        if answer in ("n", "no", "new"):
            return False
        say("Please answer y (resume) or n (a new match).")


def close_unfinished(db: Path, keep: str | None, seats: SeatStore | None = None) -> list[str]:
    """Close the matches left playing on `db` but `keep` as abandoned (and forget their seats);
    returns their ids. Raises `DatabaseInUse` when another window's server holds the file."""
    if not db.exists():
        return []
    from server.store import Store

    store = Store(db)
    try:
        closed = store.abandon_playing(keep, time.time(), name=PLAY_TABLE)
    finally:
        store.close()
    if seats is not None:
        for table in closed:
            seats.forget(play_key(db), table)
    return closed
