"""Who chooses the server's moves (`server.table.policies.Policies`), on its own: the bots'
policies by level and seed, one 托管 policy per player's seat, a failing policy costing the seat
its move (None) and never the table."""

from __future__ import annotations

from typing import Any

from rules import PRESETS, Match
from rules.players.bot import Bot
from rules.players.bot_strong import StrongBot
from rules.players.levels import EasyBot, policy_for
from rules.round import Round
from server.table.policies import Policies


def a_round(seed: str = "policies") -> Round:
    return Match(PRESETS["guiyang"], rounds=1, seed=seed).next_round()


def test_a_bot_plays_by_its_own_level_and_a_players_seat_by_the_servers_auto_level() -> None:
    p = Policies("t1", auto_level="strong")
    p.seat_bot(1, "easy")
    p.seat_bot(2, "normal")
    assert type(p.of(1)) is EasyBot and type(p.of(2)) is Bot
    assert type(p.of(0)) is StrongBot and set(p.auto) == {0}  # made when first needed
    assert p.of(0) is p.of(0)  # one per seat, kept (its state goes on)
    p.remove_bot(1)
    assert 1 not in p.bots and type(p.of(1)) is StrongBot  # the seat is a player's now
    p.remove_bot(3)  # no bot there: nothing happens
    assert set(p.bots) == {2}


def test_a_bots_choices_follow_from_the_table_the_seat_and_a_restart() -> None:
    r = a_round()
    seat = r.awaiting()[0]
    p, q = Policies("t1", "normal"), Policies("t1", "normal")
    p.seat_bot(seat, "normal")
    q.seat_bot(seat, "normal")
    assert (
        p.choose(r, seat) == q.choose(r, seat) == policy_for("normal", f"t1:{seat}").choose(r, seat)
    )
    q.seat_bot(seat, "normal", since=40)  # after a restart: seeded by the seq it came back at
    assert q.bots[seat].choose(r, seat) == policy_for("normal", f"t1:{seat}:40").choose(r, seat)
    auto = Policies("t1", "normal").choose(r, seat)
    assert auto == policy_for("normal", f"t1:{seat}:auto").choose(r, seat)


def test_a_failing_policy_gives_no_move_and_the_fallbacks_are_counted() -> None:
    r = a_round()
    seat = r.awaiting()[0]
    p = Policies("t1", "normal")
    p.seat_bot(seat, "normal")

    def broken(*args: Any) -> Any:
        raise RuntimeError("a policy bug")

    p.bots[seat].choose = broken  # type: ignore[method-assign]
    assert p.choose(r, seat) is None and p.fallbacks == 0  # the core decides what it plays
    p.fell_back()
    p.fell_back()
    assert p.fallbacks == 2
