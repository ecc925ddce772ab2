"""A group's records: one arithmetic (`round_tally`) over the stored events; the derived table the
server keeps round by round equals the one rebuilt from the events; deal scripts whose outcome
is known give exactly the tallies worked out by hand; standings, placements and the rating."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from rules.script import run_script
from server import records, standings
from server.records import Tally, round_tally
from server.storage import tallies
from server.storage.dbfile import open_database
from tests.conftest import SCRIPTS
from tests.server.records_matches import fill, play_match
from tests.support import volume


def tallies_of(script: str) -> list[dict[str, int]]:
    data = json.loads((SCRIPTS / f"{script}.json").read_text(encoding="utf-8"))
    r = run_script(data)
    assert r.result is not None
    result = json.loads(json.dumps({**r.result.to_dict(), **r.revealed().to_dict()}))
    assert result["net"] == data["expected"]["net"]
    return [
        {k: v for k, v in vars(t).items() if v}
        for t in round_tally(r.dealer, r.streak, r.declared, result)
    ]


# Each script's tallies worked out from its explanation: who won how, from whom, what was made.
KNOWN = {
    # Two winners on seat 2's discard after its gang (热炮): one 点炮, two wins; seat 2's 豆.
    "chuan_19_two_winners_repao": [
        {"rounds": 1, "net": -60, "streak": 1},
        {"rounds": 1, "net": 40, "wins": 1, "biggest": 40},
        {"rounds": 1, "net": 10, "dealins": 1, "dou": 1},
        {"rounds": 1, "net": 10, "wins": 1, "biggest": 10},
    ],
    # 荒庄 with three seats ready.
    "chuan_09_huangzhuang_three_ready": [
        {"rounds": 1, "net": 10, "draws": 1, "ready_at_draw": 1, "streak": 1},
        {"rounds": 1, "net": 30, "draws": 1, "ready_at_draw": 1},
        {"rounds": 1, "net": -80, "draws": 1},
        {"rounds": 1, "net": 40, "draws": 1, "ready_at_draw": 1},
    ],
    # Seat 1 declares 报听 and wins by 自摸.
    "guiyang_09_baoting_zimo": [
        {"rounds": 1, "net": -13, "streak": 1},
        {
            "rounds": 1,
            "net": 37,
            "wins": 1,
            "zimo": 1,
            "declared": 1,
            "declared_won": 1,
            "biggest": 37,
        },
        {"rounds": 1, "net": -12},
        {"rounds": 1, "net": -12},
    ],  # fmt: skip
    # Seat 1 made the 冲锋鸡.
    "anshun_03_chongfengji": [
        {"rounds": 1, "net": -4, "streak": 1},
        {"rounds": 1, "net": 12, "wins": 1, "zimo": 1, "chongfeng": 1, "biggest": 6},
        {"rounds": 1, "net": -4},
        {"rounds": 1, "net": -4},
    ],
    # 抢杠: the robbed seat 2 fed the win (its 豆 is made all the same); the hand is 3 shares.
    "chuan_08_qianggang_no_burn": [
        {"rounds": 1, "net": -60, "streak": 2},
        {"rounds": 1, "net": -60},
        {"rounds": 1, "net": 110, "dealins": 1, "dou": 1},
        {"rounds": 1, "net": 10, "wins": 1, "biggest": 30},
    ],
    # 包牌: a void win is no win and feeds nobody.
    "chuan_05_baopai_void_win": [
        {"rounds": 1, "net": 30, "streak": 1},
        {"rounds": 1, "net": 30},
        {"rounds": 1, "net": -90},
        {"rounds": 1, "net": 30},
    ],
    # 责任鸡: seat 0's first 1s was claimed by seat 2, who pays nothing and is paid.
    "guiyang_23_zerenji": [
        {"rounds": 1, "net": -5, "zeren_paid": 1, "streak": 1},
        {"rounds": 1, "net": -3},
        {"rounds": 1, "net": 16, "wins": 1, "zeren_received": 1, "biggest": 5},
        {"rounds": 1, "net": -8, "dealins": 1},
    ],
    # The claimer is not ready: no 责任鸡, it pays 包鸡 instead.
    "guiyang_24_zerenji_claimer_not_ready_baoji": [
        {"rounds": 1, "net": -3, "streak": 1},
        {"rounds": 1, "net": 10, "wins": 1, "zimo": 1, "biggest": 7},
        {"rounds": 1, "net": -5, "baoji_paid": 1},
        {"rounds": 1, "net": -2},
    ],
    # The dealer on its second deal (连庄 1) wins by 自摸: a streak of 2.
    "guiyang_02_zimo_dealer_streak": [
        {"rounds": 1, "net": 15, "wins": 1, "zimo": 1, "biggest": 12, "streak": 2},
        {"rounds": 1, "net": -5},
        {"rounds": 1, "net": -5},
        {"rounds": 1, "net": -5},
    ],
}


@pytest.mark.parametrize("script", sorted(KNOWN))
def test_a_scripted_round_gives_the_tallies_worked_out_by_hand(script: str) -> None:
    assert tallies_of(script) == KNOWN[script]


def test_match_tallies_sums_rounds_and_keeps_the_maxima() -> None:
    draw = {"outcome": "draw", "wins": [], "payments": [], "net": [1, -1, 0, 0],
            "ready": [False] * 4, "chickens": [], "dou": []}  # fmt: skip
    events = [
        {"type": "round_started", "dealer": 1, "streak": 0},
        {"type": "discarded", "seat": 2, "declared": True},
        {"type": "round_ended", "result": draw},
        {"type": "round_started", "dealer": 1, "streak": 1},
        {"type": "round_ended", "result": draw},
        {"type": "round_started", "dealer": 1, "streak": 2},  # cut short: counts nothing
    ]
    t = records.match_tallies(events)
    assert (t[0].net, t[0].rounds, t[1].streak, t[2].declared, t[3].streak) == (2, 2, 2, 1, 0)


@pytest.mark.slow
def test_the_incremental_records_equal_the_rebuilt_ones_over_random_matches(
    tmp_path: Path,
) -> None:
    n = volume(6, 60)
    db = fill(tmp_path / "z.db", n, seed=7, rounds=(1, 3))
    try:
        incremental = tallies.record_rows(db)
        assert incremental, "the rounds stored made records"
        db.execute("BEGIN")
        assert tallies.rebuild(db) == len({r[0] for r in incremental})
        db.execute("COMMIT")
        assert tallies.record_rows(db) == incremental
        # The sums agree with what the tables hold: each seat's net is its match score.
        for tid, scores, ended in db.execute(
            "SELECT id, scores, (SELECT COUNT(*) FROM rounds r WHERE r.table_id = t.id"
            " AND r.result IS NOT NULL) FROM tables t"
        ):
            rows = [r for r in incremental if r[0] == tid]
            assert [r[5 + records.COLUMNS.index("net")] for r in rows] == json.loads(scores)
            assert {r[5] for r in rows} == {ended}
        # Keyed humans and bots have ids; a human without a key has none.
        ids = {r[2] for r in incremental}
        assert any(i and i.startswith("p-") for i in ids) and any(
            i and i.startswith("bot-") for i in ids
        )
    finally:
        db.close()


@pytest.mark.slow
def test_standings_placements_and_ratings_add_up(tmp_path: Path) -> None:
    db = fill(tmp_path / "z.db", volume(8, 40), seed=3, rounds=(1, 2))
    try:
        book = standings.read_book(db)
        finished = [m for m in book.matches if m.places is not None]
        assert finished
        rows = standings.standings(db, book, None, None)
        by_id = {r["player"]: r for r in rows}
        for m in finished:
            changes = [c for c in m.rating_changes if c is not None]
            assert abs(sum(changes)) < 1e-9, "pairwise Elo is zero-sum at each table"
            assert max(abs(c) for c in changes or [0]) <= standings.K
            for s, pid in enumerate(m.players):
                if pid is not None and pid.startswith("bot-"):
                    assert m.rating_changes[s] is None, "bots are not rated"
        # Each player's placements count the finished matches they were in.
        for pid, rec in by_id.items():
            were = sum(m.players.count(pid) for m in finished)  # a bot may hold two seats
            assert sum(rec["placements"]) == rec["matches"] == were
        total = sum(r["net"] for r in rows)
        anon = db.execute("SELECT COALESCE(SUM(net), 0) FROM records WHERE player_id IS NULL")
        assert total + anon.fetchone()[0] == 0, "money moves between seats"
        assert rows == sorted(rows, key=lambda r: (-r["net"], r["name"]))
    finally:
        db.close()


def test_places_share_a_tie_and_elo_moves_the_better_placed_up() -> None:
    assert standings.places([0, 0, 0, 0]) == [1, 1, 1, 1]
    assert standings.places([5, 5, -10, 0]) == [1, 1, 4, 3]
    up, down = standings.elo_changes([1600.0, 1400.0], [2, 1])
    assert up < 0 < down and abs(up + down) < 1e-9
    assert down > 16, "beating a stronger player is worth more than an even game"


def test_a_period_counts_only_the_matches_that_ended_in_it(tmp_path: Path) -> None:
    db = open_database(tmp_path / "z.db")
    try:
        rng = random.Random(5)
        early = play_match(db, "1", rng, rounds=1, now=1_000_000.0)
        play_match(db, "2", rng, rounds=1, now=early + 10 * 86400)
        book = standings.read_book(db)
        since = early + 86400
        rows = standings.standings(db, book, since, None)
        assert sum(r["rounds"] for r in rows if r["player"]) > 0
        players_2 = {p for p in book.match("2").players if p}  # type: ignore[union-attr]
        assert {r["player"] for r in rows} <= players_2
    finally:
        db.close()


def test_a_player_without_records_gets_an_empty_record_not_an_error(tmp_path: Path) -> None:
    db = open_database(tmp_path / "z.db")
    try:
        frame = standings.answer(db, player="p-0123456789ab")
    finally:
        db.close()
    from protocol.messages import SERVER_ADAPTER

    model = SERVER_ADAPTER.validate_python(frame)
    assert model.me is not None and model.me.rounds == 0  # type: ignore[union-attr]
    assert frame["standings"] == [] and frame["pages"] == 1


def test_tally_fields_are_the_records_columns() -> None:
    assert records.COLUMNS[:2] == ("rounds", "net")
    assert set(Tally.MAXED) <= set(records.COLUMNS)


def test_a_version_2_database_gets_its_records_from_the_stored_events(tmp_path: Path) -> None:
    db = fill(tmp_path / "z.db", 3, seed=11, rounds=(1, 2))
    before = tallies.record_rows(db)
    db.executescript("DROP TABLE records; DROP TABLE players; PRAGMA user_version=2;")
    db.close()
    again = open_database(tmp_path / "z.db")
    try:
        assert again.execute("PRAGMA user_version").fetchone()[0] == 3
        assert tallies.record_rows(again) == before
        bots = again.execute("SELECT id FROM players WHERE kind='bot' ORDER BY id").fetchall()
        assert [b[0] for b in bots] == ["bot-easy", "bot-normal", "bot-strong"]
    finally:
        again.close()


def test_a_pruned_match_takes_its_records_and_its_place_in_the_standings(tmp_path: Path) -> None:
    from server.storage.maintenance import prune

    db = fill(tmp_path / "z.db", 4, seed=9, rounds=(1, 2), now=1e9)
    try:
        ended = db.execute(
            "SELECT id, ended_at FROM tables WHERE state IN ('finished', 'abandoned')"
            " ORDER BY ended_at"
        ).fetchall()
        first, cutoff = ended[0][0], ended[0][1] + 0.5
        assert db.execute("SELECT COUNT(*) FROM records WHERE table_id=?", (first,)).fetchone()[0]
        before = standings.read_book(db)
        assert before.match(first) is not None
        db.isolation_level = None
        report = prune(db, cutoff)
        assert [t["id"] for t in report.to_dict()["tables"]] == [first]
        assert (
            db.execute("SELECT COUNT(*) FROM records WHERE table_id=?", (first,)).fetchone()[0] == 0
        )
        after = standings.read_book(db)
        assert after.match(first) is None and len(after.matches) == len(before.matches) - 1
        rebuilt = tallies.record_rows(db)
        db.execute("BEGIN")
        tallies.rebuild(db)
        db.execute("COMMIT")
        assert tallies.record_rows(db) == rebuilt, "what is left is what the events give"
    finally:
        db.close()


def test_a_restarted_match_keeps_its_seats_players_and_its_records(tmp_path: Path) -> None:
    """The seat's player id is stored with the seats and restored with them: the rounds after a
    restart count for the same player, and the records still equal the rebuilt ones."""
    from protocol.messages import AddBot, Auto, Start
    from server.storage.writer import Store
    from server.table.core import TableCore
    from server.table.restore import restore_core
    from server.table.settings import Timing
    from tests.server.records_matches import apply, member, plain_settings

    path = tmp_path / "z.db"
    db = open_database(path)
    s = plain_settings(rounds=3)
    core: TableCore[str] = TableCore("5", s, seed="restart", timing=Timing(auto_level="easy"))
    host, now = member("host", "p-00000000beef"), 1e9
    apply(db, core.create(host, "阿明", now))
    for _ in range(3):
        apply(db, core.command(host, AddBot(level="easy"), now))
    while (at := core.next_wakeup()) is not None and at <= now:
        apply(db, core.tick(at))
    apply(db, core.command(host, Auto(on=True), now))
    apply(db, core.command(host, Start(), now))
    while core.round_no < 2:  # the first round played, the second begun: the server stops
        now = max(now, core.next_wakeup() or now)
        apply(db, core.tick(now))
    db.close()
    store = Store(path)
    try:
        (stored,) = store.unfinished()
    finally:
        store.close()
    again = restore_core(stored, s, timing=Timing(auto_level="easy", disconnect_grace=1.0), now=now)
    assert again.seats[0].player == "p-00000000beef"
    db = open_database(path)
    try:
        apply(db, again.resumed(now))
        while again.state == "playing":
            now = max(now, again.next_wakeup() or now)
            apply(db, again.tick(now))
        rows = tallies.record_rows(db)
        assert rows[0][2] == "p-00000000beef" and rows[0][5] == 3
        db.execute("BEGIN")
        tallies.rebuild(db)
        db.execute("COMMIT")
        assert tallies.record_rows(db) == rows
    finally:
        db.close()


def test_the_kept_book_grows_by_the_matches_that_end_and_equals_a_fresh_read(
    tmp_path: Path,
) -> None:
    path = tmp_path / "z.db"
    db = fill(path, 3, seed=13, rounds=(1, 2), now=1e9)
    rng = random.Random(2)
    try:
        standings.read_book(db)
        for i in range(4, 7):  # more matches end: the kept book adds them
            play_match(db, str(i), rng, rounds=1, now=2e9 + i * 1000)
            grown = standings.read_book(db)
            standings._BOOKS.clear()
            fresh = standings.read_book(db)
            assert [m.table for m in grown.matches] == [m.table for m in fresh.matches]
            assert grown.ratings == fresh.ratings
            assert [m.rating_changes for m in grown.matches] == [
                m.rating_changes for m in fresh.matches
            ]
        assert len(fresh.matches) == 6
    finally:
        db.close()


def test_a_match_whose_stored_events_cannot_be_read_is_left_out_of_the_upgrade_not_fatal(
    tmp_path: Path,
) -> None:
    """Records are derived: one odd stored settlement must not stop a v2 file from upgrading."""
    db = fill(tmp_path / "z.db", 3, seed=11, rounds=(1, 2))
    broken = db.execute("SELECT table_id FROM records ORDER BY table_id LIMIT 1").fetchone()[0]
    db.execute(
        "UPDATE events SET data = json_remove(data, '$.result.net')"
        " WHERE table_id = ? AND type = 'round_ended'",
        (broken,),
    )
    db.executescript("DROP TABLE records; DROP TABLE players; PRAGMA user_version=2;")
    db.close()
    again = open_database(tmp_path / "z.db")
    try:
        assert again.execute("PRAGMA user_version").fetchone()[0] == 3
        kept = {row[0] for row in tallies.record_rows(again)}
        assert broken not in kept and len(kept) == 2
    finally:
        again.close()
