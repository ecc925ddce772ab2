"""Hints (`rules.players.hints.top_moves`): the strong bot's three best moves for a seat's view, each with
its value and a reason given as data. Positions are seat 0's view written in tile notation."""

from __future__ import annotations

import pytest

from rules.actions import Action
from rules.options import GUIYANG, make_options
from rules.players.bot_strong import appraise
from rules.players.hints import REASONS, top_moves
from rules.record import DiscardRecord
from rules.round import Phase, Round, legal_actions
from rules.tiles import parse_tile, parse_tiles, to_counts
from rules.view import MeldSeen, SeatView, legal_actions_for, view_of


def view(
    hand: str,
    *,
    claim: str | None = None,
    offered: tuple[str, ...] = (),
    discards: tuple[str, str, str, str] = ("1m 9m", "", "", ""),
    wall_left: int = 40,
) -> SeatView:
    """Seat 0's view: its concealed `hand` (14 tiles on its turn, 13 answering seat 3's
    `claim`), the unclaimed discards per seat, seat 1 the dealer."""
    tiles = parse_tiles(hand)
    rows = [parse_tiles(d) for d in discards]
    if claim is not None:
        rows[3].append(parse_tile(claim))
    return SeatView(
        viewer=0,
        opts=GUIYANG,
        dealer=1,
        streak=0,
        phase=Phase.TURN if claim is None else Phase.CLAIM,
        turn=0 if claim is None else 3,
        wall_left=wall_left,
        hand=tuple(to_counts(tiles)),
        drawn=None,
        hand_sizes=(len(tiles), 13, 13, 13),
        melds=((), (), (), ()),
        discards=tuple(tuple(DiscardRecord(k) for k in row) for row in rows),
        declared=(False, False, False, False),
        claim_tile=None if claim is None else parse_tile(claim),
        claim_from=None if claim is None else 3,
        offered=offered,
    )


def test_three_legal_moves_best_first_each_with_a_known_reason() -> None:
    for seed in range(6):
        r = Round.deal(make_options("guiyang"), seed=seed)
        v = view_of(r, r.turn)
        hints = top_moves(v, n=3, seed=seed)
        assert len(hints) == 3
        assert [h.value for h in hints] == sorted((h.value for h in hints), reverse=True)
        legal = legal_actions(r, r.turn)
        assert all(h.action in legal for h in hints) and all(h.reason in REASONS for h in hints)
        assert len({(h.action.act, h.action.tile) for h in hints}) == 3
        assert top_moves(v, n=3, seed=seed) == hints, "deterministic from the seed"


def test_every_legal_move_is_appraised_once() -> None:
    r = Round.deal(make_options("guiyang"), seed=11)
    v = view_of(r, r.turn)
    got = {(a.action.act, a.action.tile) for a in appraise(v, seed=1)}
    assert got == {(a.act, a.tile) for a in legal_actions_for(v)}
    assert all(0 <= a.ready <= 1 and 0 <= a.win <= a.ready + 1e-9 for a in appraise(v, seed=1))


def test_a_complete_hand_is_told_to_win_and_names_its_pattern() -> None:
    # 11 22 33 44 55 66 7 7 in 条: 七对 (and a 清一色 reading); 自摸 now.
    v = view("1s 1s 2s 2s 3s 3s 4s 4s 5s 5s 6s 6s 7s 7s")
    (best, *_) = top_moves(v, n=3, seed=1)
    assert best.action == Action(0, "hu") and best.reason == "win"
    assert best.params["pattern"] == "清七对"


def test_a_discard_that_leaves_the_hand_ready_counts_its_waits_and_live_copies() -> None:
    # Discarding 9p leaves 123m 456m 789m 23s 55p: ready on 1s and 4s (4 + 3 unseen, one 4s out).
    v = view("1m 2m 3m 4m 5m 6m 7m 8m 9m 2s 3s 5p 5p 9p", discards=("1m 9m", "4s", "", ""))
    hints = {(h.action.act, h.action.tile): h for h in top_moves(v, n=14, seed=2)}
    ready = hints[("discard", parse_tile("9p"))]
    assert ready.reason == "ready_waits"
    assert ready.params["waits"] == 2 and ready.params["live"] == 7
    assert 0 <= int(ready.params["win"]) <= 100
    assert ready == max(hints.values(), key=lambda h: h.value), "the ready discard leads"


