"""The round's books (`server.table.rounds`): the fair deal, the numbered actions and the
records of a deal, a move and an end, made without the core."""

from __future__ import annotations

from rules.actions import Action
from rules.fairdeal import commitment
from rules.options import make_options
from rules.round import Phase, Round
from rules.tiles import tile_name
from server.storage.records import ActionPlayed, RoundDealt, RoundEnded, RoundTallied
from server.table.rounds import RoundBook, weekday_of

SALT = "0f" * 16


def _round() -> Round:
    return Round.deal(make_options("guiyang", {}), seed=5, dealer=1, streak=2, base=3, weekday=4)


def test_a_deal_commits_to_its_order_and_its_record_holds_the_wall_and_the_commitment() -> None:
    r = _round()
    book = RoundBook("t1")
    book.actions, book.ended = 9, True  # the round before
    book.deal(r, SALT)
    assert (book.actions, book.ended, book.salt) == (0, False, SALT)
    assert book.commitment == commitment(r.deal_order, SALT)
    dealt = book.dealt(r, 2, "seed-2", [["1m"]], wall=1000.0)
    assert dealt == RoundDealt(
        "t1",
        2,
        "seed-2",
        1,
        2,
        3,
        [["1m"]],
        [tile_name(k) for k in r.wall],
        1000.0,
        SALT,
        book.commitment,
        4,
    )


def test_a_deal_event_says_the_round_and_commitment_and_an_end_reveals_the_deal() -> None:
    r = _round()
    book = RoundBook("t1")
    book.deal(r, SALT)
    started = book.context({"type": "round_started"}, r, round_no=2, base=3, scores=[1, 2, 3, 4])
    assert started == {
        "type": "round_started",
        "round_no": 2,
        "base": 3,
        "commitment": book.commitment,
    }
    ended = book.context({"type": "round_ended"}, r, round_no=2, base=3, scores=[5, -5, 0, 0])
    assert ended["scores"] == [5, -5, 0, 0]
    assert ended["deal"] == {"order": [tile_name(k) for k in r.deal_order], "salt": SALT}
    other = book.context({"type": "discarded"}, r, round_no=2, base=3, scores=[0] * 4)
    assert other == {"type": "discarded"}


def test_moves_are_numbered_in_the_round_and_a_claims_tile_is_not_stored() -> None:
    r = _round()
    book = RoundBook("t1")
    book.deal(r, SALT)
    assert r.phase is Phase.TURN
    tile = next(k for k, n in enumerate(r.hands[r.turn]) if n)  # a tile it holds
    turn = book.played(2, Action(r.turn, "discard", tile), "turn", False, wall=5.0)
    claim = book.played(2, Action(0, "pong", tile), "claim", True, wall=6.0)
    assert turn == ActionPlayed("t1", 2, 0, r.turn, "discard", tile_name(tile), "turn", False, 5.0)
    assert claim == ActionPlayed("t1", 2, 1, 0, "pong", None, "claim", True, 6.0)
    assert book.actions == 2


def test_an_end_is_handled_once_and_records_the_result_and_the_tally() -> None:
    r = _round()
    book = RoundBook("t1")
    book.deal(r, SALT)
    assert book.end_handled() is True and book.end_handled() is False
    result = {"net": [3, -1, -1, -1]}
    seats = [{"name": "a", "kind": "human"}] * 4
    ended, tallied = book.over(r, 2, result, [3, -1, -1, -1], seats, wall=7.0)
    assert ended == RoundEnded("t1", 2, result, [3, -1, -1, -1], [3, -1, -1, -1], 7.0)
    assert tallied == RoundTallied("t1", 1, 2, list(r.declared), result, seats, 7.0)


def test_the_weekday_is_the_local_date_of_the_wall_time() -> None:
    import time

    noon = time.mktime((2026, 12, 2, 12, 0, 0, 0, 0, -1))  # a Wednesday, local time
    assert weekday_of(noon) == 3
