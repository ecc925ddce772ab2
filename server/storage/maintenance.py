"""What the host does to a database file: list its tables, count, back up, prune old matches.

These work on a SQLite file through connections of their own, so they are safe beside a running
server (the database is in WAL mode: a reader never blocks the server's writer):

- `backup(db, target)` copies the database with SQLite's online backup API in one step (one
  read transaction: a consistent snapshot, whatever the server writes meanwhile), into a
  temporary file beside `target` that is checked (`PRAGMA integrity_check`) and then renamed.
- `prune(conn, cutoff, keep)` deletes the finished and abandoned matches that ended before
  `cutoff` (never one in `keep`: the tables a running server holds), reports exactly which,
  then VACUUMs. It writes, so it runs where no write can interleave: in a stopped server's
  place (under the database's lock) or in a running server while its writes wait
  (`Store.hold_writes`).
- `prune_file(db, cutoff, keep)` is `prune` on a connection of its own.
- `stored_tables(db)` and `stored_stats(db)` read.
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from server.storage.dbfile import make_private

PRUNABLE = ("finished", "abandoned", "voted")  # voted: ended by vote (解散)


class MaintenanceError(Exception):
    """The operation could not be done; the message is one line."""


def _reader(db: Path) -> sqlite3.Connection:
    if not db.is_file():
        raise MaintenanceError(f"no database at {db}")
    try:
        return sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=10)
    except sqlite3.Error as err:
        raise MaintenanceError(f"cannot open {db}: {err}") from None


def stored_tables(
    db: Path, *, states: tuple[str, ...] = ("waiting", "playing")
) -> list[dict[str, Any]]:
    """The tables in the file in `states` (id, name, state, players, rounds)."""
    conn = _reader(db)
    try:
        marks = ",".join("?" * len(states))
        rows = conn.execute(
            f"SELECT id, name, state, seats, rounds_played, rounds, ended_at FROM tables"
            f" WHERE state IN ({marks}) ORDER BY CAST(id AS INTEGER), id",
            states,
        ).fetchall()
    except sqlite3.Error as err:
        raise MaintenanceError(f"cannot read {db}: {err}") from None
    finally:
        conn.close()
    out = []
    for tid, name, state, seats, played, rounds, _ended in rows:
        try:
            names = [s.get("name") or "" for s in json.loads(seats)] if seats else []
        except (ValueError, AttributeError):
            names = []
        out.append(
            {
                "id": tid,
                "name": name,
                "state": state,
                "players": [n for n in names if n],
                "rounds_played": played,
                "rounds": rounds,
                "idle_seconds": None,
                "paused": False,
            }
        )
    return out


def stored_stats(db: Path) -> dict[str, Any]:
    """Counts in the file: tables by state, rounds, actions, events, and its size."""
    conn = _reader(db)
    try:
        by_state = dict(conn.execute("SELECT state, COUNT(*) FROM tables GROUP BY state"))
        counts = {
            name: conn.execute(f"SELECT COUNT(*) FROM {name}").fetchone()[0]
            for name in ("rounds", "actions", "events")
        }
        pages, size = (
            conn.execute("PRAGMA page_count").fetchone()[0],
            conn.execute("PRAGMA page_size").fetchone()[0],
        )
    except sqlite3.Error as err:
        raise MaintenanceError(f"cannot read {db}: {err}") from None
    finally:
        conn.close()
    wal = db.with_name(db.name + "-wal")
    return {
        "tables": {
            s: by_state.get(s, 0) for s in ("waiting", "playing", "finished", "abandoned", "voted")
        },
        **counts,
        "db_bytes": pages * size,
        "wal_bytes": wal.stat().st_size if wal.exists() else 0,
    }


def remove_stale_parts(folder: Path) -> list[Path]:
    """Remove the hidden `.NAME.part-PID` copies (and their -wal, -shm, -journal) that backups
    killed midway left in `folder`: those whose process is gone. Returns what was removed."""
    removed = []
    for part in folder.glob(".*.part-*"):
        head, _, pid = part.name.rpartition(".part-")
        if not head or not pid.isdigit() or _alive(int(pid)):
            continue
        with contextlib.suppress(OSError):
            part.unlink()
            removed.append(part)
    for extra in folder.glob(".*.part-*-*"):  # a -wal, -shm or -journal left beside one
        if not extra.with_name(extra.name.rsplit("-", 1)[0]).exists():
            with contextlib.suppress(OSError):
                extra.unlink()
    return removed


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def backup(db: Path, target: Path) -> dict[str, Any]:
    """Copy the database to `target` (which must not exist) with the online backup API."""
    target = target.expanduser()
    if target.exists():
        raise MaintenanceError(f"{target} exists already; name a new file")
    if not target.parent.is_dir():
        raise MaintenanceError(f"{target.parent} is not a directory")
    if target.resolve() == db.resolve():
        raise MaintenanceError("the backup cannot be the database itself")
    remove_stale_parts(target.parent)
    tmp = target.with_name(f".{target.name}.part-{os.getpid()}")
    began = time.monotonic()
    src = _reader(db)
    try:
        try:
            make_private(tmp)
            dst = sqlite3.connect(str(tmp))
        except (sqlite3.Error, OSError) as err:
            raise MaintenanceError(f"cannot write {target}: {err}") from None
        try:
            src.backup(dst)  # pages=-1: the whole file in one step, one consistent snapshot
            # WAL mode like the live database (a server or a tool writing to the copy later
            # leaves a write-ahead log, never a hot rollback journal); the log is folded in
            # and removed when the copy is closed, so the copy is one self-contained file.
            dst.execute("PRAGMA journal_mode=WAL")
            check = dst.execute("PRAGMA integrity_check(1)").fetchone()[0]
            tables = dst.execute("SELECT COUNT(*) FROM tables").fetchone()[0]
        finally:
            dst.close()
        if check != "ok":
            raise MaintenanceError(f"the copy failed its integrity check: {check}")
        os.replace(tmp, target)
    except sqlite3.Error as err:
        raise MaintenanceError(f"backup failed: {err}") from None
    except OSError as err:
        raise MaintenanceError(f"cannot write {target}: {err.strerror or err}") from None
    finally:
        src.close()
        with contextlib.suppress(OSError):
            tmp.unlink()
    return {
        "file": str(target),
        "bytes": target.stat().st_size,
        "tables": tables,
        "seconds": round(time.monotonic() - began, 3),
    }


@dataclass
class PruneReport:
    cutoff: float
    tables: list[dict[str, Any]] = field(default_factory=list)  # id, name, state, ended_at
    rounds: int = 0
    actions: int = 0
    events: int = 0
    bytes_before: int = 0
    bytes_after: int = 0
    # What could not be done (a full disk): the rows above were removed all the same.
    incomplete: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "incomplete": self.incomplete,
            "cutoff": self.cutoff,
            "tables": self.tables,
            "rounds": self.rounds,
            "actions": self.actions,
            "events": self.events,
            "bytes_before": self.bytes_before,
            "bytes_after": self.bytes_after,
        }


def _size(conn: sqlite3.Connection) -> int:
    pages = conn.execute("PRAGMA page_count").fetchone()[0]
    return int(pages * conn.execute("PRAGMA page_size").fetchone()[0])


def prune(
    conn: sqlite3.Connection, cutoff: float, keep: frozenset[str] = frozenset()
) -> PruneReport:
    """Delete every finished or abandoned match that ended before `cutoff` (epoch seconds),
    except the tables in `keep`, with its rounds, actions and events; then VACUUM. `conn` is
    a writing connection in autocommit mode (isolation_level None)."""
    report = PruneReport(cutoff, bytes_before=_size(conn))
    rows = conn.execute(
        "SELECT id, name, state, ended_at FROM tables WHERE state IN ('finished', 'abandoned', 'voted')"
        " AND ended_at IS NOT NULL AND ended_at < ? ORDER BY CAST(id AS INTEGER), id",
        (cutoff,),
    ).fetchall()
    has_records = conn.execute(
        "SELECT 1 FROM sqlite_master WHERE type='table' AND name='records'"
    ).fetchone()
    for tid, name, state, ended in rows:
        if tid in keep:
            continue
        try:
            conn.execute("BEGIN IMMEDIATE")
            counts = {}
            for part in ("rounds", "actions", "events"):
                cur = conn.execute(f"DELETE FROM {part} WHERE table_id=?", (tid,))
                counts[part] = cur.rowcount
            if has_records:  # the records derived from its events go with it
                conn.execute("DELETE FROM records WHERE table_id=?", (tid,))
            # Only if it is still what was selected (a row changed meanwhile is kept).
            cur = conn.execute(
                "DELETE FROM tables WHERE id=? AND state IN ('finished', 'abandoned', 'voted')"
                " AND ended_at < ?",
                (tid, cutoff),
            )
            if cur.rowcount != 1:
                conn.execute("ROLLBACK")
                continue
            conn.execute("COMMIT")
        except sqlite3.OperationalError as err:  # a full disk, an I/O error: stop here
            if conn.in_transaction:
                with contextlib.suppress(sqlite3.Error):
                    conn.execute("ROLLBACK")
            report.incomplete = (
                f"stopped after {len(report.tables)} of the matches to remove: {err}; free some"
                " room on the disk and run it again (what is listed was removed)"
            )
            break
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise
        # The log back into the file after each match, and cut to nothing: on a full disk the
        # deletions need no more room than one match's pages (the file never grows from them).
        with contextlib.suppress(sqlite3.Error):
            conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        report.tables.append({"id": tid, "name": name, "state": state, "ended_at": ended})
        report.rounds += counts["rounds"]
        report.actions += counts["actions"]
        report.events += counts["events"]
    if report.incomplete is None:
        try:
            conn.execute("VACUUM")
        except sqlite3.OperationalError as err:
            report.incomplete = (
                f"the file was not compacted ({err}): the removed matches' room is free inside"
                " it for new writes, but it did not shrink; compacting (VACUUM) needs about"
                f" {report.bytes_before:,} bytes free on the disk, beside the database and in"
                " the temporary directory"
            )
    with contextlib.suppress(sqlite3.Error):  # give the log's room back to the disk
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    with contextlib.suppress(sqlite3.Error):
        report.bytes_after = _size(conn)
    return report


def prune_file(db: Path, cutoff: float, keep: frozenset[str] = frozenset()) -> PruneReport:
    """`prune` through a writing connection of its own to the file at `db` (run where no other
    write can interleave: under the database's lock, or while a server's writes wait)."""
    conn = sqlite3.connect(str(db), timeout=30, isolation_level=None)
    try:
        return prune(conn, cutoff, keep)
    finally:
        conn.close()


def parse_age(text: str) -> float:
    """`30d`, `12h`, `90m`, `45s` (or a bare number of days) in seconds; ValueError if not."""
    text = text.strip().lower()
    units = {"d": 86400.0, "h": 3600.0, "m": 60.0, "s": 1.0, "w": 604800.0}
    unit = 86400.0
    if text and text[-1] in units:
        unit, text = units[text[-1]], text[:-1]
    try:
        value = float(text)
    except ValueError:
        raise ValueError("an age such as 30d, 12h, 90m or 45s") from None
    if not 0 <= value < 1e7 or value != value:
        raise ValueError("an age such as 30d, 12h, 90m or 45s")
    return value * unit
