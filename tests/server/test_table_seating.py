"""A seat's own logic (`server.table.seating`) on a fake clock: who answers for it, its
deadlines, how it leaves and comes back."""

from __future__ import annotations

from dataclasses import dataclass

from server.table.seating import Members, Seats, SeatState


def _prompted(seat: SeatState[str], *, at: float, bank: float = 0.0) -> SeatState[str]:
    seat.clock.new_round(bank)
    seat.clock.prompt(seq=7)
    seat.clock.started(seq=7, now=at)
    return seat


def test_the_server_answers_at_once_for_auto_and_in_a_window_for_quiet_or_dropped_seats() -> None:
    player = SeatState[str](kind="human", member="c")
    assert not player.plays_at_once(in_window=True)
    player.quiet_auto = True
    assert not player.plays_at_once(in_window=False) and player.plays_at_once(in_window=True)
    dropped = SeatState[str](kind="human")
    assert dropped.dropped and dropped.reason_at_once() == "disconnected"
    assert not dropped.plays_at_once(in_window=False) and dropped.plays_at_once(in_window=True)
    dropped.auto = True  # announced 托管 is said as such, even when away
    assert dropped.plays_at_once(in_window=False) and dropped.reason_at_once() == "auto"
    waiting = SeatState[str](kind="human", restored_seq=40)  # not back since a restart
    assert waiting.dropped and waiting.awaits_return and waiting.plays_at_once(in_window=True)
    assert not dropped.awaits_return  # a drop is no restart's


def test_only_a_seat_nobody_is_at_and_not_in_tuoguan_claims_for_itself() -> None:
    """Such a seat only wins or passes in a claim window; 托管 plays the policy."""
    assert SeatState[str](kind="human").claims_for_itself  # dropped
    assert SeatState[str](kind="human", restored_seq=40).claims_for_itself  # not back yet
    assert not SeatState[str](kind="human", auto=True).claims_for_itself
    assert not SeatState[str](kind="human", quiet_auto=True).claims_for_itself
    assert not SeatState[str](kind="human", member="c").claims_for_itself  # at the table
    assert not SeatState[str](kind="bot", bot_here=True).claims_for_itself


def test_who_played_a_claim_is_said_only_as_far_as_the_table_shows_it() -> None:
    assert SeatState[str](kind="bot").public_by() == "bot"
    assert SeatState[str](kind="human", member="c", auto=True).public_by() == "auto"
    quiet = SeatState[str](kind="human", member="c", quiet_auto=True)
    assert quiet.public_by() == "player"  # a claim timeout's 托管 is not shown
    assert SeatState[str](kind="human").public_by() == "disconnected"


def _deadlines(
    seat: SeatState[str], turn: float | None = None, window: float | None = None, *, claim: bool
) -> tuple[float | None, float | None]:
    """The seat's deadlines at a table of a 20 s grace and a 1.5 s bot pace."""
    return seat.deadlines(
        turn=turn, grace=20.0, bot_delay=1.5, claim_answer_at=window, in_window=claim
    )


def test_a_seats_deadline_is_its_prompt_plus_turn_and_bank_and_a_drop_shortens_it() -> None:
    seat = _prompted(SeatState[str](kind="human", member="c"), at=100.0, bank=10.0)
    assert _deadlines(seat, 15.0, claim=False) == (125.0, None)
    assert _deadlines(seat, claim=False) == (None, None)
    seat.member, seat.gone_at = None, 110.0  # dropped 10 s into the prompt
    assert _deadlines(seat, 15.0, claim=False) == (125.0, None)
    assert _deadlines(seat, claim=False) == (130.0, None)
    seat.gone_at = 90.0  # dropped before it was asked: the grace runs from the prompt
    assert _deadlines(seat, claim=False) == (120.0, None)
    seat.clock.prompt(seq=8)  # the next prompt waits to go out: no clock runs
    assert _deadlines(seat, 15.0, claim=False) == (None, None)


def test_a_bot_moves_at_the_tables_pace_on_turns_and_at_the_windows_middle_on_claims() -> None:
    bot = _prompted(SeatState[str](kind="bot", bot_here=True), at=50.0)
    assert _deadlines(bot, claim=False) == (None, 51.5)
    assert _deadlines(bot, window=50.3, claim=True) == (None, 50.3)  # a held window's middle
    assert _deadlines(bot, claim=True) == (None, 50.0)  # a window not held: at once
    bot.auto = True  # a bot in 托管 is answered at once, not at its own pace
    assert _deadlines(bot, claim=False) == (None, None)


