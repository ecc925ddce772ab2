"""The server's database file: who owns it, whether it is ours, and its schema version.

One server owns a database. `DbLock` holds an exclusive `flock` on `<db>.lock` (next to the
database) from before anything is read until the server stops, and writes the holder's pid (and,
once it listens, its URL) into it, so a second server is refused with a line naming the first.

`open_database` opens the file only after checking, read-only, that it is one we may write:
not a directory, not empty, not read-only, a SQLite file, zhuoji's (its `application_id`, or
the tables of a file from before it was set), and not from a newer zhuoji (`user_version`).
A file that fails a check is left exactly as it was; the refusal (`DatabaseRefused`) is one line.
An older schema is migrated in one transaction.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import sqlite3
import stat
from pathlib import Path
from typing import Any

APPLICATION_ID = 0x7A686A69  # "zhji": PRAGMA application_id of every zhuoji database
SCHEMA_VERSION = 3  # PRAGMA user_version this code writes (0: a file from before versions)
BUSY_MS = 2000
OUR_TABLES = frozenset({"tables", "rounds", "actions", "events"})

SCHEMA = """
CREATE TABLE IF NOT EXISTS tables (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    preset TEXT NOT NULL,
    options TEXT NOT NULL,          -- JSON: the overrides of the preset
    base INTEGER NOT NULL,
    rounds INTEGER NOT NULL,
    turn_seconds REAL NOT NULL,
    bank_seconds REAL NOT NULL,
    claim_min_ms INTEGER NOT NULL,
    has_password INTEGER NOT NULL,
    created_at REAL NOT NULL,
    started_at REAL,
    ended_at REAL,
    state TEXT NOT NULL,            -- waiting | playing | finished | abandoned
    seats TEXT,                     -- JSON: [{"name", "kind", "level" (bots)}] × 4 once started
    scores TEXT,                    -- JSON: 4 ints, the match result so far
    rounds_played INTEGER NOT NULL DEFAULT 0,
    seed TEXT,                      -- the match seed every round's wall derives from
    password_hash TEXT,             -- pbkdf2 of the password (never the password)
    tokens TEXT,                    -- JSON: 4 SHA-256 digests of the seat tokens, once started
    bot_delay REAL                  -- seconds the bots wait before moving (NULL: the server's)
    next_round_seconds REAL         -- the longest wait between rounds (0: no limit, NULL: 30)
);
CREATE TABLE IF NOT EXISTS rounds (
    table_id TEXT NOT NULL REFERENCES tables(id),
    round_no INTEGER NOT NULL,
    seed TEXT NOT NULL,
    dealer INTEGER NOT NULL,
    streak INTEGER NOT NULL,
    base INTEGER NOT NULL,
    hands TEXT NOT NULL,            -- JSON: four lists of tiles in notation, as dealt
    wall TEXT NOT NULL,             -- JSON: the live wall, front first
    started_at REAL NOT NULL,
    ended_at REAL,
    result TEXT,                    -- JSON: the settlement
    net TEXT,                       -- JSON: 4 ints
    salt TEXT,                      -- fair deal: the secret salt (hex), revealed at the end
    commitment TEXT,                -- fair deal: SHA-256 of the salt and the deal order
    weekday INTEGER,                -- 1 Monday … 7 Sunday: the day of the deal (星期鸡, §13.12)
    PRIMARY KEY (table_id, round_no)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS actions (
    table_id TEXT NOT NULL,
    round_no INTEGER NOT NULL,
    idx INTEGER NOT NULL,
    seat INTEGER NOT NULL,
    act TEXT NOT NULL,
    tile TEXT,
    phase TEXT NOT NULL,            -- turn | claim | rob: when it was played
    auto INTEGER NOT NULL,          -- 1 when the server played it (timeout, 托管)
    at REAL NOT NULL,
    PRIMARY KEY (table_id, round_no, idx)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS events (
    table_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    round_no INTEGER NOT NULL,      -- 0 outside a round
    type TEXT NOT NULL,
    data TEXT NOT NULL,             -- JSON: the full event, private fields included
    at REAL NOT NULL,
    PRIMARY KEY (table_id, seq)
) WITHOUT ROWID;
"""

# The columns each version added (a file of an older version gets them), and the application id.
# 0 → 1: the columns added after the first release; 1 → 2: a table's own `bot_delay`, the wait
# between rounds, and the weekday of each round's deal (for 星期鸡); 2 → 3: the players (their
# key digests and public ids) and the records derived from the events (`server.records.SCHEMA`,
# made by `migrate`, then filled from the stored events by `server.records.rebuild`).
ADDED_COLUMNS: dict[int, dict[str, list[tuple[str, str]]]] = {
    1: {
        "tables": [("seed", "TEXT"), ("password_hash", "TEXT"), ("tokens", "TEXT")],
        "rounds": [("salt", "TEXT"), ("commitment", "TEXT")],
    },
    2: {
        "tables": [("bot_delay", "REAL"), ("next_round_seconds", "REAL")],
        "rounds": [("weekday", "INTEGER")],
    },
}


class DatabaseRefused(Exception):
    """The database cannot be served; the message is one line saying why (nothing was changed)."""


class DatabaseInUse(DatabaseRefused):
    """Another process holds the database's lock."""

    def __init__(self, message: str, holder: dict[str, Any]) -> None:
        super().__init__(message)
        self.holder = holder


def lock_path(db: Path) -> Path:
    return db.with_name(db.name + ".lock")


class DbLock:
    """An exclusive lock on a database, held by one process (`flock` on `<db>.lock`).

    The lock file is never deleted (deleting it would let a second process lock a new file while
    the first still holds the old one); the kernel drops the lock when the process ends, however
    it ends."""

    def __init__(self, db: Path) -> None:
        self.db = db
        self.path = lock_path(db)
        self._fd: int | None = None
        self.info: dict[str, Any] = {}

    def acquire(self) -> None:
        """Take the lock, or raise DatabaseInUse naming the holder."""
        try:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        except OSError as err:
            raise DatabaseRefused(
                f"cannot create the lock file {self.path}: {err.strerror}"
            ) from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = _read_holder(fd)
            os.close(fd)
            pid = holder.get("pid", "unknown")
            where = f", serving {holder['url']}" if holder.get("url") else ""
            raise DatabaseInUse(
                f"{self.db} is in use by another zhuoji server (pid {pid}"
                f"{where}); one server owns a database",
                holder,
            ) from None
        self._fd = fd
        self.note(pid=os.getpid())

    def note(self, **info: Any) -> None:
        """Record more about the holder (its URL once it listens) in the lock file."""
        if self._fd is None:
            return
        self.info.update(info)
        data = json.dumps(self.info).encode()
        with contextlib.suppress(OSError):
            os.ftruncate(self._fd, 0)
            os.pwrite(self._fd, data, 0)

    def release(self) -> None:
        if self._fd is None:
            return
        with contextlib.suppress(OSError):
            os.ftruncate(self._fd, 0)
        os.close(self._fd)  # closing drops the flock
        self._fd = None


def _read_holder(fd: int) -> dict[str, Any]:
    try:
        data = os.pread(fd, 4096, 0)
        holder = json.loads(data) if data else {}
    except (OSError, ValueError):
        return {}
    return holder if isinstance(holder, dict) else {}


def file_identity(path: Path) -> tuple[int, int] | None:
    """(device, inode) of the file at `path`, None if there is none: a database deleted or
    replaced under a running server shows as a change."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_dev, st.st_ino


def check_file(path: Path) -> bool:
    """Refuse (DatabaseRefused) a path the server must not open; True if the file exists
    (False: a new database will be made). Reads only."""
    if path.is_dir():
        raise DatabaseRefused(f"{path} is a directory, not a database file")
    if not path.exists():
        parent = path.parent
        if not parent.is_dir():
            raise DatabaseRefused(f"cannot make {path}: {parent} is not a directory")
        if not os.access(parent, os.W_OK | os.X_OK):
            raise DatabaseRefused(f"cannot make {path}: the directory {parent} is read-only")
        return False
    st = path.stat()
    if not stat.S_ISREG(st.st_mode):
        raise DatabaseRefused(f"{path} is not a regular file")
    if st.st_size == 0:
        raise DatabaseRefused(
            f"{path} is empty (0 bytes), not a zhuoji database; delete it to start a new one"
        )
    if st.st_mode & 0o222 == 0 or not os.access(path, os.W_OK):
        raise DatabaseRefused(
            f"{path} is read-only; the server writes every move to it (make it writable)"
        )
    if not os.access(path.parent, os.W_OK | os.X_OK):
        raise DatabaseRefused(
            f"the directory of {path} is read-only; SQLite keeps its write-ahead log beside it"
        )
    return True


def inspect(path: Path) -> int:
    """The schema version of an existing file, after checking (read-only) that it is a sound
    zhuoji database this code can serve."""
    try:
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=5)
    except sqlite3.Error as err:
        raise DatabaseRefused(f"cannot open {path}: {err}") from None
    try:
        app_id = conn.execute("PRAGMA application_id").fetchone()[0]
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        names = {
            r[0]
            for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")
            if not r[0].startswith("sqlite_")
        }
        if app_id not in (0, APPLICATION_ID):
            raise DatabaseRefused(
                f"{path} is not a zhuoji database (another program's SQLite file, application_id"
                f" {app_id:#x}); use another --db"
            )
        if app_id == 0 and names != OUR_TABLES:
            other = sorted(names - OUR_TABLES)
            what = f"its tables: {', '.join(other[:5])}" if other else "no zhuoji tables"
            raise DatabaseRefused(f"{path} is not a zhuoji database ({what}); use another --db")
        if version > SCHEMA_VERSION:
            raise DatabaseRefused(
                f"{path} has schema version {version}, newer than this zhuoji knows"
                f" ({SCHEMA_VERSION}): upgrade zhuoji to serve it"
            )
        check = conn.execute("PRAGMA quick_check(1)").fetchone()[0]
        if check != "ok":
            what = " ".join(str(check).replace("*** in database main ***", "").split())
            raise DatabaseRefused(f"{path} is corrupt ({what}); restore it from a backup")
    except sqlite3.DatabaseError as err:
        raise DatabaseRefused(f"{path} is not a readable SQLite database ({err})") from None
    finally:
        conn.close()
    return int(version)


def open_database(path: Path) -> sqlite3.Connection:
    """The server's writing connection: the file checked (`check_file`, `inspect`), then made or
    migrated to `SCHEMA_VERSION`, in WAL mode."""
    exists = check_file(path)
    version = inspect(path) if exists else 0
    mode = "rw" if exists else "rwc"
    try:
        db = sqlite3.connect(
            f"file:{path}?mode={mode}",
            uri=True,
            timeout=30,
            check_same_thread=False,
            isolation_level=None,
        )
    except sqlite3.Error as err:
        raise DatabaseRefused(f"cannot open {path} for writing: {err}") from None
    try:
        # The writer runs on the event loop: a lock held elsewhere (a checkpoint, a tool) is
        # waited for 2 s at most, then treated as a storage fault and retried.
        db.execute(f"PRAGMA busy_timeout={BUSY_MS}")
        db.execute("PRAGMA journal_mode=WAL")
        if version < SCHEMA_VERSION or not exists:
            migrate(db, version)
    except sqlite3.Error as err:
        db.close()
        raise DatabaseRefused(f"cannot write to {path}: {err}") from None
    return db


def migrate(db: sqlite3.Connection, version: int) -> None:
    """Bring a database at `version` (0 for a new file or one from before versions) to
    `SCHEMA_VERSION`, in one transaction."""
    db.execute("BEGIN IMMEDIATE")
    try:
        for statement in SCHEMA.split(";"):
            if statement.strip():
                db.execute(statement)
        for since, added in ADDED_COLUMNS.items():
            if version >= since:
                continue
            for table, columns in added.items():
                have = {row[1] for row in db.execute(f"PRAGMA table_info({table})")}
                for name, kind in columns:
                    if name not in have:
                        db.execute(f"ALTER TABLE {table} ADD COLUMN {name} {kind}")
        from server import records

        records.upgrade(db)  # the records of the matches stored before they were kept
        db.execute(f"PRAGMA application_id={APPLICATION_ID}")
        db.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
    except BaseException:
        db.execute("ROLLBACK")
        raise
    db.execute("COMMIT")
