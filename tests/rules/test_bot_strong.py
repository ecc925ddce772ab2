"""The strong bot: "what would you discard" positions from 捉鸡 strategy, and whole rounds.

Each position is a seat's view (its hand, melds, the wall left) and the public table (every
discard and meld); the strong bot's choice is asserted. The positions are chosen so that the
right move follows from one strategic point, named in the test id.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest

from rules.actions import Action
from rules.bot import SeatView
from rules.bot_strong import StrongBot, TableView, unseen_counts
from rules.options import GUIYANG, PRESETS
from rules.patterns import Meld
from rules.round import Phase, Round, legal_actions
from rules.tiles import parse_tile, parse_tiles, to_counts


@dataclass
class Position:
    hand: str  # the seat's concealed tiles (14 on turn, 13 when answering a discard)
    melds: list[Meld] = field(default_factory=list)
    wall_left: int = 40
    discards: tuple[str, str, str, str] = ("", "", "", "")  # unclaimed discards per seat
    others_melds: tuple[list[Meld], list[Meld], list[Meld]] = ([], [], [])
    claim: str | None = None  # the discard being answered (seat 3 discarded it)
    offered: tuple[str, ...] = ()
    discard_count: int = 4
    first_discarded: str = ""  # chicken kinds already discarded once (e.g. "1s")
    declared: tuple[bool, bool, bool, bool] = (False, False, False, False)
    any_claim: bool = True

    def views(self) -> tuple[SeatView, TableView]:
        on_turn = self.claim is None
        size = len(parse_tiles(self.hand)) + 3 * len(self.melds)
        assert size == (14 if on_turn else 13), f"{self.hand}: {size} tiles"
        v = SeatView(
            seat=0, opts=GUIYANG, on_turn=on_turn, hand=to_counts(parse_tiles(self.hand)),
            melds=list(self.melds), drawn=None, after_pong=False, declared=self.declared[0],
            discard_count=self.discard_count, any_claim=self.any_claim, passed=False,
            wall_left=self.wall_left,
            claim_tile=parse_tile(self.claim) if self.claim else None, offered=self.offered,
        )  # fmt: skip
        firsts = frozenset(parse_tiles(self.first_discarded))
        table = TableView(
            discards=tuple(tuple(parse_tiles(d)) for d in self.discards),
            melds=(tuple(self.melds), *(tuple(m) for m in self.others_melds)),
            declared=self.declared,
            first_discarded=firsts,
            first_discarder=tuple((k, 1) for k in sorted(firsts)),
            dealer=1,
        )
        return v, table


def decide(p: Position, seed: int = 1) -> Action:
    v, table = p.views()
    return StrongBot(seed).choose_for(v, table)


def discard(tile: str) -> Action:
    return Action(0, "discard", parse_tile(tile))


POSITIONS: dict[str, tuple[Position, Action]] = {
    # Keep chickens early: far from ready (three steps), an isolated 幺鸡 is not released: it
    # would be exposed to 包鸡 and a 碰 (责任鸡) while the hand is unlikely to be ready.
    "keep the first 幺鸡 early": (
        Position("1s 9m 24m 57p 57s 79s 22p 6m 1p", wall_left=50, discard_count=1),
        discard("1s"),
    ),
    "keep 乌骨鸡 early": (
        Position("8p 9m 24m 13p 57s 79s 22s 6m 4p", wall_left=50, discard_count=1),
        discard("8p"),
    ),
    # 报听 with the first discard when it leaves the hand ready: +10 on any win.
    "declare 报听 when the first discard leaves the hand ready": (
        Position("123p 456p 789s 11s 34m 9p", discard_count=0, any_claim=False, wall_left=52),
        Action(0, "ready", parse_tile("9p")),
    ),
    # Five pairs: a 碰 would end the seven-pairs hand (no melds) for a worse standard one.
    "no 碰 that breaks a seven-pairs hand": (
        Position("11m 33m 55p 77p 99s 2s 4s 6p", claim="1m", offered=("pong",), wall_left=40),
        Action(0, "pass"),
    ),
    # Ready either way (a single wait on 9m or on 1s): the first 幺鸡 is released while it is
    # still a 冲锋鸡 (3 units from each player instead of 1, the hand being ready).
    "release the first 幺鸡 when ready": (
        Position("234m 567p 456s 789s 1s 9m", wall_left=30),
        discard("1s"),
    ),
    # A 碰 that would turn the two-sided 3m/6m wait into a single wait: pass.
    "no 碰 that turns a two-sided wait into a single wait": (
        Position("123p 456s 789s 45m 66p", claim="6p", offered=("pong",)),
        Action(0, "pass"),
    ),
    # A double-pair wait (双碰) on a 大对子: win on the discard, do not 碰 it.
    "a double-pair wait wins rather than pongs": (
        Position("111m 222p 333s 55p 99s", claim="5p", offered=("hu", "pong")),
        Action(0, "hu"),
    ),
    # Two single waits, one dead (three 4m on the table): wait on the live 7m.
    "count live tiles: wait on the live single": (
        Position(
            "123p 456p 789s 111s 4m 7m",
            wall_left=30,
            discards=("", "4m", "4m", "4m"),
        ),  # fmt: skip
        discard("4m"),
    ),
    # Ready after the discard: 9p leaves a 2m/5m wait, 2m leaves nothing.
    "discard to the ready wait": (
        Position("123p 456p 789s 11s 34m 9p", wall_left=30),
        discard("9p"),
    ),
    # The 碰 brings the hand to ready: take it.
    "pong to reach ready": (
        Position("234m 567p 55s 99p 13m 8s", claim="9p", offered=("pong",), wall_left=30),
        Action(0, "pong"),
    ),
    # 3m-6m (two kinds) looks better than a single 9s, but both kinds are nearly dead.
    "count live tiles: a dead two-kind wait loses to a live single": (
        Position(
            "123p 456p 789p 3456m 9s",
            wall_left=30,
            discards=("", "3m6m", "3m6m", "3m6m"),
        ),  # fmt: skip
        discard("3m"),
    ),
    # A 平胡 wins on a discard with a 豆 as its pass (通行证): take it.
    "a 平胡 with a 豆 wins on the discard": (
        Position(
            "234m 567p 78s 99s",
            melds=[Meld("an", parse_tile("5m"), None, "men")],
            claim="6s",
            offered=("hu",),
        ),  # fmt: skip
        Action(0, "hu"),
    ),
    # Three of a kind apart from the rest: 明杠 it (a 豆, the pass, a replacement draw).
    "明杠 three of a kind that the hand does not need otherwise": (
        Position("555m 234p 678s 99s 13p", claim="5m", offered=("pong", "gang")),
        Action(0, "gang"),
    ),
    # A 暗杠 that keeps the hand where it is: a 豆 and the 通行证.
    "concealed gang that keeps the hand": (
        Position("5555m 234p 678s 99s 13p", wall_left=30),
        Action(0, "gang", parse_tile("5m")),
    ),
}


# For these the asserted action is the one the bot must NOT take.
AVOID = {"keep the first 幺鸡 early", "keep 乌骨鸡 early"}


@pytest.mark.parametrize("name", list(POSITIONS))
def test_what_would_you_discard(name: str) -> None:
    position, expected = POSITIONS[name]
    got = decide(position)
    if name in AVOID:  # the point is what is kept: which other tile goes is secondary
        assert got.act == "discard" and got != expected
    elif name.startswith("count live tiles: a dead two-kind"):  # 3m or 6m: the same wait
        assert got in (discard("3m"), discard("6m"))
    else:
        assert got == expected


def test_unseen_tiles_count_only_what_the_seat_sees() -> None:
    p = Position(
        "123p 456p 789s 111s 4m 7m", discards=("9m", "4m", "4m", "4m"),
        others_melds=([Meld("pong", parse_tile("5s"), 0)], [], []),
    )  # fmt: skip
    v, table = p.views()
    unseen = unseen_counts(v, table)
    assert unseen[parse_tile("4m")] == 0  # one in hand, three discarded
    assert unseen[parse_tile("7m")] == 3
    assert unseen[parse_tile("5s")] == 1
    assert unseen[parse_tile("1s")] == 1
    assert unseen[parse_tile("9m")] == 3
    assert sum(unseen) == 108 - 14 - 4 - 3


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_strong_plays_legal_moves_from_its_view_only(preset: str) -> None:
    for seed in range(3):
        bots = [StrongBot(f"{seed}:{s}") for s in range(4)]
        twins = [StrongBot(f"{seed}:{s}") for s in range(4)]
        r = Round.deal(PRESETS[preset], seed=seed, dealer=seed % 4)
        while r.phase is not Phase.OVER:
            seat = r.awaiting()[0]
            action = bots[seat].choose(r, seat)
            assert action in legal_actions(r, seat)
            # the same decision from the seat's view and the public table alone
            assert twins[seat].choose_for(SeatView.of(r, seat), TableView.of(r)) == action
            r.apply(action)
        assert r.result is not None and sum(r.result.net) == 0
