"""SQLite persistence: tables, match results, and every round's deal, actions and event log.

The server writes through one `Store`, which commits every write asked for during one turn of
the event loop in one transaction (group commit). A table awaits its write before it sends the
events, so what players saw is always on disk.

Reading (`load_round_script`, `round_events`, `list_tables`) opens its own connection; WAL mode
lets readers run beside the writer.

>>> # store = Store("zhuoji.db"); await store.write([...]); store.close()
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rules.script import ScriptError

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
    seats TEXT,                     -- JSON: [{"name", "kind"}] × 4 once started
    scores TEXT,                    -- JSON: 4 ints, the match result so far
    rounds_played INTEGER NOT NULL DEFAULT 0,
    seed TEXT,                      -- the match seed every round's wall derives from
    password_hash TEXT,             -- pbkdf2 of the password (never the password)
    tokens TEXT                     -- JSON: 4 SHA-256 digests of the seat tokens, once started
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

Op = tuple[str, Sequence[Any]]
"""One SQL statement and its parameters."""


class StoreError(RuntimeError):
    """A write failed; the table that asked is frozen by its caller."""


# Columns added after the first release: a database made before them gains them at open.
ADDED_COLUMNS: dict[str, list[tuple[str, str]]] = {
    "tables": [("seed", "TEXT"), ("password_hash", "TEXT"), ("tokens", "TEXT")],
    "rounds": [("salt", "TEXT"), ("commitment", "TEXT")],
}


def connect(path: str | Path) -> sqlite3.Connection:
    """A connection with the schema in place and WAL on."""
    db = sqlite3.connect(str(path), timeout=30, check_same_thread=False, isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA busy_timeout=30000")
    db.executescript(SCHEMA)
    for table, columns in ADDED_COLUMNS.items():
        have = {row[1] for row in db.execute(f"PRAGMA table_info({table})")}
        for name, kind in columns:
            if name not in have:
                db.execute(f"ALTER TABLE {table} ADD COLUMN {name} {kind}")
    return db


class Store:
    """The server's one writer. `await store.write(ops)` returns once `ops` are committed.

    Group commit on the event loop: every write asked for during one turn of the loop goes into
    one transaction, committed by a callback at the next turn, which then wakes the writers. In
    WAL mode with `synchronous=NORMAL` a commit is a short append to the log, far cheaper than
    handing the work to a thread (and contending for the GIL with it). Checkpoints, the one slow
    part, run on a thread of their own (`PASSIVE`, so they never block the writer).
    """

    def __init__(
        self, path: str | Path, *, synchronous: str = "NORMAL", checkpoint_every: float = 1.0
    ) -> None:
        if synchronous.upper() not in ("OFF", "NORMAL", "FULL"):
            raise ValueError(f"synchronous must be OFF, NORMAL or FULL, got {synchronous!r}")
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._db = connect(self.path)
        self._db.execute(f"PRAGMA synchronous={synchronous.upper()}")
        self._db.execute("PRAGMA wal_autocheckpoint=0")  # the checkpoint thread does it
        self._pending: list[tuple[list[Op], asyncio.Future[None]]] = []
        self._scheduled = False
        self._closed = False
        self._stop = threading.Event()
        self._checkpointer = threading.Thread(
            target=self._checkpoints, args=(checkpoint_every,), name="zhuoji-wal", daemon=True
        )
        self._checkpointer.start()

    # ----- writing -----

    async def write(self, ops: list[Op]) -> None:
        """Commit `ops` in one transaction (with the others asked for meanwhile); raises
        StoreError if they cannot be written."""
        if not ops:
            return
        if self._closed:
            raise StoreError("the store is closed")
        loop = asyncio.get_running_loop()
        fut: asyncio.Future[None] = loop.create_future()
        self._pending.append((ops, fut))
        if not self._scheduled:
            self._scheduled = True
            loop.call_soon(self._flush)
        await fut

    def _flush(self) -> None:
        self._scheduled = False
        batch, self._pending = self._pending, []
        if not batch:
            return
        try:
            self._run_batch([ops for ops, _ in batch])
        except sqlite3.Error:
            # Find the write at fault: commit the others one by one.
            for ops, fut in batch:
                try:
                    self._run_batch([ops])
                except sqlite3.Error as err:
                    _fail(fut, StoreError(f"{err} in {ops[0][0]!r}"))
                else:
                    _done(fut)
            return
        for _, fut in batch:
            _done(fut)

    def _run_batch(self, batch: list[list[Op]]) -> None:
        db = self._db
        db.execute("BEGIN")
        try:
            for ops in batch:
                for sql, params in ops:
                    db.execute(sql, params)
        except sqlite3.Error:
            db.execute("ROLLBACK")
            raise
        db.execute("COMMIT")

    def _checkpoints(self, every: float) -> None:
        conn = sqlite3.connect(str(self.path), timeout=30, isolation_level=None)
        try:
            while not self._stop.wait(every):
                try:
                    conn.execute("PRAGMA wal_checkpoint(PASSIVE)")
                except sqlite3.Error:  # busy: the next one will do
                    pass
        finally:
            conn.close()

    def close(self) -> None:
        """Write what is still queued, checkpoint, and close."""
        if self._closed:
            return
        self._closed = True
        self._flush()
        self._stop.set()
        self._checkpointer.join(timeout=30)
        try:
            self._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        except sqlite3.Error:
            pass
        self._db.close()

    # ----- what the server reads at start -----

    def max_table_number(self) -> int:
        """The highest numeric table id so far (ids are room numbers 1, 2, 3, …)."""
        reader = sqlite3.connect(str(self.path), timeout=30)
        try:
            row = reader.execute(
                "SELECT MAX(CAST(id AS INTEGER)) FROM tables WHERE id GLOB '[0-9]*'"
            ).fetchone()
        finally:
            reader.close()
        return int(row[0] or 0)

    def close_waiting(self, now: float) -> list[str]:
        """Tables a previous run left waiting (no match begun, and nobody is at them any more)
        are closed as abandoned; returns their ids."""
        ids = [r[0] for r in self._db.execute("SELECT id FROM tables WHERE state='waiting'")]
        if ids:
            self._run_batch(
                [
                    [
                        (
                            "UPDATE tables SET state='abandoned', ended_at=? WHERE state='waiting'",
                            (now,),
                        )
                    ]
                ]
            )
        return ids

    def unfinished(
        self, log_keep: int = 4096, *, ended_since: float | None = None
    ) -> list[StoredTable]:
        """Every match a previous run left playing, as stored: what `Table.restore` resumes;
        with `ended_since`, also the matches that ended since then (a player who dropped just
        before the end may still come back to see it).

        Read with the writer's connection before the server serves, so nothing writes beside it.
        A row that cannot be decoded is returned with `error` set (its table is frozen)."""
        db = self._db
        db.row_factory = sqlite3.Row
        try:
            rows = db.execute(
                "SELECT * FROM tables WHERE state='playing' OR (state IN ('finished', 'abandoned')"
                " AND started_at IS NOT NULL AND ended_at >= ?) ORDER BY CAST(id AS INTEGER), id",
                (float("inf") if ended_since is None else ended_since,),
            ).fetchall()
            return [self._stored(dict(row), log_keep) for row in rows]
        finally:
            db.row_factory = None

    def _stored(self, row: dict[str, Any], log_keep: int) -> StoredTable:
        db = self._db
        table_id = row["id"]
        stored = StoredTable(table_id, row)
        try:
            for key in ("options", "seats", "scores", "tokens"):
                if row.get(key) is not None:
                    row[key] = json.loads(row[key])
            for r in db.execute(
                "SELECT * FROM rounds WHERE table_id=? ORDER BY round_no", (table_id,)
            ).fetchall():
                stored.rounds.append(
                    StoredRound(
                        round_no=r["round_no"], seed=r["seed"], dealer=r["dealer"],
                        streak=r["streak"], base=r["base"], hands=json.loads(r["hands"]),
                        wall=json.loads(r["wall"]), salt=r["salt"], commitment=r["commitment"],
                        result=None if r["result"] is None else json.loads(r["result"]),
                    )
                )  # fmt: skip
            if stored.rounds:
                last = stored.rounds[-1].round_no
                stored.actions = [
                    (a["seat"], a["act"], a["tile"], a["phase"])
                    for a in db.execute(
                        "SELECT seat, act, tile, phase FROM actions WHERE table_id=? AND"
                        " round_no=? ORDER BY idx",
                        (table_id, last),
                    )
                ]
                stored.round_events = [
                    json.loads(e["data"])
                    for e in db.execute(
                        "SELECT data FROM events WHERE table_id=? AND round_no=? ORDER BY seq",
                        (table_id, last),
                    )
                ]
            stored.log = [
                json.loads(e["data"])
                for e in db.execute(
                    "SELECT data FROM events WHERE table_id=? ORDER BY seq DESC LIMIT ?",
                    (table_id, log_keep),
                )
            ][::-1]
            top = db.execute("SELECT MAX(seq) FROM events WHERE table_id=?", (table_id,))
            stored.seq = int(top.fetchone()[0] or 0)
        except (sqlite3.Error, ValueError, TypeError, KeyError) as err:
            stored.error = f"unreadable record: {type(err).__name__}: {err}"
        return stored


@dataclass
class StoredRound:
    """One round as the `rounds` table holds it (tiles in notation)."""

    round_no: int
    seed: str
    dealer: int
    streak: int
    base: int
    hands: list[list[str]]
    wall: list[str]
    salt: str | None
    commitment: str | None
    result: dict[str, Any] | None  # the settlement once the round ended


@dataclass
class StoredTable:
    """An unfinished match as stored: its row, its rounds, and the last round's actions and
    events; `seq` is the table's last event number, `log` its latest events in order."""

    id: str
    row: dict[str, Any]
    rounds: list[StoredRound] = field(default_factory=list)
    actions: list[tuple[int, str, str | None, str]] = field(default_factory=list)
    round_events: list[dict[str, Any]] = field(default_factory=list)
    log: list[dict[str, Any]] = field(default_factory=list)
    seq: int = 0
    error: str | None = None


