"""`zhuoji admin tables|stats|close T|kick T SEAT|backup FILE|prune --older-than 30d|rebuild-records`.

The database is `--db`, or the `db` of `--config`, or the default one. Whether a server is
serving it is read from its lock file (`<db>.lock`: held, with the port in it). Then:

- `close` and `kick` act on the live server, through its admin endpoint
  (`ws://127.0.0.1:PORT/admin`, loopback only, with the admin token: `--token`, the config's
  `admin_token`, or the file `<db>.admin-token` the server made); without a server they refuse.
- `tables` and `stats` ask the live server (idle times, who is connected), or read the file.
- `backup FILE` copies the file with SQLite's online backup API, safe while serving.
- `prune` removes the finished and abandoned matches that ended before the cutoff, lists them,
  then compacts the file (VACUUM): done by the live server while its writes wait, or here under
  the database's lock (so no server starts meanwhile). The records of a pruned match go with it.
- `rebuild-records` recomputes the players' records (`server.records`) from the stored events,
  here under the database's lock (a running server is asked to stop first).

Exit 0 done; 1 refused or failed (one line on stderr); 2 bad usage or no such database.
"""

from __future__ import annotations

import argparse
import fcntl
import json
import os
import sys
import time
from pathlib import Path
from typing import Any


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--db", type=Path, default=None, help="the server's database")
    parser.add_argument("--config", type=Path, default=None, help="the server's config file")
    parser.add_argument(
        "--token", default=None, help="the admin token (default: the config's, or <db>.admin-token)"
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    sub = parser.add_subparsers(dest="admin_cmd", metavar="COMMAND", required=True)
    sub.add_parser("tables", help="the open tables: id, name, state, players, rounds, idle")
    sub.add_parser("stats", help="summary counts")
    p = sub.add_parser("close", help="end a table's match (recorded as abandoned); players told")
    p.add_argument("table")
    p = sub.add_parser("kick", help="remove the player in a seat (their token stops working)")
    p.add_argument("table")
    p.add_argument("seat", type=int)
    p = sub.add_parser("backup", help="copy the database (safe while serving)")
    p.add_argument("file", type=Path)
    p = sub.add_parser("prune", help="remove old finished/abandoned matches, then compact")
    p.add_argument("--older-than", required=True, help="an age: 30d, 12h, 90m, 45s")
    sub.add_parser(
        "rebuild-records",
        help="recompute the players' records from the stored events (with no server running)",
    )


class AdminError(Exception):
    """One line for stderr; `code` the exit code."""

    def __init__(self, message: str, code: int = 1) -> None:
        super().__init__(message)
        self.code = code


def _database(args: argparse.Namespace) -> tuple[Path, str]:
    """The database path and the config's admin token ("" if none)."""
    token = ""
    db: Path | None = args.db
    if args.config is not None:
        from server.config import ConfigError, load_config

        try:
            config = load_config(args.config)
        except ConfigError as err:
            raise AdminError(str(err), 2) from None
        token = config.server.admin_token
        if db is None and config.server.db:
            db = Path(config.server.db)
    if db is None:
        from zhuoji.cmd_serve import default_db

        db = default_db()
    return db.expanduser(), token


def _serving(db: Path) -> dict[str, Any] | None:
    """The lock holder's record if a server holds `db`'s lock now, else None."""
    from server.storage.dbfile import lock_path

    path = lock_path(db)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            data = os.pread(fd, 4096, 0)
            try:
                holder = json.loads(data) if data else {}
            except ValueError:
                holder = {}
            return holder if isinstance(holder, dict) else {}
        fcntl.flock(fd, fcntl.LOCK_UN)
        return None
    finally:
        os.close(fd)


def _admin_url(holder: dict[str, Any]) -> str:
    from urllib.parse import urlsplit

    url = str(holder.get("url") or "")
    port = holder.get("port") or urlsplit(url).port
    if not port:
        raise AdminError("the running server has not said its port yet; try again")
    host = urlsplit(url).hostname or ""
    if host in ("", "0.0.0.0", "127.0.0.1", "localhost") or host.startswith("127."):
        host = "127.0.0.1"
    elif host in ("::", "::1"):
        host = "[::1]"
    else:
        raise AdminError(
            f"the server listens on {host} only; the admin endpoint needs it on loopback"
            " (--host 0.0.0.0, 127.0.0.1 or ::)"
        )
    return f"ws://{host}:{port}/admin"


def _token(args: argparse.Namespace, db: Path, config_token: str) -> str:
    if args.token:
        return str(args.token)
    if config_token:
        return config_token
    from server.admin import read_token, token_path

    path = token_path(db)
    try:
        return read_token(path)
    except FileNotFoundError:
        raise AdminError(f"no admin token: {path} is missing (give --token)") from None
    except (OSError, ValueError) as err:
        raise AdminError(f"cannot read the admin token: {err}") from None


def ask(url: str, token: str, request: dict[str, Any], timeout: float = 600) -> dict[str, Any]:
    """One request to the admin endpoint; its answer (AdminError if refused)."""
    from websockets.exceptions import InvalidStatus, WebSocketException
    from websockets.sync.client import connect

    try:
        with connect(
            url,
            additional_headers={"Authorization": f"Bearer {token}"},
            open_timeout=10,
            max_size=64 << 20,
        ) as ws:
            ws.send(json.dumps(request))
            reply = json.loads(ws.recv(timeout=timeout))
    except InvalidStatus as err:
        body = err.response.body.decode(errors="replace").strip() if err.response.body else ""
        raise AdminError(f"the server refused: {err.response.status_code} {body}") from None
    except (OSError, TimeoutError, WebSocketException) as err:
        raise AdminError(f"cannot reach the server's admin endpoint at {url}: {err}") from None
    if not reply.get("ok"):
        raise AdminError(str(reply.get("error", "refused")))
    return dict(reply)


def _idle(seconds: float | None) -> str:
    if seconds is None:
        return "-"
    minutes, sec = divmod(int(seconds), 60)
    return f"{minutes}m{sec:02d}s"


def print_tables(rows: list[dict[str, Any]]) -> None:
    print(f"{'id':>5}  {'state':<9} {'rounds':>7}  {'idle':>8}  name / players")
    for r in rows:
        players = []
        for p in r["players"]:
            if isinstance(p, dict):
                mark = "" if p["connected"] else " (away)"
                if p.get("auto") and p["kind"] == "human":
                    mark += " (托管)"
                players.append(f"{p['seat']}:{p['name']}{mark}")
            else:
                players.append(str(p))
        state = r["state"] + ("*" if r.get("paused") else "")
        rounds = f"{r['rounds_played']}/{r['rounds']}"
        print(
            f"{r['id']:>5}  {state:<9} {rounds:>7}  {_idle(r.get('idle_seconds')):>8}  {r['name']}"
        )
        if players:
            print(f"{'':>5}  {', '.join(players)}")
    if any(r.get("paused") for r in rows):
        print("* paused: nobody connected (docs/OPERATIONS.md, idle tables)")


def print_prune(pruned: dict[str, Any]) -> None:
    cutoff = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(pruned["cutoff"]))
    tables = pruned["tables"]
    print(f"removed {len(tables)} matches that ended before {cutoff}:")
    for t in tables:
        ended = time.strftime("%Y-%m-%d %H:%M", time.localtime(t["ended_at"]))
        print(f"  table {t['id']} {t['name']!r} ({t['state']}, ended {ended})")
    counts = (
        f"with {pruned['rounds']} rounds, {pruned['actions']} actions, {pruned['events']} events"
    )
    if pruned.get("incomplete"):
        print(f"{counts}.\nNOT DONE: {pruned['incomplete']}")
    else:
        print(f"{counts}; compacted {pruned['bytes_before']:,} → {pruned['bytes_after']:,} bytes")


