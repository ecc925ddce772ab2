"""The table's small values (`server.table.clock`, `window`, `between`, `fanout`, `seating`),
each on its own on a fake clock: none reads a clock or calls back into the core."""

from __future__ import annotations

import math

from server.table.clock import Idleness, SeatClock

# ----- a seat's clock -----


def test_a_prompts_clock_starts_when_it_goes_out_not_when_it_is_made() -> None:
    c = SeatClock()
    c.new_round(bank=10.0)
    assert c.prompt(seq=5) is True and c.prompt(seq=5) is False  # the same decision again
    assert c.waiting and c.deadline(turn=3.0) is None
    assert c.deadline(turn=3.0, sending_at=50.0) == 63.0  # what its frame says
    c.started(seq=4, now=60.0)  # an older prompt's stamp: not this one
    assert c.waiting
    c.started(seq=5, now=100.0)
    assert c.deadline(turn=3.0) == 113.0


def test_the_bank_pays_only_for_time_beyond_the_turn_of_the_decision_prompted() -> None:
    c = SeatClock()
    c.new_round(bank=10.0)
    c.prompt(seq=5)
    c.started(seq=5, now=100.0)
    c.spend(answered=5, now=102.0, turn=3.0)
    assert c.bank == 10.0  # within the turn
    c.spend(answered=4, now=120.0, turn=3.0)
    assert c.bank == 10.0  # not the decision it was prompted for
    c.spend(answered=5, now=106.5, turn=3.0)
    assert c.bank == 6.5
    c.spend(answered=5, now=200.0, turn=3.0)
    assert c.bank == 0.0  # never below nothing
    c.new_round(bank=10.0)
    assert (c.bank, c.prompted_seq, c.answered_seq) == (10.0, -1, -1)


def test_a_shift_moves_a_running_clock_and_leaves_a_waiting_one() -> None:
    c = SeatClock()
    c.prompt(seq=1)
    c.shift(30.0)
    assert math.isinf(c.prompt_at)
    c.started(seq=1, now=10.0)
    c.shift(30.0)
    assert c.prompt_at == 40.0


# ----- idleness -----


def test_an_empty_table_pauses_then_closes_and_someone_back_wakes_it() -> None:
    idle = Idleness(pause_after=600.0, close_after=7200.0)
    idle.update(anyone=True, now=0.0)
    assert idle.wakeups() == [] and idle.seconds(5.0) is None
    idle.update(anyone=False, now=100.0)
    idle.update(anyone=False, now=150.0)  # still empty: it counts from the first
    assert idle.empty_since == 100.0 and idle.seconds(160.0) == 60.0
    assert sorted(idle.wakeups()) == [700.0, 7300.0]
    assert idle.check(699.0) == "running" and not idle.paused
    assert idle.check(700.0) == "paused" and idle.paused_at == 700.0
    assert idle.wakeups() == [7300.0]  # paused: only its closing time
    assert idle.wake(1000.0) == 300.0  # every clock moves on by the pause
    assert idle.empty_since is None and not idle.paused
    idle.update(anyone=False, now=2000.0)
    assert idle.check(9200.0) == "close" and not idle.paused


def test_a_limit_of_zero_never_comes() -> None:
    idle = Idleness(pause_after=0.0, close_after=0.0)
    idle.update(anyone=False, now=0.0)
    assert idle.wakeups() == [] and idle.check(1e9) == "running"
    assert idle.wake(5.0) == 0.0
