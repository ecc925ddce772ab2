"""What a table counts for `/metrics` (`server.table.tally.Tally`), on its own: each move an
event shows by whom the table already shows, never a pass or an answer no event shows, the
rounds and the resumes, taken once."""

from __future__ import annotations

from rules.events import Claimed, Discarded, Won
from server.table.seating import Seats
from server.table.tally import Tally


def test_a_turns_move_counts_by_who_made_it_and_shows_the_seat() -> None:
    t = Tally()
    t.turn(0, reason=None, bot=False)
    t.turn(1, reason=None, bot=True)
    t.turn(2, reason="disconnected", bot=False)
    t.turn(3, reason="auto", bot=True)  # the server played for it: the reason wins
    assert t.take() == {
        "action:player": 1,
        "action:bot": 1,
        "action:disconnected": 1,
        "action:auto": 1,
    }
    assert all(t.showed(s) for s in range(4))
    t.new_move()
    assert not any(t.showed(s) for s in range(4)) and t.take() == {}


def test_a_windows_claims_count_only_by_their_own_event_and_as_the_table_shows_them() -> None:
    seats: Seats[str] = Seats()
    seats[0].kind, seats[0].member = "human", "a"  # connected
    seats[1].kind, seats[1].bot_here = "bot", True
    seats[2].kind, seats[2].auto, seats[2].member = "human", True, "c"  # 托管
    seats[3].kind, seats[3].quiet_auto = "human", True  # dropped; quiet 托管 is not shown
    won = Won(3, "discard", 5, 0, "pinghu", (), False, (1, 2, 3))
    claimed = Claimed(2, "peng", 5, 0)
    t = Tally()
    t.claims([Discarded(0, 5, False, False), claimed, won], seats)
    assert t.take() == {"action:auto": 1, "action:disconnected": 1}
    assert (t.showed(2), t.showed(3), t.showed(0), t.showed(1)) == (True, True, False, False)
    t.claims([Claimed(0, "peng", 5, 1), Claimed(1, "peng", 6, 0)], seats)
    assert t.take() == {"action:player": 1, "action:bot": 1}
    t.claims([Discarded(1, 7, False, False)], seats)  # nothing claimed: nothing counted
    assert t.take() == {}


def test_rounds_and_resumes_are_counted_until_taken() -> None:
    t = Tally()
    t.round_ended()
    t.round_ended()
    t.resumed("events")
    t.resumed("refused")
    t.resumed("refused")
    assert t.take() == {"round": 2, "resume:events": 1, "resume:refused": 2}
    assert t.take() == {}