def test_a_spare_chicken_kept_or_released_is_the_reason() -> None:
    # 1s stands alone (a spare tile like 9m): keeping it is the point of the other discard.
    # (8p is as spare by the exact shanten, 45678p reading as 456p + 7p or 4p + 678p: the
    # first chicken in sort order is named.)
    v = view("1s 2m 3m 4m 4p 5p 6p 7p 8p 3s 4s 6s 7s 9m")
    hints = {(h.action.act, h.action.tile): h for h in top_moves(v, n=14, seed=3)}
    keep = hints[("discard", parse_tile("9m"))]
    assert keep.reason == "keeps_chicken" and keep.params["tile"] in ("8p", "1s")
    assert 0 <= int(keep.params["ready"]) <= 100
    assert hints[("discard", parse_tile("1s"))].reason == "releases_chicken"


@pytest.mark.parametrize("offered", [("pong",), ("pong", "gang")])
def test_a_claim_is_appraised_against_passing(offered: tuple[str, ...]) -> None:
    v = view("5p 5p 5p 1m 2m 3m 4s 5s 6s 7s 8s 2p 3p", claim="5p", offered=offered)
    hints = top_moves(v, n=3, seed=4)
    acts = {h.action.act: h for h in hints}
    assert set(acts) == {*offered, "pass"}
    assert all(h.reason == h.action.act for h in hints)


def test_nothing_to_do_gives_no_hints() -> None:
    v = view("1m 2m 3m 4m 5m 6m 7m 8m 9m 2s 3s 5p 5p", claim="7s")  # nothing offered
    assert top_moves(v) == []


def test_each_discard_says_how_dangerous_it_is_and_marks_a_tile_a_declared_seat_may_wait_on() -> (
    None
):
    from rules.players.hints import danger_of

    quiet = view("1m 2m 3m 4m 5m 6m 7m 8m 9m 2s 3s 5p 5p 9p", discards=("1m 9m", "", "", ""))
    for h in top_moves(quiet, n=14, seed=2):
        if h.action.act in ("discard", "ready"):
            assert h.params["danger"] in ("safe", "low", "some", "high")
            assert h.params["declared"] == 0  # nobody declared
    # Seat 2 declared 报听 after discarding 4p: 5m (unseen copies) may be its wait, marked so;
    # 4p, which it discarded itself, is not. (Without a 豆 a 报听 seat wins on a discard only
    # above 平胡, so neither is likely: 5m is not "high" for that alone.)
    declared = quiet._replace(
        declared=(False, False, True, False),
        discards=(
            (DiscardRecord(parse_tile("1m")), DiscardRecord(parse_tile("9m"))),
            (),
            (DiscardRecord(parse_tile("4p")),),
            (),
        ),
    )
    assert danger_of(declared, parse_tile("5m"))["declared"] == 1
    assert danger_of(declared, parse_tile("4p"))["declared"] == 0
    assert danger_of(quiet, parse_tile("5m"))["danger"] == "safe"  # nobody near ready yet
    # Seat 2 holds a 豆 (a 平胡 may win on a discard) and has thrown twelve tiles: likely ready.
    # A middle 5m is then dangerous, its own 4p much less, and a dead 9m (all four seen) least.
    armed = quiet._replace(
        melds=((), (), (MeldSeen("ming", parse_tile("7s"), 1, "dian"),), ()),
        discards=(
            (DiscardRecord(parse_tile("1m")), DiscardRecord(parse_tile("9m"))),
            (),
            tuple(
                DiscardRecord(parse_tile(t)) for t in "1p 2p 3p 4p 6p 7p 8p 9p 2s 3s 4s 9m".split()
            ),
            (),
        ),
    )
    assert danger_of(armed, parse_tile("5m")) == {"danger": "high", "declared": 0}
    assert danger_of(armed, parse_tile("4p"))["danger"] in ("safe", "low")
