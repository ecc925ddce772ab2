"""地龙 / 清地龙 (RULES.md §13.16): the shape, its waits, and readiness."""

from __future__ import annotations

from rules import Meld, make_options, parse_tile, parse_tiles, ready_value, ready_waits, to_counts
from rules.options import Pattern
from rules.patterns import best_pattern, dilong_waits, is_dilong

ON = make_options("guiyang", {"patterns": {"dilong": 10, "qingdilong": 20}})
OFF = make_options("guiyang")
PONG_5M = [Meld("pong", parse_tile("5m"), 0)]


def c(text: str) -> list[int]:
    return to_counts(parse_tiles(text))


def test_the_shape() -> None:
    assert is_dilong(c("5m11m22p33p77s99s"), PONG_5M)
    assert is_dilong(c("5m1111m33p77s99s"), PONG_5M)  # a concealed four is two pairs
    assert not is_dilong(c("5m11m22p33p77s98s"), PONG_5M)
    assert not is_dilong(c("6m11m22p33p77s99s"), PONG_5M)  # not the 碰's fourth tile
    gang = [Meld("bu", parse_tile("5m"), 0, "zhuanwan")]
    assert not is_dilong(c("5m11m22p33p77s99s"), gang)  # a 补杠 is no 碰


def test_waits_and_values() -> None:
    assert [parse_tile("9s")] == dilong_waits(ON, c("5m11m22p33p77s9s"), PONG_5M)
    assert [parse_tile("5m")] == dilong_waits(ON, c("11m22p33p77s99s"), PONG_5M)  # the fourth
    assert dilong_waits(OFF, c("5m11m22p33p77s9s"), PONG_5M) == []
    win = c("5m11m22p33p77s99s")
    assert best_pattern(ON, win, [parse_tile("5m")], PONG_5M) == (Pattern.DILONG, 10)
    assert best_pattern(OFF, win, [parse_tile("5m")], PONG_5M) is None
    one_suit = c("5m11m22m33m77m99m")
    assert best_pattern(ON, one_suit, [parse_tile("5m")], PONG_5M) == (Pattern.QINGDILONG, 20)
    only_dilong = make_options("guiyang", {"patterns": {"dilong": 10}})
    assert best_pattern(only_dilong, one_suit, [parse_tile("5m")], PONG_5M) == (Pattern.DILONG, 10)


def test_a_dilong_wait_is_ready_for_chajiao() -> None:
    hand = c("5m11m22p33p77s9s")
    assert ready_waits(hand, PONG_5M) == []  # no standard or seven-pairs wait
    assert ready_waits(hand, PONG_5M, ON) == [parse_tile("9s")]
    assert ready_value(ON, hand, PONG_5M) == 10
    assert ready_value(OFF, hand, PONG_5M) is None
