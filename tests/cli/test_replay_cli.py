"""`zhuoji replay`: the public JSON shape, readable output, exit codes and error messages."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

SCEN = Path(__file__).parents[1] / "scenarios"


def replay(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "zhuoji.cli", "replay", *args],
        capture_output=True,
        text=True,
        input=stdin,
        timeout=60,
    )


def test_json_has_the_public_keys() -> None:
    done = replay(str(SCEN / "guiyang_07_diandou.json"), "--json")
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    for key in (
        "net",
        "outcome",
        "winners",
        "flip",
        "payments",
        "events",
        "next_dealer",
        "next_streak",
    ):
        assert key in out
    assert out["net"] == [-1, 0, 2, -1]
    assert out["winners"] == [{"seat": 2, "pattern": "平胡", "bonuses": []}]
    assert out["events"][0]["type"] == "round_started"
    assert {p["item"] for p in out["payments"]} == {"hand", "dou"}


def test_readable_output_names_moves_and_nets() -> None:
    done = replay(str(SCEN / "guiyang_07_diandou.json"))
    assert done.returncode == 0
    assert "seat 2 杠 (点豆) 6m from seat 0" in done.stdout
    assert "net: seat 0: -1  seat 1: +0  seat 2: +2  seat 3: -1" in done.stdout


def test_illegal_action_exits_2_naming_its_index() -> None:
    done = replay(str(SCEN / "guiyang_02_pinghu_discard_refused.json"), "--json")
    assert done.returncode == 2
    assert json.loads(done.stdout)["error"]["index"] == 4
    assert "action 4" in done.stderr and "needs a pass" in done.stderr


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("{not json", "is not valid JSON"),
        ("[1, 2]", "must be a JSON object"),
        ('{"hands": [[], [], []]}', "'hands' must be a list of four hands"),
        ('{"ruleset": "tokyo", "hands": []}', "unknown ruleset 'tokyo'"),
    ],
)
def test_malformed_scripts_get_one_line_errors(text: str, message: str) -> None:
    done = replay("-", stdin=text)
    assert done.returncode == 2
    assert message in done.stderr
    assert "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


def test_missing_file() -> None:
    done = replay("/nonexistent/script.json")
    assert done.returncode == 2
    assert "cannot read" in done.stderr


def test_a_file_that_is_not_a_database_gets_one_line_error(tmp_path: Path) -> None:
    db = tmp_path / "notes.db"
    db.write_text("these are my notes, not a zhuoji database " * 20)
    done = replay("--db", str(db), "--table", "1", "--round", "1", "--json")
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    assert f"cannot read {db}: file is not a database" in done.stderr


def test_draw_discard_plays_the_round_out() -> None:
    """guiyang_11's deal with its last discard dropped and `then: draw-discard`: seat 3 then
    discards the 6p it drew and the round ends as in the scenario (荒庄, seat 1 ready)."""
    data = json.loads((SCEN / "guiyang_11_draw_chajiao_chickens.json").read_text(encoding="utf-8"))
    data["actions"] = data["actions"][:3]
    data["then"] = "draw-discard"
    done = replay("-", "--json", stdin=json.dumps(data))
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["outcome"] == "draw"
    assert out["net"] == [-3, 9, -3, -3]