def _done(fut: asyncio.Future[None]) -> None:
    if not fut.done():
        fut.set_result(None)


def _fail(fut: asyncio.Future[None], err: BaseException) -> None:
    if not fut.done():
        fut.set_exception(err)


# ----- statements the tables use -----


def op_insert_table(row: dict[str, Any]) -> Op:
    return (
        "INSERT INTO tables (id, name, preset, options, base, rounds, turn_seconds, bank_seconds,"
        " claim_min_ms, has_password, created_at, state, seed, password_hash)"
        " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
        (
            row["id"], row["name"], row["preset"], json.dumps(row["options"]), row["base"],
            row["rounds"], row["turn_seconds"], row["bank_seconds"], row["claim_min_ms"],
            int(row["has_password"]), row["created_at"], "waiting", row.get("seed"),
            row.get("password_hash"),
        ),
    )  # fmt: skip


def op_start_table(
    table_id: str, seats: list[dict[str, Any]], tokens: list[str | None], now: float
) -> Op:
    """The match starts: the seats, and the digests of their tokens (so a restarted server
    knows them again; the tokens themselves are never stored)."""
    return (
        "UPDATE tables SET state='playing', started_at=?, seats=?, scores='[0,0,0,0]', tokens=?"
        " WHERE id=?",
        (now, json.dumps(seats, ensure_ascii=False), json.dumps(tokens), table_id),
    )


