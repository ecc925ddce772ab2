"""The admin endpoint: `ws://127.0.0.1:PORT/admin` on the serving port, for `zhuoji admin`.

Only a loopback peer with the admin token (`Authorization: Bearer TOKEN`) is let in; anyone
else gets HTTP 403 before the websocket opens (a server with no token has no admin endpoint).
Each request is one JSON object, answered with one:

    {"cmd": "tables"}                         → {"ok": true, "tables": [...]}
    {"cmd": "stats"}                          → {"ok": true, "stats": {...}}
    {"cmd": "close", "table": "7"}            → {"ok": true, "closed": "7", "state": "playing"}
    {"cmd": "kick", "table": "7", "seat": 2}  → {"ok": true, ...}
    {"cmd": "prune", "older_than": 2592000}   → {"ok": true, "pruned": {...}}

and a refusal is `{"ok": false, "error": "no table 9"}`. `close` and `kick` go through the
table's task like any message, so the table tells its players itself (`TableCore.close_by_host`,
`TableCore.kick`). `prune` runs in the server while its writes wait (`Store.hold_writes`),
never touching a table it holds.
"""

from __future__ import annotations

import asyncio
import hmac
import ipaddress
import json
import logging
import os
import re
import secrets
import time
from collections.abc import Collection, Mapping
from http import HTTPStatus
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from websockets.asyncio.server import ServerConnection
from websockets.exceptions import ConnectionClosed
from websockets.http11 import Request, Response

from server.config import ADMIN_TOKEN_PATTERN
from server.storage import maintenance

if TYPE_CHECKING:
    from server.conn import Conn
    from server.storage.writer import Store
    from server.table.shell import Table


class Hosting(Protocol):
    """What the admin endpoint reads of the server (`server.app.Server` is one): it never
    imports the app."""

    @property
    def tables(self) -> Mapping[str, Table]: ...

    @property
    def conns(self) -> Collection[Conn]: ...

    @property
    def resumed(self) -> int: ...

    @property
    def store(self) -> Store: ...


log = logging.getLogger("zhuoji.admin")

PATH = "/admin"


def is_loopback(address: Any) -> bool:
    host = address[0] if isinstance(address, tuple) else address
    try:
        ip = ipaddress.ip_address(str(host).split("%")[0])
    except ValueError:
        return False
    mapped = getattr(ip, "ipv4_mapped", None)
    return bool(ip.is_loopback or (mapped is not None and mapped.is_loopback))


