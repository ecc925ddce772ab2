"""Whether the file a store writes is still its database, and whether SQLite may use its WAL
index: a database deleted or replaced under a running server, or a `-shm` cut short (which would
kill the process with SIGBUS), is a storage fault the writer reports and waits out
(`server.storage.writer`). And the copy a store saves of a deleted database (`rescue`)."""

from __future__ import annotations

import logging
import os
import sqlite3
import time
from pathlib import Path

from server.storage.dbfile import file_identity, make_private

log = logging.getLogger("zhuoji.store")


class FileWatch:
    """The database file at `path` as it was when the store opened it: its identity (device,
    inode) and the longest length its WAL index has had."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.identity = file_identity(path)
        self._shm_size = 0  # the WAL index's longest length seen (`shm_problem`)
        self.shm_problem()

    def changed(self) -> bool:
        """Whether the file at `path` is no longer the one opened (cheap: one stat)."""
        return file_identity(self.path) != self.identity

    def lost(self) -> str | None:
        """Why the file at `path` is not the database this store writes, or None."""
        now = file_identity(self.path)
        if now == self.identity:
            return None
        if now is None:
            return f"the database file {self.path} was deleted while the server ran"
        return f"the database file {self.path} was replaced while the server ran"

    def shm_problem(self, *, repair: bool = False) -> str | None:
        """Why the WAL index (`<db>-shm`, which SQLite maps into memory) cannot be used now, or
        None. A file cut shorter than it was (a failing or full disk, another program) would
        kill the process with SIGBUS at SQLite's next access, with no word said: it is found
        before each commit and each checkpoint instead, and is a storage fault like a full disk.
        With `repair` (a retry) the file is given its length back: SQLite then finds the index
        empty and rebuilds it from the log, and the writes go on."""
        shm = self.path.with_name(self.path.name + "-shm")
        try:
            size = os.stat(shm).st_size
        except OSError:
            return None  # none (yet): SQLite makes it
        if size >= self._shm_size:
            self._shm_size = size
            return None
        if repair:
            try:
                os.truncate(shm, self._shm_size)
            except OSError as err:
                return f"the WAL index {shm} cannot be written ({err.strerror or err})"
            log.warning(
                "the WAL index %s was given its length back (%d bytes); SQLite rebuilds it",
                shm,
                self._shm_size,
                extra={"event": "shm_repaired"},
            )
            return None
        return (
            f"the WAL index {shm} was cut to {size} bytes of {self._shm_size} (a full or failing"
            " disk, or another program); using it would crash the server"
        )


def rescue(db: sqlite3.Connection, path: Path, before: Path | None) -> Path | None:
    """Copy what the open connection `db` holds (a deleted file lives on while it is open) next
    to where the database was: `<db>.rescued` (a new name if one is there from before, unless
    `before` is it). The copy's path, or None (logged) if it could not be made."""
    target = path.with_name(path.name + ".rescued")
    if before is None and target.exists():
        target = path.with_name(f"{path.name}.rescued-{int(time.time())}")
    try:
        make_private(target)
        copy = sqlite3.connect(str(target))
        try:
            db.backup(copy)
        finally:
            copy.close()
    except (sqlite3.Error, OSError) as err:
        log.error("could not save a copy of the database to %s: %s", target, err)
        return None
    return target
