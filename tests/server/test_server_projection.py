"""The one projection: what a seat and a spectator see of events, snapshots, prompts, errors."""

from __future__ import annotations

from typing import Any

from protocol import frames
from rules.actions import Action
from rules.options import make_options
from rules.round import Round
from rules.tiles import parse_tiles, tiles_str
from server.table.projection import (
    ErrorItem,
    PromptItem,
    SnapshotItem,
    round_view,
    view_for,
    view_key,
)

SEAT = {"name": "bot", "kind": "bot", "connected": True, "auto": False}
INFO = {  # a whole `TableInfo`: the frames are built by their models
    **{"id": "1", "name": "t", "preset": "guiyang", "options": {}, "base": 1, "rounds": 1},
    **{"turn_seconds": 0.0, "bank_seconds": 0.0, "claim_min_ms": 0, "has_password": False},
    **{"seats": [SEAT] * 4, "spectators": 0, "state": "playing", "round_no": 1},
    "scores": [0, 0, 0, 0],
}


def _fields(frame: Any) -> Any:
    """A frame's JSON fields (the projection gives a model for all but logged events)."""
    return frame if frame is None or isinstance(frame, dict) else frames.logged(frame)


# Seat 0 deals 1111m (a 暗杠 to declare) and more; the wall is plain.
HANDS = ["1111m234p567s2399m", "456m456p456s11p78s", "789m789p789s22s34m", "123s345s567m12p55p"]
WALL = "345m678p9s9p1p2p3p4p5p6p7p8p9m8m7m6m5m4m3m2m"


def _round() -> Round:
    hands = [parse_tiles(h) for h in HANDS]
    return Round(make_options("guiyang"), hands, parse_tiles(WALL), dealer=0)


def _event(r: Round, i: int, seq: int) -> dict[str, object]:
    d = r.events[i].to_dict()
    d.update(table="1", seq=seq)
    return d


def test_round_started_shows_each_seat_only_its_own_hand() -> None:
    r = _round()
    event = _event(r, 0, 1)
    for seat in range(4):
        frame = view_for(event, seat)
        assert frame is not None
        assert "hands" not in frame
        assert tiles_str(parse_tiles("".join(frame["hand"]))) == tiles_str(parse_tiles(HANDS[seat]))
        assert frame["hand_sizes"] == [14, 13, 13, 13]
    spectator = view_for(event, None)
    assert spectator is not None and spectator["hand"] is None and "hands" not in spectator


def test_concealed_gang_and_its_replacement_draw_are_private() -> None:
    r = _round()
    r.apply(Action(0, "gang", parse_tiles("1m")[0]))
    kinds = [e.type for e in r.events]
    assert kinds[:3] == ["round_started", "concealed_gang", "drew"]
    gang, drew = _event(r, 1, 2), _event(r, 2, 3)
    assert view_for(gang, 0)["tile"] == "1m"  # type: ignore[index]
    assert view_for(drew, 0)["tile"] == drew["tile"]  # type: ignore[index]
    for viewer in (1, 2, 3, None):
        assert view_for(gang, viewer)["tile"] is None  # type: ignore[index]
        assert view_for(drew, viewer)["tile"] is None  # type: ignore[index]
        assert view_for(drew, viewer)["wall_left"] == drew["wall_left"]  # type: ignore[index]
    # The truth itself is not touched by projecting it.
    assert drew["tile"] is not None


def test_public_events_are_the_same_frame_for_everyone() -> None:
    r = _round()
    r.apply(Action(0, "discard", parse_tiles("9m")[0]))
    discarded = next(e for e in r.events if e.type == "discarded").to_dict()
    frames = {id(view_for(discarded, v)) for v in (0, 1, 2, 3, None)}
    assert len(frames) == 1
    assert len({view_key(discarded, v) for v in (0, 1, 2, 3, None)}) == 1


def test_view_keys_group_exactly_the_viewers_that_see_the_same() -> None:
    r = _round()
    r.apply(Action(0, "discard", parse_tiles("9m")[0]))
    drew = next(e for e in r.events if e.type == "drew").to_dict()
    keys = {v: view_key(drew, v) for v in (0, 1, 2, 3, None)}
    owner = drew["seat"]
    for v, key in keys.items():
        for w, other in keys.items():
            assert (key == other) == (view_for(drew, v) == view_for(drew, w)), (v, w, owner)


def test_snapshot_hides_other_hands_the_concealed_gang_and_the_wall() -> None:
    r = _round()
    r.apply(Action(0, "gang", parse_tiles("1m")[0]))
    item = SnapshotItem("1", 3, INFO, r, 1)
    mine = _fields(view_for(item, 0))
    assert mine is not None
    assert mine["round"]["hand"] == sorted(mine["round"]["hand"], key=lambda t: parse_tiles(t))
    assert len(mine["round"]["hand"]) == 11  # 14 - 4 + the replacement draw
    assert mine["round"]["drawn"] is not None
    assert mine["round"]["melds"][0] == [
        {"kind": "an", "tile": "1m", "from_seat": None, "dou": "men"}
    ]
    for viewer in (1, 2, None):
        view = _fields(view_for(item, viewer))
        assert view is not None
        rv = view["round"]
        assert rv["melds"][0][0]["tile"] is None
        assert rv["drawn"] is None
        assert (rv["hand"] is None) == (viewer is None)
        assert rv["hand_sizes"] == [11, 13, 13, 13]
        text = repr(view)
        assert "wall" not in text.replace("wall_left", "")


def test_round_view_reveals_the_concealed_gang_when_the_round_is_over() -> None:
    r = _round()
    r.apply(Action(0, "gang", parse_tiles("1m")[0]))
    while r.phase.value != "over":
        seat = r.awaiting()[0]
        r.apply(r.default_action(seat))
    assert round_view(r, 1, 2)["melds"][0][0]["tile"] == "1m"


def test_prompts_go_only_to_their_seat_and_errors_carry_no_tiles() -> None:
    prompt = PromptItem("1", 5, 2, [{"act": "pass"}], {"act": "pass"}, 1000, 500)
    assert view_for(prompt, 2) is not None
    assert all(view_for(prompt, v) is None for v in (0, 1, 3, None))
    error = _fields(view_for(ErrorItem("stale", "that answers 4", "act", "1", 5), 1))
    assert error == {
        "type": "error",
        "code": "stale",
        "message": "that answers 4",
        "ref": "act",
        "table": "1",
        "seq": 5,
    }
