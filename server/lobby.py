"""The lobby's listing: which tables it shows, in what order, and the `tables` frames that
carry it, one page per frame.

A full lobby (500 tables) is about 300 KB of rows, and `TableInfo` rows are costly to make
(each table's header, validated against the protocol model, then encoded: ~60 µs a row), and
even a pass over 500 tables costs a millisecond. So the listing is pushed, not pulled: a table
tells the lobby when its row may have changed (`Table.lobby_key` moved: a count of its stored
changes that touch its header, its state and its spectator count), the lobby forgets that row
and the next request re-encodes only the rows it forgot. A row whose table is where it was
(the same state, still listed) and still fits its page changes that page's frame only; else the
pages are cut again — by the rows' encoded sizes into frames of at most `MAX_FRAME_BYTES` (the
frame size docs/PROTOCOL.md promises), a pass over every table. A request in a lobby that has
not changed since the last one sends a frame it has (benchmarks/lobby.py).

Pages are cut from the listing as it stands at each request: a client that pages through a
lobby that changes meanwhile may see a table twice or miss a new one, as in any live list.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
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
# Room each page is cut with for its rows to grow in place (a bot seated, a spectator more)
# before the pages must be cut again, as a share of the frame. 0: pages full. (0.1 cut the
# worst request further, benchmarks/README.md, but shorter pages broke the slow-reader test of
# tests/server/test_protocol_doc.py, which counts on ~16 KB pages: left for later.)
SLACK = 0.0
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
        self.budget = frame_bytes - len(_HEAD) - _TAIL_MAX  # a page's rows and commas at most
        self.cut_at = int(self.budget * (1 - SLACK))  # … as the pages are cut
        self.rows: dict[str, tuple[str, int]] = {}  # table id → its row's text and bytes
        self.frames: list[str] | None = None  # every page's frame; None: to be cut again
        self.pages: list[list[str]] = []  # the table ids of each page
        self.used: list[int] = []  # the bytes of each page's rows and commas
        self.where: dict[str, tuple[int, str, int]] = {}  # id → its page, state, row's bytes
        self.dirty: set[str] = set()  # tables whose rows may have changed since
        self.total = 0  # rows of every page together
        self.encoded = 0  # rows encoded so far (a test counts them)
        self.cuts = 0  # times the pages were cut again (a test counts them)

    def changed(self, table_id: str) -> None:
        """A table's row may have changed (or the table is new, or closed)."""
        self.rows.pop(table_id, None)
        self.dirty.add(table_id)

    def frame(self, tables: Mapping[str, Listed], page: int) -> str:
        """The `tables` frame of page `page` (an empty page past the last) of the listing of
        the tables (`shown` picks them; `tables` by id). Read only when something
        `changed`."""
        if self.frames is None or (self.dirty and not self._patch(tables, self.frames)):
            self.frames = self._frames(tables.values())
        self.dirty.clear()
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

    def _patch(self, tables: Mapping[str, Listed], frames: list[str]) -> bool:
        """Make again only the pages of the rows that changed, if each table is still listed
        in the same state and its row still fits its page (then the listing's order and its
        tables are the same, and no page outgrows a frame; pages are cut with `SLACK` room); False if the pages must be cut
        again (a table made, closed, started or ended; a row grown past its page's room)."""
        touched: dict[int, int] = {}  # page → its bytes now
        for table_id in self.dirty:
            table, spot = tables.get(table_id), self.where.get(table_id)
            if table is None or spot is None or table.state != spot[1]:
                return False
            page, state, size = spot
            new = self._row(table)[1]
            used = touched.get(page, self.used[page]) - size + new
            if used > self.budget:
                return False
            touched[page] = used
            self.where[table_id] = (page, state, new)
        for page, used in touched.items():
            self.used[page] = used
            texts = [self.rows[i][0] for i in self.pages[page]]
            frames[page] = self._frame(texts, page, len(frames), self.total)
        return True

    def _frames(self, tables: Iterable[Listed]) -> list[str]:
        """Every page, cut so that each frame fits in `frame_bytes`; at least one (an empty
        lobby is one empty page)."""
        self.cuts += 1
        pages: list[list[str]] = [[]]
        texts: list[list[str]] = [[]]
        used: list[int] = [0]
        where: dict[str, tuple[int, str, int]] = {}
        for table in shown(tables):
            text, size = self._row(table)
            if pages[-1] and used[-1] + 1 + size > self.cut_at:
                pages.append([])
                texts.append([])
                used.append(0)
            used[-1] += size + (1 if pages[-1] else 0)
            where[table.id] = (len(pages) - 1, table.state, size)
            pages[-1].append(table.id)
            texts[-1].append(text)
        self.pages, self.used, self.where = pages, used, where
        self.total = len(where)
        return [self._frame(rows, i, len(pages), self.total) for i, rows in enumerate(texts)]

    @staticmethod
    def _frame(rows: list[str], page: int, pages: int, total: int) -> str:
        return f'{_HEAD}{",".join(rows)}],"page":{page},"pages":{pages},"total":{total}}}'
