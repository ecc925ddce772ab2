"""The outbox (`server.table.fanout.Outbox`) and the prompt item (`projection.PromptItem.of`)
on a fake clock: the effects of one input in order, frames paced behind their write and a
claim hold, a prompt's stamp handed back when it goes out."""

from __future__ import annotations

from rules.options import make_options
from rules.round import Round, legal_actions
from rules.tiles import tile_name
from server.table.effects import Send, Write
from server.table.fanout import Outbox
from server.table.projection import ErrorItem, PromptItem


def _event(seq: int, kind: str = "drew") -> dict[str, object]:
    return {"type": kind, "table": "7", "seq": seq, "seat": 1, "tile": "5p", "replacement": False,
            "wall_left": 50}  # fmt: skip


def test_an_inputs_effects_come_in_order_and_an_events_frames_wait_for_the_next_tick() -> None:
    box: Outbox[str] = Outbox(claim_min=0.0)
    assert box.begin(now=0.0) == []
    box.emit(Write([]))
    went = box.broadcast(_event(1), {"a": 1, "b": 2, "w": None})
    assert went is False  # an event waits for its write
    box.to("a", "reply")  # and a reply made after it waits behind it
    assert box.take() == [Write([])]
    assert box.take() == []  # taken once
    assert box.begin(now=0.0) == []
    sends = box.take()
    assert [s.to for s in sends] == [("a",), ("b", "w"), ("a",)]  # one frame per view
    assert sends[0].frame["tile"] == "5p" and sends[1].frame["tile"] is None
    assert sends[2] == Send(("a",), "reply")


def test_after_a_claim_hold_event_the_next_event_waits_the_minimum_but_a_reply_does_not_jump_it() -> (
    None
):
    box: Outbox[str] = Outbox(claim_min=0.5)
    box.begin(now=10.0)
    box.broadcast(_event(1, "discarded"), {"a": 0}, claim=True)
    box.broadcast(_event(2), {"a": 0})
    box.paced([Send(("a",), "prompt")], event=False, stamp=(0, 2))
    assert box.begin(now=10.0) == []  # the discard goes; the hold starts
    assert [s.frame["seq"] for s in box.take()] == [1]
    assert box.begin(now=10.4) == [] and box.take() == []
    assert box.begin(now=10.5) == [(0, 2)]  # the prompt's stamp: its clock starts now
    assert [s.frame if s.frame == "prompt" else s.frame["seq"] for s in box.take()] == [2, "prompt"]


def test_a_view_that_shows_a_viewer_nothing_sends_nothing() -> None:
    box: Outbox[str] = Outbox(claim_min=0.0)
    box.begin(now=0.0)
    box.view("a", 1, ErrorItem("stale", "too late", "act", "7", 3))
    (sent,) = box.take()
    assert isinstance(sent, Send) and sent.frame.code == "stale"


def test_a_prompt_lists_the_legal_moves_its_default_and_its_clock_in_milliseconds() -> None:
    r = Round.deal(make_options("guiyang", {}), seed=3, dealer=0, streak=0, base=1)
    item = PromptItem.of("7", 4, r, 0, left=12.3456, bank=5.5)
    assert (item.table, item.seq, item.seat, item.deadline_ms, item.bank_ms) == (
        "7", 4, 0, 12345, 5500
    )  # fmt: skip
    assert len(item.actions) == len(legal_actions(r, 0))
    default = r.default_action(0)
    assert item.default == {"act": default.act, "tile": tile_name(default.tile)}
    assert item.default in item.actions
    late = PromptItem.of("7", 4, r, 0, left=-1.0, bank=0.0)
    assert late.deadline_ms == 0  # never a negative time
    untimed = PromptItem.of("7", 4, r, 0, left=None, bank=5.5)
    assert (untimed.deadline_ms, untimed.bank_ms) == (None, None)
