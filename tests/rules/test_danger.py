"""The deal-in estimate (`rules.players.danger`): what an opponent's own discards say of a tile."""

from __future__ import annotations

import pytest

from rules.patterns import Meld
from rules.players.danger import READING, DangerReader
from rules.tiles import parse_tile
from tests.rules.test_bot_strong import Position

HAND = "1m 5m 1p 3s 9s 234p 456s 88p 8s"
# Seat 2 holds a 通行证 (a 明杠 of 7s): it may win a 平胡 on our discard. It threw 4m (three
# ranks from 1m: 筋), 6p, 9p, 8s and 7m; nothing within three ranks of 1p. Seats 1 and 3 have
# one discard each (not yet ready by the table).
SEAT2 = "4m 6p 9p 8s 7m"
ARMED = Position(
    HAND,
    discards=("", "2s", SEAT2, "9s"),
    others_melds=([], [Meld("ming", parse_tile("7s"), 1, "dian")], []),
    wall_left=30,
)
PLAIN = Position(HAND, discards=("", "2s", SEAT2, "9s"), wall_left=30)  # no 通行证


def chance(p: Position, tile: str, reading: bool = True) -> float:
    return DangerReader(p.view(), reading=reading).of(parse_tile(tile)).chance


def test_a_tile_three_ranks_from_one_the_armed_seat_threw_is_read_as_safer() -> None:
    """1m (4m thrown: 筋) and 1p (nothing thrown near it) have the same copies unseen, so the
    rank-and-copies estimate makes them equal; read by the seat's discards 1m is a wait
    READING[0][2] / READING[0][0] (a third) as often. A 4m thrown says nothing of 1p (another
    suit)."""
    assert chance(ARMED, "1m", reading=False) == pytest.approx(chance(ARMED, "1p", reading=False))
    ratio = chance(ARMED, "1m") / chance(ARMED, "1p")
    assert ratio == pytest.approx(READING[0][2] / READING[0][0])
    assert chance(ARMED, "1p") == pytest.approx(READING[0][0] * chance(ARMED, "1p", reading=False))


def test_a_tile_beside_the_seats_discards_is_read_by_the_near_factor() -> None:
    """5m has 4m and 7m of seat 2 within two ranks and no 2m/8m three off: READING[4][1]."""
    assert chance(ARMED, "5m") == pytest.approx(READING[4][1] * chance(ARMED, "5m", reading=False))


def test_only_a_seat_that_may_win_a_pinghu_on_it_is_read_and_not_on_its_own_tile() -> None:
    """Without a 通行证 seat 2 wins on our discard only with a pattern above 平胡 (七对, 大对子:
    not sequence waits), so its discards are not read; nor is a tile it threw itself (8s:
    `OWN_WAIT` already says it)."""
    for tile in ("1m", "1p", "5m", "3s"):
        assert chance(PLAIN, tile) == chance(PLAIN, tile, reading=False)
    assert chance(ARMED, "8s") == chance(ARMED, "8s", reading=False)
    assert chance(ARMED, "8s") < chance(ARMED, "3s")
