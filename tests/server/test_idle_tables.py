"""Idle tables, and the host's close and kick, on the table core's fake clock (no waiting).

A playing table nobody is connected to goes on for `idle_pause`, then pauses (nothing is played,
no clock runs, its only deadline is its closing) until someone comes back; after `idle_close`
with nobody it is closed as abandoned. A waiting table goes when its creator leaves.
"""

from __future__ import annotations

import pytest

from protocol.messages import Watch
from server.credentials import token_key
from server.storage.records import ActionPlayed, TableEnded, TokensChanged
from server.table.settings import Timing
from tests.server.test_table_core import Shell, host_and_bots

PAUSE, CLOSE = 600.0, 7200.0


def _idle_shell() -> Shell:
    # Many rounds of bots at a slow pace: the match is still on when the table pauses.
    timing = Timing(idle_pause=PAUSE, idle_close=CLOSE, disconnect_grace=20.0, bot_delay=BOT)
    shell = Shell(timing, rounds=64)
    host_and_bots(shell)
    return shell


BOT = 10.0  # seconds a bot waits before each move


def _actions(shell: Shell) -> int:
    return len(shell.stored(ActionPlayed))


def test_a_table_nobody_is_at_plays_on_then_pauses_and_wakes_with_its_clocks_as_they_were() -> None:
    shell = _idle_shell()
    token = shell.of("host", "joined")[0]["token"]
    left_at = shell.now
    shell.input(shell.core.gone("host", shell.now, left=False))
    assert shell.core.idle.empty_since == left_at
    # Before the pause the match goes on: the seat is played after its grace, the bots move.
    shell.run_until(left_at + PAUSE - BOT)
    due = shell.core.next_wakeup()  # the next move, a bot's
    assert due is not None and due <= left_at + PAUSE
    shell.run_until(left_at + PAUSE - 1)
    played = _actions(shell)
    rounds = shell.core.round_no
    assert played > 0 and not shell.core.paused
    due = shell.core.next_wakeup()
    assert due is not None and left_at + PAUSE - 1 < due
    shell.run_until(left_at + PAUSE)
    assert shell.core.paused
    # Paused: its only deadline is the close; nothing is played however long nobody comes.
    assert shell.core.next_wakeup() == pytest.approx(left_at + CLOSE)
    seq, played = shell.core.seq, _actions(shell)
    shell.run_until(left_at + 5000)
    assert (shell.core.seq, _actions(shell), shell.core.round_no) == (seq, played, rounds)
    # The player comes back: the table wakes, and the move due has what it had left.
    back = shell.now
    shell.input(shell.core.resume("host2", token_key(token), token, None, shell.now))
    assert not shell.core.paused and shell.core.idle.empty_since is None
    if due > left_at + PAUSE:  # not already due at the pause
        after = shell.core.next_wakeup()
        assert after == pytest.approx(back + (due - (left_at + PAUSE)))
    shell.run_until(back + BOT)
    assert _actions(shell) > played, "and the match goes on"


def test_a_spectator_arriving_wakes_a_paused_table_too() -> None:
    shell = _idle_shell()
    shell.input(shell.core.gone("host", shell.now, left=True))
    shell.run_until(shell.now + PAUSE)
    assert shell.core.paused
    shell.input(shell.core.join("eve", "看客", Watch(table="7"), shell.now, busy=False))
    assert not shell.core.paused and shell.core.next_wakeup() is not None
    shell.input(shell.core.gone("eve", shell.now, left=True))
    assert shell.core.idle.empty_since == shell.now, "the idle limits count again from now"


def test_a_table_nobody_comes_back_to_is_closed_as_abandoned() -> None:
    shell = _idle_shell()
    left_at = shell.now
    shell.input(shell.core.gone("host", shell.now, left=False))
    shell.run_until(left_at + CLOSE - 1)
    assert shell.core.state == "playing" and shell.core.paused
    shell.run_until(left_at + CLOSE)
    assert shell.core.state == "abandoned"
    ends = shell.stored(TableEnded)
    assert ends[-1].state == "abandoned"
    assert "match_ended" in shell.stored_events()[-4:]
    # The player who dropped may still come to see the end, for the finished linger.
    assert not shell.removed
    shell.run_until(shell.now + Timing().finished_linger)
    assert shell.removed


def test_zero_means_never() -> None:
    # The host's seat is played by the cheapest level: the test is about the clocks, and a
    # thousand seconds of the strong level's play cost minutes of CPU on a loaded machine.
    timing = Timing(idle_pause=0, idle_close=0, disconnect_grace=20.0, auto_level="easy")
    shell = Shell(timing, rounds=64)
    host_and_bots(shell)
    shell.input(shell.core.gone("host", shell.now, left=True))
    shell.run_until(shell.now + 1000)
    assert not shell.core.paused and shell.core.state in ("playing", "finished")
    assert shell.core.round_no > 10


def test_a_waiting_table_whose_creator_leaves_is_closed_and_its_guests_told() -> None:
    shell = Shell()
    shell.create()
    shell.sit("guest")
    assert len(shell.tokens) == 2
    shell.input(shell.core.gone("host", shell.now, left=False))
    closed = shell.of("guest", "error")[-1]
    assert closed["code"] == "table_closed" and "creator" in closed["message"]
    assert shell.removed and not shell.tokens
    assert shell.stored(TableEnded) == [TableEnded("7", "abandoned", [0, 0, 0, 0], 0, shell.now)]


def test_the_host_closes_a_match_players_are_told_and_it_is_stored_abandoned() -> None:
    shell = Shell(rounds=8)
    host_and_bots(shell)
    shell.input(shell.core.join("eve", "看客", Watch(table="7"), shell.now, busy=False))
    before = {m: len(shell.frames[m]) for m in ("host", "eve")}
    shell.input(shell.core.close_by_host(shell.now))
    for member in ("host", "eve"):
        after = shell.frames[member][before[member] :]
        kinds = [f["type"] for f in after]
        assert kinds[:2] == ["error", "match_ended"], kinds
        assert after[0]["code"] == "table_closed" and "host closed" in after[0]["message"]
        assert after[1]["reason"] == "abandoned"
    assert shell.core.state == "abandoned" and shell.removed
    ends = shell.stored(TableEnded)
    assert ends[-1].state == "abandoned"


def test_the_host_kicks_a_seat_its_player_is_told_and_the_token_is_dead() -> None:
    shell = Shell(rounds=8)
    host_and_bots(shell)
    token = shell.of("host", "joined")[0]["token"]
    shell.input(shell.core.join("eve", "看客", Watch(table="7"), shell.now, busy=False))
    assert shell.core.kick_problem(1) == "seat 1 of table 7 holds no player"  # a bot
    assert shell.core.kick_problem(4) is not None
    assert shell.core.kick_problem(0) is None
    shell.input(shell.core.kick(0, shell.now))
    assert shell.of("host", "error")[-1]["code"] == "kicked"
    assert shell.of("host", "left") == [{"type": "left", "table": "7"}]
    assert "host" not in shell.bound and not shell.tokens
    stored = shell.stored(TokensChanged)
    assert stored and stored[-1].tokens[0] is None
    seat0 = [f for f in shell.of("eve", "seat_status") if f["seat"] == 0][-1]
    assert seat0["auto"] is True and seat0["connected"] is False
    # The kicked player's token takes nothing back; the match is played on for the seat.
    again = shell.input(shell.core.resume("host", token_key(token), token, None, shell.now))
    assert not any(getattr(e, "member", None) == "host" for e in again)
    assert shell.core.seats[0].member is None
    shell.settle()
    assert shell.core.round is not None and shell.core.seats[0].auto
