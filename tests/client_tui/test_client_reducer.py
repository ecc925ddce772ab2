"""The client reducer, without Textual: whole bot-played rounds are projected for each viewer the way
the server does it, reduced frame by frame, and after every frame the view is checked against the
engine's true state (the incremental state against a full recomputation)."""

from __future__ import annotations

import doctest
import importlib
from dataclasses import replace
from typing import Any

import pytest

from client_tui import offline
from client_tui.local import Acted, Connecting, ConnectionClosed, ConnectionLost
from client_tui.reducer import reduce
from client_tui.tiles import names
from client_tui.view import View
from protocol.messages import SERVER_ADAPTER, ServerMessage
from rules.options import PRESETS
from rules.players.bot import Bot
from rules.round import Phase, Round, legal_actions
from rules.tiles import parse_tile
from rules.view import MeldSeen, view_of

TABLE = "t1"
SEATS = [{"name": f"P{i}", "kind": "bot", "connected": True, "auto": False} for i in range(4)]


def info(state: str = "playing", scores: list[int] | None = None) -> dict[str, Any]:
    return {
        "id": TABLE,
        "name": "test",
        "preset": "guiyang",
        "options": {},
        "base": 1,
        "rounds": 4,
        "turn_seconds": 15.0,
        "bank_seconds": 30.0,
        "claim_min_ms": 0,
        "has_password": False,
        "seats": SEATS,
        "spectators": 0,
        "state": state,
        "round_no": 1,
        "scores": scores or [0, 0, 0, 0],
    }


def parse(frame: dict[str, Any]) -> ServerMessage:
    return SERVER_ADAPTER.validate_python(frame)


def project(event: dict[str, Any], viewer: int | None) -> dict[str, Any]:
    """What the server sends `viewer` for an engine event, with the fields the table adds."""
    e = offline.project(event, viewer)
    if e["type"] == "round_started":
        e["round_no"] = 1
        e["base"] = 1
    elif e["type"] == "round_ended":
        e["scores"] = e["result"]["net"]
    return e


def joined_view(viewer: int | None) -> View:
    v = View()
    v = reduce(v, parse({"type": "welcome", "version": 1, "server": "t", "name": "me"}))
    v = reduce(
        v,
        parse(
            {
                "type": "joined",
                "table": TABLE,
                "seq": 1,
                "seat": viewer,
                "token": None if viewer is None else "x" * 20,
                "resume": "snapshot",
            }
        ),
    )
    v = reduce(
        v,
        parse(
            {
                "type": "snapshot",
                "table": TABLE,
                "seq": 1,
                "info": info("waiting"),
                "seat": viewer,
                "round": None,
            }
        ),
    )
    return v


def check_against_engine(v: View, r: Round, viewer: int | None) -> None:
    """The view's round is the rules core's view of the engine's round for that viewer: the
    reducer keeps it as it is (no copy), so it equals `view_of` field for field, bar what a
    viewer works out for itself (`passed`, `offered`) and what only the engine keeps."""
    rv = v.round
    assert rv is not None
    want = view_of(r, viewer)
    if viewer is not None:
        assert rv.hand == tuple(r.hands[viewer])
        if r.phase is Phase.TURN and r.turn == viewer and r.drawn is not None:
            assert rv.drawn == r.drawn
    else:
        assert rv.hand is None and rv.drawn is None
    assert rv.hand_sizes == tuple(sum(h) for h in r.hands)
    assert rv.wall_left == r.wall_left
    assert rv.declared == tuple(r.declared)
    over = r.phase is Phase.OVER
    for seat in range(4):
        want_melds = tuple(
            MeldSeen(
                m.kind,
                m.tile if m.kind != "an" or seat == viewer or over else None,
                m.from_seat,
                m.dou,
            )
            for m in r.melds[seat]
        )
        if over:  # round_ended reveals every 暗杠's tile, and every hand
            assert rv.hands is not None
            assert rv.hands[seat] == tuple(r.hands[seat])
        else:
            assert rv.hands is None
        assert rv.melds[seat] == want_melds, f"melds of seat {seat}"
        assert rv.discards[seat] == tuple(r.discards[seat]), f"discards of seat {seat}"
    if r.phase in (Phase.CLAIM, Phase.ROB):
        assert r.claim_tile is not None
        assert rv.claim_tile == r.claim_tile and rv.claim_from == r.claim_from
    if r.phase is Phase.TURN:
        assert rv.turn == r.turn
    assert rv.phase == want.phase and rv.dealer == want.dealer and rv.streak == want.streak


