"""`zhuoji stats` and `zhuoji admin rebuild-records`, run as a host runs them, on a database
filled by the real table core."""

from __future__ import annotations

import csv
import io
import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from server.storage import tallies
from tests.server.records_matches import fill


def zhuoji(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "zhuoji.cli", *args],
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("stats") / "z.db"
    db = fill(path, 6, seed=21, rounds=(1, 2), now=2e9)
    (most,) = db.execute(
        "SELECT player_id FROM records WHERE player_id LIKE 'p-%' GROUP BY player_id"
        " ORDER BY COUNT(*) DESC, player_id LIMIT 1"
    ).fetchone()
    db.execute(
        "INSERT INTO players VALUES (?, 'x', '阿明', 'human', 0, 0),"
        " ('p-0000000000f2', 'y', '小红', 'human', 0, 0), ('p-0000000000f3', 'z', '小红',"
        " 'human', 0, 0)",
        (most,),
    )
    db.close()
    return path


def test_the_standings_as_json_csv_and_a_table(played: Path) -> None:
    out = zhuoji("stats", "--db", str(played), "--json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    rows = data["standings"]
    conn = sqlite3.connect(played)
    nets = dict(
        conn.execute(
            "SELECT player_id, SUM(net) FROM records WHERE player_id IS NOT NULL GROUP BY player_id"
        ).fetchall()
    )
    conn.close()
    assert {r["player"]: r["net"] for r in rows} == nets
    assert [r["net"] for r in rows] == sorted((r["net"] for r in rows), reverse=True)
    out = zhuoji("stats", "--db", str(played), "--csv")
    assert out.returncode == 0, out.stderr
    table = list(csv.DictReader(io.StringIO(out.stdout)))
    assert [t["player"] for t in table] == [r["player"] for r in rows]
    assert {"first", "fourth", "win_rate", "dealin_rate", "chongfeng", "rating"} <= set(table[0])
    out = zhuoji("stats", "--db", str(played), "--since", "tonight", "--preset", "chuan")
    assert out.returncode == 0, out.stderr  # nothing ended tonight (the matches are in 2033)
    out = zhuoji("stats", "--db", str(played))
    assert out.returncode == 0 and "阿明" in out.stdout and "bot" in out.stdout
    head, *lines = out.stdout.splitlines()
    assert head.split()[-1] == "voted"  # matches ended by vote (解散), as in --json and --csv
    assert [line.split()[-1] for line in lines] == [str(r["voted"]) for r in rows]


def test_one_players_record_by_name_or_id(played: Path) -> None:
    out = zhuoji("stats", "--db", str(played), "--player", "阿明", "--json")
    assert out.returncode == 0, out.stderr
    rec = json.loads(out.stdout)
    assert rec["player"].startswith("p-") and rec["name"] == "阿明"
    assert len(rec["recent_net"]) == len(rec["recent_places"]) >= 1
    assert sum(rec["recent_net"]) == rec["net"]
    out = zhuoji("stats", "--db", str(played), "--player", rec["player"])
    assert out.returncode == 0 and "rounds" in out.stdout and "阿明" in out.stdout


@pytest.mark.parametrize(
    ("args", "code", "said"),
    [
        (["--player", "nobody"], 2, "no player called 'nobody'"),
        (["--player", "小红"], 2, "2 players are called '小红'"),
        (["--since", "soon"], 2, "--since:"),
    ],
)
def test_bad_input_says_what_was_wrong(played: Path, args: list[str], code: int, said: str) -> None:
    out = zhuoji("stats", "--db", str(played), *args)
    assert out.returncode == code and said in out.stderr and "Traceback" not in out.stderr


def test_a_database_without_records_is_refused_with_the_way_out(tmp_path: Path) -> None:
    db = tmp_path / "old.db"
    conn = sqlite3.connect(db)
    conn.execute("CREATE TABLE tables (id TEXT)")
    conn.close()
    out = zhuoji("stats", "--db", str(db))
    assert out.returncode == 1 and "rebuild-records" in out.stderr
    out = zhuoji("stats", "--db", str(tmp_path / "none.db"))
    assert out.returncode == 2 and "no database at" in out.stderr


def test_rebuild_records_recomputes_the_table_from_the_events(tmp_path: Path) -> None:
    path = tmp_path / "z.db"
    db = fill(path, 3, seed=4, rounds=(1, 2))
    before = tallies.record_rows(db)
    db.execute("UPDATE records SET net = 0, wins = 99")
    db.close()
    out = zhuoji("admin", "--db", str(path), "--json", "rebuild-records")
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["matches"] == len({r[0] for r in before})
    conn = sqlite3.connect(path)
    try:
        assert tallies.record_rows(conn) == before
    finally:
        conn.close()
