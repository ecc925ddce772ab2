"""The bot policy: only legal moves, deterministic from its seed, and whole rounds without error."""

from __future__ import annotations

import random

import pytest

from rules.hand import wait_mask
from rules.options import PRESETS
from rules.players import suit_index
from rules.players.bot import NEG, Bot, RowInfo, _suit_value, row_info, shanten, suit_value
from rules.round import Phase, Round, legal_actions
from rules.tiles import parse_tiles, to_counts
from rules.view import SeatView, view_of
from tests.support import parts, volume


def play_bot_round(preset: str, seed: int, check_legal: bool = False) -> Round:
    bots = [Bot(f"{seed}:{s}") for s in range(4)]
    r = Round.deal(PRESETS[preset], seed=seed, dealer=seed % 4)
    while r.phase is not Phase.OVER:
        seat = r.awaiting()[0]
        action = bots[seat].choose(r, seat)
        if check_legal:
            assert action in legal_actions(r, seat)
        r.apply(action)
    return r


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_bot_only_plays_legal_actions(preset: str) -> None:
    outcomes = set()
    for seed in range(60):
        r = play_bot_round(preset, seed, check_legal=True)
        assert r.result is not None
        assert sum(r.result.net) == 0
        outcomes.add(r.result.outcome)
    assert outcomes == {"win", "draw"}


def test_bot_is_deterministic() -> None:
    a = play_bot_round("guiyang", 5)
    b = play_bot_round("guiyang", 5)
    assert [e.to_dict() for e in a.events] == [e.to_dict() for e in b.events]


@pytest.mark.parametrize(
    ("hand", "melds", "expected"),
    [
        ("11122233344455m", 0, -1),  # complete
        ("1112223334445m", 0, 0),  # ready
        ("11223344556677s", 0, -1),  # seven pairs
        ("1122334455667s", 0, 0),  # seven pairs, ready
        ("147m258p369s1357m", 0, 4),  # 345m run, 11m and 77m pairs
        ("11m", 4, -1),
        ("1m", 4, 0),
    ],
)
def test_shanten(hand: str, melds: int, expected: int) -> None:
    assert shanten(to_counts(parse_tiles(hand)), melds) == expected


def test_bot_wins_when_it_can() -> None:
    for seed in range(200):
        r = Round.deal(PRESETS["guiyang"], seed=seed)
        bots = [Bot(s) for s in range(4)]
        while r.phase is not Phase.OVER:
            seat = r.awaiting()[0]
            legal = legal_actions(r, seat)
            action = bots[seat].choose(r, seat)
            if any(a.act == "hu" for a in legal):
                assert action.act == "hu"
            r.apply(action)


@pytest.mark.slow
@pytest.mark.timeout(900)
@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_ten_thousand_bot_rounds(preset: str) -> None:
    """10,000 bot-played rounds of each preset in the soak step (1,000 in an ordinary run:
    `tests.support.volume`), every one settled and zero-sum."""
    bots = [Bot(s) for s in range(4)]
    dealer = streak = 0
    for seed in range(volume(1000, 10_000)):
        r = Round.deal(PRESETS[preset], seed=seed, dealer=dealer, streak=streak)
        while r.phase is not Phase.OVER:
            seat = r.awaiting()[0]
            r.apply(bots[seat].choose(r, seat))
        result = r.result
        assert result is not None
        assert sum(result.net) == 0
        dealer, streak = result.next_dealer, result.next_streak


def _live(r: Round, seat: int, counts: list[int], n_melds: int) -> int:
    """Copies of the hand's waits that `seat` has not seen (own hand, melds, unclaimed discards)."""
    from rules.players.bot_strong import unseen_counts
    from rules.view import view_of

    unseen = unseen_counts(view_of(r, seat))
    mask = wait_mask(counts, n_melds)
    return sum(unseen[k] for k in range(27) if mask >> k & 1)