def test_leaving_dropping_being_kicked_and_coming_back() -> None:
    seat = SeatState[str](kind="human", member="c", token_key="k")
    seat.member = None
    seat.left(30.0, asked=False, playing=True)
    assert (seat.gone_at, seat.away, seat.auto) == (30.0, True, False)
    seat.sit("d", "player-1")
    assert (seat.member, seat.gone_at, seat.away, seat.player) == ("d", None, False, "player-1")
    seat.sit("e")  # a token's reconnect keeps the seat's player
    assert seat.player == "player-1"
    seat.member = None
    seat.left(40.0, asked=True, playing=True)
    assert (seat.away, seat.auto) == (False, True)  # an asked leave is 托管 until back
    seat.came_back()
    assert not seat.auto
    seat.auto = seat.auto_requested = seat.quiet_auto = True
    seat.came_back()
    assert seat.auto and not seat.quiet_auto  # asked-for 托管 stays
    seat.kicked(50.0)
    assert (seat.token_key, seat.away, seat.gone_at, seat.auto) == (None, False, 50.0, True)


def test_a_shift_moves_the_prompt_the_drop_and_a_bots_arrival_by_the_paused_time() -> None:
    seats: Seats[str] = Seats()
    _prompted(seats[0], at=10.0)
    seats[0].gone_at = 12.0
    seats[1].kind, seats[1].bot_arrives = "bot", 11.0
    seats.shift(5.0, arrivals=False)  # a storage wait: a bot's arrival is not a clock
    assert (seats[0].clock.prompt_at, seats[0].gone_at, seats[1].bot_arrives) == (15.0, 17.0, 11.0)
    seats.shift(5.0, arrivals=True)  # a pause: everything waits
    assert (seats[0].clock.prompt_at, seats[0].gone_at, seats[1].bot_arrives) == (20.0, 22.0, 16.0)


def test_a_resume_after_a_restart_quoting_unstored_events_gets_a_snapshot_once() -> None:
    seat = SeatState[str](kind="human", restored_seq=40)
    assert seat.fresh_since(41) is False  # it saw events that may never have reached the disk
    assert seat.fresh_since(45) is True  # from then on the log is the truth
    assert SeatState[str](kind="human", restored_seq=40).fresh_since(40) is True
    assert SeatState[str](kind="human").fresh_since(None) is False  # no seq: a snapshot


def test_the_header_says_a_seat_is_away_only_once_the_match_started() -> None:
    seat = SeatState[str](name="ann", kind="human")
    assert seat.info(started=False)["away"] is False and seat.info(started=True)["away"] is True
    bot = SeatState[str](name="Bot-2", kind="bot", bot_here=True)
    assert bot.info(started=True) == {
        "name": "Bot-2",
        "kind": "bot",
        "connected": True,
        "auto": False,
        "away": False,
        "level": "normal",
    }


def test_members_know_who_watches_by_name_and_forget_a_member_that_leaves() -> None:
    at: Members[str] = Members()
    at["p0"] = 0
    at.watch("w1", "ann")
    at.watch("w2", "ann")
    at.watch("w3", None)
    assert at.spectators == ["w1", "w2", "w3"] and at.named("ann") == ["w1", "w2"]
    assert at.leave("w1") is None and "w1" not in at and at.named("ann") == ["w2"]
    at["w2"] = 2  # a spectator handed a seat is no longer one (its name was left behind)
    assert at.named("ann") == [] and at.spectators == ["w3"]
    assert at.leave("p0") == 0 and at.leave("p0") is None


def test_bots_added_take_their_seats_when_their_time_comes() -> None:
    seats: Seats[str] = Seats()
    seats[1].kind, seats[1].bot_arrives = "bot", 5.0
    seats[2].kind, seats[2].bot_arrives = "bot", 7.0
    seats[3].kind, seats[3].member = "human", "c"
    assert seats.arrivals() == [5.0, 7.0]
    assert seats.arrived(4.0) == [] and not seats[1].connected
    assert seats.arrived(4.9995) == [1]  # a timer a little early is on time
    assert seats[1].connected and seats[1].bot_arrives is None
    assert seats.arrivals() == [7.0] and seats.arrived(10.0) == [2] and seats.arrivals() == []


