"""The day of the deal is part of the deal (RULES.md §13.12): the `round_started` event carries
it, every viewer's projection and seat view hold it (it is public), and a round dealt without
one writes exactly the JSON it always did."""

from __future__ import annotations

import pytest

from protocol.events import engine_event, project_entry, seen_event, snapshot_view
from protocol.messages import RoundStarted as RoundStartedFrame
from rules.events import RoundStarted
from rules.options import make_options
from rules.round import Round
from rules.view import DealSeen, project, reduce, start, view_of
from server.table.projection import round_view

XQ = make_options("guiyang", {"xingqiji": True})


def deal(weekday: int | None) -> Round:
    return Round.deal(XQ, seed="weekday", dealer=1, weekday=weekday)


def test_the_deal_event_carries_the_day_and_its_json_omits_an_unknown_one() -> None:
    first = deal(4).events[0]
    assert isinstance(first, RoundStarted) and first.weekday == 4
    assert first.to_dict()["weekday"] == 4
    unknown = deal(None).events[0].to_dict()
    assert "weekday" not in unknown
    assert list(unknown) == ["type", "dealer", "streak", "hands", "wall_left"]


@pytest.mark.parametrize("viewer", [0, 1, 2, 3, None])
def test_every_viewer_sees_the_day_and_the_views_agree(viewer: int | None) -> None:
    r = deal(6)
    seen = project(r.events[0], viewer)
    assert isinstance(seen, DealSeen) and seen.weekday == 6
    v = start(XQ, viewer, r.events[0])
    assert v.weekday == 6 == view_of(r, viewer).weekday
    # The day stays through the round's events.
    for e in r.events[1:]:
        v = reduce(v, e)
    assert v.weekday == 6


def test_the_day_survives_the_log_the_wire_and_the_snapshot() -> None:
    r = deal(2)
    entry = {**r.events[0].to_dict(), "table": "1", "seq": 1, "round_no": 1, "base": 1}
    full = engine_event(entry)
    assert isinstance(full, RoundStarted) and full.weekday == 2
    frame = project_entry(entry, 3)
    assert frame["weekday"] == 2 and "hands" not in frame
    model = RoundStartedFrame.model_validate(frame)
    assert model.weekday == 2
    got = seen_event(model)
    assert isinstance(got, DealSeen) and got.weekday == 2
    # A log entry from before the field: no day.
    old = {k: v for k, v in entry.items() if k != "weekday"}
    assert seen_event(project_entry(old, 0)).weekday is None  # type: ignore[union-attr]
    snap = round_view(r, 1, 0)
    assert snap["weekday"] == 2
    assert snapshot_view(snap, 0, XQ).weekday == 2


@pytest.mark.parametrize("bad", [0, 8, "2"])
def test_a_frame_with_an_impossible_day_is_refused(bad: object) -> None:
    frame = project_entry(
        {**deal(2).events[0].to_dict(), "table": "1", "seq": 1, "round_no": 1, "base": 1}, 0
    )
    with pytest.raises(ValueError, match="weekday"):
        RoundStartedFrame.model_validate({**frame, "weekday": bad})
