"""What each viewer may see: the one place that turns the table's truth into frames.

`view_for(item, viewer)` is the only function that produces a table frame for a seat (0–3) or a
spectator (`None`): live events, reconnect catch-up and snapshots, prompts and error frames all
go through it. A seat sees its own hand and draws; everyone else sees `null` for those tiles, the
size of the hand, and the public record (discards, melds, declarations). A 暗杠's tile stays
hidden from the others until the round is over. Nothing of the wall is ever sent before it is
drawn or flipped.

The items are the table's full records: event dicts as the log stores them (private fields
included), and the small dataclasses below.

>>> e = {"type": "drew", "table": "7", "seq": 9, "seat": 1, "tile": "5p", "replacement": False,
...      "wall_left": 50}
>>> view_for(e, 1)["tile"], view_for(e, 2)["tile"], view_for(e, None)["tile"]
('5p', None, None)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rules.round import Phase, Round
from rules.tiles import tile_name

Viewer = int | None
"""A seat 0–3, or None for a spectator."""


@dataclass(frozen=True, slots=True)
class SnapshotItem:
    """The table as it is now: header, round (or None between rounds)."""

    table: str
    seq: int
    info: dict[str, Any]
    round: Round | None
    round_no: int
    commitment: str | None = None  # the fair-deal commitment of the round


@dataclass(frozen=True, slots=True)
class PromptItem:
    """A decision for `seat`: its legal actions and clock."""

    table: str
    seq: int
    seat: int
    actions: list[dict[str, Any]]
    default: dict[str, Any]
    deadline_ms: int | None
    bank_ms: int | None


@dataclass(frozen=True, slots=True)
class ErrorItem:
    """A refusal addressed to one viewer."""

    code: str
    message: str
    ref: str | None = None
    table: str | None = None
    seq: int | None = None


Item = dict[str, Any] | SnapshotItem | PromptItem | ErrorItem

# Event types whose frames differ between viewers. Every other event is public as logged.
PRIVATE_TYPES = frozenset({"round_started", "drew", "concealed_gang"})


def view_for(item: Item, viewer: Viewer) -> dict[str, Any] | None:
    """The frame `viewer` gets for `item`, or None if it gets nothing.

    A public event comes back as the very same dict for every viewer (so a sender can serialise
    it once)."""
    if isinstance(item, dict):
        return _event_view(item, viewer)
    if isinstance(item, PromptItem):
        if viewer != item.seat:
            return None
        return {
            "type": "prompt", "table": item.table, "seq": item.seq, "seat": item.seat,
            "actions": item.actions, "default": item.default, "deadline_ms": item.deadline_ms,
            "bank_ms": item.bank_ms,
        }  # fmt: skip
    if isinstance(item, SnapshotItem):
        return {
            "type": "snapshot",
            "table": item.table,
            "seq": item.seq,
            "info": item.info,
            "seat": viewer,
            "round": None
            if item.round is None
            else round_view(item.round, item.round_no, viewer, item.commitment),
        }
    # An error carries only its own text and the table's number; never a tile of anyone else.
    frame: dict[str, Any] = {"type": "error", "code": item.code, "message": item.message}
    if item.ref is not None:
        frame["ref"] = item.ref
    if item.table is not None:
        frame["table"] = item.table
        frame["seq"] = item.seq
    return frame


def view_key(item: Item, viewer: Viewer) -> object:
    """Viewers with equal keys get equal frames of `item` (so it is built and encoded once)."""
    if isinstance(item, dict):
        kind = item["type"]
        if kind not in PRIVATE_TYPES:
            return "all"
        if kind == "round_started":
            return viewer
        return "owner" if viewer == item["seat"] else "others"
    return viewer


def _event_view(event: dict[str, Any], viewer: Viewer) -> dict[str, Any]:
    kind = event["type"]
    if kind not in PRIVATE_TYPES:
        return event
    if kind == "round_started":
        hands: list[list[str]] = event["hands"]
        view = {k: v for k, v in event.items() if k != "hands"}
        view["hand"] = list(hands[viewer]) if viewer is not None else None
        view["hand_sizes"] = [len(h) for h in hands]
        return view
    # drew, concealed_gang: the tile is the actor's alone.
    if viewer == event["seat"]:
        return event
    return {**event, "tile": None}


def round_view(
    r: Round, round_no: int, viewer: Viewer, commitment: str | None = None
) -> dict[str, Any]:
    """The round state for a snapshot (protocol `RoundView`)."""
    over = r.phase is Phase.OVER
    hand: list[str] | None = None
    drawn: str | None = None
    if viewer is not None:
        counts = r.hands[viewer]
        hand = [tile_name(k) for k in range(len(counts)) for _ in range(counts[k])]
        if r.drawn is not None and r.turn == viewer and r.phase is Phase.TURN:
            drawn = tile_name(r.drawn)
    melds = [
        [
            {
                "kind": m.kind,
                "tile": tile_name(m.tile) if (m.kind != "an" or over or seat == viewer) else None,
                "from_seat": m.from_seat,
                "dou": m.dou,
            }
            for m in r.melds[seat]
        ]
        for seat in range(4)
    ]
    discards = [
        [{"tile": tile_name(d.tile), "claimed": d.claimed, "declared": d.declared} for d in row]
        for row in r.discards
    ]
    claim_open = r.phase in (Phase.CLAIM, Phase.ROB)
    return {
        "round_no": round_no,
        "dealer": r.dealer,
        "streak": r.streak,
        "base": r.base,
        "phase": r.phase.value,
        "turn": r.turn,
        "wall_left": r.wall_left,
        "hand": hand,
        "drawn": drawn,
        "hand_sizes": [sum(h) for h in r.hands],
        "melds": melds,
        "discards": discards,
        "declared": list(r.declared),
        "claim_tile": tile_name(r.claim_tile) if claim_open and r.claim_tile is not None else None,
        "claim_from": r.claim_from if claim_open else None,
        "commitment": commitment,
    }