def run(args: argparse.Namespace) -> int:
    try:
        return _run(args)
    except AdminError as err:
        print(f"zhuoji admin: {err}", file=sys.stderr)
        return err.code


def _run(args: argparse.Namespace) -> int:
    from server.storage import maintenance

    db, config_token = _database(args)
    cmd = args.admin_cmd
    if not db.is_file():
        raise AdminError(f"no database at {db}", 2)
    holder = _serving(db)

    def live(request: dict[str, Any]) -> dict[str, Any]:
        assert holder is not None
        return ask(_admin_url(holder), _token(args, db, config_token), request)

    def out(data: dict[str, Any]) -> None:
        print(json.dumps(data, ensure_ascii=False, indent=1))

    try:
        if cmd == "backup":
            result = maintenance.backup(db, args.file)
            if args.json:
                out(result)
            else:
                print(
                    f"backed up {db} to {result['file']}: {result['bytes']:,} bytes,"
                    f" {result['tables']} tables, in {result['seconds']} s"
                )
            return 0
        if cmd in ("close", "kick"):
            if holder is None:
                raise AdminError(f"no server is serving {db}: {cmd} acts on a running server")
            request: dict[str, Any] = {"cmd": cmd, "table": args.table}
            if cmd == "kick":
                request["seat"] = args.seat
            reply = live(request)
            if args.json:
                out(reply)
            elif cmd == "close":
                print(f"closed table {reply['closed']} (it was {reply['state']}); players told")
            else:
                print(
                    f"removed {reply['name']} from seat {reply['seat']} of table {reply['table']}"
                )
            return 0
        if cmd == "tables":
            rows = live({"cmd": "tables"})["tables"] if holder is not None else None
            if rows is None:
                rows = maintenance.stored_tables(db)
            if args.json:
                out({"serving": holder is not None, "tables": rows})
            else:
                if holder is None:
                    print(f"(no server is serving {db}: the unfinished tables it stores)")
                print_tables(rows)
            return 0
        if cmd == "stats":
            if holder is not None:
                stats = live({"cmd": "stats"})["stats"]
            else:
                stats = {"live": None, "stored": maintenance.stored_stats(db)}
            if args.json:
                out(stats)
            else:
                print_stats(stats)
            return 0
        if cmd == "rebuild-records":
            if holder is not None:
                raise AdminError(
                    f"a server is serving {db}: stop it first (a server keeps the records up to"
                    " date as it stores each round)"
                )
            rebuilt = _rebuild_here(db)
            if args.json:
                out(rebuilt)
            else:
                print(
                    f"rebuilt the records of {rebuilt['matches']} matches from their events"
                    f" in {rebuilt['seconds']} s"
                )
            return 0
        if cmd == "prune":
            try:
                age = maintenance.parse_age(args.older_than)
            except ValueError as err:
                raise AdminError(f"--older-than: {err}", 2) from None
            if holder is not None:
                pruned = live({"cmd": "prune", "older_than": age})["pruned"]
            else:
                pruned = _prune_here(db, time.time() - age)
            if args.json:
                out(pruned)
            else:
                print_prune(pruned)
            return 1 if pruned.get("incomplete") else 0
    except maintenance.MaintenanceError as err:
        raise AdminError(str(err)) from None
    raise AdminError(f"unknown command {cmd}", 2)  # pragma: no cover - argparse refuses it


