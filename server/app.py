"""The zhuoji server: websocket connections, the lobby, and the tables.

A connection's handler reads frames, checks the rate limit, validates each frame against the
protocol models and hands it to the lobby (here) or to the connection's table task
(`server.table.Table`); it never touches a table's state. Everything a client may get wrong is
answered with an `error` frame; only the transport-level faults close the connection, with the
codes listed in `protocol.codes.Close` and docs/PROTOCOL.md.

    server = Server(Store(path))
    async with server.listen("0.0.0.0", 8765) as ws_server:
        await ws_server.serve_forever()
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import secrets
import time
from collections.abc import AsyncIterator
from http import HTTPStatus
from typing import Any
from urllib.parse import urlsplit

from pydantic import BaseModel, ValidationError
from websockets.asyncio.server import Server as WsServer
from websockets.asyncio.server import ServerConnection, serve
from websockets.exceptions import ConnectionClosed
from websockets.http11 import Request, Response

from protocol import codes, frames
from protocol.codes import Close
from protocol.messages import (
    MAX_FRAME_BYTES,
    PROTOCOL_VERSION,
    CreateTable,
    Hello,
    TakeSeat,
    Watch,
    parse_client,
)
from rules.options import OptionsError, make_options, overrides_of
from server.conn import Conn, Outbox, RateLimit, WsConn
from server.credentials import hash_password, token_key
from server.metrics import Metrics
from server.projection import ErrorItem, view_for
from server.store import Store
from server.table import LOG_KEEP, Settings, Table
from server.table_core import Timing

log = logging.getLogger("zhuoji.server")

TABLE_COMMANDS = frozenset({"add_bot", "remove_bot", "start", "act", "auto", "sync"})
# Refused during a storage fault: they would open a table or a seat that cannot be stored.
# Commands to a table wait with it (they are answered once its writes are stored).
STORAGE_REFUSED = frozenset({"create_table", "take_seat", "watch"})
REFUSALS_LOGGED = 20  # refusals logged per connection; the rest are only counted
STORAGE_MESSAGE = (
    "storage unavailable: the server cannot write its database; the tables wait and go on when"
    " it can"
)


def _validation_message(err: ValidationError) -> tuple[str, str]:
    """(code, message) for a refused frame: what was wrong and where, briefly."""
    errors = err.errors(include_url=False)
    if errors and errors[0]["type"] == "json_invalid":
        return codes.BAD_JSON, "not valid JSON"
    parts = []
    for e in errors[:3]:
        loc = ".".join(str(x) for x in e["loc"][1:] or e["loc"])
        parts.append(f"{loc}: {e['msg']}" if loc else e["msg"])
    more = f" (and {len(errors) - 3} more)" if len(errors) > 3 else ""
    return codes.BAD_MESSAGE, "; ".join(parts)[:400] + more


def tune_gc() -> None:
    """Keep the collector's pauses short under load: everything alive after start-up (modules,
    the rules' lookup tables) is frozen out of collection, and young collections run less often.
    A full collection of a large heap otherwise stalls every table for tens of milliseconds."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(10_000, 20, 20)


