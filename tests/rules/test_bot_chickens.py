"""The bots value the chicken kinds the table's options and the deal's day make (RULES.md §13.3,
§13.12): a 星期鸡 is kept the way a 幺鸡 is, and `8p` is an ordinary tile with 乌骨鸡 off."""

from __future__ import annotations

import pytest

from rules.actions import Action
from rules.chickens import known_chickens
from rules.options import GUIYANG, RuleOptions, make_options
from rules.players.bot import Bot, chicken_kinds
from rules.players.bot_strong import StrongBot, first_chickens
from rules.players.levels import LevelPolicy, policy_for
from rules.tiles import parse_tile
from tests.rules.test_bot_strong import Position

SEEDS = range(1, 13)
# Three lone tiles (3m, 7p, 2s) beside three sets and a pair: any of them can go.
LONE_THREE = Position("678m 234p 567s 99s 3m 7p 2s", wall_left=50, discard_count=2)
# Far from ready with a lone 8p: with 乌骨鸡 on the bots keep it (a 冲锋乌骨鸡 is worth releasing
# only near ready); off, it is the tile a seed lets go.
LONE_8P = Position("8p 5s 79m 13p 57s 12s 22m 3m 4p", wall_left=50, discard_count=1)


def discards(policy: str, p: Position, opts: RuleOptions, weekday: int | None) -> set[str]:
    """The tiles the level's bot discards from the position over `SEEDS`."""
    v = p.view()._replace(opts=opts, weekday=weekday)
    out = set()
    for seed in SEEDS:
        bot: LevelPolicy = policy_for(policy, seed)
        a = bot.choose_for(v)
        assert a.act == "discard" and a.tile is not None
        out.add(f"{a.tile % 9 + 1}{'mps'[a.tile // 9]}")
    return out


def test_known_chickens_follow_the_options_and_the_day() -> None:
    xq = make_options("guiyang", {"xingqiji": True})
    assert known_chickens(GUIYANG, 3) == {parse_tile("1s"): 1, parse_tile("8p"): 2}
    assert known_chickens(xq, None) == known_chickens(GUIYANG, 3)  # no day, no 星期鸡
    assert known_chickens(xq, 3) == {
        parse_tile("1s"): 1,
        parse_tile("8p"): 2,
        parse_tile("3m"): 1,
        parse_tile("3p"): 1,
        parse_tile("3s"): 1,
    }
    # Monday's 1s is the standing 幺鸡: counted once, at its value.
    monday = known_chickens(make_options("guiyang", {"xingqiji": True, "wuguji_value": 1}), 1)
    assert monday == {parse_tile(t): 1 for t in ("1s", "8p", "1m", "1p")}
    assert known_chickens(make_options("guiyang", {"wuguji": False}), None) == {parse_tile("1s"): 1}
    assert known_chickens(make_options("chuan", {"xingqiji": True}), 7) == {
        parse_tile(t): 10 for t in ("7m", "7p", "7s")
    }
    assert known_chickens(make_options("anshun"), 2) == {parse_tile("1s"): 1}


# The strong bot values a discard by what it is worth, and under 满堂鸡 (guiyang's default) a
# 星期鸡 it discards still counts as its chicken unless it is claimed (a 星期鸡 has no 包鸡): it
# keeps one where letting it go loses it, with `discards_are_chickens` off. The simpler bots
# keep chicken kinds whenever the choice is otherwise even.
KEEPERS = {
    "easy": {},
    "normal": {},
    "strong": {"discards_are_chickens": False},
}


@pytest.mark.parametrize("level", sorted(KEEPERS))
def test_a_xingqiji_tile_is_kept_like_a_yaoji(level: str) -> None:
    house = KEEPERS[level]
    xq = make_options("guiyang", {**house, "xingqiji": True})
    plain = discards(level, LONE_THREE, make_options("guiyang", house), 3)
    wednesday = discards(level, LONE_THREE, xq, 3)  # 3m, 3p, 3s are chickens
    sunday = discards(level, LONE_THREE, xq, 7)  # 7m, 7p, 7s
    assert "3m" not in wednesday and wednesday
    assert "7p" not in sunday and sunday
    # Without the day's chickens the bot lets either go on some seed: the option, not the
    # position, keeps them.
    assert {"3m", "7p"} <= plain


@pytest.mark.parametrize("level", ["easy", "normal", "strong"])
def test_with_wuguji_off_8p_is_an_ordinary_tile(level: str) -> None:
    on = discards(level, LONE_8P, GUIYANG, None)
    off = discards(level, LONE_8P, make_options("guiyang", {"wuguji": False}), None)
    assert "8p" not in on
    assert "8p" in off


def test_the_seat_view_carries_the_bots_chicken_kinds() -> None:
    v = LONE_THREE.view()._replace(opts=make_options("guiyang", {"xingqiji": True}), weekday=5)
    assert chicken_kinds(v) == frozenset(parse_tile(t) for t in ("1s", "8p", "5m", "5p", "5s"))
    assert isinstance(Bot(1).choose_for(v), Action)
    assert isinstance(StrongBot(1).choose_for(v), Action)


def test_only_the_rounds_first_chicken_is_a_chongfeng_under_round_scope() -> None:
    """Seat 1 discarded the round's first 1s, then seat 0 the first 8p (seat 1 deals): the 8p is
    seat 0's 冲锋鸡 candidate per kind, and nobody's under `chongfeng_scope round` (§13.4)."""
    p = Position(
        "678m 234p 567s 99s 3m 7p 2s",
        discards=("8p", "1s 9m", "2m 9p", "3m 1p"),
        discard_count=1,
    )
    by_kind = first_chickens(p.view())
    assert by_kind == (frozenset({parse_tile("1s"), parse_tile("8p")}), {parse_tile("8p")})
    rounds = first_chickens(
        p.view()._replace(opts=make_options("guiyang", {"chongfeng_scope": "round"}))
    )
    assert rounds == (by_kind[0], frozenset())
    off = first_chickens(p.view()._replace(opts=make_options("guiyang", {"wuguji": False})))
    assert off == (frozenset({parse_tile("1s")}), frozenset())