@pytest.mark.slow
@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_normal_keeps_a_ready_hand_and_declares_with_its_best_wait(preset: str) -> None:
    """Issue 24: over whole rounds of four `normal` bots, a seat on turn that can stay ready by
    some discard never discards into a hand that is not ready (a 杠 or 胡 aside), and a seat that
    may declare 报听/天听 does, with a discard whose waits have the most unseen copies."""
    rounds = volume(150, 2000)
    kept = declared = 0
    for seed in range(rounds):
        bots = [Bot(f"ready:{seed}:{s}") for s in range(4)]
        r = Round.deal(PRESETS[preset], seed=f"ready:{seed}", dealer=seed % 4)
        while r.phase is not Phase.OVER:
            seat = r.awaiting()[0]
            legal = legal_actions(r, seat)
            action = bots[seat].choose(r, seat)
            if r.phase is Phase.TURN and action.act in ("discard", "ready"):
                hand, n = list(r.hands[seat]), len(r.melds[seat])
                after = {k: _after(hand, k) for k in range(27) if hand[k]}
                can_stay = [k for k, h in after.items() if wait_mask(h, n)]
                assert action.tile is not None
                if can_stay and any(a.act == "discard" and a.tile in can_stay for a in legal):
                    assert wait_mask(after[action.tile], n), (preset, seed, hand, action)
                    kept += 1
                declares = [a.tile for a in legal if a.act == "ready" and a.tile is not None]
                if declares:
                    best = max(_live(r, seat, after[k], n) for k in declares)
                    assert action.act == "ready", (preset, seed, hand, declares, action)
                    assert _live(r, seat, after[action.tile], n) == best
                    declared += 1
            r.apply(action)
    assert kept > rounds and (declared > 0 or preset == "chuan")  # the checks ran (chuan: no 报听)


def _after(hand: list[int], k: int) -> list[int]:
    out = list(hand)
    out[k] -= 1
    return out


@pytest.mark.slow
@pytest.mark.timeout(600)  # every row at full volume: seconds on a quiet core
@pytest.mark.parametrize("part", parts(4))
def test_the_shipped_approximate_values_are_the_definition(part: int) -> None:
    """`approx_values.xz` (what the strong bot's playouts read) against `suit_value` (the
    recursion it was built from), on a sample of rows or all of them at full volume (in four
    parts: `tests.support.parts`)."""
    every = suit_index.rows()
    n = volume(3000, len(every))
    whole = every[part :: len(parts(4))]
    for _, row in whole if n >= len(every) else random.Random(3).sample(every, n):
        for need_eye in (False, True):
            assert _suit_value(row, need_eye) == suit_value(row, need_eye), (row, need_eye)
    assert _suit_value((0,) * 9, True) == NEG
    assert _suit_value((4, 4, 4, 3, 0, 0, 0, 0, 0), False) == suit_value(
        (4, 4, 4, 3) + (0,) * 5, False
    )


