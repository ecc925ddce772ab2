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

    def describe(self, lang: str = "en") -> str:
        """One line for the player, in `lang` (en, zh): how far it got, the player's score,
        when it began."""
        mine = self.scores[self.seat.seat] if len(self.scores) == 4 else 0
        begun = None
        if self.started_at is not None:
            begun = f"{datetime.fromtimestamp(self.started_at):%Y-%m-%d %H:%M}"
        if lang == "zh":
            when = f"，{begun} 开始" if begun else ""
            return (
                f"已打 {self.rounds_played}/{self.rounds} 局，你 {mine:+d}{when}"
                f"（{self.seat.table} 号桌）"
            )
        when = f", begun {begun}" if begun else ""
        return (
            f"{self.rounds_played} of {self.rounds} rounds played, you {mine:+d}{when}"
            f" (table {self.seat.table})"
        )


# The resume prompt's lines: key → (zh, en). Printed before the interface starts, so they are
# here rather than in the client's `Lang`.
PROMPT = {
    "found": (
        "zhuoji play：你有一场没打完的对局（{db}）：{what}。",
        "zhuoji play: your unfinished match is in {db}: {what}.",
    ),
    "auto": (
        "zhuoji play：继续这场（zhuoji play --new 开新的一场）",
        "zhuoji play: resuming it (zhuoji play --new starts a new match instead)",
    ),
    "ask": ("继续这场吗？[Y/n]（n 开新的一场） ", "Resume it? [Y/n] (n starts a new match) "),
    "again": (
        "请回答 y（继续）或 n（开新的一场）。",
        "Please answer y (resume) or n (a new match).",
    ),
}


def prompt(key: str, lang: str, **kw: object) -> str:
    """A line of the resume prompt in `lang` (zh; anything else is en)."""
    zh, en = PROMPT[key]
    return (zh if lang == "zh" else en).format(**kw)


def find_unfinished(db: Path, seats: SeatStore) -> Unfinished | None:
    """The match the player left unfinished on `db` (a crash, a closed terminal, a quit), if the
    database still has it playing; a saved seat whose match is over is forgotten."""
    key = play_key(db)
    saved = seats.latest(key)
    if saved is None or not db.exists():
        return None
    from server.storage.errors import StorageError
    from server.storage.reads import RoundNotFound, table_row

    try:
        row = table_row(db, saved.table)
    except (RoundNotFound, OSError, ValueError, StorageError):
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
    lang: str = "en",
) -> bool:
    """Offer the unfinished match, in `lang` (the interface's: `--lang zh` asks in Chinese):
    True to resume it (Enter or y), False for a new one (n). Without a terminal to ask in, it
    is resumed."""
    say(prompt("found", lang, db=db, what=found.describe(lang)))
    if not interactive:
        say(prompt("auto", lang))
        return True
    while True:
        try:
            answer = ask(prompt("ask", lang)).strip().lower()
        except EOFError:
            return True
        if answer in ("", "y", "yes", "r", "是", "继续"):
            return True
        if answer in ("n", "no", "new", "否", "新"):
            return False
        say(prompt("again", lang))


def close_unfinished(db: Path, keep: str | None, seats: SeatStore | None = None) -> list[str]:
    """Close the matches left playing on `db` but `keep` as abandoned (and forget their seats);
    returns their ids. Raises `DatabaseInUse` when another window's server holds the file."""
    if not db.exists():
        return []
    from server.storage.writer import Store

    store = Store(db)
    try:
        closed = store.abandon_playing(keep, time.time(), name=PLAY_TABLE)
    finally:
        store.close()
    if seats is not None:
        for table in closed:
            seats.forget(play_key(db), table)
    return closed
