"""Reading a database file back, read-only, through a connection of its own (WAL mode lets it
run beside a serving writer): a round's deal script (`zhuoji replay`), a table's row and events,
every stored round for `zhuoji verify`, the list of stored matches for the replay browser."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

from protocol.events import upgrade_entry
from rules.script import ScriptError
from server.storage.stored import ActionRow, StoredRound


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
        columns = {r[1] for r in conn.execute("PRAGMA table_info(rounds)")}
        day = "weekday" if "weekday" in columns else "NULL"  # a file from before version 2
        rrow = conn.execute(
            f"SELECT dealer, streak, base, hands, wall, {day} FROM rounds"
            " WHERE table_id=? AND round_no=?",
            (str(table), round_no),
        ).fetchone()
        if rrow is None:
            have = [
                r[0]
                for r in conn.execute(
                    "SELECT round_no FROM rounds WHERE table_id=? ORDER BY round_no", (str(table),)
                )
            ]
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
    script: dict[str, Any] = {
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
    if rrow[5] is not None:  # the day of the deal, for 星期鸡 (RULES.md §13.12)
        script["weekday"] = rrow[5]
    return script


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
    return [upgrade_entry(json.loads(r[0])) for r in rows]


def table_events(db: str | Path, table: str | int) -> list[dict[str, Any]]:
    """Every event a table logged, in `seq` order."""
    conn = _reader(db)
    try:
        rows = conn.execute(
            "SELECT data FROM events WHERE table_id=? ORDER BY seq", (str(table),)
        ).fetchall()
    finally:
        conn.close()
    return [upgrade_entry(json.loads(r[0])) for r in rows]


def rounds_logged(db: str | Path, table: str | int) -> list[tuple[int, dict[str, Any]]]:
    """Every event a table logged inside a round (round number, event in the current
    protocol's form), in `seq` order."""
    conn = _reader(db)
    try:
        rows = conn.execute(
            "SELECT round_no, data FROM events WHERE table_id=? AND round_no>0 ORDER BY seq",
            (str(table),),
        ).fetchall()
    finally:
        conn.close()
    return [(int(n), upgrade_entry(json.loads(data))) for n, data in rows]


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
            rnd = StoredRound.of_row(r)
            actions = [
                (a["seat"], a["act"], a["tile"], a["phase"])
                for a in conn.execute(
                    "SELECT seat, act, tile, phase FROM actions WHERE table_id=? AND round_no=?"
                    " ORDER BY idx",
                    (str(table), rnd.round_no),
                )
            ]
            events = [
                upgrade_entry(json.loads(e["data"]))
                for e in conn.execute(
                    "SELECT data FROM events WHERE table_id=? AND round_no=? ORDER BY seq",
                    (str(table), rnd.round_no),
                )
            ]
            out.append((rnd, actions, events))
    finally:
        conn.close()
    return row, out


def stored_matches(db: str | Path) -> list[dict[str, Any]]:
    """Every table that started a match, newest first, with its rounds stored (read-only), for
    the replay browser: id, name, preset, state, rounds (stored), seats (decoded)."""
    conn = _reader(db)
    conn.row_factory = sqlite3.Row
    try:
        rows = conn.execute(
            "SELECT t.id, t.name, t.preset, t.state, t.seats, t.created_at,"
            " (SELECT COUNT(*) FROM rounds r WHERE r.table_id = t.id) AS stored"
            " FROM tables t WHERE t.seats IS NOT NULL ORDER BY t.created_at DESC, t.id DESC"
        ).fetchall()
    finally:
        conn.close()
    return [
        {
            "id": r["id"],
            "name": r["name"],
            "preset": r["preset"],
            "state": r["state"],
            "rounds": r["stored"],
            "seats": json.loads(r["seats"]),
        }
        for r in rows
    ]


def stored_round_numbers(db: str | Path, table: str | int) -> list[int]:
    """The numbers of a table's stored rounds, in order."""
    conn = _reader(db)
    try:
        return [
            r[0]
            for r in conn.execute(
                "SELECT round_no FROM rounds WHERE table_id=? ORDER BY round_no", (str(table),)
            )
        ]
    finally:
        conn.close()