def op_set_tokens(table_id: str, tokens: list[str | None]) -> Op:
    """New token digests (a restarted server gives its own bots new tokens)."""
    return ("UPDATE tables SET tokens=? WHERE id=?", (json.dumps(tokens), table_id))


def op_end_table(
    table_id: str, state: str, scores: list[int], rounds_played: int, now: float
) -> Op:
    return (
        "UPDATE tables SET state=?, ended_at=?, scores=?, rounds_played=? WHERE id=?",
        (state, now, json.dumps(scores), rounds_played, table_id),
    )


def op_insert_round(
    table_id: str,
    round_no: int,
    seed: str,
    dealer: int,
    streak: int,
    base: int,
    hands: list[list[str]],
    wall: list[str],
    now: float,
    salt: str | None = None,
    commitment: str | None = None,
) -> Op:
    return (
        "INSERT INTO rounds (table_id, round_no, seed, dealer, streak, base, hands, wall,"
        " started_at, salt, commitment) VALUES (?,?,?,?,?,?,?,?,?,?,?)",
        (table_id, round_no, seed, dealer, streak, base, json.dumps(hands), json.dumps(wall), now,
         salt, commitment),
    )  # fmt: skip


def op_end_round(
    table_id: str,
    round_no: int,
    result: dict[str, Any],
    net: list[int],
    scores: list[int],
    now: float,
) -> list[Op]:
    return [
        (
            "UPDATE rounds SET ended_at=?, result=?, net=? WHERE table_id=? AND round_no=?",
            (now, json.dumps(result, ensure_ascii=False), json.dumps(net), table_id, round_no),
        ),
        (
            "UPDATE tables SET scores=?, rounds_played=? WHERE id=?",
            (json.dumps(scores), round_no, table_id),
        ),
    ]