def _row_info_by_definition(row: tuple[int, ...]) -> RowInfo:
    """`row_info` written out from its field comments, on `suit_value` (the recursion)."""
    removals, keep, lonely, present = [], [], [], []
    for r in range(9):
        if not row[r]:
            removals.append((NEG, NEG))
            keep.append(0)
            continue
        less = list(row)
        less[r] -= 1
        plain, eyed = suit_value(tuple(less), False), suit_value(tuple(less), True)
        removals.append((plain, eyed))
        present.append((r, plain, eyed, 1 - row[r] % 2))
        near = row[max(0, r - 2) : min(8, r + 2) + 1]
        if row[r] == 1 and sum(near) == 1:
            lonely.append(r)
        score = sum(
            (2 if abs(d) == 1 else 1) for d in (-2, -1, 1, 2) if 0 <= r + d <= 8 and row[r + d]
        )
        keep.append(score + (3 if row[r] >= 2 else 0) - (1 if r in (0, 8) else 0))
    return RowInfo(
        suit_value(row, False),
        suit_value(row, True),
        sum(c // 2 for c in row),
        tuple(removals),
        tuple(lonely),
        tuple(keep),
        tuple(present),
    )


def test_row_info_is_its_definition() -> None:
    # `row_info` reads the precomputed values and shares its small tuples between rows (the
    # strong bot's playouts make thousands of rows): the same values as the definition, on
    # rows of every size a hand (or a hand and a draw) can hold.
    rows = [row for _, row in suit_index.rows(15)]
    for row in random.Random(24).sample(rows, volume(3_000, len(rows))):
        assert row_info.__wrapped__(row) == _row_info_by_definition(row), row


def test_tiebreak_scores_read_from_the_key_are_row_tiebreaks() -> None:
    # `_tiebreak_scores` scores a row from its key's shape (ranks held, ranks held twice or
    # more) by tables, not rank by rank: the same scores as `row_tiebreak` of the row, on every
    # shape (all rows of 0-2 per rank) and on sampled rows of 3s and 4s (the key's digits).
    from itertools import product

    from rules.players.bot import _TIEBREAKS, _tiebreak_scores, row_tiebreak

    shapes = list(product(range(3), repeat=9))
    rows = [row for _, row in suit_index.rows(14)]
    for row in shapes + random.Random(7).sample(rows, volume(5_000, len(rows))):
        keep, lonely = row_tiebreak(row)
        plain = tuple(v - 9 if r in lonely else v for r, v in enumerate(keep))
        key = sum(c * suit_index.RANK_UNIT[r] for r, c in enumerate(row))
        _TIEBREAKS.pop(key, None)
        assert _tiebreak_scores(key) == (keep, plain), row


def _greedy_by_definition(
    v: SeatView, hand: list[int], n_melds: int, chickens: frozenset[int]
) -> list[int]:
    """`greedy_discards` as its docstring says it, a discard at a time: the best discards (exact
    shanten), the widest waits when ready, then the least keep score (`row_tiebreak` of the
    discard's row, `CHICKEN_KEEP` more for a chicken, 9 less for a lonely single)."""
    from rules.players import shanten as exact
    from rules.players.bot import CHICKEN_KEEP, _widest_waits, row_tiebreak

    low, cands = exact.best_discards(hand, n_melds)
    if low == 0 and len(cands) > 1:
        cands = _widest_waits(v, hand, n_melds, cands)
    if len(cands) <= 1:
        return cands
    scores = {}
    for k in cands:
        s, r = divmod(k, 9)
        keep, lonely = row_tiebreak(tuple(hand[9 * s : 9 * s + 9]))
        if k in chickens:
            scores[k] = keep[r] + CHICKEN_KEEP
        else:
            scores[k] = keep[r] - (9 if r in lonely else 0)
    least = min(scores.values())
    return [k for k in cands if scores[k] == least]


@pytest.mark.parametrize("preset", ["guiyang", "chuan"])
def test_greedy_discards_is_its_definition(preset: str) -> None:
    # `greedy_discards` breaks ties suit by suit from a cache (`_suit_least`); every turn of
    # seeded bot rounds, under several chicken sets, gets the discards of the definition, on a
    # cold cache and again on a warm one.
    from rules.players.bot import _SUIT_LEAST, greedy_discards

    chicken_sets = [frozenset(), frozenset({18, 16}), frozenset({18}), frozenset({2, 11, 20})]
    turns = []
    for i in range(volume(12, 60)):
        r = Round.deal(PRESETS[preset], seed=f"greedy-def-{i}", dealer=i % 4)
        bots = [Bot(f"greedy-def-{i}-{s}") for s in range(4)]
        while r.phase is not Phase.OVER:
            seat = r.awaiting()[0]
            v = view_of(r, seat)
            if v.on_turn and not v.declared[seat]:
                turns.append(v)
            r.apply(bots[seat].choose_for(v))
    assert len(turns) > 300
    for warm in (False, True):
        if not warm:
            _SUIT_LEAST.clear()
        for v in turns:
            assert v.hand is not None and v.viewer is not None
            hand, n = list(v.hand), len(v.melds[v.viewer])
            for chickens in chicken_sets:
                want = _greedy_by_definition(v, hand, n, chickens)
                assert greedy_discards(v, hand, n, chickens) == want, (hand, n, chickens)
