"""A zhuoji server inside the client process: `zhuoji play`'s where a process cannot fork (its
server runs in a process of its own elsewhere: `zhuoji.play_process`), and the tests'.

It runs on its own thread and event loop, so the server's work (bots, SQLite) never stalls the
interface, and the client talks to it over a loopback websocket like to any other server.

    with LocalServer(db_path) as url:
        ...  # connect to url
"""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path
from types import TracebackType
from typing import Any, Protocol


class PlayServer(Protocol):
    """What `zhuoji play` needs of its server, a thread (`LocalServer`) or a process
    (`zhuoji.play_process.ServerProcess`): launched, its URL awaited, stopped."""

    db: Path

    def launch(self) -> None: ...

    def wait_url(self, timeout: float = ...) -> str: ...

    def stop(self, timeout: float = ...) -> None: ...


class LocalServerError(RuntimeError):
    """The in-process server did not come up; `cause` is why (a `DatabaseInUse` when another
    window's server holds the database)."""

    def __init__(self, message: str, cause: BaseException | None = None) -> None:
        super().__init__(message)
        self.cause = cause


class LocalServer:
    def __init__(
        self, db: Path, *, host: str = "127.0.0.1", port: int = 0, **server_options: Any
    ) -> None:
        self.db = db
        self.host = host
        self.port = port
        self.options = server_options
        self.url: str | None = None
        self._thread: threading.Thread | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop: asyncio.Event | None = None
        self._ready = threading.Event()
        self._error: BaseException | None = None

    def start(self, timeout: float = 10.0) -> str:
        """Start the server; return its `ws://` URL once it listens."""
        self.launch()
        return self.wait_url(timeout)

    def launch(self) -> None:
        """Start the server's thread; return at once (`wait_url` collects its address)."""
        self._thread = threading.Thread(target=self._main, name="zhuoji-server", daemon=True)
        self._thread.start()

    def wait_url(self, timeout: float = 10.0) -> str:
        """The server's `ws://` URL once it listens; LocalServerError if it did not come up."""
        if not self._ready.wait(timeout):
            raise LocalServerError("the local server did not start in time")
        if self._error is not None or self.url is None:
            raise LocalServerError(f"the local server failed: {self._error}", self._error)
        return self.url

    def stop(self, timeout: float = 5.0) -> None:
        """Stop the server (closing its connections) and wait for its thread."""
        loop, stop = self._loop, self._stop
        if loop is not None and stop is not None and not loop.is_closed():
            try:
                loop.call_soon_threadsafe(stop.set)
            except RuntimeError:
                pass  # the loop already ended
        if self._thread is not None:
            self._thread.join(timeout)

    def __enter__(self) -> str:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    def _main(self) -> None:
        try:
            asyncio.run(self._serve())
        except BaseException as err:  # reported to `start`, or lost at exit
            self._error = err
            self._ready.set()

    async def _serve(self) -> None:
        from server.app import Server
        from server.storage.writer import Store

        self._loop = asyncio.get_running_loop()
        self._stop = asyncio.Event()
        store = Store(self.db)
        try:
            server = Server(store, **self.options)
            async with server.listen(self.host, self.port) as ws_server:
                port = next(iter(ws_server.sockets)).getsockname()[1]
                self.url = f"ws://{self.host}:{port}"
                store.lock.note(url=self.url)
                self._ready.set()
                await self._stop.wait()
        finally:
            store.close()