def play(preset: str, seed: int, viewers: list[int | None]) -> tuple[Round, list[View]]:
    """Play a bot round; reduce every viewer's frames, checking each view after every frame."""
    bots = [Bot(f"{seed}:{s}") for s in range(4)]
    r = Round.deal(PRESETS[preset], seed=seed, dealer=seed % 4)
    views = [joined_view(v) for v in viewers]
    seq = 1
    done = 0

    def feed() -> None:
        nonlocal seq, done
        for event in r.events[done:]:
            seq += 1
            d = event.to_dict()
            d.update(table=TABLE, seq=seq)
            for i, viewer in enumerate(viewers):
                views[i] = reduce(views[i], parse(project(d, viewer)))
        done = len(r.events)
        # The engine's state is the state after the action's last event.
        for i, viewer in enumerate(viewers):
            check_against_engine(views[i], r, viewer)

    feed()
    while r.phase is not Phase.OVER:
        seat = r.awaiting()[0]
        r.apply(bots[seat].choose(r, seat))
        feed()
    return r, views


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_views_follow_the_engine_through_whole_rounds(preset: str) -> None:
    kinds: set[str] = set()
    for seed in range(12):
        r, views = play(preset, seed, [0, 1, 2, 3, None])
        kinds |= {m.kind for row in r.melds for m in row}
        assert r.result is not None
        result = {**r.result.to_dict(), **r.revealed().to_dict()}
        for v in views:
            assert v.result is not None and v.result.result == result
            assert v.scores == tuple(result["net"])
            assert v.round is not None and v.round.phase == "over"
            assert len(v.round.wins) == len(result["wins"])
    assert {"pong", "an"} <= kinds, "the seeds should include claims and 暗杠 (revealed at the end)"


def test_a_replayed_event_changes_nothing() -> None:
    r, (v,) = play("guiyang", 3, [0])
    again = reduce(
        v,
        parse(
            {
                "type": "discarded",
                "table": TABLE,
                "seq": v.seq,
                "seat": 1,
                "tile": "5m",
                "declared": False,
                "hot": False,
            }
        ),
    )
    assert again == v
    other = reduce(
        v,
        parse(
            {
                "type": "discarded",
                "table": "other",
                "seq": v.seq + 1,
                "seat": 1,
                "tile": "5m",
                "declared": False,
                "hot": False,
            }
        ),
    )
    assert other == v


def test_snapshot_matches_the_incremental_view() -> None:
    projection = pytest.importorskip("server.table.projection")
    bots = [Bot(f"9:{s}") for s in range(4)]
    r = Round.deal(PRESETS["guiyang"], seed=9, dealer=1)
    v = joined_view(2)
    seq, done, steps = 1, 0, 0
    while r.phase is not Phase.OVER:
        for event in r.events[done:]:
            seq += 1
            d = event.to_dict()
            d.update(table=TABLE, seq=seq)
            v = reduce(v, parse(project(d, 2)))
        done = len(r.events)
        snap = reduce(
            joined_view(2),
            parse(
                {
                    "type": "snapshot",
                    "table": TABLE,
                    "seq": seq,
                    "info": info(),
                    "seat": 2,
                    "round": projection.round_view(r, 1, 2),
                }
            ),
        )
        assert snap.round is not None and v.round is not None
        # A snapshot does not say whether the turn follows a 碰 (`after_pong`), nor the claims
        # open to the seat (`offered`: the prompt that follows it does); only the hints read
        # them. Everything else is the same view.
        kept = {"after_pong": v.round.after_pong, "offered": v.round.offered}
        assert snap.round._replace(**kept) == v.round
        seat = r.awaiting()[0]
        r.apply(bots[seat].choose(r, seat))
        steps += 1
    assert steps > 20


