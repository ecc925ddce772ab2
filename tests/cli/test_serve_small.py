"""Small things a host meets at start (issue 20 item 9): `--print-config` writes `--db` so that
the file means the same database wherever it is read from, `--db ""` is refused in one line,
start-up refusals are JSON under `--log-format json`, and no JSON log line says `event: null`."""

from __future__ import annotations

import io
import json
import logging
from pathlib import Path

import pytest

from server.config import load_config
from server.logs import configure
from zhuoji.cli import main


def test_print_config_writes_a_relative_db_as_the_path_it_meant(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["serve", "--db", "data/z.db", "--print-config"]) == 0
    text = capsys.readouterr().out
    elsewhere = tmp_path / "etc" / "zhuoji"
    elsewhere.mkdir(parents=True)
    (elsewhere / "server.toml").write_text(text, encoding="utf-8")
    # Read from its own folder, the file still names the database the flag meant.
    assert Path(load_config(elsewhere / "server.toml").server.db) == tmp_path / "data" / "z.db"


def test_an_empty_db_is_refused_in_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["serve", "--db", "", "--port", "0"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["zhuoji serve: --db: an empty path; name the database file"]


def test_start_up_refusals_are_json_under_log_format_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "z.db"
    db.mkdir()
    code = main(["serve", "--db", str(db), "--port", "0", "--log-format", "json"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 1 and len(err) == 1
    line = json.loads(err[0])
    assert line["event"] == "start_refused" and line["level"] == "error" and line["exit"] == 1
    assert line["msg"] == f"zhuoji serve: {db} is a directory, not a database file"


def test_no_json_log_line_says_event_null() -> None:
    out = io.StringIO()
    configure(level="info", fmt="json", stream=out)
    logging.getLogger("zhuoji.test").info("a line with no event")
    logging.getLogger("zhuoji.test").info("a table", extra={"event": "table_created"})
    events = [json.loads(line)["event"] for line in out.getvalue().splitlines()]
    assert events == ["message", "table_created"]
