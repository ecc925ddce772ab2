"""Ending a match together (解散) at the table core, on a fake clock: every connected player
must agree within 30 s; bots and players away past the grace do not block; one refusal ends the
vote; one proposal per player per 5 minutes; the match then ends "by vote" with the scores so far.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from protocol.messages import Watch
from rules.round import Phase
from rules.tiles import tile_name
from server.standings import answer
from server.storage.records import EventLogged, RoundEnded, TableEnded
from server.storage.tallies import rebuild, record_rows
from server.table.effects import StartRematch
from server.table.settings import Timing
from server.table.vote import COOLDOWN, WINDOW
from tests.server.test_table_core import Shell

PLAYERS = {"host": 0, "b": 1}


def play_round(shell: Shell) -> None:
    """Both players answer each prompt with its default at once; the bots play; until the
    round is over."""
    r = shell.core.round
    assert r is not None
    while r.phase is not Phase.OVER:
        core = shell.core
        asked = [
            (m, s)
            for m, s in PLAYERS.items()
            if s in r.awaiting()
            and s not in core.window.held
            and core.seats[s].clock.prompted_seq == core.decision_seq
        ]
        if asked:
            member, seat = asked[0]
            action = r.default_action(seat)
            frame = {"type": "act", "seq": shell.last_prompt(member)["seq"], "act": action.act}
            if action.tile is not None and r.phase is Phase.TURN:
                frame["tile"] = tile_name(action.tile)
            shell.command(member, frame)
        else:
            at = shell.core.next_wakeup()
            assert at is not None
            shell.run_until(max(shell.now, at))


def two_players(**fields: Any) -> Shell:
    """The host at seat 0, `b` at seat 1, two server bots; the match started."""
    shell = Shell(timing=fields.pop("timing", None) or Timing(disconnect_grace=10.0), **fields)
    shell.create()
    shell.sit("b", 1)
    shell.command("host", {"type": "add_bot"})
    shell.command("host", {"type": "add_bot"})
    shell.settle()
    shell.command("host", {"type": "start"})
    shell.settle()
    return shell


def votes(shell: Shell, member: str) -> list[dict[str, Any]]:
    return shell.of(member, "end_vote")


def errors(shell: Shell, member: str) -> list[tuple[str, str]]:
    return [(f["code"], f["ref"]) for f in shell.of(member, "error")]


def ended(shell: Shell) -> list[TableEnded]:
    return shell.stored(TableEnded)


def test_every_connected_player_agrees_and_the_match_ends_by_vote_with_the_scores_so_far() -> None:
    shell = two_players(rounds=4, next_round_seconds=0)
    play_round(shell)  # one round played: its net is in the scores
    shell.command("b", {"type": "next_round"})
    shell.command("host", {"type": "next_round"})
    assert shell.core.round_no == 2, "the second round is being played"
    scores = list(shell.core.scores)
    shell.input(shell.core.join("w", "w", _watch(), shell.now, busy=False))
    shell.command("host", {"type": "propose_end"})
    opened = votes(shell, "b")[-1]
    assert opened == {
        "type": "end_vote",
        "table": "7",
        "seq": shell.core.seq,
        "proposer": 0,
        "voters": [True, True, False, False],  # bots have no say
        "agreed": [True, False, False, False],  # the proposer agrees by proposing
        "deadline_ms": 30_000,
        "outcome": "open",
    }
    assert votes(shell, "w")[-1]["outcome"] == "open", "watchers see the vote"
    wakeup = shell.core.next_wakeup()
    assert wakeup is not None and wakeup <= shell.now + WINDOW
    shell.now += 12.0
    shell.command("b", {"type": "vote_end", "agree": True})
    assert shell.core.state == "finished"
    (end,) = ended(shell)
    assert (end.state, end.scores, end.rounds_played) == ("voted", scores, 1)
    assert not any(r.round_no == 2 for r in shell.stored(RoundEnded)), "the cut round counts not"
    for member in ("host", "b", "w"):
        (last,) = shell.of(member, "match_ended")
        assert (last["reason"], last["scores"], last["rounds_played"]) == ("vote", scores, 1)
        final = votes(shell, member)[-1]
        assert final["outcome"] == "passed" and final["agreed"] == [True, True, False, False]
        assert final["deadline_ms"] is None
    (stored,) = [r.event for r in shell.stored(EventLogged) if r.event["type"] == "match_ended"]
    assert stored["reason"] == "vote" and stored["scores"] == scores
    # Nothing is asked after the end: a late move or vote is refused, clearly.
    shell.command("b", {"type": "vote_end", "agree": True})
    assert errors(shell, "b")[-1] == ("no_vote", "vote_end")


def _watch() -> Any:
    from protocol.messages import Watch

    return Watch(table="7")


def test_one_refusal_ends_the_vote_and_the_match_goes_on() -> None:
    shell = two_players(rounds=2)
    shell.command("b", {"type": "propose_end"})
    shell.now += 1.0
    shell.command("host", {"type": "vote_end", "agree": False})
    final = votes(shell, "b")[-1]
    assert (final["outcome"], final["refused_by"], final["proposer"]) == ("refused", 0, 1)
    assert shell.core.state == "playing" and not ended(shell)
    assert shell.core.vote.ballot(shell.now) is None, "announced once, then gone"
    n = len(votes(shell, "b"))
    shell.run_until(shell.now + WINDOW + 1)
    assert len(votes(shell, "b")) == n, "a closed vote says nothing more"
    play_round(shell)  # the match goes on
    assert shell.core.rounds_played == 1


def test_silence_lets_the_vote_expire_at_30_s_on_the_fake_clock() -> None:
    shell = two_players(rounds=2, next_round_seconds=0)
    play_round(shell)  # between rounds: nobody's clock runs, the vote's does
    opened_at = shell.now
    shell.command("host", {"type": "propose_end"})
    assert shell.core.next_wakeup() == opened_at + WINDOW
    shell.run_until(opened_at + WINDOW - 0.01)
    assert votes(shell, "host")[-1]["outcome"] == "open"
    shell.run_until(opened_at + WINDOW)
    assert votes(shell, "host")[-1]["outcome"] == "expired"
    assert shell.core.state == "playing" and shell.core.between.active
    shell.command("b", {"type": "vote_end", "agree": True})
    assert errors(shell, "b")[-1] == ("no_vote", "vote_end")


def test_a_lone_player_among_bots_ends_the_match_at_once() -> None:
    shell = Shell(rounds=4)
    shell.create()
    for _ in range(3):
        shell.command("host", {"type": "add_bot"})
    shell.settle()
    shell.command("host", {"type": "start"})
    shell.settle()
    shell.command("host", {"type": "propose_end"})
    assert [e.state for e in ended(shell)] == ["voted"]
    assert shell.of("host", "match_ended")[-1]["reason"] == "vote"


def test_a_dropped_player_blocks_for_the_grace_then_not_and_one_who_left_never() -> None:
    shell = two_players(rounds=2, timing=Timing(disconnect_grace=10.0))
    gone_at = shell.now
    shell.input(shell.core.gone("b", gone_at, left=False))
    shell.command("host", {"type": "propose_end"})
    assert votes(shell, "host")[-1]["voters"] == [True, True, False, False]
    assert shell.core.next_wakeup() is not None
    shell.run_until(gone_at + 9.9)
    assert shell.core.state == "playing", "b may be back within the grace"
    shell.run_until(gone_at + 10.0)
    assert shell.core.state == "finished" and ended(shell)[-1].state == "voted"
    assert votes(shell, "host")[-1]["voters"] == [True, False, False, False]

    left = two_players(rounds=2)
    left.input(left.core.gone("b", left.now, left=True))  # `l`: 托管, it has no say
    left.command("host", {"type": "propose_end"})
    assert ended(left)[-1].state == "voted"


def test_a_player_back_within_the_grace_is_asked_again_and_decides() -> None:
    shell = two_players(rounds=2, timing=Timing(disconnect_grace=10.0))
    key = shell.core.seats[1].token_key
    assert key is not None
    shell.input(shell.core.gone("b", shell.now, left=False))
    shell.command("host", {"type": "propose_end"})
    shell.now += 3.0
    shell.input(shell.core.resume("b2", key, "token-000000000002", None, shell.now))
    assert votes(shell, "b2")[-1]["outcome"] == "open", "one who comes in sees the vote"
    shell.command("b2", {"type": "vote_end", "agree": False})
    assert votes(shell, "host")[-1]["outcome"] == "refused"
    assert shell.core.state == "playing"


def test_bad_votes_get_clear_errors_and_the_table_goes_on() -> None:
    shell = two_players(rounds=2)
    shell.input(shell.core.join("w", "w", _watch(), shell.now, busy=False))
    shell.command("host", {"type": "vote_end", "agree": True})
    assert errors(shell, "host") == [("no_vote", "vote_end")]
    shell.command("w", {"type": "propose_end"})
    shell.command("w", {"type": "vote_end", "agree": False})
    assert errors(shell, "w") == [("not_seated", "propose_end"), ("not_seated", "vote_end")]
    shell.command("host", {"type": "propose_end"})
    shell.command("b", {"type": "propose_end"})
    assert errors(shell, "b") == [("vote_in_progress", "propose_end")]
    shell.command("b", {"type": "vote_end", "agree": False})
    shell.now += 60.0
    shell.command("host", {"type": "propose_end"})
    (err,) = shell.of("host", "error")[1:]
    assert err["code"] == "vote_too_soon" and "again in 240 s" in err["message"]
    shell.command("b", {"type": "propose_end"})  # another player may
    assert votes(shell, "host")[-1]["proposer"] == 1
    shell.command("host", {"type": "vote_end", "agree": False})
    shell.now += COOLDOWN - 60.0
    shell.command("host", {"type": "propose_end"})
    assert votes(shell, "b")[-1] == votes(shell, "b")[-1] | {"proposer": 0, "outcome": "open"}
    assert shell.core.state == "playing" and not ended(shell)
    play_round(shell)
    assert shell.core.rounds_played == 1, "the table played on through every refusal"


def test_a_vote_before_the_start_or_after_the_end_is_refused() -> None:
    shell = Shell(rounds=1)
    shell.create()
    shell.command("host", {"type": "propose_end"})
    assert errors(shell, "host") == [("not_playing", "propose_end")]
    for _ in range(3):
        shell.command("host", {"type": "add_bot"})
    shell.settle()
    shell.command("host", {"type": "start"})
    shell.settle()
    play_round(shell)
    assert shell.core.state == "finished"
    shell.command("host", {"type": "propose_end"})
    assert errors(shell, "host")[-1] == ("not_playing", "propose_end")
    assert [e.state for e in ended(shell)] == ["finished"]


def test_a_match_ended_by_vote_is_stored_counted_and_rebuilt_alike(tmp_path: Path) -> None:
    """On a real SQLite file: the match is `voted`, its rounds and nets are in the records (the
    round cut short is not), it has no placement and no rating, and the records rebuilt from
    the events equal the ones kept as the rounds were stored."""
    shell = two_players(rounds=4, next_round_seconds=0, db=tmp_path / "z.db")
    play_round(shell)
    shell.command("b", {"type": "next_round"})
    shell.command("host", {"type": "next_round"})
    shell.command("b", {"type": "propose_end"})
    shell.command("host", {"type": "vote_end", "agree": True})
    assert shell.db is not None
    conn = shell.db
    state, played = conn.execute("SELECT state, rounds_played FROM tables").fetchone()
    assert (state, played) == ("voted", 1)
    frame = answer(conn, player="bot-normal")
    (line,) = frame["matches"]
    assert line["state"] == "voted" and line["rating_changes"] == [None] * 4
    me = frame["me"]
    assert me["voted"] == 1 and me["matches"] == 0 and me["placements"] == [0, 0, 0, 0]
    assert me["rounds"] == 2, "two bot seats, one round each: the cut round counts not"
    assert me["net"] == shell.core.scores[2] + shell.core.scores[3]
    kept = record_rows(conn)
    with conn:
        rebuild(conn)
    assert record_rows(conn) == kept


def test_after_a_vote_the_players_may_play_again() -> None:
    shell = Shell(rounds=4)
    shell.create()
    for _ in range(3):
        shell.command("host", {"type": "add_bot"})
    shell.settle()
    shell.command("host", {"type": "start"})
    shell.settle()
    shell.command("host", {"type": "propose_end"})
    effects = shell.command("host", {"type": "rematch"})
    assert any(isinstance(e, StartRematch) for e in effects)


def test_a_freeze_during_a_vote_closes_it_unannounced() -> None:
    shell = two_players(rounds=2)
    shell.command("host", {"type": "propose_end"})
    shell.input(shell.core.freeze(shell.now))
    assert shell.core.vote.ballot(shell.now) is None and shell.core.next_wakeup() is not None
    assert [e.state for e in ended(shell)] == ["abandoned"]


def test_a_seat_handed_to_a_newcomer_during_a_vote_is_asked_afresh() -> None:
    """b agreed, dropped, and the creator hands b's seat to 小李: 小李 has agreed to nothing,
    so the vote stays open until they answer."""
    shell = Shell(timing=Timing(disconnect_grace=10.0))
    shell.create()
    shell.sit("b", 1)
    shell.sit("c", 2)
    shell.command("host", {"type": "add_bot"})
    shell.settle()
    shell.command("host", {"type": "start"})
    shell.settle()
    shell.command("host", {"type": "propose_end"})
    shell.command("b", {"type": "vote_end", "agree": True})
    shell.settle()
    shell.input(shell.core.gone("b", shell.now, left=False))
    shell.input(shell.core.join("li", "小李", Watch(table="7"), shell.now, busy=False))
    shell.command("host", {"type": "hand_seat", "seat": 1, "to": "小李"})
    shell.command("c", {"type": "vote_end", "agree": True})
    shell.settle()
    ballot = shell.of("li", "end_vote")[-1]
    assert ballot["outcome"] == "open" and ballot["agreed"][1] is False, ballot
    shell.command("li", {"type": "vote_end", "agree": True})
    shell.settle()
    assert shell.of("li", "end_vote")[-1]["outcome"] == "passed"
