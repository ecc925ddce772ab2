"""The lobby's listing: which tables it shows, in what order, and the `tables` frames that
carry it, one page per frame.

A full lobby (500 tables) is about 300 KB of rows, and `TableInfo` rows are costly to make
(each table's header, validated against the protocol model, then encoded: ~60 µs a row), and
even a pass over 500 tables costs a millisecond. So the listing is pushed, not pulled: a table
tells the lobby when its row may have changed (`Table.lobby_key` moved: a count of its stored
changes that touch its header, its state and its spectator count), the lobby forgets that row
and its pages, and the next request makes the pages again — re-encoding only the rows it
forgot — cut by the rows' encoded sizes into frames of at most `MAX_FRAME_BYTES` (the frame
size docs/PROTOCOL.md promises). A request in a lobby that has not changed since the last one
sends a frame it has (benchmarks/lobby.py).

Pages are cut from the listing as it stands at each request: a client that pages through a
lobby that changes meanwhile may see a table twice or miss a new one, as in any live list.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Protocol, TypeVar

from protocol.messages import MAX_FRAME_BYTES, ROUND_EVENT_TYPES, TableInfo
from server.storage.records import ActionPlayed, EventLogged, Record

ROWS = 500  # tables listed at most (the pages of one listing together)
PLAYING = 400  # of which playing tables at most

# A round's play: these events change nothing a lobby row shows (the header changes with
# `round_started`, `round_ended`, `seat_status`, `table`, `match_started`, `match_ended`).
ROUND_PLAY = (ROUND_EVENT_TYPES - {"round_started", "round_ended"}) | {"auto_played"}

T = TypeVar("T", bound="Listed")

_HEAD = '{"type":"tables","tables":['
# What a page's frame holds besides its rows, at its widest (the numbers at most 10 digits).
_TAIL_MAX = len('],"page":0000000000,"pages":0000000000,"total":0000000000}')


class Listed(Protocol):
    """What the lobby reads of a table (`server.table.shell.Table`)."""

    @property
    def id(self) -> str: ...

    @property
    def state(self) -> str: ...

    def info(self) -> dict[str, Any]: ...


def changes_row(records: Iterable[Record]) -> bool:
    """Whether a table's write (its records) may change its lobby row: anything but a
    round's play (its moves and their events)."""
    for record in records:
        if isinstance(record, EventLogged):
            if record.event.get("type") not in ROUND_PLAY:
                return True
        elif not isinstance(record, ActionPlayed):
            return True
    return False


def shown(tables: Iterable[T]) -> list[T]:
    """The tables the lobby lists, at most `ROWS`: every playing table first in the budget (up
    to `PLAYING`), then the newest waiting tables (so tables left waiting can never hide a new
    one, or a match being played), then the newest finished ones. In the order waiting,
    playing, finished, each by table number."""
    groups: dict[str, list[T]] = {"waiting": [], "playing": [], "finished": []}
    for t in tables:
        groups.get(t.state, groups["finished"]).append(t)
    for rows in groups.values():
        rows.sort(key=lambda t: int(t.id))
    playing = groups["playing"][-PLAYING:]
    room = ROWS - len(playing)
    waiting = groups["waiting"][-room:] if room > 0 and groups["waiting"] else []
    room -= len(waiting)
    finished = groups["finished"][-room:] if room > 0 and groups["finished"] else []
    return waiting + playing + finished


class Listing:
    """The lobby's frames, one per page, made when a request finds the lobby changed; each
    row encoded once per change of its table (`changed`)."""

    def __init__(self, frame_bytes: int = MAX_FRAME_BYTES) -> None:
        self.budget = frame_bytes - len(_HEAD) - _TAIL_MAX
        self.rows: dict[str, tuple[str, int]] = {}  # table id → its row's text and bytes
        self.frames: list[str] | None = None  # every page's frame; None: to be made again
        self.total = 0  # rows of every page together
        self.encoded = 0  # rows encoded so far (a test counts them)

    def changed(self, table_id: str) -> None:
        """A table's row may have changed (or the table is new, or closed)."""
        self.rows.pop(table_id, None)
        self.frames = None

    def frame(self, tables: Iterable[Listed], page: int) -> str:
        """The `tables` frame of page `page` (an empty page past the last) of the listing of
        `tables` (`shown` picks them). `tables` is read only when something `changed`."""
        if self.frames is None:
            self.frames = self._frames(tables)
        if page < len(self.frames):
            return self.frames[page]
        return self._frame([], page, len(self.frames), self.total)

    def _row(self, table: Listed) -> tuple[str, int]:
        row = self.rows.get(table.id)
        if row is None:
            text = TableInfo.model_validate(table.info()).model_dump_json(exclude_unset=True)
            row = self.rows[table.id] = (text, len(text.encode()))
            self.encoded += 1
        return row

    def _frames(self, tables: Iterable[Listed]) -> list[str]:
        """Every page, cut so that each frame fits in `frame_bytes`; at least one (an empty
        lobby is one empty page)."""
        pages: list[list[str]] = [[]]
        used = 0
        for table in shown(tables):
            text, size = self._row(table)
            if pages[-1] and used + 1 + size > self.budget:
                pages.append([])
                used = 0
            used += size + (1 if pages[-1] else 0)
            pages[-1].append(text)
        self.total = sum(len(p) for p in pages)
        return [self._frame(rows, i, len(pages), self.total) for i, rows in enumerate(pages)]

    @staticmethod
    def _frame(rows: list[str], page: int, pages: int, total: int) -> str:
        return f'{_HEAD}{",".join(rows)}],"page":{page},"pages":{pages},"total":{total}}}'