class Admin:
    """The endpoint of one server."""

    def __init__(self, server: Hosting, token: str | None) -> None:
        self.server = server
        self.token = token

    def check(self, connection: ServerConnection, request: Request) -> Response | None:
        """Before the upgrade: None lets the admin websocket open; else the refusal."""
        if not self.token:
            return connection.respond(HTTPStatus.FORBIDDEN, "no admin endpoint on this server\n")
        if not is_loopback(connection.remote_address):
            return connection.respond(HTTPStatus.FORBIDDEN, "admin is for loopback only\n")
        given = request.headers.get("Authorization", "")
        want = f"Bearer {self.token}"
        if not hmac.compare_digest(given.encode(), want.encode()):
            return connection.respond(HTTPStatus.UNAUTHORIZED, "wrong or missing admin token\n")
        return None

    async def session(self, ws: ServerConnection) -> None:
        try:
            async for raw in ws:
                try:
                    request = json.loads(raw)
                    if not isinstance(request, dict):
                        raise ValueError("not an object")
                except ValueError:
                    reply: dict[str, Any] = {"ok": False, "error": "send one JSON object"}
                else:
                    try:
                        reply = await self.handle(request)
                    except Exception:  # a bug here must not take the server down
                        log.exception("admin %r", request.get("cmd"))
                        reply = {"ok": False, "error": "internal error (see the server log)"}
                await ws.send(json.dumps(reply, ensure_ascii=False))
        except ConnectionClosed:
            pass

    async def handle(self, request: dict[str, Any]) -> dict[str, Any]:
        cmd = request.get("cmd")
        if cmd == "tables":
            return {"ok": True, "tables": self.tables()}
        if cmd == "stats":
            return {"ok": True, "stats": self.stats()}
        if cmd in ("close", "kick"):
            table = self.server.tables.get(str(request.get("table")))
            if table is None:
                return {"ok": False, "error": f"no open table {request.get('table')}"}
            if cmd == "close":
                state = table.state
                log.warning("admin: closing table %s (%s)", table.id, state)
                await table.ask("close")
                # Removed once what it had to say is out (the next tick): wait for that.
                await asyncio.wait([table.task], timeout=10)
                return {"ok": True, "closed": table.id, "state": state}
            seat = request.get("seat")
            if not isinstance(seat, int) or isinstance(seat, bool):
                return {"ok": False, "error": "name the seat (0-3)"}
            problem = table.core.kick_problem(seat)
            if problem is not None:
                return {"ok": False, "error": problem}
            name = table.seats[seat].name
            log.warning("admin: kicking seat %d (%s) of table %s", seat, name, table.id)
            await table.ask("kick", seat)
            return {"ok": True, "table": table.id, "seat": seat, "name": name}
        if cmd == "prune":
            older = request.get("older_than")
            if not isinstance(older, int | float) or isinstance(older, bool) or older < 0:
                return {"ok": False, "error": "older_than: seconds, at least 0"}
            return {"ok": True, "pruned": await self.prune(time.time() - float(older))}
        return {"ok": False, "error": f"unknown command {cmd!r}"}

    def tables(self) -> list[dict[str, Any]]:
        now = asyncio.get_running_loop().time()
        rows = []
        for table in sorted(self.server.tables.values(), key=lambda t: (len(t.id), t.id)):
            core = table.core
            idle = core.idle_seconds(now)
            rows.append(
                {
                    "id": table.id,
                    "name": core.s.name,
                    "state": "frozen" if core.frozen else core.state,
                    "players": [
                        {
                            "seat": i,
                            "name": s.name,
                            "kind": s.kind,
                            "connected": s.connected,
                            "auto": s.auto,
                        }
                        for i, s in enumerate(core.seats)
                        if s.kind != "empty"
                    ],
                    "spectators": len(core.spectators),
                    "rounds_played": core.round_no,
                    "rounds": core.s.rounds,
                    "idle_seconds": None if idle is None else round(idle, 1),
                    "paused": core.paused,
                }
            )
        return rows

    def stats(self) -> dict[str, Any]:
        server = self.server
        states: dict[str, int] = {}
        for table in server.tables.values():
            key = "frozen" if table.frozen else table.state
            if key == "playing" and table.core.paused:
                key = "paused"
            states[key] = states.get(key, 0) + 1
        conns = [c for c in server.conns if not c.closed]
        live = {
            "connections": len(conns),
            "seated": sum(1 for c in conns if c.seat is not None),
            "watching": sum(1 for c in conns if c.table is not None and c.seat is None),
            "lobby": sum(1 for c in conns if c.table is None and c.joining is None),
            "open_tables": states,
            "resumed_at_start": server.resumed,
            "storage_fault": server.store.fault,
        }
        try:
            stored = maintenance.stored_stats(server.store.path)
        except maintenance.MaintenanceError as err:
            stored = {"error": str(err)}
        return {"live": live, "stored": stored}

    async def prune(self, cutoff: float) -> dict[str, Any]:
        keep = frozenset(self.server.tables)
        path = self.server.store.path

        report = await self.server.store.hold_writes(
            lambda: maintenance.prune_file(path, cutoff, keep)
        )
        log.warning(
            "admin: pruned %d tables (%d rounds, %d actions, %d events); %d → %d bytes",
            len(report.tables),
            report.rounds,
            report.actions,
            report.events,
            report.bytes_before,
            report.bytes_after,
        )
        return report.to_dict()


def token_path(db: Path) -> Path:
    """Where a server on `db` keeps its generated admin token: `<db>.admin-token`."""
    return db.with_name(db.name + ".admin-token")


def ensure_token(db: Path) -> str:
    """The admin token in `<db>.admin-token`, made (mode 0600, 32 random bytes) if there is
    none yet. A file readable by others is refused: whoever reads it may close tables."""
    path = token_path(db)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return read_token(path)
    with os.fdopen(fd, "w") as f:
        token = secrets.token_urlsafe(32)
        f.write(token + "\n")
    return token


def read_token(path: Path) -> str:
    """The token in a token file (OSError / ValueError if unreadable, open to others or bad)."""
    st = path.stat()
    if st.st_mode & 0o077:
        raise ValueError(f"{path} is readable by others (chmod 600 it)")
    token = path.read_text(encoding="utf-8").strip()
    if not re.match(ADMIN_TOKEN_PATTERN, token):
        raise ValueError(f"{path} does not hold an admin token")
    return token
