"""The records' speed on a server with 10,000 stored rounds (issue 25).

    nice -n 10 python benchmarks/records.py --rounds 10000 --repeat 21

1. Fills a real SQLite file: `--seed-matches` matches (random option mixes, keyed humans, bots,
   anonymous seats, some cut short) are played by the real table core on a fake clock, then
   copied under new table ids (rows of `tables`, `rounds`, `events`, `records`) until the file
   holds `--rounds` finished rounds; the players get ids from a pool of `--players`.
2. Times, as the server does them, on a read-only connection of their own:
   `get_records` for the standings of all time, of this month, with one player's record (the
   whole `server.standings.answer`, ratings and match list included), each the median of
   `--repeat` runs with its 95 % interval (order statistics).
3. The round's commit with and without its records: the same `op_end_round` statements (and, for
   the other arm, the four record upserts of `round_record_ops`) committed in one transaction on
   the writer's connection, interleaved; medians and their difference.
4. `rebuild-records` over the whole file, once.

Prints one JSON object. Run it on an otherwise idle machine (it measures one core).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # run from a checkout


def median_ci(xs: list[float]) -> tuple[float, float, float]:
    """The median and a ~95 % interval from order statistics (n ≥ 6)."""
    s = sorted(xs)
    n = len(s)
    half = 0.98 * n**0.5
    lo, hi = max(0, int(n / 2 - half)), min(n - 1, int(n / 2 + half))
    return statistics.median(s), s[lo], s[hi]


def ms(t: tuple[float, float, float]) -> list[float]:
    return [round(x * 1000, 3) for x in t]


def fill(path: Path, rounds: int, seed_matches: int, players: int) -> dict[str, Any]:
    from tests.server.records_matches import fill as play

    rng = random.Random(1)
    began = time.perf_counter()
    db = play(path, seed_matches, seed=1, rounds=(4, 8))
    played = time.perf_counter() - began
    pool = [f"p-{i:012x}" for i in range(1, players + 1)]
    have = db.execute("SELECT COUNT(*) FROM rounds WHERE result IS NOT NULL").fetchone()[0]
    base = [r[0] for r in db.execute("SELECT id FROM tables ORDER BY CAST(id AS INTEGER)")]
    next_id = len(base) + 1
    t = 1e9 + 86400
    db.execute("BEGIN")
    while have < rounds:
        for src in base:
            if have >= rounds:
                break
            new = str(next_id)
            next_id += 1
            t += 600
            seats = json.loads(
                db.execute("SELECT seats FROM tables WHERE id=?", (src,)).fetchone()[0]
            )
            for s in seats:
                if s.get("player"):
                    s["player"] = rng.choice(pool)
            db.execute(
                "INSERT INTO tables SELECT ?, name, preset, options, base, rounds, turn_seconds,"
                " bank_seconds, claim_min_ms, has_password, created_at + ?, started_at + ?,"
                " ended_at + ?, state, ?, scores, rounds_played, seed, password_hash, tokens,"
                " bot_delay, next_round_seconds FROM tables WHERE id=?",
                (new, t, t, t, json.dumps(seats), src),
            )
            for part in ("rounds", "actions", "events"):
                cols = [r[1] for r in db.execute(f"PRAGMA table_info({part})")]
                rest = ", ".join(c for c in cols if c != "table_id")
                db.execute(
                    f"INSERT INTO {part} (table_id, {rest}) SELECT ?, {rest} FROM {part}"
                    " WHERE table_id=?",
                    (new, src),
                )
            from server.records import seat_players

            ids = seat_players(seats)
            cols = [r[1] for r in db.execute("PRAGMA table_info(records)")]
            rest = ", ".join(c for c in cols if c not in ("table_id", "player_id", "at"))
            for seat in range(4):
                db.execute(
                    f"INSERT INTO records (table_id, player_id, at, {rest}) SELECT ?, ?, at + ?,"
                    f" {rest} FROM records WHERE table_id=? AND seat=?",
                    (new, ids[seat], t, src, seat),
                )
            have += db.execute(
                "SELECT COUNT(*) FROM rounds WHERE table_id=? AND result IS NOT NULL", (src,)
            ).fetchone()[0]
    db.execute(
        "INSERT OR IGNORE INTO players (id, key_digest, name, kind, created_at, seen_at)"
        " SELECT DISTINCT player_id, player_id, player_id, 'human', 0, 0 FROM records"
        " WHERE player_id LIKE 'p-%'"
    )
    db.execute("COMMIT")
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.close()
    return {"rounds": have, "matches": next_id - 1, "seed_play_s": round(played, 1)}


def time_reads(path: Path, repeat: int) -> dict[str, Any]:
    import sqlite3

    from server.standings import _BOOKS, answer

    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    someone = conn.execute(
        "SELECT player_id FROM records WHERE player_id LIKE 'p-%' LIMIT 1"
    ).fetchone()[0]
    asks = {
        "standings_all": {"period": "all"},
        "standings_month": {"period": "month"},
        "player_all": {"period": "all", "player": someone, "table": "1"},
    }
    # cold: the first answer after the matches changed (the book of matches and ratings is
    # read again); warm: the next ones (the server keeps the book until the file changes).
    times: dict[str, list[float]] = {f"{k}_{w}": [] for k in asks for w in ("cold", "warm")}
    cpu: dict[str, list[float]] = {k: [] for k in times}
    sizes: dict[str, int] = {}
    for _ in range(repeat):
        for name, ask in asks.items():
            for when in ("cold", "warm"):
                if when == "cold":
                    _BOOKS.clear()
                began, c0 = time.perf_counter(), time.process_time()
                frame = answer(conn, **ask)
                times[f"{name}_{when}"].append(time.perf_counter() - began)
                cpu[f"{name}_{when}"].append(time.process_time() - c0)
            sizes[name] = len(json.dumps(frame, ensure_ascii=False).encode())
    conn.close()
    out: dict[str, Any] = {f"{k}_ms": ms(median_ci(v)) for k, v in times.items()}
    out |= {f"{k}_cpu_ms": ms(median_ci(v)) for k, v in cpu.items()}
    return out | {"frame_bytes": sizes, "load_average": list(os.getloadavg())}


def time_wire(path: Path, repeat: int) -> dict[str, Any]:
    """`get_records` over a real server on loopback serving the file (a copy): from sending the
    request to receiving the whole `records` frame, the first after the start (cold) and the
    next ones (warm)."""
    import asyncio
    import shutil

    from clients.client import Client
    from server.testkit import running_server

    copy = path.with_name(path.stem + "-wire.db")
    shutil.copy(path, copy)

    async def run() -> tuple[list[float], list[float]]:
        cold: list[float] = []
        warm: list[float] = []
        async with running_server(copy) as (url, server):
            client = await Client.connect(url, "bench")
            await client.recv_type("welcome")
            for i in range(repeat + 1):
                if i % 4 == 0:
                    from server.standings import _BOOKS

                    _BOOKS.clear()
                began = time.perf_counter()
                await client.send({"type": "get_records", "player": "p-000000000001"})
                await client.recv_type("records", timeout=60)
                (cold if i % 4 == 0 else warm).append(time.perf_counter() - began)
            await client.close()
        return cold, warm

    cold, warm = asyncio.run(run())
    return {"wire_cold_ms": ms(median_ci(cold)), "wire_warm_ms": ms(median_ci(warm))}


def time_commit(path: Path, repeat: int) -> dict[str, Any]:
    """The round's commit without and with its records, interleaved, on the writer's
    connection (synchronous=NORMAL, WAL, as the server)."""
    from server.storage.dbfile import open_database
    from server.storage.record_sql import op_end_round
    from server.storage.tallies import round_record_ops

    db = open_database(path)
    db.execute("PRAGMA synchronous=NORMAL")
    rows = db.execute(
        "SELECT r.table_id, r.round_no, r.dealer, r.streak, r.result, t.seats FROM rounds r"
        " JOIN tables t ON t.id = r.table_id WHERE r.result IS NOT NULL LIMIT ?",
        (repeat,),
    ).fetchall()
    plain: list[float] = []
    with_records: list[float] = []
    for tid, rno, dealer, streak, result_json, seats_json in rows:
        result, seats = json.loads(result_json), json.loads(seats_json)
        base_ops = op_end_round(tid, rno, result, result["net"], result["net"], 2e9)
        rec_ops = round_record_ops(tid, dealer, streak, [False] * 4, result, seats, 2e9)
        for arm, ops in (("plain", base_ops), ("records", base_ops + rec_ops)):
            began = time.perf_counter()
            db.execute("BEGIN")
            for sql, params in ops:
                db.execute(sql, params)
            db.execute("COMMIT")
            (plain if arm == "plain" else with_records).append(time.perf_counter() - began)
    db.close()
    diffs = [b - a for a, b in zip(plain, with_records, strict=True)]
    return {
        "commit_plain_ms": ms(median_ci(plain)),
        "commit_with_records_ms": ms(median_ci(with_records)),
        "records_add_ms": ms(median_ci(diffs)),
        "commits": len(plain),
    }


def time_rebuild(path: Path) -> dict[str, Any]:
    from server.storage import tallies
    from server.storage.dbfile import open_database

    db = open_database(path)
    began = time.perf_counter()
    db.execute("BEGIN")
    n = tallies.rebuild(db)
    db.execute("COMMIT")
    took = time.perf_counter() - began
    db.close()
    return {"rebuild_s": round(took, 2), "rebuild_matches": n}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--rounds", type=int, default=10_000)
    p.add_argument("--seed-matches", type=int, default=40)
    p.add_argument("--players", type=int, default=24)
    p.add_argument("--repeat", type=int, default=21)
    p.add_argument("--db", type=Path, default=None, help="keep the file here (default: temp)")
    p.add_argument("--reuse", action="store_true", help="measure the --db file as it is")
    args = p.parse_args()
    folder = Path(tempfile.mkdtemp())
    path = args.db or folder / "records.db"
    out: dict[str, Any] = {}
    if not (args.reuse and path.exists()):
        out["filled"] = fill(path, args.rounds, args.seed_matches, args.players)
    out["read"] = time_reads(path, args.repeat)
    out["wire"] = time_wire(path, max(args.repeat * 2, 24))
    out["commit"] = time_commit(path, max(args.repeat * 10, 200))
    out["rebuild"] = time_rebuild(path)
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