def prompt_frame(
    seq: int, actions: list[dict[str, Any]], deadline_ms: int | None = 15000, seat: int = 0
) -> dict[str, Any]:
    return {
        "type": "prompt",
        "table": TABLE,
        "seq": seq,
        "seat": seat,
        "actions": actions,
        "default": actions[-1],
        "deadline_ms": deadline_ms,
        "bank_ms": 30000,
    }


def started_view() -> View:
    v = joined_view(0)
    bots = [Bot(f"1:{s}") for s in range(4)]
    del bots
    r = Round.deal(PRESETS["guiyang"], seed=1, dealer=0)
    d = r.events[0].to_dict()
    d.update(table=TABLE, seq=2)
    return reduce(v, parse(project(d, 0)))


def test_prompt_deadline_uses_the_arrival_time_and_events_clear_it() -> None:
    v = started_view()
    assert v.round is not None and v.round.hand is not None
    hand = names(v.round.hand)
    assert len(hand) == 14
    actions = [{"act": "discard", "tile": t} for t in dict.fromkeys(hand)]
    v = reduce(v, parse(prompt_frame(2, actions)), at=100.0)
    assert v.prompt is not None and v.prompt.deadline_at == pytest.approx(115.0)
    assert not v.prompt.is_claim and v.prompt.tiles_for("discard")[0] == hand[0]
    # An older prompt is stale and ignored; another seat's prompt is not ours.
    assert reduce(v, parse(prompt_frame(1, actions))) == v
    assert reduce(v, parse(prompt_frame(2, actions, seat=1))) == v
    # Answered: keys are off until the server answers; a refusal gives the prompt back.
    v = reduce(v, Acted(2))
    assert v.prompt is not None and v.prompt.answered
    v = reduce(
        v,
        parse(
            {
                "type": "error",
                "code": "tile_not_in_hand",
                "message": "no",
                "ref": "act",
                "table": TABLE,
                "seq": 2,
            }
        ),
    )
    assert v.prompt is not None and not v.prompt.answered
    assert v.notice is not None and v.notice.code == "tile_not_in_hand"
    # A seat's connection status is not a round event: the prompt stands.
    v = reduce(
        v,
        parse(
            {
                "type": "seat_status",
                "table": TABLE,
                "seq": 3,
                "seat": 2,
                "connected": False,
                "auto": False,
            }
        ),
    )
    assert v.prompt is not None and v.table is not None and not v.table.seats[2].connected
    v = reduce(
        v,
        parse(
            {
                "type": "discarded",
                "table": TABLE,
                "seq": 4,
                "seat": 0,
                "tile": hand[0],
                "declared": False,
                "hot": False,
            }
        ),
    )
    assert v.prompt is None
    assert v.round is not None and v.round.hand is not None and names(v.round.hand) == hand[1:]
    assert v.round.claim_tile == parse_tile(hand[0]) and v.round.phase == "claim"


def test_connection_states_and_resume_with_the_token() -> None:
    v = started_view()
    token = v.token
    assert v.round is not None and v.round.hand is not None
    v = reduce(v, parse(prompt_frame(2, [{"act": "discard", "tile": names(v.round.hand)[0]}])))
    v = reduce(v, ConnectionLost("connection reset"))
    assert v.status == "reconnecting" and v.prompt is None and v.round is not None
    v = reduce(v, Connecting("ws://x", attempt=1))
    assert v.status == "reconnecting" and v.attempt == 1
    before = v
    v = reduce(v, parse({"type": "welcome", "version": 1, "server": "t", "name": "me"}))
    assert v.status == "connected"
    # Resumed by events: joined keeps the table state and the seq; nothing is lost or doubled.
    v = reduce(
        v,
        parse(
            {
                "type": "joined",
                "table": TABLE,
                "seq": 2,
                "seat": 0,
                "token": token,
                "resume": "events",
            }
        ),
    )
    assert v.round == before.round and v.seq == before.seq and v.token == token
    v = reduce(v, ConnectionClosed("replaced", 4002))
    assert v.status == "closed" and v.notice is not None and v.notice.code == "closed"


def test_a_bad_token_sends_the_player_back_to_the_lobby() -> None:
    v = started_view()
    v = reduce(v, parse({"type": "error", "code": "bad_token", "message": "gone", "ref": "hello"}))
    assert v.table_id is None and v.round is None and v.token is None


