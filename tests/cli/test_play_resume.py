"""`zhuoji play` keeps its matches: the one the player left unfinished is found through the seat
store and offered, and every other match left playing in the file is closed as abandoned (the
whole flow, in a terminal, is in tests/client_tui/test_tui_tmux.py)."""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path

from client_tui.seats import SeatStore
from server.storage import record_sql as st
from server.storage.dbfile import open_database
from zhuoji.cli import build_parser
from zhuoji.play_resume import (
    ask_resume,
    close_unfinished,
    default_play_db,
    find_unfinished,
    play_key,
)

ROW = {
    "name": "zhuoji play",
    "preset": "guiyang",
    "options": {},
    "base": 1,
    "rounds": 8,
    "turn_seconds": 30.0,
    "bank_seconds": 60.0,
    "claim_min_ms": 300,
    "next_round_seconds": 0.0,
    "has_password": False,
    "created_at": 1.0e9,
}


def make_db(db: Path, states: dict[str, str], name: str = "zhuoji play") -> None:
    """Tables by id in these states (a started match has its seats)."""
    conn = open_database(db)
    try:
        conn.execute("BEGIN")
        for table, state in states.items():
            sql, params = st.op_insert_table({**ROW, "id": table, "name": name})
            conn.execute(sql, params)
            seats = [{"name": "me", "kind": "human"}] + [{"name": "b", "kind": "bot"}] * 3
            sql, params = st.op_start_table(table, seats, ["k" * 64, None, None, None], 1.0e9)
            conn.execute(sql, params)
            if state != "playing":
                sql, params = st.op_end_table(table, state, [0, 0, 0, 0], 8, 1.0e9)
                conn.execute(sql, params)
        conn.execute("COMMIT")
    finally:
        conn.close()


def states_of(db: Path) -> dict[str, str]:
    conn = sqlite3.connect(db)
    try:
        return dict(conn.execute("SELECT id, state FROM tables").fetchall())
    finally:
        conn.close()


def test_the_unfinished_match_is_found_and_the_others_are_closed(tmp_path: Path) -> None:
    db = tmp_path / "play.db"
    make_db(db, {"1": "playing", "2": "finished", "3": "playing"})
    make_db(db, {"4": "playing"}, name="周五晚上")  # not one of zhuoji play's: left alone
    seats = SeatStore(tmp_path / "seats.json")
    assert find_unfinished(db, seats) is None, "no seat kept: nothing to offer"
    seats.put(play_key(db), "3", token="t" * 24, seat=0)
    found = find_unfinished(db, seats)
    assert found is not None and found.seat.table == "3" and found.rounds == 8
    assert "0 of 8 rounds played, you +0" in found.describe()
    assert close_unfinished(db, "3", seats) == ["1"]
    assert states_of(db) == {"1": "abandoned", "2": "finished", "3": "playing", "4": "playing"}
    # A new match instead: the kept one is closed and its seat forgotten.
    assert close_unfinished(db, None, seats) == ["3"]
    assert states_of(db)["3"] == "abandoned" and states_of(db)["4"] == "playing"
    assert seats.get(play_key(db), "3") is None and find_unfinished(db, seats) is None


def test_a_seat_whose_match_is_over_is_forgotten(tmp_path: Path) -> None:
    db = tmp_path / "play.db"
    make_db(db, {"1": "finished"})
    seats = SeatStore(tmp_path / "seats.json")
    seats.put(play_key(db), "1", token="t" * 24, seat=0)
    assert find_unfinished(db, seats) is None
    assert seats.get(play_key(db), "1") is None


def test_the_offer_resumes_on_enter_or_y_and_not_on_n(tmp_path: Path) -> None:
    db = tmp_path / "play.db"
    make_db(db, {"1": "playing"})
    seats = SeatStore(tmp_path / "seats.json")
    seats.put(play_key(db), "1", token="t" * 24, seat=0)
    found = find_unfinished(db, seats)
    assert found is not None
    said: list[str] = []
    for answers, want in ((["", "x"], True), (["y"], True), (["maybe", "n"], False)):
        given = iter(answers)
        got = ask_resume(found, db, ask=lambda _, g=given: next(g), say=said.append)
        assert got is want, answers
    assert "Please answer y (resume) or n (a new match)." in said
    assert ask_resume(found, db, interactive=False, say=said.append) is True
    assert said[-1].endswith("zhuoji play --new starts a new match instead)")


def test_play_keeps_its_database_in_the_user_data_dir_and_new_is_a_flag() -> None:
    assert default_play_db().name == "play.db" and "zhuoji" in default_play_db().parts
    parser = build_parser()
    assert parser.parse_args(["play"]).new is False
    assert parser.parse_args(["play", "--new"]).new is True
    assert parser.parse_args(["play"]).db is None


def test_the_offer_is_in_chinese_under_lang_zh(tmp_path: Path) -> None:
    """Issue 23, defect 10: `zhuoji play --lang zh` asks in Chinese (no English line)."""
    db = tmp_path / "play.db"
    make_db(db, {"1": "playing"})
    seats = SeatStore(tmp_path / "seats.json")
    seats.put(play_key(db), "1", token="t" * 24, seat=0)
    found = find_unfinished(db, seats)
    assert found is not None
    said: list[str] = []
    asked: list[str] = []
    answers = iter(["也许", "n"])

    def ask(question: str) -> str:
        asked.append(question)
        return next(answers)

    assert ask_resume(found, db, ask=ask, say=said.append, lang="zh") is False
    assert "已打 0/8 局，你 +0" in said[0] and "1 号桌" in said[0]
    assert asked[0].startswith("继续这场吗？") and "请回答 y（继续）或 n（开新的一场）。" in said
    english = re.compile(r"\b(?:match|rounds|Resume|Please|table)\b")
    assert not any(english.search(line) for line in said + asked), said + asked
