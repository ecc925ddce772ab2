"""The server of `zhuoji play` in a process of its own, forked from the client (issue 26).

`zhuoji play` used to run its server on a thread of the client's process: the two shared one
interpreter lock, so the server's start and its first deal waited on the client's imports and
drawing, on a machine with a second core idle. Forked once the command line is read (the rules,
pydantic and the wire models already imported, so the child does not import them again), the
server starts on the other core while the client imports Textual; the client talks to it over
loopback like `zhuoji join`. The database, its lock and the player's key stay where they were.

The child never outlives the client: on Linux the kernel kills it when the client dies
(`PR_SET_PDEATHSIG`, like the thread it replaces, which died with the process), and everywhere
it stops when the pipe the client holds open reaches end of file, which is also how `stop` asks
it to end cleanly. It reports on another pipe: one JSON line, its URL or why it failed (with the
lock's holder when another window's server owns the database), so a failed start is an error
message in the client, never a hang.

    server = ServerProcess(db_path, bot_delay=0.4)
    server.launch()          # returns at once
    ...                      # import the client meanwhile
    url = server.wait_url()  # LocalServerError if it did not come up
"""

from __future__ import annotations

import gc
import json
import os
import select
import signal
import sys
import time
from pathlib import Path
from typing import Any

from zhuoji.play import LocalServerError

PR_SET_PDEATHSIG = 1  # <linux/prctl.h>


class ServerProcess:
    """A zhuoji server on loopback in a forked child process, for `zhuoji play`."""

    def __init__(self, db: Path, *, host: str = "127.0.0.1", **server_options: Any) -> None:
        self.db = db
        self.host = host
        self.options = server_options
        self.pid: int | None = None
        self.url: str | None = None
        self._status: int | None = None  # the read end of the child's report
        self._lifeline: int | None = None  # the write end the child watches for end of file

    def launch(self) -> None:
        """Fork the server; return at once (`wait_url` collects its address)."""
        status_r, status_w = os.pipe()
        life_r, life_w = os.pipe()
        # Objects that no collection in the child touches stay shared with the parent (a
        # collection writes to every object it scans: the child would copy the parent's heap).
        gc.freeze()
        pid = os.fork()
        if pid == 0:  # the child: serve, then leave without running the client's exit code
            code = 70
            try:
                os.close(status_r)
                os.close(life_w)
                code = _child(self.db, self.host, self.options, status_w, life_r)
            finally:
                os._exit(code)
        gc.unfreeze()
        os.close(status_w)
        os.close(life_r)
        self.pid, self._status, self._lifeline = pid, status_r, life_w

    def wait_url(self, timeout: float = 30.0) -> str:
        """The server's `ws://` URL once it listens; LocalServerError (its `cause` a
        `DatabaseInUse` when another window's server holds the database) if it did not come up
        within `timeout` seconds, the child then stopped."""
        if self.url is not None:
            return self.url
        if self._status is None:
            raise LocalServerError("the local server was not launched")
        report, ended = _read_line(self._status, timeout)
        os.close(self._status)
        self._status = None
        try:
            said = json.loads(report) if report else {}
        except ValueError:
            said = {}
        if isinstance(said, dict) and isinstance(said.get("url"), str):
            self.url = said["url"]
            return self.url
        self.stop(timeout=5.0)
        if not report:
            if ended:
                raise LocalServerError("the local server ended before it listened")
            raise LocalServerError(f"the local server did not start within {timeout:g} s")
        if not isinstance(said, dict) or not said:
            raise LocalServerError(f"the local server failed: {report[-500:]}")
        cause: BaseException | None = None
        if isinstance(said.get("holder"), dict):
            from server.storage.dbfile import DatabaseInUse

            cause = DatabaseInUse(str(said.get("error")), said["holder"])
        raise LocalServerError(f"the local server failed: {said.get('error')}", cause)

    def start(self, timeout: float = 30.0) -> str:
        """Launch the server and wait for its URL (`LocalServer.start`'s contract)."""
        self.launch()
        return self.wait_url(timeout)

    def stop(self, timeout: float = 5.0) -> None:
        """Ask the server to end (its connections closed, its database closed) and wait for it;
        killed if it has not ended after `timeout` seconds."""
        if self._lifeline is not None:
            os.close(self._lifeline)
            self._lifeline = None
        if self._status is not None:
            os.close(self._status)
            self._status = None
        pid, self.pid = self.pid, None
        if pid is None:
            return
        if not _reaped(pid, timeout):
            os.kill(pid, signal.SIGKILL)
            _reaped(pid, timeout)