def op_insert_action(
    table_id: str,
    round_no: int,
    idx: int,
    seat: int,
    act: str,
    tile: str | None,
    phase: str,
    auto: bool,
    now: float,
) -> Op:
    return (
        "INSERT INTO actions (table_id, round_no, idx, seat, act, tile, phase, auto, at)"
        " VALUES (?,?,?,?,?,?,?,?,?)",
        (table_id, round_no, idx, seat, act, tile, phase, int(auto), now),
    )


def op_insert_event(table_id: str, round_no: int, event: dict[str, Any], now: float) -> Op:
    return (
        "INSERT INTO events (table_id, seq, round_no, type, data, at) VALUES (?,?,?,?,?,?)",
        (
            table_id, event["seq"], round_no, event["type"],
            json.dumps(event, ensure_ascii=False, separators=(",", ":")), now,
        ),
    )  # fmt: skip


# ----- reading back -----


class RoundNotFound(ScriptError):
    """No such table or round in the database (a `ScriptError`, so `zhuoji replay` reports it)."""


def _reader(db: str | Path) -> sqlite3.Connection:
    path = Path(db)
    if not path.exists():
        raise RoundNotFound(f"no database at {path}")
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=30)
    return conn


def load_round_script(db: str | Path, table: str | int, round_no: int) -> dict[str, Any]:
    """The deal script (RULES.md §9) of a stored round: the deal, every action played, in order.

    Passes are left out (a script's claims are followed by implied passes), except one the
    script needs: a 自摸 right after someone else's discard would read as a claim of that
    discard, so the winner passes the discard first. The script replays to the same events. A
    round cut short (the server stopped) ends with `then: "stop"` and so replays as far as it
    went, then reports that it ran out of actions.
    """
    conn = _reader(db)
    try:
        trow = conn.execute(
            "SELECT preset, options FROM tables WHERE id=?", (str(table),)
        ).fetchone()
        if trow is None:
            raise RoundNotFound(f"no table {table!r} in {db}")
        rrow = conn.execute(
            "SELECT dealer, streak, base, hands, wall FROM rounds WHERE table_id=? AND round_no=?",
            (str(table), round_no),
        ).fetchone()
        if rrow is None:
            have = [r[0] for r in conn.execute(
                "SELECT round_no FROM rounds WHERE table_id=? ORDER BY round_no", (str(table),)
            )]  # fmt: skip
            raise RoundNotFound(
                f"table {table} has no round {round_no}"
                + (f" (rounds stored: {', '.join(map(str, have))})" if have else " (no rounds)")
            )
        actions: list[dict[str, Any]] = []
        for seat, act, tile, phase in conn.execute(
            "SELECT seat, act, tile, phase FROM actions WHERE table_id=? AND round_no=?"
            " ORDER BY idx",
            (str(table), round_no),
        ):
            if act == "pass":
                continue
            if (
                act == "hu"
                and phase == "turn"
                and actions
                and actions[-1]["act"] in ("discard", "ready")
            ):
                actions.append({"seat": seat, "act": "pass"})
            a: dict[str, Any] = {"seat": seat, "act": act}
            if tile is not None:
                a["tile"] = tile
            actions.append(a)
    finally:
        conn.close()
    return {
        "ruleset": trow[0],
        "options": json.loads(trow[1]),
        "base": rrow[2],
        "dealer": rrow[0],
        "streak": rrow[1],
        "hands": json.loads(rrow[3]),
        "wall": json.loads(rrow[4]),
        "actions": actions,
        "then": "stop",
    }


