"""The client's wait analysis (waits, values, 通行证), written in tile notation."""

from __future__ import annotations

import pytest

from client_tui.analysis import options_for, readiness, ready_discards, waits_after, waits_now
from client_tui.view import TableV
from rules.patterns import Meld
from rules.record import DiscardRecord
from rules.round import Round
from rules.tiles import parse_tile, parse_tiles, tile_name, to_counts
from rules.view import MeldSeen, SeatView, view_of

UNSEEN_ALL = [4] * 27


def hand_of(text: str) -> tuple[int, ...]:
    """A hand in notation as counts per kind, as the seat view holds it."""
    return tuple(to_counts(parse_tiles(text)))


def meld(kind: str, tile: str, from_seat: int | None = None, dou: str | None = None) -> Meld:
    """A meld written in notation, as the rules core holds it."""
    return Meld(kind, parse_tile(tile), from_seat, dou)  # type: ignore[arg-type]


def seat_view(hand: str, **kw: object) -> SeatView:
    """Seat 0's view of a dealt round, with its hand (and anything else) set."""
    sv = view_of(Round.deal(options_for(None), seed=1, dealer=0), 0)
    return sv._replace(hand=hand_of(hand), **kw)


@pytest.mark.parametrize(
    ("preset", "hand", "melds", "want"),
    [
        # 平胡 without a 豆: wins only by 自摸.
        ("guiyang", "123456789m23s55p", [], [("1s", "平胡", 1, False), ("4s", "平胡", 1, False)]),
        # The same with a 闷豆: the 豆 is a pass.
        (
            "guiyang",
            "456789m23s55p",
            [meld("an", "1m", None, "men")],
            [("1s", "平胡", 1, True), ("4s", "平胡", 1, True)],
        ),
        # A 碰 is not a pass.
        (
            "guiyang",
            "456789m23s55p",
            [meld("pong", "1m", 2)],
            [("1s", "平胡", 1, False), ("4s", "平胡", 1, False)],
        ),
        # anshun: a 点豆 is no pass; a 转弯豆 is.
        (
            "anshun",
            "456789m23s55p",
            [meld("ming", "1m", 2, "dian")],
            [("1s", "平胡", 1, False), ("4s", "平胡", 1, False)],
        ),
        (
            "anshun",
            "456789m23s55p",
            [meld("bu", "1m", 2, "zhuanwan")],
            [("1s", "平胡", 1, True), ("4s", "平胡", 1, True)],
        ),
        # Above 平胡 a discard win is always allowed.
        # Per wait: 5s makes a 大对子 (any discard), 3s and 6s only a 平胡 (自摸 only).
        (
            "guiyang",
            "111m222m333p444s5s",
            [],
            [("3s", "平胡", 1, False), ("5s", "大对子", 5, True), ("6s", "平胡", 1, False)],
        ),
        ("guiyang", "1122m3344p5566s7s", [], [("7s", "七对", 7, True)]),
        ("chuan", "1122m3344p5566s7s", [], [("7s", "七对", 40, True)]),
        ("guiyang", "11123456789999m", [], None),  # 14 tiles: not a 13-tile hand
        (
            "guiyang",
            "1112345678999p",
            [],
            [
                (f"{r}p", p, v, True)
                for r, p, v in [
                    (1, "清一色", 10),
                    (2, "清一色", 10),
                    (3, "清一色", 10),
                    (4, "清一色", 10),
                    (5, "清一色", 10),
                    (6, "清一色", 10),
                    (7, "清一色", 10),
                    (8, "清一色", 10),
                    (9, "清一色", 10),
                ]
            ],
        ),  # 九莲宝灯 shape: every 筒 wins, as 清一色
        ("guiyang", "13579m2468p1357s", [], None),  # not ready
    ],
)
def test_waits_table(
    preset: str, hand: str, melds: list[Meld], want: list[tuple[str, str, int, bool]] | None
) -> None:
    opts = options_for(TableV(id="t", name="t", preset=preset))
    got = readiness(opts, hand_of(hand), melds, UNSEEN_ALL)
    if want is None:
        assert got is None
        return
    assert got is not None
    assert [(tile_name(w.tile), w.pattern, w.value, w.discard_ok) for w in got.waits] == want
    assert got.zimo_only == (not any(w[3] for w in want))


def test_unseen_counts_every_visible_copy_once() -> None:
    one_s, four_s = parse_tile("1s"), parse_tile("4s")
    r = seat_view(
        "123456789m23s55p",
        melds=((), (MeldSeen("pong", one_s, 0),), (MeldSeen("an", None, None, "men"),), ()),
        # The claimed 1s is in seat 1's 碰, not counted again in seat 0's row.
        discards=(
            (DiscardRecord(one_s, claimed=True),),
            (DiscardRecord(four_s),),
            (DiscardRecord(four_s),),
            (),
        ),
    )
    ready = waits_now(r)
    assert ready is not None
    assert {tile_name(w.tile): w.left for w in ready.waits} == {"1s": 1, "4s": 2}


def test_the_discards_that_keep_the_hand_ready() -> None:
    r = seat_view("123456789m23s55p9s", melds=((), (), (), ()))
    assert ready_discards(r) == {parse_tile("9s")}
    after = waits_after(r, parse_tile("9s"))
    assert after is not None and [tile_name(w.tile) for w in after.waits] == ["1s", "4s"]
    assert waits_after(r, parse_tile("5p")) is None
    assert waits_after(r, parse_tile("7p")) is None  # not in the hand


def test_bad_overrides_fall_back_to_the_preset() -> None:
    table = TableV(id="t", name="t", preset="chuan", options=(("no_such_option", 1),))
    assert options_for(table).patterns.pinghu == 10


def test_the_waits_follow_the_tables_house_options_as_the_rules_core_reads_them() -> None:
    """地龙 (§13.16) is a wait only where the table values it, and a wait's value is capped by
    封顶 (§13.17): the analysis asks the rules core under the table's options."""
    hand = hand_of("1m22m33p44p55s6s")
    melds = [meld("pong", "1m", 2)]
    plain = options_for(TableV(id="1", name="t"))
    assert readiness(plain, hand, melds, UNSEEN_ALL) is None
    dilong = options_for(TableV(id="1", name="t", options=(("patterns", {"dilong": 10}),)))
    got = readiness(dilong, hand, melds, UNSEEN_ALL)
    assert got is not None
    assert [(tile_name(w.tile), w.pattern, w.value, w.discard_ok) for w in got.waits] == [
        ("6s", "地龙", 10, True)
    ]
    capped = options_for(
        TableV(id="1", name="t", options=(("hand_cap", 4), ("patterns", {"dilong": 10})))
    )
    got = readiness(capped, hand, melds, UNSEEN_ALL)
    assert got is not None and [w.value for w in got.waits] == [4]


def test_during_a_round_the_client_reads_the_rules_of_its_seat_view() -> None:
    from client_tui.analysis import rules_for
    from client_tui.view import View
    from rules.options import make_options

    table = TableV(id="1", name="t", options=(("benji", True),))
    opts = make_options("guiyang", {"benji": True, "hand_cap": 20})
    sv = view_of(Round.deal(opts, seed=3), 0)
    view = View(table=table, round=sv)
    assert rules_for(view) is sv.opts
    assert rules_for(View(table=table)) == make_options("guiyang", {"benji": True})