def test_joining_another_table_forgets_the_old_one() -> None:
    v = started_view()
    v = reduce(
        v,
        parse(
            {
                "type": "joined",
                "table": "t2",
                "seq": 5,
                "seat": None,
                "token": None,
                "resume": "snapshot",
            }
        ),
    )
    assert v.table_id == "t2" and v.round is None and v.seq == 0 and v.seat is None
    assert v.watching


def test_match_start_and_end() -> None:
    v = joined_view(0)
    v = reduce(
        v,
        parse(
            {
                "type": "match_started",
                "table": TABLE,
                "seq": 2,
                "rounds": 4,
                "names": ["a", "b", "c", "d"],
            }
        ),
    )
    assert v.names == ("a", "b", "c", "d") and v.table is not None
    assert v.table.state == "playing"
    v = reduce(
        v,
        parse(
            {
                "type": "match_ended",
                "table": TABLE,
                "seq": 3,
                "scores": [5, -1, -2, -2],
                "rounds_played": 4,
                "reason": "finished",
            }
        ),
    )
    assert v.match_end is not None and v.match_end.scores == (5, -1, -2, -2)
    assert v.scores == (5, -1, -2, -2)


@pytest.mark.parametrize(
    "module",
    [
        "client_tui.view",
        "client_tui.reducer",
        "client_tui.analysis",
        "client_tui.local",
        "client_tui.sheet",
        "client_tui.offline",
        "client_tui.i18n",
        "client_tui.tiles",
        "client_tui.render",
        "client_tui.net",
        "zhuoji.common",
        "client_tui.screens.forms",
        "client_tui.screens.help",
    ],
)
def test_doctests(module: str) -> None:
    result = doctest.testmod(importlib.import_module(module))
    assert result.attempted > 0 and result.failed == 0


def test_legal_actions_used_by_bots_are_what_prompts_offer() -> None:
    """A sanity check of the test harness itself: the bots choose among the legal actions."""
    r = Round.deal(PRESETS["guiyang"], seed=4)
    assert Bot("x").choose(r, 0) in legal_actions(r, 0)


def test_a_prompt_quotes_the_last_round_event_not_the_table_seq() -> None:
    """After a resume the server asks again about the same decision: the prompt's seq is that of
    the last round event, older than the seat-status events that came since."""
    v = started_view()  # round_started at seq 2
    v = reduce(
        v,
        parse(
            {
                "type": "seat_status",
                "table": TABLE,
                "seq": 3,
                "seat": 0,
                "connected": False,
                "auto": False,
            }
        ),
    )
    v = reduce(
        v,
        parse(
            {
                "type": "seat_status",
                "table": TABLE,
                "seq": 4,
                "seat": 0,
                "connected": True,
                "auto": False,
            }
        ),
    )
    assert v.seq == 4 and v.round_seq == 2
    assert v.round is not None and v.round.hand is not None
    v = reduce(v, parse(prompt_frame(2, [{"act": "discard", "tile": names(v.round.hand)[0]}])))
    assert v.prompt is not None and v.prompt.seq == 2


def test_a_spectator_count_updates_the_header_and_an_away_seat_says_so() -> None:
    from client_tui.i18n import Lang
    from client_tui.render import seat_text

    v = joined_view(0)
    seq = v.seq
    v = reduce(v, parse({"type": "spectators", "table": TABLE, "seq": seq, "count": 3}))
    assert v.table is not None and v.table.spectators == 3 and v.seq == seq, "not an event"
    other = reduce(v, parse({"type": "spectators", "table": "other", "seq": 9, "count": 7}))
    assert other.table is not None and other.table.spectators == 3
    # Seat 1 is a player's seat whose connection dropped: its name and "away" on its line.
    seats = list(v.table.seats)
    seats[1] = replace(seats[1], name="阿明", kind="human", connected=False, auto=True)
    v = replace(v, table=replace(v.table, seats=tuple(seats), state="playing"))
    line = seat_text(v, 1, True, Lang("en")).plain
    assert "阿明" in line and "away" in line and "托管" in line
