"""Properties of the round engine over random play, for every preset (hypothesis).

- settlement sums to zero;
- no tile is created or lost at any step, and the hand sizes the round keeps (for views) are
  the hands' sums;
- the same seed and actions give the same events;
- every action in `legal_actions` is accepted, every other one rejected with the round unchanged;
- `step` does not touch its argument.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules.actions import ACT_KINDS, Action, IllegalAction
from rules.options import PRESETS
from rules.round import Phase, Round, legal_actions, step
from rules.tiles import NUM_KINDS
from tests.support import volume

PRESET_NAMES = sorted(PRESETS)


def tiles_accounted(r: Round) -> int:
    """Every tile of the deal: hands, melds, unclaimed discards, the live wall, and a winning
    tile taken from a discard or a robbed 补杠 (it is the winner's but not in `hands`)."""
    total = sum(sum(h) for h in r.hands)
    total += sum(m.size for row in r.melds for m in row)
    total += sum(1 for row in r.discards for d in row if not d.claimed)
    total += r.wall_left
    if r.winners and r.winners[0].how in ("discard", "rob"):
        total += 1
    # Claimed discards sit in melds (counted there) or went to a winner (counted above).
    return total


def fingerprint(r: Round) -> tuple[object, ...]:
    return (
        r.phase,
        r.turn,
        r.front,
        r.back,
        tuple(map(tuple, r.hands)),
        tuple(r.hand_sizes),
        tuple(map(tuple, r.melds)),
        tuple(map(tuple, r.discards)),
        len(r.events),
        tuple(sorted(r.claim_answers)),
        tuple(r.passed),
        tuple(r.declared),
    )


def play_random(r: Round, data: st.DataObject, limit: int = 400) -> list[Action]:
    played: list[Action] = []
    while r.phase is not Phase.OVER and len(played) < limit:
        seat = r.awaiting()[0]
        legal = legal_actions(r, seat)
        action = data.draw(st.sampled_from(legal))
        r.apply(action)
        played.append(action)
        assert tiles_accounted(r) == 108
        assert r.hand_sizes == [sum(h) for h in r.hands]
    return played


@settings(max_examples=60, deadline=None)
@given(preset=st.sampled_from(PRESET_NAMES), seed=st.integers(0, 2**32), data=st.data())
def test_random_rounds_conserve_tiles_and_sum_to_zero(
    preset: str, seed: int, data: st.DataObject
) -> None:
    r = Round.deal(PRESETS[preset], seed=seed, dealer=seed % 4, streak=seed % 3)
    play_random(r, data)
    assert r.phase is Phase.OVER
    assert r.result is not None
    net = r.result.net
    assert sum(net) == 0
    payments = r.result.payments
    for seat in range(4):
        got = sum(p.amount for p in payments if p.payee == seat)
        got -= sum(p.amount for p in payments if p.payer == seat)
        assert got == net[seat]


@settings(max_examples=40, deadline=None)
@given(preset=st.sampled_from(PRESET_NAMES), seed=st.integers(0, 2**32), data=st.data())
def test_same_seed_and_actions_give_same_events(
    preset: str, seed: int, data: st.DataObject
) -> None:
    first = Round.deal(PRESETS[preset], seed=seed)
    actions = play_random(first, data)
    second = Round.deal(PRESETS[preset], seed=seed)
    for a in actions:
        second.apply(a)
    assert [e.to_dict() for e in first.events] == [e.to_dict() for e in second.events]


def _candidate_actions(r: Round, data: st.DataObject) -> list[Action]:
    """Some actions that are probably illegal: any seat, any act, any tile."""
    out = []
    for _ in range(6):
        seat = data.draw(st.integers(0, 3))
        act = data.draw(st.sampled_from(ACT_KINDS))
        tile = data.draw(st.none() | st.integers(0, NUM_KINDS - 1))
        out.append(Action(seat, act, tile))  # type: ignore[arg-type]
    return out


@pytest.mark.slow
@pytest.mark.timeout(600)
@settings(max_examples=volume(10, 40), deadline=None)
@given(preset=st.sampled_from(PRESET_NAMES), seed=st.integers(0, 2**32), data=st.data())
def test_legal_actions_are_exactly_the_accepted_ones(
    preset: str, seed: int, data: st.DataObject
) -> None:
    r = Round.deal(PRESETS[preset], seed=seed)
    steps = 0
    while r.phase is not Phase.OVER and steps < 150:
        steps += 1
        legal = {s: legal_actions(r, s) for s in range(4)}
        for actions in legal.values():
            for a in actions:
                r2, _ = step(r, a)  # accepted
                assert r2 is not r
        before = fingerprint(r)
        for a in _candidate_actions(r, data):
            if a in legal[a.seat] or r._normalize(a) in legal[a.seat]:
                continue
            try:
                r.apply(a)
            except IllegalAction as err:
                assert err.code and err.message
            else:
                raise AssertionError(f"{a} was accepted but is not in legal_actions")
            assert fingerprint(r) == before
        seat = r.awaiting()[0]
        r.apply(data.draw(st.sampled_from(legal[seat])))


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32), data=st.data())
def test_step_is_pure(seed: int, data: st.DataObject) -> None:
    r = Round.deal(PRESETS["guiyang"], seed=seed)
    for _ in range(30):
        if r.phase is Phase.OVER:
            break
        before = fingerprint(r)
        seat = r.awaiting()[0]
        action = data.draw(st.sampled_from(legal_actions(r, seat)))
        r2, events = step(r, action)
        assert fingerprint(r) == before
        assert r2.events[len(r2.events) - len(events) :] == events
        r = r2
