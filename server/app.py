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
import logging
import secrets
import time
from collections import Counter
from collections.abc import AsyncIterator, Iterable
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
from protocol.house import House
from protocol.messages import (
    MAX_FRAME_BYTES,
    PROTOCOL_VERSION,
    CreateTable,
    GetRecords,
    GetRounds,
    Hello,
    ListTables,
    TakeSeat,
    Watch,
    parse_client,
)
from rules.options import OptionsError, make_options, overrides_of
from server import admin as admin_endpoint
from server.collector import tune as tune_gc  # noqa: F401  (`zhuoji serve` calls it when set up)
from server.config import ServerConfig, TableSection
from server.conn import Conn, LimitedConnection, Outbox, RateLimit, WsConn
from server.credentials import token_key
from server.lobby import Listing, shown
from server.metrics import Metrics
from server.password_gate import PasswordGate, hashed
from server.players import Players
from server.quota import CpuShare, TableQuota
from server.storage.record_sql import ops_of
from server.storage.records import Record
from server.storage.writer import Store
from server.table.effects import RematchSeat
from server.table.fanout import LOG_KEEP
from server.table.inputs import Command, Create, Gone, Join, Leave, OpenRematch, Resume, Stop
from server.table.projection import ErrorItem, view_for
from server.table.settings import Settings, Timing
from server.table.shell import Table
from server.throttle import AcceptFailures, LogThrottle

log = logging.getLogger("zhuoji.server")

CONNECTIONS_PER_ADDRESS = "connections_per_address"  # the refusal's kind (log, metrics)
BOT_BURST = 0.05  # CPU seconds each table no player is at may bank (`CpuShare.burst`)
# The loop's work beyond what the tables' steps measure, per second of theirs, until a window
# of it has been measured (`CpuShare.overhead`; benchmarks: 0.02-0.15, spectators included).
BOT_OVERHEAD = 0.25

TABLE_COMMANDS = frozenset(
    {
        "add_bot",
        "remove_bot",
        "start",
        "act",
        "auto",
        "sync",
        "hand_seat",
        "next_round",
        "rematch",
        "propose_end",
        "vote_end",
    }
)
# Refused during a storage fault: they would open a table or a seat that cannot be stored.
# Commands to a table wait with it (they are answered once its writes are stored).
STORAGE_REFUSED = frozenset({"create_table", "take_seat", "watch"})
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