@dataclass(frozen=True)
class _Conn:
    """A connection as the shell has one: hashable, with the player's key."""

    id: str
    player: str | None = None


def test_the_seats_go_to_a_rematch_as_they_were_and_are_taken_there_as_they_came() -> None:
    old: Seats[_Conn] = Seats()
    here, gone = _Conn("c0", player="p0"), _Conn("c2")
    old[0].kind, old[0].name, old[0].member = "human", "阿明", here
    old[1].kind, old[1].name, old[1].level, old[1].bot_here = "bot", "Bot-2", "strong", True
    old[2].kind, old[2].name, old[2].member = "human", "小红", gone
    old[3].kind, old[3].name, old[3].away = "human", "away", True  # its connection dropped
    seats = old.hand_over()
    assert [(w.name, w.kind, w.member, w.level) for w in seats] == [
        ("阿明", "human", here, None),
        ("Bot-2", "bot", None, "strong"),
        ("小红", "human", gone, None),
        ("away", "human", None, None),
    ]
    assert all(s.member is None and not s.away for s in old)  # nobody is at the old table
    new: Seats[_Conn] = Seats()
    for seat, was in zip(new, seats, strict=True):
        seat.take_over(was, now=50.0)
    assert (new[0].member, new[0].player, new[0].connected, new[0].auto) == (
        here,
        "p0",
        True,
        False,
    )
    assert new[1].kind == "bot" and new[1].bot_here and new[1].level == "strong"
    assert new[2].member == gone and new[2].player is None
    assert new[3].member is None and new[3].auto and new[3].gone_at == 50.0  # 托管 until back
    assert [s.name for s in new] == ["阿明", "Bot-2", "小红", "away"]
    assert all(s.token_key is None for s in new)  # the core issues the tokens


def test_a_restart_finds_players_away_and_bots_of_their_stored_level() -> None:
    seats: Seats[str] = Seats()
    rows: list[object] = [
        {"name": "阿明", "kind": "human", "player": "p0"},
        {"name": "Bot-2", "kind": "bot", "level": "strong"},
        {"name": "Bot-3", "kind": "bot"},  # stored before bots had levels
        "not a seat row",
    ]
    seats.restore(rows, ["k0", "k1"], now=7.0, bank=20.0, seq=40)
    assert [(s.name, s.kind, s.level, s.token_key) for s in seats] == [
        ("阿明", "human", None, "k0"),
        ("Bot-2", "bot", "strong", None),  # a bot holds no token, whatever is stored
        ("Bot-3", "bot", "normal", None),
        (None, "human", None, None),
    ]
    assert seats[0].player == "p0" and seats[3].player is None
    assert [s.away for s in seats] == [True, False, False, True]
    assert all(s.gone_at == 7.0 and s.clock.bank == 20.0 for s in seats)
    assert seats[0].dropped and seats[0].awaits_return  # waited for as after any drop
    assert seats[0].fresh_since(41) is False and seats[0].fresh_since(41) is True  # once


def test_only_the_creator_hands_an_away_players_seat_to_one_spectator_so_named() -> None:
    seats: Seats[str] = Seats()
    for s in seats:
        s.kind = "human"
    seats[0].member, seats[1].member = "creator", "here"
    seats[3].kind = "bot"

    def code(by: int, index: int, found: int = 1, playing: bool = True) -> str | None:
        refused = seats.hand_refusal(by, index, "阿明", found, playing=playing)
        return None if refused is None else refused[0]

    assert code(0, 2) is None  # seat 2 is away: the creator hands it on
    assert code(1, 2) == "not_creator"
    assert code(0, 2, playing=False) == "not_playing"
    assert code(0, 1) == "seat_not_away" and code(0, 3) == "seat_not_away"  # here; a bot
    assert code(0, 2, found=0) == code(0, 2, found=2) == "no_such_spectator"
    _, message = seats.hand_refusal(0, 2, "阿明", 2, playing=True) or ("", "")
    assert message == "2 spectators of this table is called '阿明': they watch it first"
