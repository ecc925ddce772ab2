"""The server's database file: who owns it, whether it is ours, and its schema version.

One server owns a database. `DbLock` holds an exclusive `flock` on `<db>.lock` (next to the
database) from before anything is read until the server stops, and writes the holder's pid (and,
once it listens, its URL) into it, so a second server is refused with a line naming the first.

`open_database` opens the file only after checking, read-only, that it is one we may write:
not a directory, not empty, not read-only, a SQLite file, zhuoji's (its `application_id`, or
the tables of a file from before it was set), and not from a newer zhuoji (`user_version`).
A file that fails a check is left exactly as it was; the refusal (`DatabaseRefused`) is one line.
An older schema is migrated in one transaction (`server.storage.migrations`).
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import logging
import os
import sqlite3
import stat
from pathlib import Path
from typing import Any

from server.storage.migrations import migrate
from server.storage.schema import APPLICATION_ID, SCHEMA_VERSION
from server.storage.schema import SCHEMA as SCHEMA  # re-exported: the schema's text

BUSY_MS = 2000
OUR_TABLES = frozenset({"tables", "rounds", "actions", "events"})


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
    """An exclusive lock on a database, held by one process: `flock` on `<db>.lock` (which
    records the holder: its pid, its URL), and `flock` on the database file itself, so that a
    second server reaching the same file by another path (a symlink, a hardlink, a lock file
    deleted meanwhile) is refused too: the file's own lock goes with its inode, not its name.
    (On Linux a `flock` does not touch SQLite's own `fcntl` locks: readers are not affected.)

    The lock file is never deleted (deleting it would let a second process lock a new file while
    the first still holds the old one); the kernel drops the locks when the process ends,
    however it ends."""

    def __init__(self, db: Path) -> None:
        self.db = db
        self.path = lock_path(db)
        self._fd: int | None = None
        self._db_fd: int | None = None
        self.info: dict[str, Any] = {}

    def acquire(self) -> None:
        """Take the lock (the lock file's, then the database file's if it exists: a new file
        is locked by `hold_database` once made), or raise DatabaseInUse naming the holder."""
        try:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        except OSError as err:
            raise DatabaseRefused(
                f"cannot create the lock file {self.path}: {err.strerror}"
            ) from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = _read_holder(fd)
            os.close(fd)
            raise _in_use(self.db, holder, "") from None
        self._fd = fd
        try:
            self.hold_database()
        except BaseException:
            self.release()
            raise
        self.note(pid=os.getpid())

    def hold_database(self) -> None:
        """Lock the database file itself (by its inode), if it exists and is not locked yet."""
        if self._db_fd is not None or not self.db.is_file():
            return
        try:
            fd = os.open(self.db, os.O_RDONLY | os.O_CLOEXEC)
        except OSError as err:
            raise DatabaseRefused(f"cannot open {self.db}: {err.strerror}") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            # Not closed: closing a descriptor of the file would drop every POSIX lock this
            # process holds on it (SQLite's own, if this process has it open elsewhere), as
            # SQLite itself avoids. A refusal is rare: the descriptor is parked.
            _PARKED.append(fd)
            # Held through another name: its holder's record is beside the real file, if the
            # other name is a symlink (a hardlink's other name cannot be found from here).
            real = self.db.resolve()
            holder = _holder_of(lock_path(real)) if real != self.db.absolute() else {}
            raise _in_use(
                self.db,
                holder,
                " through another path (a symlink, a hardlink or a lock file deleted while it ran)",
            ) from None
        self._db_fd = fd

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
        if self._db_fd is not None:
            os.close(self._db_fd)
            self._db_fd = None
        if self._fd is None:
            return
        with contextlib.suppress(OSError):
            os.ftruncate(self._fd, 0)
        os.close(self._fd)  # closing drops the flock
        self._fd = None


_PARKED: list[int] = []  # descriptors of refused database locks (see `hold_database`)


def _in_use(db: Path, holder: dict[str, Any], how: str) -> DatabaseInUse:
    pid = holder.get("pid", "unknown")
    where = f", serving {holder['url']}" if holder.get("url") else ""
    return DatabaseInUse(
        f"{db} is in use by another zhuoji server{how} (pid {pid}{where}); one server owns a"
        " database",
        holder,
    )


def _holder_of(path: Path) -> dict[str, Any]:
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        return {}
    try:
        return _read_holder(fd)
    finally:
        os.close(fd)


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


def roll_back_journal(path: Path) -> bool:
    """Roll back a hot rollback journal (`<db>-journal`: a writer in rollback-journal mode, a
    backup being written to, killed mid-transaction); True if there was one. A read-only
    connection cannot (SQLite refuses the file as read-only), so the file is opened for writing
    and read once, which makes SQLite restore the pages the journal holds: the file comes back
    as it was before that write, as SQLite is designed to. Called under the database's lock."""
    journal = path.with_name(path.name + "-journal")
    try:
        if journal.stat().st_size == 0:
            return False
    except OSError:
        return False
    try:
        conn = sqlite3.connect(f"file:{path}?mode=rw", uri=True, timeout=5)
        try:
            conn.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()
        finally:
            conn.close()
    except sqlite3.Error as err:
        raise DatabaseRefused(
            f"{path} has the journal of an interrupted write ({journal}) that SQLite could not"
            f" roll back ({err}); keep the two files together, and restore from a backup only"
            " if sqlite3 cannot open the database either"
        ) from None
    rolled = not journal.exists() or journal.stat().st_size == 0
    if rolled:
        logging.getLogger("zhuoji.store").warning(
            "%s: rolled back the write a killed writer left unfinished (hot journal %s);"
            " the database is as it was before that write",
            path,
            journal,
            extra={"event": "journal_rolled_back"},
        )
    return rolled


def inspect(path: Path) -> int:
    """The schema version of an existing file, after checking (read-only) that it is a sound
    zhuoji database this code can serve (a hot journal rolled back first)."""
    roll_back_journal(path)
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


def warn_if_readable(path: Path) -> None:
    """One WARNING line when an existing database can be read by other local accounts (it holds
    the hands and the wall of every round being played): made before files were made 0600."""
    try:
        mode = path.stat().st_mode
    except OSError:
        return
    if mode & 0o044:
        logging.getLogger("zhuoji.store").warning(
            "%s can be read by other accounts on this machine (mode %o): it holds the hands and"
            " the wall of the rounds being played; chmod 600 %s (and its -wal, -shm files)",
            path,
            stat.S_IMODE(mode),
            path,
            extra={"event": "database_readable"},
        )


def make_private(path: Path) -> None:
    """Create `path` empty and 0600 (FileExistsError if it is there) before SQLite opens it:
    SQLite keeps a file's mode and gives its -wal and -shm the same, and every copy of the
    database (a backup, a rescued copy) holds the hands, walls and unrevealed salts."""
    os.close(os.open(path, os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600))


def open_database(path: Path) -> sqlite3.Connection:
    """The server's writing connection: the file checked (`check_file`, `inspect`), then made or
    migrated to `SCHEMA_VERSION`, in WAL mode."""
    exists = check_file(path)
    version = inspect(path) if exists else 0
    mode = "rw" if exists else "rwc"
    if not exists:
        # Made 0600 before SQLite opens it: the hands and the wall of the round being played
        # are in it, and SQLite gives the -wal and -shm files the database's own mode.
        try:
            make_private(path)
        except FileExistsError:
            pass
        except OSError as err:
            raise DatabaseRefused(f"cannot make {path}: {err.strerror or err}") from None
    else:
        warn_if_readable(path)
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
            migrate(db, version, new=not exists)
    except sqlite3.Error as err:
        db.close()
        raise DatabaseRefused(f"cannot write to {path}: {err}") from None
    return db