def _rebuild_here(db: Path) -> dict[str, Any]:
    """`rebuild-records` under the database's lock: the file is migrated to this zhuoji's
    schema if older, then the derived records are recomputed in one transaction."""
    from server.storage import tallies
    from server.storage.dbfile import DatabaseRefused, DbLock, open_database
    from server.storage.errors import StorageError

    lock = DbLock(db)
    began = time.perf_counter()
    try:
        lock.acquire()
        conn = open_database(db)
    except DatabaseRefused as err:
        lock.release()
        raise AdminError(str(err)) from None
    try:
        matches = tallies.rebuild_all(conn)
    except StorageError as err:
        raise AdminError(f"cannot rebuild the records of {db}: {err}") from None
    finally:
        conn.close()
        lock.release()
    return {"matches": matches, "seconds": round(time.perf_counter() - began, 3)}


def _prune_here(db: Path, cutoff: float) -> dict[str, Any]:
    """Prune with no server running: under the database's lock, as a server would hold it."""
    from server.storage import maintenance
    from server.storage.dbfile import DatabaseRefused, DbLock, inspect
    from server.storage.errors import StorageError

    lock = DbLock(db)
    try:
        lock.acquire()
    except DatabaseRefused as err:
        raise AdminError(str(err)) from None
    try:
        inspect(db)  # a zhuoji database, sound, of a schema this code knows (or refused)
    except DatabaseRefused as err:
        lock.release()
        raise AdminError(str(err)) from None
    try:
        return maintenance.prune_file(db, cutoff).to_dict()
    except StorageError as err:
        raise AdminError(f"cannot prune {db}: {err}") from None
    finally:
        lock.release()


def print_stats(stats: dict[str, Any]) -> None:
    live = stats.get("live")
    if live:
        tables = ", ".join(f"{n} {k}" for k, n in sorted(live["open_tables"].items())) or "none"
        print(
            f"serving: {live['connections']} connections ({live['seated']} seated,"
            f" {live['watching']} watching, {live['lobby']} in the lobby); open tables: {tables}"
        )
        if live.get("storage_fault"):
            print(f"STORAGE FAULT: {live['storage_fault']}")
    else:
        print("no server is serving this database")
    s = stats["stored"]
    if "error" in s:
        print(f"stored: {s['error']}")
        return
    t = s["tables"]
    print(
        f"stored: {sum(t.values())} tables ({t['waiting']} waiting, {t['playing']} playing,"
        f" {t['finished']} finished, {t.get('voted', 0)} ended by vote, {t['abandoned']}"
        f" abandoned), {s['rounds']} rounds,"
        f" {s['actions']} actions, {s['events']} events; {s['db_bytes']:,} bytes"
        f" (+ {s['wal_bytes']:,} in the WAL)"
    )