def round_events(db: str | Path, table: str | int, round_no: int) -> list[dict[str, Any]]:
    """The full event log of one round (private fields included), in `seq` order."""
    conn = _reader(db)
    try:
        rows = conn.execute(
            "SELECT data FROM events WHERE table_id=? AND round_no=? ORDER BY seq",
            (str(table), round_no),
        ).fetchall()
    finally:
        conn.close()
    return [json.loads(r[0]) for r in rows]


def table_events(db: str | Path, table: str | int) -> list[dict[str, Any]]:
    """Every event a table logged, in `seq` order."""
    conn = _reader(db)
    try:
        rows = conn.execute(
            "SELECT data FROM events WHERE table_id=? ORDER BY seq", (str(table),)
        ).fetchall()
    finally:
        conn.close()
    return [json.loads(r[0]) for r in rows]


def table_row(db: str | Path, table: str | int) -> dict[str, Any] | None:
    """A table's stored row (scores and seats decoded), or None."""
    conn = _reader(db)
    conn.row_factory = sqlite3.Row
    try:
        row = conn.execute("SELECT * FROM tables WHERE id=?", (str(table),)).fetchone()
    finally:
        conn.close()
    if row is None:
        return None
    d = dict(row)
    for key in ("options", "seats", "scores"):
        if d.get(key) is not None:
            d[key] = json.loads(d[key])
    return d


ActionRow = tuple[int, str, str | None, str]
"""A stored action: seat, act, tile (on turn only), phase."""


def stored_rounds(
    db: str | Path, table: str | int
) -> tuple[dict[str, Any], list[tuple[StoredRound, list[ActionRow], list[dict[str, Any]]]]]:
    """A table's row and every stored round with its actions and events (read-only), for
    `zhuoji verify`. Raises RoundNotFound if there is no such database or table."""
    row = table_row(db, table)
    if row is None:
        raise RoundNotFound(f"no table {table!r} in {db}")
    conn = _reader(db)
    conn.row_factory = sqlite3.Row
    out = []
    try:
        for r in conn.execute(
            "SELECT * FROM rounds WHERE table_id=? ORDER BY round_no", (str(table),)
        ).fetchall():
            rnd = StoredRound(
                round_no=r["round_no"], seed=r["seed"], dealer=r["dealer"], streak=r["streak"],
                base=r["base"], hands=json.loads(r["hands"]), wall=json.loads(r["wall"]),
                salt=r["salt"] if "salt" in r.keys() else None,
                commitment=r["commitment"] if "commitment" in r.keys() else None,
                result=None if r["result"] is None else json.loads(r["result"]),
            )  # fmt: skip
            actions = [
                (a["seat"], a["act"], a["tile"], a["phase"])
                for a in conn.execute(
                    "SELECT seat, act, tile, phase FROM actions WHERE table_id=? AND round_no=?"
                    " ORDER BY idx",
                    (str(table), rnd.round_no),
                )
            ]
            events = [
                json.loads(e["data"])
                for e in conn.execute(
                    "SELECT data FROM events WHERE table_id=? AND round_no=? ORDER BY seq",
                    (str(table), rnd.round_no),
                )
            ]
            out.append((rnd, actions, events))
    finally:
        conn.close()
    return row, out