def arrived(ws: ServerConnection, loop: asyncio.AbstractEventLoop) -> float:
    """When the frame the handler just got was read from its socket (loop time): a move's
    latency starts there, not when its handler ran, which under load is after every table
    step and collection that was ready before it. (It is the connection's last read: a frame
    whose handler runs after more bytes came is given their time, never later than its own
    handler's.)"""
    if isinstance(ws, LimitedConnection) and ws.read_at:
        return ws.read_at
    return loop.time()


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
        finished_linger: float = 600.0,
        bot_delay: float = 0.0,
        tables_per_connection: int = 0,
        tables_per_address: int = 0,
        tables_window: float = 0.0,
        bot_tables_cpu_share: float = 0.0,
        connections_per_address: int = 0,
        address_exempt: Iterable[str] = (),
        new_players_per_hour: int = 0,
        password_guesses: int = 5,
        spectators_per_table: int = 16,
        ping_interval: float = 20.0,
        ping_timeout: float = 20.0,
        lobby_timeout: float = 0.0,
        idle_pause: float = 600.0,
        idle_close: float = 7200.0,
        table_defaults: TableSection | None = None,
        admin_token: str | None = None,
        house: House | None = None,
        version: str = "unknown",
    ) -> None:
        """`tables_per_connection` / `tables_per_address` cap the open tables one connection /
        one peer address (except `address_exempt`) has created (0: no cap), an address's
        counting also those it created in the last `tables_window` seconds (closed or not);
        the playing tables no player is connected to may use `bot_tables_cpu_share` of a core
        together (`server.quota.CpuShare`; 0: no limit); `lobby_timeout`
        closes a connection at no table that sends nothing that long (0: never); a playing
        table nobody is connected to pauses after `idle_pause` and closes after `idle_close`
        seconds (0: never); `connections_per_address` caps the connections open at once from
        one peer address, loopback included (0: no cap); `new_players_per_hour` caps the unknown
        player keys one peer address (except `address_exempt`) may say hello with in an hour (0:
        no cap; `server.players`); `password_guesses` is how many table
        passwords a minute one table and one address may try (`server.guesses`; 0: no limit);
        `spectators_per_table` caps each table's spectators (0: no cap); every connection is
        pinged each `ping_interval` and closed without a pong within `ping_timeout`;
        `table_defaults` fill what a `create_table` leaves out;
        `admin_token` opens the admin endpoint (`server.admin`). `from_config` takes them
        from a `ServerConfig`."""
        self.store = store
        # `zhuoji serve --house`: the options of a table created without any, on its preset.
        self.house = house
        self.name = name
        self.seed = seed
        self.max_tables = max_tables
        self.rate_burst = rate_burst
        self.rate_per_second = rate_per_second
        self.hello_timeout = hello_timeout
        self.tables_per_connection = tables_per_connection
        self.tables_per_address = tables_per_address
        self.connections_per_address = connections_per_address
        self.conns_by_address: Counter[str] = Counter()  # open websocket clients per address
        self.address_exempt = frozenset(address_exempt)
        self.lobby_timeout = lobby_timeout
        self.table_defaults = table_defaults or TableSection()
        self.admin = admin_endpoint.Admin(self, admin_token)
        # table id → the connection id of its creator; and the open tables of each
        self.created: dict[str, int] = {}
        self.by_conn: Counter[int] = Counter()
        # Each address's tables: open ones, and those made within `tables_window` seconds.
        self.by_address = TableQuota(window=tables_window)
        # What the tables no player is at may spend together (None: no limit).
        self.bot_budget = (
            CpuShare(share=bot_tables_cpu_share, burst=BOT_BURST, overhead=BOT_OVERHEAD)
            if bot_tables_cpu_share > 0
            else None
        )
        # One log line per kind of refusal and address a minute (`server.throttle`).
        self.log_throttle = LogThrottle()
        # Table passwords: guesses limited, hashed on a thread (`server.password_gate`).
        self.passwords = PasswordGate(password_guesses)
        self.creating: set[int] = set()  # connections whose new table's password is hashed
        # The tables' time limits; the server's own bots are played by the tables themselves.
        self.timing = Timing(
            disconnect_grace=disconnect_grace,
            finished_linger=finished_linger,
            bot_delay=bot_delay,
            idle_pause=idle_pause,
            idle_close=idle_close,
            spectators=spectators_per_table,
        )
        self.ping_interval = ping_interval
        self.ping_timeout = ping_timeout
        self.tables: dict[str, Table] = {}
        self.listing = Listing()  # the lobby's rows, encoded once per change (`server.lobby`)
        self.tokens: dict[str, Table] = {}  # token digest (`token_key`) → its table
        self.next_table = store.max_table_number() + 1
        self._readers: set[asyncio.Task[None]] = set()  # `get_rounds` answers being read
        store.on_fault = self.storage_changed
        self.conns: set[Conn] = set()
        self.outbox = Outbox()
        self.stopping = False
        self.resumed = 0  # unfinished matches resumed at start (`restore`)
        self.frozen_at_start = 0  # unfinished matches that could not be rebuilt (frozen)
        self.ws_server: WsServer | None = None  # while listening
        self.restart = False  # set before stopping: close with 1012 (restart), not 1001
        self.version = version
        self.metrics = Metrics(self, version=version)  # `GET /metrics`
        # Who says hello with which player key (their digests, read once; server.players). A
        # new key is stored once its player sits down (`_register`), and an address says hello
        # with at most `new_players_per_hour` unknown keys an hour.
        self.players = Players.load(store.known_players(), new_per_address=new_players_per_hour)
        store.on_commit = self.metrics.committed

    @classmethod
    def from_config(
        cls, store: Store, config: ServerConfig, *, admin_token: str | None = None, **extra: Any
    ) -> Server:
        """A server with the settings of `zhuoji serve --config` (`server.config`)."""
        lim, pace = config.limits, config.pace
        return cls(
            store,
            name=config.server.name,
            max_tables=lim.max_tables,
            rate_burst=lim.rate_burst,
            rate_per_second=lim.rate_per_second,
            hello_timeout=lim.hello_timeout,
            disconnect_grace=lim.disconnect_grace,
            finished_linger=lim.finished_linger,
            bot_delay=pace.bot_delay,
            tables_per_connection=lim.tables_per_connection,
            tables_per_address=lim.tables_per_address,
            tables_window=lim.tables_window_minutes * 60,
            bot_tables_cpu_share=lim.bot_tables_cpu_share,
            connections_per_address=lim.connections_per_address,
            address_exempt=lim.address_exempt,
            new_players_per_hour=lim.new_players_per_hour,
            password_guesses=lim.password_guesses,
            spectators_per_table=lim.spectators_per_table,
            ping_interval=lim.ping_interval,
            ping_timeout=lim.ping_timeout,
            lobby_timeout=lim.lobby_timeout,
            idle_pause=lim.idle_minutes * 60,
            idle_close=lim.idle_close_minutes * 60,
            table_defaults=config.table,
            admin_token=admin_token,
            **extra,
        )

    # ----- ids, tokens, seeds -----

    async def write(self, records: list[Record]) -> float:
        """A table's write (`TableHost`): its records' statements, in the store's group
        commit; returns its part of the commit's time (`Store.write`)."""
        return await self.store.write(ops_of(records))

    def posted(self) -> None:
        """An input was posted to a table (`TableHost`): commit after its step, in its turn."""
        self.store.commit_after_ready()

    def frames_out(self) -> None:
        """A table's input is done: its frames go to the sockets now (`TableHost`)."""
        if self.outbox.pending:
            self.outbox.flush()

    def seat_token(self, key: str, table: Table) -> None:
        """A seat token (its `token_key`) now leads to `table` (`TableHost`)."""
        self.tokens[key] = table

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
            ping_interval=self.ping_interval,
            ping_timeout=self.ping_timeout,
            close_timeout=5,
            process_request=self._http,
            start_serving=False,
            create_connection=LimitedConnection,
        ) as ws_server:
            await self.restore()
            await ws_server.start_serving()
            self.ws_server = ws_server
            addresses = ", ".join(_address(sock.getsockname()) for sock in ws_server.sockets)
            log.info(
                "zhuoji %s serving on %s (database %s; %d unfinished matches resumed, %d frozen)",
                self.version,
                addresses,
                self.store.path,
                self.resumed,
                self.frozen_at_start,
                extra={"event": "server_started", "address": addresses, "version": self.version},
            )
            sweep = (
                asyncio.get_running_loop().create_task(self._lobby_sweep())
                if self.lobby_timeout > 0
                else None
            )
            # A flood that runs the process out of descriptors: one line a minute, not one a
            # second per listening socket, each with its traceback.
            accept_failures = AcceptFailures(self.log_throttle)
            logging.getLogger("asyncio").addFilter(accept_failures)
            try:
                yield ws_server
            finally:
                logging.getLogger("asyncio").removeFilter(accept_failures)
                if sweep is not None:
                    sweep.cancel()
                await self.shutdown(ws_server, restart=self.restart)
                ws_server.close(close_connections=True)
                log.info(
                    "server stopped (%s)",
                    "for a restart" if self.restart else "shut down",
                    extra={"event": "server_stopped", "restart": self.restart},
                )

    def _http(self, connection: ServerConnection, request: Request) -> Response | None:
        """Plain HTTP before the upgrade: `/healthz` and `/metrics` for monitoring; `/admin` is
        checked (loopback and the token) before its websocket opens."""
        path = urlsplit(request.path).path
        if path == admin_endpoint.PATH:
            return self.admin.check(connection, request)
        if path == "/healthz":
            fault = self.store.fault
            if fault is not None:
                return connection.respond(
                    HTTPStatus.SERVICE_UNAVAILABLE, f"storage unavailable: {fault}\n"
                )
            if self.store.integrity is not None:
                return connection.respond(
                    HTTPStatus.SERVICE_UNAVAILABLE, f"database corrupt: {self.store.integrity}\n"
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
        return self._over_connection_cap(connection)

    def _over_connection_cap(self, connection: ServerConnection) -> Response | None:
        """A websocket upgrade from an address that has `connections_per_address` open
        already is answered 429 before it opens: a flood from one address (this machine's
        included) cannot lock others out. Logged once a minute per address, with a count."""
        cap = self.connections_per_address
        address = _peer_address(connection)
        if cap <= 0 or self.conns_by_address[address] < cap:
            return None
        self.metrics.refusal(CONNECTIONS_PER_ADDRESS)
        held = self.log_throttle.allow(
            ("refused", CONNECTIONS_PER_ADDRESS, address), time.monotonic()
        )
        if held is not None:
            log.warning(
                "refused a connection from %s: %d open from that address already (%s)%s",
                address,
                cap,
                CONNECTIONS_PER_ADDRESS,
                f"; {held} more refused in the last minute" if held else "",
                extra={
                    "event": "refused",
                    "code": CONNECTIONS_PER_ADDRESS,
                    "peer": address,
                    "held": held,
                },
            )
        return connection.respond(
            HTTPStatus.TOO_MANY_REQUESTS,
            f"too many connections from {address}: {cap} are open; close one and try again\n",
        )

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
        if ws.request is not None and ws.request.path == admin_endpoint.PATH:
            await self.admin.session(ws)  # let in by `_http` (loopback, token)
            return
        conn = WsConn(ws, self.outbox)
        self.conns.add(conn)
        self.conns_by_address[conn.address] += 1
        self.metrics.connections_opened.inc()
        log.debug(
            "conn %d from %s open",
            conn.id,
            conn.peer,
            extra={"event": "conn_opened", "conn": conn.id, "peer": conn.peer},
        )
        rate = conn.rate = RateLimit(self.rate_burst, self.rate_per_second)
        if isinstance(ws, LimitedConnection):
            ws.on_control = lambda: self._control_frame(conn, rate)
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
                # `hello` takes no token: the burst docs/PROTOCOL.md promises is for what
                # follows it (one hello per connection; connections are capped per address).
                messages.inc()
                conn.received_at = arrived(ws, loop)
                self.handle_frame(conn, first)

                def message(raw: str | bytes) -> None:
                    self._message(conn, rate, ws, raw)

                while not conn.closed:
                    if isinstance(ws, LimitedConnection) and ws.may_take_directly():
                        await ws.take_directly(message)  # in the turn that reads each one
                        continue
                    message(await ws.recv())
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
            self.conns_by_address[conn.address] -= 1
            if self.conns_by_address[conn.address] <= 0:
                del self.conns_by_address[conn.address]

    def _message(
        self, conn: WsConn, rate: RateLimit, ws: ServerConnection, raw: str | bytes
    ) -> None:
        """A message after the `hello`: counted, taken from the rate limit, handled. Once the
        connection is closing nothing more is read (the direct hand-off stops)."""
        if not conn.closed:
            self.metrics.messages.inc()
            conn.received_at = arrived(ws, asyncio.get_running_loop())
            if rate.take():
                self.handle_frame(conn, raw)
            else:
                self._error(conn, codes.RATE_LIMITED, "too many messages", None)
                conn.close(Close.POLICY, "rate limit")
                self.metrics.rate_limit_closes.inc()
                log.warning(
                    "conn %d from %s closed (1008): over the rate limit",
                    conn.id,
                    conn.peer,
                    extra={"event": "rate_limited", "conn": conn.id, "peer": conn.peer},
                )
        if conn.closed and isinstance(ws, LimitedConnection):
            ws.stop_direct()

    def _control_frame(self, conn: WsConn, rate: RateLimit) -> None:
        """A ping or pong came: it takes a token like a message; a flood is closed (1008)."""
        if not conn.closed and not rate.take():
            self._error(conn, codes.RATE_LIMITED, "too many messages (pings count)", None)
            conn.close(Close.POLICY, "rate limit")

    async def _lobby_sweep(self) -> None:
        """Close the connections at no table that have sent nothing for `lobby_timeout` (they
        are told, then closed with 4004). A sweep every quarter of the timeout (5 s at most)
        instead of a timer per frame: at a table, seated or watching, silence is fine."""
        limit = self.lobby_timeout
        every = min(5.0, max(0.05, limit / 4))
        while True:
            await asyncio.sleep(every)
            now = time.monotonic()
            for conn in list(self.conns):
                if conn.closed or not conn.hello or conn.table is not None:
                    continue
                if conn.joining is not None or conn.rate is None:
                    continue
                if now - max(conn.rate.stamp, conn.freed_at) < limit:
                    continue
                self._error(
                    conn, codes.IDLE_TIMEOUT, f"nothing received for {limit:g} s at no table", None
                )
                conn.close(Close.IDLE, "idle in the lobby")

    def disconnected(self, conn: Conn) -> None:
        table = conn.table or conn.joining
        if table is not None:
            table.post(Gone(conn))

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
        elif isinstance(msg, ListTables):
            conn.send(self.listing.frame(self.tables, msg.page))
        elif isinstance(msg, CreateTable):
            self._create(conn, msg)
        elif isinstance(msg, TakeSeat | Watch):
            self._join(conn, msg)
        elif isinstance(msg, GetRounds):
            self._get_rounds(conn, msg)
        elif isinstance(msg, GetRecords):
            self._get_records(conn, msg)
        elif kind == "leave":
            table = conn.table
            if table is None:
                self._error(conn, codes.NOT_AT_TABLE, "you are not at a table", kind)
            else:
                table.post(Leave(conn))
        elif kind in TABLE_COMMANDS:
            table = conn.table
            if table is None:
                self._error(conn, codes.NOT_AT_TABLE, "you are not at a table", kind)
            else:
                table.post(Command(conn, msg, conn.received_at))
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
        refused = None
        if msg.player_key is not None:
            address = None if conn.address in self.address_exempt else conn.address
            who = self.players.identify(msg.player_key, msg.name, time.time(), address)
            conn.player, conn.pending_player, refused = who.player, who.pending, who.refused
            if who.written:
                self._background(self.store.write(ops_of(who.written)), f"player-{conn.id}")
        self._send(conn, frames.welcome(self.name, msg.name, conn.player))
        if refused is not None:
            self._error(conn, codes.NEW_PLAYERS_PER_ADDRESS, refused, "hello")
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
            self._register(conn)  # a seat taken before the key was known becomes its player's
            table.post(Resume(conn, key, msg.token, msg.last_seq))

    def seated(self, conn: Conn) -> None:
        """`TableHost.seated`: the player's key is stored once they sit down (a `take_seat`
        refused, or a `watch`, stores nothing; a seat handed to a spectator stores theirs)."""
        self._register(conn)

    def _register(self, conn: Conn) -> None:
        """The connection's player sits down (creates a table, takes a seat, takes one back):
        a new player key is stored now, before the table reads `conn.player`."""
        pending = conn.pending_player
        if pending is None:
            return
        conn.pending_player = None
        conn.player, written = self.players.register(pending, time.time())
        if written:
            self._background(self.store.write(ops_of(written)), f"player-{conn.id}")

    def _create(self, conn: Conn, msg: CreateTable) -> None:
        if self._create_refused(conn, msg):
            return
        msg = self._with_defaults(msg)
        requested = dict(msg.options)
        if not requested and self.house is not None and self.house.preset == msg.preset:
            requested = dict(self.house.overrides)
        try:
            options = make_options(msg.preset, requested)
        except OptionsError as err:
            self._error(conn, codes.BAD_OPTIONS, str(err)[:400], msg.type)
            return
        if msg.password is None:
            self._open_table(conn, msg, options, None)
            return
        # The password's hash is worked out on a thread: the connection waits (`creating`).
        self.creating.add(conn.id)
        password = msg.password

        async def hash_then_open() -> None:
            try:
                digest = await hashed(password)
            finally:
                self.creating.discard(conn.id)
            if not conn.closed and not self._create_refused(conn, msg):
                self._open_table(conn, msg, options, digest)

        self._background(hash_then_open(), f"create-{conn.id}")

    def _create_refused(self, conn: Conn, msg: CreateTable) -> bool:
        """Whether `create_table` is refused (and the error sent): at a table already, or past
        one of the server's caps."""
        if conn.table is not None or conn.joining is not None or conn.id in self.creating:
            self._error(conn, codes.ALREADY_AT_TABLE, "leave your table first", msg.type)
            return True
        if len(self.tables) >= self.max_tables:
            self._error(
                conn, codes.TOO_MANY_TABLES, "the server has no room for more tables", msg.type
            )
            return True
        cap = self.tables_per_connection
        if cap and self.by_conn[conn.id] >= cap:
            self._error(
                conn,
                codes.TABLES_PER_CONNECTION,
                f"this connection has {cap} open tables already (the server's limit)",
                msg.type,
            )
            return True
        cap, address = self.tables_per_address, conn.address
        if (
            cap
            and address not in self.address_exempt
            and self.by_address.count(address, time.monotonic()) >= cap
        ):
            window = self.by_address.window
            since = f" or made in the last {window / 60:g} minutes" if window > 0 else ""
            self._error(
                conn,
                codes.TABLES_PER_ADDRESS,
                f"your address has {cap} tables open{since} already (the server's limit)",
                msg.type,
            )
            return True
        return False

    def _open_table(
        self, conn: Conn, msg: CreateTable, options: Any, password_hash: str | None
    ) -> None:
        """The new table, its creator joining it."""
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
            password_hash=password_hash,
            bot_delay=msg.bot_delay,
            next_round_seconds=msg.next_round_seconds,
        )
        table = Table(self, table_id, settings)
        self.tables[table_id] = table
        self.created[table_id] = conn.id
        self.by_conn[conn.id] += 1
        self.by_address.opened(table_id, conn.address, time.monotonic())
        conn.joining = table
        self._register(conn)
        table.post(Create(conn))

    def _with_defaults(self, msg: CreateTable) -> CreateTable:
        """The fields a `create_table` left out take the server's table defaults (`[table]`
        of the config); its options go over the defaults' options."""
        d = self.table_defaults
        given = msg.model_fields_set
        fill: dict[str, Any] = {
            key: getattr(d, key)
            for key in (
                "preset",
                "base",
                "rounds",
                "turn_seconds",
                "bank_seconds",
                "claim_min_ms",
                "next_round_seconds",
            )
            if key not in given
        }
        if d.options and ("preset" not in given or msg.preset == d.preset):
            fill["options"] = {**d.options, **msg.options}
        return msg.model_copy(update=fill) if fill else msg

    def _join(self, conn: Conn, msg: TakeSeat | Watch) -> None:
        if conn.table is not None or conn.joining is not None or conn.id in self.creating:
            self._error(conn, codes.ALREADY_AT_TABLE, "leave your table first", msg.type)
            return
        table = self.tables.get(msg.table)
        if table is None:
            self._error(conn, codes.UNKNOWN_TABLE, f"no table {msg.table}", msg.type)
            return
        stored = table.core.s.password_hash
        if stored is not None and self._owns_away_seat(conn, msg, table):
            # Their key is the stronger proof: a player taking back their own away seat is
            # not asked the password (nor held up by a lock others' wrong guesses set).
            stored = None
        if stored is None or msg.password is None:
            # No password, or none given (`bad_password` from the table): nothing to hash.
            conn.joining = table
            table.post(Join(conn, msg, stored is None))
            return
        why = self.passwords.admit(table.id, conn.address)
        if why is not None:
            self._error(conn, codes.TOO_MANY_ATTEMPTS, why, msg.type)
            return
        conn.joining = table  # until the table has answered
        password = msg.password

        async def check_then_join() -> None:
            right = False
            try:
                right = await self.passwords.check(password, stored, table.id, conn.address)
            finally:
                if self.tables.get(table.id) is table:
                    table.post(Join(conn, msg, right))
                elif conn.joining is table:  # closed meanwhile
                    conn.joining = None
                    self._error(conn, codes.UNKNOWN_TABLE, f"no table {msg.table}", msg.type)

        self._background(check_then_join(), f"password-{conn.id}")

    @staticmethod
    def _owns_away_seat(conn: Conn, msg: TakeSeat | Watch, table: Table) -> bool:
        """`msg` takes back an away seat of a started match played under `conn`'s player key."""
        if not isinstance(msg, TakeSeat) or conn.player is None:
            return False
        core = table.core
        claim = core.seats.claim(conn.player, None, msg.seat)
        return (
            core.state == "playing"
            and claim.seat is not None
            and core.seats[claim.seat].player == conn.player
        )

    def _get_rounds(self, conn: Conn, msg: GetRounds) -> None:
        """A finished match's rounds for one of its players, read from the database in a thread
        (the tables go on meanwhile); one read per connection at a time."""
        if any(t.get_name() == f"rounds-{conn.id}" for t in self._readers):
            self._error(conn, codes.RATE_LIMITED, "one get_rounds at a time", msg.type)
            return
        table = conn.table
        seat = conn.seat if table is not None and table.id == msg.table else None
        key = None if msg.token is None else token_key(msg.token)
        task = asyncio.create_task(self._send_rounds(conn, msg.table, seat, key))
        task.set_name(f"rounds-{conn.id}")
        self._readers.add(task)
        task.add_done_callback(self._readers.discard)

    def _background(self, job: Any, name: str) -> None:
        """Run `job` (a coroutine) beside the tables; a failure is logged, never raised."""

        async def run() -> None:
            try:
                await job
            except Exception:
                log.exception("%s failed", name)

        task = asyncio.create_task(run())
        task.set_name(name)
        self._readers.add(task)
        task.add_done_callback(self._readers.discard)

    def _get_records(self, conn: Conn, msg: GetRecords) -> None:
        """The group's records (server.standings), read in a thread from the database (the
        tables go on meanwhile); one read per connection at a time."""
        if any(t.get_name() == f"records-{conn.id}" for t in self._readers):
            self._error(conn, codes.RATE_LIMITED, "one get_records at a time", msg.type)
            return
        self._background(self._send_records(conn, msg), f"records-{conn.id}")

    async def _send_records(self, conn: Conn, msg: GetRecords) -> None:
        from server.standings import answer
        from server.storage.standings_reads import connect_read_only

        def read() -> dict[str, Any]:
            db = connect_read_only(self.store.path)
            try:
                return answer(
                    db,
                    period=msg.period,
                    preset=msg.preset,
                    player=msg.player or conn.player,
                    table=msg.table,
                    page=msg.page,
                )
            finally:
                db.close()

        try:
            frame = await asyncio.to_thread(read)
        except Exception:  # a database that cannot be read must not take the server down
            log.exception("get_records")
            self._error(conn, "internal", "the server could not read the records", msg.type)
            return
        if not conn.closed:
            self._send(conn, frame)

    async def _send_rounds(self, conn: Conn, table: str, seat: int | None, key: str | None) -> None:
        from server.history import NotOver, NotYours, rounds_for

        try:
            frame = await asyncio.to_thread(
                rounds_for, self.store.path, table, seat=seat, token_key=key
            )
        except NotYours:
            self._error(
                conn,
                codes.NOT_YOUR_MATCH,
                f"you did not play a match at table {table}",
                "get_rounds",
            )
            return
        except NotOver:
            self._error(
                conn, codes.MATCH_NOT_OVER, f"the match at table {table} is not over", "get_rounds"
            )
            return
        except Exception:  # a database that cannot be read must not take the server down
            log.exception("get_rounds for table %s", table)
            self._error(conn, "internal", "the server could not read that match", "get_rounds")
            return
        if not conn.closed:
            self._send(conn, frame)

    def rematch(
        self,
        old: Table,
        settings: Settings,
        seats: tuple[RematchSeat[Conn], ...],
        watchers: tuple[tuple[Conn, str | None], ...] = (),
    ) -> None:
        """Every player at a finished table asked to play again: a new table with the same
        settings (a new seed) takes the same seats and starts its match."""
        table_id = str(self.next_table)
        self.next_table += 1
        table = Table(self, table_id, settings)
        self.tables[table_id] = table
        for seat in seats:
            if seat.member is not None:
                seat.member.joining = table  # its messages wait for the new table
        for member, _ in watchers:
            member.joining = table  # a spectator follows the table to its rematch
        table.post(OpenRematch(seats, watchers))
        log.info("table %s: rematch at table %s", old.id, table_id)

    def lobby(self) -> list[dict[str, Any]]:
        """The lobby rows, every page's (`server.lobby.shown`), made afresh."""
        return [t.info() for t in shown(self.tables.values())]

    def lobby_changed(self, table: Table) -> None:
        """A table's lobby row may have changed (`TableHost`): made again when next asked."""
        self.listing.changed(table.id)

    def remove_table(self, table: Table) -> None:
        """Forget a table (its record stays in the database)."""
        if self.tables.get(table.id) is not table:
            return
        del self.tables[table.id]
        self.listing.changed(table.id)
        conn_id = self.created.pop(table.id, None)
        if conn_id is not None:
            self.by_conn[conn_id] -= 1
            if self.by_conn[conn_id] <= 0:
                del self.by_conn[conn_id]
        self.by_address.closed(table.id, time.monotonic())
        started = table.core.round_no > 0  # one made and left before its start: debug only
        log.log(
            logging.INFO if started else logging.DEBUG,
            "table %s closed (%s)",
            table.id,
            table.state if started else "before its start",
            extra={"event": "table_closed", "table": table.id, "state": table.state},
        )
        for seat in table.seats:
            self.drop_token(seat.token_key)
        for conn in table.forget_members():
            if conn.table is table:
                conn.table = conn.seat = None
                conn.freed_at = time.monotonic()
            self._send(conn, frames.left(table.id))
        table.post(Stop())

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
        which may name a tile of the player's hand) at most once a minute per code and
        address (`LogThrottle`), saying how many like it were not logged meanwhile."""
        self.metrics.refusal(code)
        if code == codes.STORAGE_UNAVAILABLE and ref is None:
            return  # the notice everyone gets when a fault starts: the store logs the fault once
        conn.refusals += 1
        if code in (codes.BAD_PASSWORD, codes.TOO_MANY_ATTEMPTS):
            return  # the password gate's own line: one a minute per address, with the count
        held = self.log_throttle.allow(("refused", code, conn.address), time.monotonic())
        if held is None:
            return
        log.info(
            "refused %s from conn %d%s: %s%s",
            ref or "a message",
            conn.id,
            "" if table is None else f" at table {table}",
            code,
            f" ({held} more like it from {conn.address} in the last minute)" if held else "",
            extra={
                "event": "refused",
                "code": code,
                "ref": ref,
                "conn": conn.id,
                "table": table,
                "held": held,
            },
        )

    async def restore(self) -> int:
        """Resume every match a previous run left unfinished (`Table.restore`), and close the
        tables it left waiting (nobody is at them any more). Returns the tables resumed."""
        closed = self.store.close_waiting(time.time())
        resumed = frozen = 0
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
            if table.core.keep_stored_standings:  # could not be rebuilt: it is being frozen
                frozen += 1
            else:
                resumed += table.state == "playing"
        self.resumed, self.frozen_at_start = resumed, frozen
        if resumed or closed or frozen:
            # A warning only when a match could not be resumed: resuming is the server doing
            # its job after a restart, nothing for the host to act on (issue 23 item 10).
            log.log(
                logging.WARNING if frozen else logging.INFO,
                "resumed %d unfinished matches; %d could not be resumed (frozen, their records"
                " kept); closed %d tables that had not started",
                resumed,
                frozen,
                len(closed),
                extra={
                    "event": "restored",
                    "resumed": resumed,
                    "frozen": frozen,
                    "closed": len(closed),
                },
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
            table.post(Stop())
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


def _peer_address(connection: ServerConnection) -> str:
    """A connection's peer address without its port (as `WsConn.address` counts it)."""
    addr = connection.remote_address
    return str(addr[0]) if isinstance(addr, tuple) else str(addr)
