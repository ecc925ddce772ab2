"""The server's one writer: every write the tables ask for, committed in group (`Store`).

The server writes through one `Store`, which commits every write asked for during one turn of
the event loop in one transaction (group commit). A table awaits its write before it sends the
events, so what players saw is always on disk (stored before sent). The statements come from
`server.storage.record_sql`; what the server reads of the file at start is
`server.storage.startup`, run on this writer's connection; reading a file back is
`server.storage.reads` (its own connection: WAL mode lets readers run beside the writer).

>>> # store = Store("zhuoji.db"); await store.write(ops_of(records)); store.close()
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sqlite3
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from server.storage import startup
from server.storage.dbfile import DatabaseRefused, DbLock, open_database
from server.storage.filewatch import FileWatch, rescue
from server.storage.players import known_players
from server.storage.record_sql import Op, op_abandon_table
from server.storage.stored import StoredTable

T = TypeVar("T")

log = logging.getLogger("zhuoji.store")

# Errors that refuse one write (a bug in what was asked: a duplicate key, a bad parameter): that
# write fails alone. Every other sqlite3 error is a storage fault (disk full, I/O error, a
# read-only file): the writes wait and are tried again.
REFUSALS = (
    sqlite3.IntegrityError,
    sqlite3.ProgrammingError,
    sqlite3.InterfaceError,
    sqlite3.DataError,
    sqlite3.NotSupportedError,
)
RETRY_FIRST = 0.05  # seconds before the first retry of a failed commit; doubled up to retry_max


class StoreError(RuntimeError):
    """A write was refused (it can never be written); the table that asked is frozen by its
    caller. A storage fault does not raise: the write waits until it is stored."""


class Store:
    """The server's one writer. `await store.write(ops)` returns once `ops` are committed.

    Group commit on the event loop: every write asked for during one turn of the loop goes into
    one transaction, committed by a callback at the next turn, which then wakes the writers. In
    WAL mode with `synchronous=NORMAL` a commit is a short append to the log, far cheaper than
    handing the work to a thread (and contending for the GIL with it). Checkpoints, the one slow
    part, run on a thread of their own (`PASSIVE`, so they never block the writer; `TRUNCATE`
    once the server has been idle for `idle_truncate` seconds, so the log does not stay large).

    One process owns the database (`DbLock`, taken before anything is read), and the file is
    checked before it is opened (`open_database`): `DatabaseRefused` says why not.

    Storage faults: when a commit fails (disk full, I/O error, read-only) or the file is found
    deleted or replaced (its inode is checked at each commit and every `checkpoint_every`
    seconds), `fault` says why, `on_fault(reason)` is called once, and the writes wait: they
    are tried again with a growing delay (up to `retry_max` seconds) and their writers wake when
    they are stored, after which `on_fault(None)`. Nothing is lost and a writer never sees a
    write fail for a fault; so a table never sends what is not stored.
    """

    def __init__(
        self,
        path: str | Path,
        *,
        synchronous: str = "NORMAL",
        checkpoint_every: float = 1.0,
        retry_max: float = 5.0,
        idle_truncate: float = 10.0,
        wal_limit: int = 64 << 20,
        integrity_every: float = 600.0,
    ) -> None:
        if synchronous.upper() not in ("OFF", "NORMAL", "FULL"):
            raise ValueError(f"synchronous must be OFF, NORMAL or FULL, got {synchronous!r}")
        self.path = Path(path)
        if not self.path.parent.is_dir():
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
            except OSError as err:
                raise DatabaseRefused(
                    f"cannot make the directory {self.path.parent}: {err.strerror}"
                ) from None
        self.lock = DbLock(self.path)
        self.lock.acquire()
        try:
            self._db = open_database(self.path)
            self.lock.hold_database()  # a new file: locked once made
            self._db.execute(f"PRAGMA synchronous={synchronous.upper()}")
            self._db.execute("PRAGMA wal_autocheckpoint=0")  # the checkpoint thread does it
            # A log reset after a full checkpoint is cut back to this size.
            self._db.execute(f"PRAGMA journal_size_limit={int(wal_limit)}")
        except BaseException:
            self.lock.release()
            raise
        self.watch = FileWatch(self.path)  # is it still our file, is its WAL index whole
        self.fault: str | None = None  # why the store cannot write now (None: it can)
        self.fault_since = 0.0
        self.on_fault: Callable[[str | None], None] | None = None
        # Called after each committed transaction with its duration (seconds) and the number
        # of writes it held (the group commit): the server's metrics.
        self.on_commit: Callable[[float, int], None] | None = None
        self.rescued: Path | None = None  # a copy saved after the file was deleted
        self.faults = 0  # fault episodes so far
        # `PRAGMA quick_check` of the live file every `integrity_every` seconds (0: only at a
        # clean stop), on the checkpoint thread: None while it finds nothing wrong.
        self.integrity: str | None = None
        self.integrity_checks = 0
        self._integrity_every = integrity_every
        self._integrity_at = time.monotonic()
        self._retry_max = retry_max
        self._retry_delay = RETRY_FIRST
        self._retry: asyncio.TimerHandle | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._pending: list[tuple[list[Op], asyncio.Future[float]]] = []
        self._scheduled = False
        self._flush_handle: asyncio.Handle | None = None  # the group commit, when scheduled
        self._movable = False  # it may still move to later in the turn it is scheduled for
        self._held = 0  # `hold_writes` in progress: nothing is committed meanwhile
        self._closed = False
        self._last_write = time.monotonic()
        self._stop = threading.Event()
        self._ckpt: sqlite3.Connection | None = None  # the checkpoints' own connection
        self._ckpt_lock = threading.Lock()
        self._checkpointer = threading.Thread(
            target=self._checkpoints,
            args=(checkpoint_every, idle_truncate),
            name="zhuoji-wal",
            daemon=True,
        )
        self._checkpointer.start()

    # ----- writing -----

    async def write(self, ops: list[Op]) -> float:
        """Commit `ops` in one transaction (with the others asked for meanwhile). During a
        storage fault this waits until they are stored; raises StoreError if they are refused
        (they can never be written) or the store is closed.

        Returns this write's part of the commit's time on the loop (the group's time split by
        statements): what a table that charges its work to a share of the CPU adds to its
        cost (`server.table.meter.EventCost`)."""
        if not ops:
            return 0.0
        if self._closed:
            raise StoreError("the store is closed")
        loop = self._loop = asyncio.get_running_loop()
        fut: asyncio.Future[float] = loop.create_future()
        self._pending.append((ops, fut))
        if not self._scheduled and self.fault is None:
            self._schedule(loop)
        return await fut

    def commit_after_ready(self) -> None:
        """A writer was just woken (a table's input posted; its step runs at the loop's next
        turn): the next group commit goes after it in that turn, so that what the step writes
        is committed in the turn it is written, not at the turn after (on a busy loop every turn
        is every table's ready work, and a move waits for each of its turns). The commit moves
        only within the turn it is scheduled for: once that turn has begun, an input posted
        meanwhile does not push it further (else tables posting to each other could hold it off
        turn after turn)."""
        if self.fault is not None or self._closed:
            return
        try:
            loop = self._loop = asyncio.get_running_loop()
        except RuntimeError:  # not on the loop (nothing to commit after)
            return
        if not self._scheduled:
            self._schedule(loop)
        elif self._movable and self._flush_handle is not None:
            self._flush_handle.cancel()
            self._flush_handle = loop.call_soon(self._flush)

    def _schedule(self, loop: asyncio.AbstractEventLoop) -> None:
        """The group commit at the loop's next turn, movable until that turn begins (a marker
        scheduled with it, before anything posted after it, runs first in that turn)."""
        self._scheduled = self._movable = True
        loop.call_soon(self._settle)
        self._flush_handle = loop.call_soon(self._flush)

    def _settle(self) -> None:
        self._movable = False

    def _flush(self) -> None:
        """Commit what is queued; on a fault, keep it queued and try again later."""
        self._scheduled = self._movable = False
        self._flush_handle = None
        if self._held:
            return  # `hold_writes` reschedules when it is done
        if self._retry is not None:
            self._retry.cancel()
            self._retry = None
        if self._closed or (not self._pending and self.fault is None):
            return
        began = time.thread_time()  # the commit's checks count in its time (CPU, not wall)
        lost = self.watch.lost()
        if lost is not None:
            self._failed(lost, lost=True)
            return
        shm = self.watch.shm_problem(repair=self.fault is not None)
        if shm is not None:
            self._failed(shm)
            return
        if self._pending:
            try:
                self._run_batch([ops for ops, _ in self._pending])
            except sqlite3.Error as err:
                if not isinstance(err, REFUSALS):
                    self._fault(err)
                    return
                if not self._one_by_one():
                    return
            else:
                done, self._pending = self._pending, []
                took = time.thread_time() - began
                statements = sum(len(ops) for ops, _ in done) or 1
                for ops, fut in done:
                    _done(fut, took * len(ops) / statements)
            self._last_write = time.monotonic()
        self._recovered()

    def _one_by_one(self) -> bool:
        """After a refusal: commit the queued writes one at a time, so only the refused one
        fails. False if a fault stopped it (the rest stay queued)."""
        while self._pending:
            ops, fut = self._pending[0]
            try:
                self._run_batch([ops])
            except sqlite3.Error as err:
                if not isinstance(err, REFUSALS):
                    self._fault(err)
                    return False
                _fail(fut, StoreError(f"{err} in {ops[0][0]!r}"))
            else:
                _done(fut)
            self._pending.pop(0)
        return True

    def _run_batch(self, batch: list[list[Op]]) -> None:
        db = self._db
        began = time.perf_counter()
        db.execute("BEGIN")
        try:
            for ops in batch:
                for sql, params in ops:
                    db.execute(sql, params)
            db.execute("COMMIT")
        except sqlite3.Error:
            if db.in_transaction:
                with contextlib.suppress(sqlite3.Error):
                    db.execute("ROLLBACK")
            raise
        if self.on_commit is not None:
            self.on_commit(time.perf_counter() - began, len(batch))

    async def hold_writes(self, fn: Callable[[], T]) -> T:
        """Run `fn` on a thread while nothing is committed: maintenance that writes the file
        through a connection of its own (`zhuoji admin prune`). The writes asked for meanwhile
        wait, as in a storage fault (their tables' clocks stop), and go in after it."""
        self._held += 1
        try:
            return await asyncio.to_thread(fn)
        finally:
            self._held -= 1
            if not self._held and self._pending and not self._scheduled:
                self._schedule(asyncio.get_running_loop())

    # ----- faults -----

    def _fault(self, err: sqlite3.Error) -> None:
        lost = self.watch.lost()  # a failed commit may be the first sign of a deleted file
        if lost is not None:
            self._failed(lost, lost=True)
        else:
            self._failed(f"cannot write to {self.path}: {err}")

    def _failed(self, reason: str, *, lost: bool = False) -> None:
        """A fault: keep the writes queued, retry with a growing delay; the first failure of an
        episode is logged (one line) and reported to `on_fault`."""
        if self.fault is None:
            self.fault, self.fault_since = reason, time.monotonic()
            self.faults += 1
            self._retry_delay = RETRY_FIRST
            saved = ""
            if lost:
                self._rescue()
                if self.rescued is not None:
                    saved = f"; everything stored so far is saved in {self.rescued}"
            log.error(
                "storage fault: %s%s; the tables wait (nothing unsaved is sent), writes are"
                " retried every %g s at most, /healthz answers 503 until one succeeds",
                reason,
                saved,
                self._retry_max,
                extra={"event": "storage_fault"},
            )
            if self.on_fault is not None:
                self.on_fault(reason)
        else:
            self.fault = reason
            self._retry_delay = min(self._retry_delay * 2, self._retry_max)
        if self._retry is not None:
            self._retry.cancel()
        if self._loop is not None and not self._loop.is_closed():
            self._retry = self._loop.call_later(self._retry_delay, self._flush)

    def _recovered(self) -> None:
        if self.fault is None:
            return
        took = time.monotonic() - self.fault_since
        self.fault = None
        log.warning(
            "storage back after %.1f s: %s is written again",
            took,
            self.path,
            extra={"event": "storage_back"},
        )
        if self.on_fault is not None:
            self.on_fault(None)

    def _rescue(self) -> None:
        """Copy what the open connection holds next to where the database was."""
        self.rescued = rescue(self._db, self.path, self.rescued) or self.rescued

    def _file_watch(self) -> None:
        """On the loop, after the checkpoint thread saw the file change (or its WAL index)."""
        if self.fault is None and not self._closed:
            lost = self.watch.lost()
            if lost is not None:
                self._failed(lost, lost=True)
                return
            shm = self.watch.shm_problem()
            if shm is not None:
                self._failed(shm)

    def _checkpoints(self, every: float, idle_truncate: float) -> None:
        while not self._stop.wait(every):
            loop = self._loop
            if self.watch.changed() or self.watch.shm_problem() is not None:
                if loop is not None:
                    with contextlib.suppress(RuntimeError):  # the loop has closed
                        loop.call_soon_threadsafe(self._file_watch)
                continue
            # During a fault too, and then cutting the log: a disk filled by the log itself
            # gets its room back once the log is in the file (it never grows the file by more
            # than the pages the log holds), and the writes go on.
            idle = time.monotonic() - self._last_write > idle_truncate
            self.checkpoint(truncate=idle or self.fault is not None)
            due = self._integrity_at + self._integrity_every
            if self._integrity_every > 0 and time.monotonic() >= due:
                self.check_integrity()
                self._integrity_at = time.monotonic()

    def check_integrity(self) -> str | None:
        """`PRAGMA quick_check` of the file as it is now (a fresh connection: no page cached
        from before); what is wrong (one line), or None. The first finding is logged at ERROR
        and kept in `integrity` (`/healthz` answers 503, the metric says 0): corruption written
        into the live file is noticed while serving, not after the stop."""
        try:
            conn = sqlite3.connect(f"file:{self.path}?mode=ro", uri=True, timeout=5)
            try:
                found = str(conn.execute("PRAGMA quick_check(1)").fetchone()[0])
            finally:
                conn.close()
        except sqlite3.DatabaseError as err:
            if isinstance(err, sqlite3.OperationalError) and "locked" in str(err):
                return self.integrity  # busy: the next check will do
            found = str(err)
        except sqlite3.Error:
            return self.integrity
        self.integrity_checks += 1
        problem = (
            None
            if found == "ok"
            else " ".join(found.replace("*** in database main ***", "").split())
        )
        if problem is not None and self.integrity is None:
            log.error(
                "integrity check failed: %s is corrupt (%s); the server goes on, but stop it,"
                " keep the file aside and restore the last good backup (docs/OPERATIONS.md)",
                self.path,
                problem,
                extra={"event": "integrity_failed"},
            )
        self.integrity = problem
        return problem

    def checkpoint(self, *, truncate: bool = False) -> bool:
        """Copy the write-ahead log into the database (`PASSIVE`: never waits for the writer);
        with `truncate`, also cut the log to zero bytes. False if it could not be done now."""
        with self._ckpt_lock:
            if self._ckpt is None:
                self._ckpt = sqlite3.connect(
                    str(self.path), timeout=0.1, isolation_level=None, check_same_thread=False
                )
            try:
                busy, _, _ = self._ckpt.execute(
                    f"PRAGMA wal_checkpoint({'TRUNCATE' if truncate else 'PASSIVE'})"
                ).fetchone()
            except sqlite3.Error:  # busy, or a fault: the next one will do
                return False
            return not busy

    def wal_bytes(self) -> int:
        """The size of the write-ahead log now."""
        wal = self.path.with_name(self.path.name + "-wal")
        try:
            return wal.stat().st_size
        except OSError:
            return 0

    def close(self, *, check: bool = True) -> None:
        """Write what is still queued (one last try), checkpoint, check the file's integrity
        (`check`: a server that served; not one that failed to start), close, release the
        lock."""
        if self._closed:
            return
        self._closed = True
        if self._retry is not None:
            self._retry.cancel()
        self.watch.shm_problem(repair=True)  # a WAL index cut short would crash the last writes
        pending, self._pending = self._pending, []
        if pending:
            try:
                self._run_batch([ops for ops, _ in pending])
            except sqlite3.Error as err:
                log.error(
                    "%d writes were not stored at the stop (%s); their tables resume from"
                    " their last stored event, which is the last their players were shown",
                    len(pending),
                    err,
                )
                for _, fut in pending:  # their tables stop where they stood, as told
                    with contextlib.suppress(RuntimeError):
                        fut.cancel()
            else:
                for _, fut in pending:
                    _done(fut)
        if self.watch.lost() is not None:
            self._rescue()  # the last word of a deleted database
            log.error("the database was lost while serving; its last state is in %s", self.rescued)
        self._stop.set()
        self._checkpointer.join(timeout=30)
        with contextlib.suppress(sqlite3.Error):
            self._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        if check and self.fault is None and self.check_integrity() is None:
            log.info(
                "integrity check at the stop: %s is sound",
                self.path,
                extra={"event": "integrity_ok"},
            )
        with self._ckpt_lock:
            if self._ckpt is not None:
                self._ckpt.close()
        with contextlib.suppress(sqlite3.Error):
            self._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        self._db.close()
        self.lock.release()

    # ----- what the server reads at start (`server.storage.startup`) -----

    def max_table_number(self) -> int:
        """The highest numeric table id so far (ids are room numbers 1, 2, 3, …)."""
        return startup.max_table_number(self._db)

    def close_waiting(self, now: float) -> list[str]:
        """Tables a previous run left waiting (no match begun, and nobody is at them any more)
        are closed as abandoned; returns their ids."""
        ids = startup.waiting_tables(self._db)
        if ids:
            self._run_batch([[startup.op_close_waiting(now)]])
        return ids

    def abandon_playing(self, keep: str | None, now: float, *, name: str) -> list[str]:
        """Close every match named `name` left playing but `keep` as abandoned; returns their
        ids. For `zhuoji play`, whose matches only its own player can take up again: the one
        resumed is kept, the others are not left "playing" for ever (and a server's tables, if
        it is pointed at a server's file, are left alone)."""
        ids = [i for i in startup.playing_tables(self._db, name) if i != keep]
        if ids:
            self._run_batch([[op_abandon_table(i, now) for i in ids]])
        return ids

    def known_players(self) -> list[tuple[str, str, str]]:
        """Every keyed player (digest, id, name): what `server.players` knows at start."""
        return known_players(self._db)

    def unfinished(
        self, log_keep: int = 4096, *, ended_since: float | None = None
    ) -> list[StoredTable]:
        """Every match a previous run left playing (and, with `ended_since`, those that ended
        since then), as stored: what the tables resume (`startup.unfinished`)."""
        return startup.unfinished(self._db, log_keep, ended_since=ended_since)


def _done(fut: asyncio.Future[float], took: float = 0.0) -> None:
    if not fut.done():
        with contextlib.suppress(RuntimeError):  # its loop has closed: nobody waits any more
            fut.set_result(took)


def _fail(fut: asyncio.Future[float], err: BaseException) -> None:
    if not fut.done():
        with contextlib.suppress(RuntimeError):
            fut.set_exception(err)
