"""What a table needs from the server that holds it: the narrow protocol the shell talks
through (`server.app.Server` implements `TableHost[Table]`). Nothing in `server.table` imports
the app (an import-linter contract)."""

from __future__ import annotations

from typing import Protocol, TypeVar

from server.conn import Conn
from server.metrics import Metrics
from server.quota import CpuShare
from server.storage.records import Record
from server.table.effects import RematchSeat
from server.table.settings import Settings, Timing

# The shell's table type (`server.table.shell.Table`): a parameter, so that the host protocol
# does not import the shell that uses it.
Table = TypeVar("Table", contravariant=True)


class TableHost(Protocol[Table]):
    @property
    def timing(self) -> Timing:
        """The server's time limits."""
        ...

    @property
    def metrics(self) -> Metrics: ...

    @property
    def bot_budget(self) -> CpuShare | None:
        """What the playing tables no player is connected to may spend together (None: no
        limit)."""
        ...

    def match_seed(self, table_id: str) -> str:
        """A new match's seed (`[server] seed` makes them reproducible)."""
        ...

    async def write(self, records: list[Record]) -> float:
        """Store these in one transaction; raises if the store refused them. Returns their part
        of the commit's time on the loop (the table's cost, `EventCost`)."""
        ...

    def seat_token(self, key: str, table: Table) -> None:
        """A seat token (its `token_key`) now leads to `table`."""
        ...

    def drop_token(self, key: str | None) -> None: ...

    def seated(self, conn: Conn) -> None:
        """`conn`'s player sits down at a seat (took one, took one back, was handed one): a
        new player key is stored now."""
        ...

    def refused(self, conn: Conn, code: str, ref: str | None, table: str | None) -> None:
        """An error frame went to `conn` (counted and logged)."""
        ...

    def remove_table(self, table: Table) -> None: ...

    def posted(self) -> None:
        """An input was just posted to a table (its task runs it at the loop's next turn): the
        store's next group commit comes after it in that turn (`Store.commit_after_ready`)."""
        ...

    def frames_out(self) -> None:
        """Hand the frames sent so far to the sockets now, not at the end of the loop's turn:
        a table calls it when its input is done (one more turn of a busy loop per move)."""
        ...

    def lobby_changed(self, table: Table) -> None:
        """The table's lobby row may have changed (`server.lobby`)."""
        ...

    def rematch(
        self,
        old: Table,
        settings: Settings,
        seats: tuple[RematchSeat[Conn], ...],
        watchers: tuple[tuple[Conn, str | None], ...] = (),
    ) -> None:
        """Open a new table for a rematch of `old`'s seats, watched by its spectators."""
        ...
