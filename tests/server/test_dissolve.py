"""The 解散 vote as a value on a fake clock: everyone connected must agree within 30 s, one
refusal ends it, bots and players away do not block, one proposal per player per 5 minutes."""

from __future__ import annotations

from server.dissolve import COOLDOWN, WINDOW, Dissolving


def test_it_passes_when_every_connected_human_agrees_in_time() -> None:
    d = Dissolving()
    assert d.propose(1, "p-a", voters={0, 1, 3}, now=100.0) is None
    assert d.next_wakeup() == 100.0 + WINDOW
    assert d.answer(0, True, now=110.0) is None, "seat 3 has not answered"
    assert d.answer(2, True, now=111.0) is None, "seat 2 (a bot) has no say"
    assert d.answer(3, True, now=129.9) == "passed"
    assert d.vote is None and d.next_wakeup() is None


def test_one_refusal_ends_it_and_silence_lets_it_expire() -> None:
    d = Dissolving()
    d.propose(0, "p-a", voters={0, 1}, now=0.0)
    assert d.answer(1, False, now=1.0) == "refused" and d.vote is None
    d.propose(1, "p-b", voters={0, 1}, now=2.0)
    assert d.tick(2.0 + WINDOW - 0.01) is None
    assert d.tick(2.0 + WINDOW) == "expired" and d.vote is None
    assert d.answer(0, True, now=40.0) is None, "a late answer decides nothing"


def test_a_seat_that_goes_away_does_not_block_and_a_lone_human_decides_alone() -> None:
    d = Dissolving()
    d.propose(0, None, voters={0, 2}, now=0.0)
    assert d.seat_gone(2) == "passed"
    d2 = Dissolving()
    assert d2.propose(3, "p-c", voters={3}, now=0.0) is None and d2.outcome() == "passed"


def test_one_proposal_per_player_per_five_minutes_and_one_vote_at_a_time() -> None:
    d = Dissolving()
    d.propose(0, "p-a", voters={0, 1}, now=0.0)
    assert d.propose(1, "p-b", voters={0, 1}, now=1.0) == (
        "vote_in_progress",
        "a vote to end the match is already open",
    )
    d.answer(1, False, now=2.0)
    code, message = d.propose(0, "p-a", voters={0, 1}, now=10.0) or ("", "")
    assert code == "vote_too_soon" and "again in 290 s" in message
    assert d.propose(1, "p-b", voters={0, 1}, now=11.0) is None, "another player may"
    d.answer(0, False, now=12.0)
    assert d.propose(0, "p-a", voters={0, 1}, now=COOLDOWN) is None