class Server:
    """The lobby and the table registry. One per process; runs on one event loop."""

    def __init__(
        self,
        store: Store,
        *,
        name: str = "zhuoji",
        seed: str | None = None,
        max_tables: int = 5000,
        rate_burst: float = 40,
        rate_per_second: float = 10,
        hello_timeout: float = 10.0,
        disconnect_grace: float = 20.0,
        round_pause: float = 3.0,
        finished_linger: float = 600.0,
        bot_delay: float = 0.0,
        version: str = "unknown",
    ) -> None:
        self.store = store
        self.name = name
        self.seed = seed
        self.max_tables = max_tables
        self.rate_burst = rate_burst
        self.rate_per_second = rate_per_second
        self.hello_timeout = hello_timeout
        # The tables' time limits; the server's own bots are played by the tables themselves.
        self.timing = Timing(
            disconnect_grace=disconnect_grace,
            round_pause=round_pause,
            finished_linger=finished_linger,
            bot_delay=bot_delay,
        )
        self.tables: dict[str, Table] = {}
        self.tokens: dict[str, Table] = {}  # token digest (`token_key`) → its table
        self.next_table = store.max_table_number() + 1
        store.on_fault = self.storage_changed
        self.conns: set[Conn] = set()
        self.outbox = Outbox()
        self.stopping = False
        self.resumed = 0  # unfinished matches resumed at start (`restore`)
        self.ws_server: WsServer | None = None  # while listening
        self.restart = False  # set before stopping: close with 1012 (restart), not 1001
        self.version = version
        self.metrics = Metrics(self, version=version)  # `GET /metrics`
        store.on_commit = self.metrics.committed

    # ----- ids, tokens, seeds -----

    def drop_token(self, key: str | None) -> None:
        if key is not None:
            self.tokens.pop(key, None)

    def match_seed(self, table_id: str) -> str:
        """A fresh secret seed per match (each round's wall derives from it); with `seed` set
        (tests), a reproducible one."""
        if self.seed is not None:
            return f"{self.seed}:{table_id}"
        return secrets.token_hex(16)

    # ----- the websocket side -----

    @contextlib.asynccontextmanager
    async def listen(self, host: str, port: int) -> AsyncIterator[WsServer]:
        """Bind host:port, resume the matches a previous run left unfinished, serve websockets
        until the block exits, then stop gracefully (`shutdown`; `restart` picks the close
        code). The port is bound first, so a server that cannot listen touches no table."""
        async with serve(
            self.handler,
            host,
            port,
            compression=None,
            max_size=MAX_FRAME_BYTES,
            max_queue=16,
            ping_interval=20,
            ping_timeout=20,
            close_timeout=5,
            process_request=self._http,
            start_serving=False,
        ) as ws_server:
            await self.restore()
            await ws_server.start_serving()
            self.ws_server = ws_server
            addresses = ", ".join(_address(sock.getsockname()) for sock in ws_server.sockets)
            log.info(
                "zhuoji %s serving on %s (database %s; %d unfinished matches resumed)",
                self.version,
                addresses,
                self.store.path,
                self.resumed,
                extra={"event": "server_started", "address": addresses, "version": self.version},
            )
            try:
                yield ws_server
            finally:
                await self.shutdown(ws_server, restart=self.restart)
                ws_server.close(close_connections=True)
                log.info(
                    "server stopped (%s)",
                    "for a restart" if self.restart else "shut down",
                    extra={"event": "server_stopped", "restart": self.restart},
                )

    def _http(self, connection: ServerConnection, request: Request) -> Response | None:
        """Plain HTTP before the upgrade: `/healthz` and `/metrics` for monitoring."""
        path = urlsplit(request.path).path
        if path == "/healthz":
            fault = self.store.fault
            if fault is not None:
                return connection.respond(
                    HTTPStatus.SERVICE_UNAVAILABLE, f"storage unavailable: {fault}\n"
                )
            return connection.respond(HTTPStatus.OK, f"ok {len(self.tables)} tables\n")
        if path == "/metrics":
            body, content_type = self.metrics.render(request.headers.get("Accept"))
            response = connection.respond(HTTPStatus.OK, "")
            response.body = body
            for name, value in (("Content-Length", str(len(body))), ("Content-Type", content_type)):
                del response.headers[name]  # a multidict: setting would add a second one
                response.headers[name] = value
            return response
        return None

    # ----- storage faults -----

    def storage_changed(self, fault: str | None) -> None:
        """The store cannot write (`fault`), or can again (None). While it cannot, each table
        waits on its write (retried by the store; nothing unstored is sent), new tables and
        seats are refused with `storage_unavailable`, and everyone connected is told once."""
        if fault is None:
            return  # the tables go on by themselves; their next events say so
        for conn in list(self.conns):
            if conn.hello and not conn.closed:
                self._storage_notice(conn, None)

    def _storage_notice(self, conn: Conn, ref: str | None) -> None:
        self._error(conn, codes.STORAGE_UNAVAILABLE, STORAGE_MESSAGE, ref)

    async def handler(self, ws: ServerConnection) -> None:
        conn = WsConn(ws, self.outbox)
        self.conns.add(conn)
        self.metrics.connections_opened.inc()
        log.debug(
            "conn %d from %s open",
            conn.id,
            conn.peer,
            extra={"event": "conn_opened", "conn": conn.id, "peer": conn.peer},
        )
        rate = conn.rate = RateLimit(self.rate_burst, self.rate_per_second)
        loop = asyncio.get_running_loop()
        messages = self.metrics.messages
        try:
            try:
                async with asyncio.timeout(self.hello_timeout):
                    first = await ws.recv()
            except TimeoutError:
                self._error(conn, codes.HELLO_FIRST, "send hello first", None)
                conn.close(Close.BAD_HELLO, "no hello")
            else:
                rate.take()
                messages.inc()
                conn.received_at = loop.time()
                self.handle_frame(conn, first)
                async for raw in ws:
                    if conn.closed:
                        break
                    messages.inc()
                    conn.received_at = loop.time()
                    if not rate.take():
                        self._error(conn, codes.RATE_LIMITED, "too many messages", None)
                        conn.close(Close.POLICY, "rate limit")
                        self.metrics.rate_limit_closes.inc()
                        log.warning(
                            "conn %d from %s closed (1008): over the rate limit",
                            conn.id,
                            conn.peer,
                            extra={"event": "rate_limited", "conn": conn.id, "peer": conn.peer},
                        )
                        break
                    self.handle_frame(conn, raw)
        except ConnectionClosed:
            pass
        finally:
            log.debug("conn %d closed", conn.id, extra={"event": "conn_closed", "conn": conn.id})
            self.disconnected(conn)
            if conn.closing is not None:
                with contextlib.suppress(Exception):
                    await conn.closing
            conn.closed = True
            self.conns.discard(conn)

    def disconnected(self, conn: Conn) -> None:
        table = conn.table or conn.joining
        if table is not None:
            table.post("gone", conn)

    # ----- frames -----

    def handle_frame(self, conn: Conn, raw: str | bytes) -> None:
        """Parse, validate and route one frame. Never raises, never waits."""
        if isinstance(raw, bytes):
            self._error(conn, codes.BAD_MESSAGE, "send JSON in text frames", None)
            if not conn.hello:
                conn.close(Close.BAD_HELLO, "the first frame must be a valid hello")
            return
        try:
            msg = parse_client(raw)
        except ValidationError as err:
            code, message = _validation_message(err)
            self._error(conn, code, message, None)
            if not conn.hello:
                conn.close(Close.BAD_HELLO, "the first frame must be a valid hello")
            return
        try:
            self._route(conn, msg)
        except Exception:  # a bug here must not take the server down
            log.exception(
                "routing %s from conn %d",
                msg.type,
                conn.id,
                extra={"event": "error", "conn": conn.id},
            )
            self._error(conn, "internal", "the server could not handle that", msg.type)

    def _route(self, conn: Conn, msg: Any) -> None:
        kind = msg.type
        if not conn.hello:
            if not isinstance(msg, Hello):
                self._error(conn, codes.HELLO_FIRST, "the first frame must be hello", kind)
                conn.close(Close.BAD_HELLO, "the first frame must be hello")
                return
            self._hello(conn, msg)
            return
        if isinstance(msg, Hello):
            self._error(conn, codes.ALREADY_HELLO, "hello was already received", kind)
        elif kind in STORAGE_REFUSED and self.store.fault is not None:
            self._storage_notice(conn, kind)
        elif kind == "list_tables":
            self._send(conn, frames.tables(self.lobby()))
        elif isinstance(msg, CreateTable):
            self._create(conn, msg)
        elif isinstance(msg, TakeSeat | Watch):
            self._join(conn, msg)
        elif kind == "leave":
            table = conn.table
            if table is None:
                self._error(conn, codes.NOT_AT_TABLE, "you are not at a table", kind)
            else:
                table.post("leave", conn)
        elif kind in TABLE_COMMANDS:
            table = conn.table
            if table is None:
                self._error(conn, codes.NOT_AT_TABLE, "you are not at a table", kind)
            else:
                table.post("msg", conn, msg, conn.received_at)
        else:  # pragma: no cover - every message type is routed above
            self._error(conn, codes.BAD_MESSAGE, f"unexpected {kind}", kind)

    def _hello(self, conn: Conn, msg: Hello) -> None:
        if msg.version != PROTOCOL_VERSION:
            self._error(
                conn,
                codes.VERSION_MISMATCH,
                f"this server speaks protocol version {PROTOCOL_VERSION}, not {msg.version}",
                "hello",
            )
            conn.close(Close.VERSION, f"protocol version {PROTOCOL_VERSION} only")
            return
        conn.hello, conn.name = True, msg.name
        self._send(conn, frames.welcome(self.name, msg.name))
        if self.store.fault is not None:
            self._storage_notice(conn, None)
        if msg.token is not None:
            key = token_key(msg.token)
            table = self.tokens.get(key)
            if table is None:
                self.metrics.tally({"resume:refused": 1})
                self._error(conn, codes.BAD_TOKEN, "unknown or expired seat token", "hello")
                return
            conn.joining = table
            table.post("resume", conn, key, msg.token, msg.last_seq)

    def _create(self, conn: Conn, msg: CreateTable) -> None:
        if conn.table is not None or conn.joining is not None:
            self._error(conn, codes.ALREADY_AT_TABLE, "leave your table first", msg.type)
            return
        if len(self.tables) >= self.max_tables:
            self._error(
                conn, codes.TOO_MANY_TABLES, "the server has no room for more tables", msg.type
            )
            return
        try:
            options = make_options(msg.preset, dict(msg.options))
        except OptionsError as err:
            self._error(conn, codes.BAD_OPTIONS, str(err)[:400], msg.type)
            return
        table_id = str(self.next_table)
        self.next_table += 1
        settings = Settings(
            name=msg.name,
            preset=msg.preset,
            overrides=overrides_of(options, msg.preset),
            options=options,
            base=msg.base,
            rounds=msg.rounds,
            turn_seconds=msg.turn_seconds,
            bank_seconds=msg.bank_seconds,
            claim_min_ms=msg.claim_min_ms,
            password_hash=None if msg.password is None else hash_password(msg.password),
        )
        table = Table(self, table_id, settings)
        self.tables[table_id] = table
        conn.joining = table
        table.post("create", conn)

    def _join(self, conn: Conn, msg: TakeSeat | Watch) -> None:
        if conn.table is not None or conn.joining is not None:
            self._error(conn, codes.ALREADY_AT_TABLE, "leave your table first", msg.type)
            return
        table = self.tables.get(msg.table)
        if table is None:
            self._error(conn, codes.UNKNOWN_TABLE, f"no table {msg.table}", msg.type)
            return
        conn.joining = table
        table.post("join", conn, msg)

    def lobby(self) -> list[dict[str, Any]]:
        """The lobby rows: waiting tables first, then playing, then finished; at most 200."""
        order = {"waiting": 0, "playing": 1}
        tables = sorted(self.tables.values(), key=lambda t: (order.get(t.state, 2), int(t.id)))
        return [t.info() for t in tables[:200]]

    def remove_table(self, table: Table) -> None:
        """Forget a table (its record stays in the database)."""
        if self.tables.get(table.id) is not table:
            return
        del self.tables[table.id]
        log.info(
            "table %s closed (%s)",
            table.id,
            table.state,
            extra={"event": "table_closed", "table": table.id, "state": table.state},
        )
        for seat in table.seats:
            self.drop_token(seat.token_key)
        for conn in table.forget_members():
            if conn.table is table:
                conn.table = conn.seat = None
            self._send(conn, frames.left(table.id))
        table.post("stop")

    # ----- replies outside a table -----

    def _send(self, conn: Conn, frame: BaseModel | dict[str, Any]) -> None:
        conn.send(frames.encode(frame))

    def _error(self, conn: Conn, code: str, message: str, ref: str | None) -> None:
        frame = view_for(ErrorItem(code, message, ref), None)
        assert frame is not None
        self.refused(conn, code, ref, None)
        conn.send(frames.encode(frame))

    def refused(self, conn: Conn, code: str, ref: str | None, table: str | None) -> None:
        """An error frame goes to `conn`: count it, and log it (its code, never its text,
        which may name a tile of the player's hand) up to `REFUSALS_LOGGED` per connection."""
        self.metrics.refusal(code)
        if code == codes.STORAGE_UNAVAILABLE and ref is None:
            return  # the notice everyone gets when a fault starts: the store logs the fault once
        conn.refusals += 1
        if conn.refusals > REFUSALS_LOGGED:
            return
        more = (
            "; its further refusals are counted, not logged"
            if conn.refusals == REFUSALS_LOGGED
            else ""
        )
        log.info(
            "refused %s from conn %d%s: %s%s",
            ref or "a message",
            conn.id,
            "" if table is None else f" at table {table}",
            code,
            more,
            extra={"event": "refused", "code": code, "ref": ref, "conn": conn.id, "table": table},
        )

    async def restore(self) -> int:
        """Resume every match a previous run left unfinished (`Table.restore`), and close the
        tables it left waiting (nobody is at them any more). Returns the tables resumed."""
        closed = self.store.close_waiting(time.time())
        resumed = 0
        since = time.time() - self.timing.finished_linger
        for stored in self.store.unfinished(LOG_KEEP, ended_since=since):
            try:
                table = Table.restore(self, stored)
            except Exception:  # Table.restore freezes what it cannot rebuild; this is a bug
                log.exception(
                    "table %s: could not be restored",
                    stored.id,
                    extra={"event": "table_error", "table": stored.id},
                )
                continue
            self.tables[table.id] = table
            resumed += table.state == "playing"
        self.resumed = resumed
        if resumed or closed:
            log.warning(
                "resumed %d unfinished matches; closed %d tables that had not started",
                resumed,
                len(closed),
                extra={"event": "restored", "resumed": resumed, "closed": len(closed)},
            )
        return resumed

    async def shutdown(self, ws_server: WsServer | None = None, *, restart: bool = False) -> None:
        """Stop gracefully: accept no more connections, let each table finish the step it was on
        (all it did is on disk already), tell every client (a `shutdown` frame, the last before
        the close), then close every connection with 1012 (`restart`) or 1001. Unfinished
        matches stay `playing` in the database and resume when a server starts on it again."""
        if self.stopping:
            return
        self.stopping = True
        log.info(
            "server stopping (%s): %d tables, %d connections",
            "a restart" if restart else "a shutdown",
            len(self.tables),
            len(self.conns),
            extra={"event": "server_stopping", "restart": restart},
        )
        if ws_server is not None:
            ws_server.server.close()  # the listening sockets: no new connections
        message = (
            "the server is restarting; your seat is kept, reconnect with your token"
            if restart
            else "the server is shutting down; unfinished matches resume when it is back"
        )
        for table in list(self.tables.values()):
            table.post("stop")
        tasks = [t.task for t in self.tables.values() if not t.task.done()]
        if tasks:
            # A table waiting on storage cannot finish its step: what it did is not stored and
            # was not sent, so it resumes from before that step.
            await asyncio.wait(tasks, timeout=10 if self.store.fault is None else 0.5)
        notice = frames.encode(frames.shutdown(restart, message))
        for conn in list(self.conns):
            if conn.hello:
                conn.send(notice)
        code = Close.RESTART if restart else Close.GOING_AWAY
        for conn in list(self.conns):
            conn.close(code, "server restarting" if restart else "server shutting down")
        closing = [c.closing for c in self.conns if c.closing is not None]
        if closing:
            await asyncio.wait(closing, timeout=5)


def _address(name: Any) -> str:
    """A listening socket's address as host:port ([host]:port for IPv6)."""
    if isinstance(name, tuple):
        host, port = name[0], name[1]
        return f"[{host}]:{port}" if ":" in str(host) else f"{host}:{port}"
    return str(name)