def _read_line(fd: int, timeout: float) -> tuple[str, bool]:
    """One line from `fd` (without its newline), or what came before end of file or `timeout`;
    and whether the writer is gone (end of file) rather than late."""
    deadline = time.monotonic() + timeout
    data = b""
    while b"\n" not in data:
        left = deadline - time.monotonic()
        if left <= 0 or not select.select([fd], [], [], left)[0]:
            return data.decode(errors="replace"), False
        chunk = os.read(fd, 65536)
        if not chunk:
            return data.decode(errors="replace"), True
        data += chunk
    return data.split(b"\n", 1)[0].decode(errors="replace"), False


def _reaped(pid: int, timeout: float) -> bool:
    """Wait up to `timeout` seconds for the child `pid` to end; whether it has (and is reaped)."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            done, _ = os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            return True
        if done:
            return True
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.01)


def _child(db: Path, host: str, options: dict[str, Any], status: int, lifeline: int) -> int:
    """The forked server's life: die with the client, serve until the lifeline closes, report
    the URL or the failure on `status`. Returns the exit code."""
    gc.enable()  # the client forks with collection paused for its start (`zhuoji.cli.gc_paused`)
    # The terminal is the client's: Ctrl-C is its to handle, and nothing here may draw on it.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    os.close(null)
    try:
        import asyncio

        asyncio.run(_serve(db, host, options, status, lifeline))
    except BaseException as err:  # reported to the client, which shows it
        from server.storage.dbfile import DatabaseInUse

        report: dict[str, Any] = {"error": str(err) or type(err).__name__}
        if isinstance(err, DatabaseInUse):
            report["holder"] = err.holder
        _say(status, report)
        return 1
    return 0


def _die_with_parent() -> None:
    """On Linux, have the kernel kill this process when the client dies (however it dies). A
    client that died before this call has closed the lifeline: the server ends at once."""
    if sys.platform.startswith("linux"):
        try:
            import ctypes

            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        except (OSError, AttributeError):
            pass  # the lifeline still ends it


def _say(status: int, report: dict[str, Any]) -> None:
    try:
        os.write(status, (json.dumps(report) + "\n").encode())
    except OSError:
        pass  # the client is gone


async def _serve(db: Path, host: str, options: dict[str, Any], status: int, lifeline: int) -> None:
    import asyncio

    from server.app import Server
    from server.storage.writer import Store

    loop = asyncio.get_running_loop()
    stop = asyncio.Event()
    loop.add_reader(lifeline, stop.set)  # readable only at end of file: the client let go
    store = Store(db)
    try:
        server = Server(store, **options)
        async with server.listen(host, 0) as ws_server:
            port = next(iter(ws_server.sockets)).getsockname()[1]
            url = f"ws://{host}:{port}"
            store.lock.note(url=url)
            _say(status, {"url": url})
            _warm_up()
            _die_with_parent()  # after the start (ctypes is slow to import): the lifeline until then
            await stop.wait()
    finally:
        store.close()


def _warm_up() -> None:
    """Build the validators the first table needs now, while the client is still importing
    Textual. The wire models are built on first use (`defer_build`, so that commands start at
    once), and building them took the first table about 60-110 ms that the player waited
    for; done here, on the idle core, the table comes back at once. Only a head start: a model
    missed here is built when first used, as before."""
    from protocol.messages import (
        CLIENT_ADAPTER,
        Joined,
        MatchStarted,
        SeatStatus,
        Snapshot,
        TableUpdate,
        TakeSeat,
        Welcome,
    )
    from server.config import TableSection

    CLIENT_ADAPTER.rebuild()
    for model in (Welcome, TakeSeat, Joined, Snapshot, TableUpdate, SeatStatus, MatchStarted):
        model.model_rebuild()
    TableSection.model_rebuild()
