"""What each viewer may see: the one place that turns the table's truth into frames.

Which viewer may know what is the rules core's (`rules.view`): an event is masked by
`rules.view.project`, a snapshot's round is `rules.view.view_of` written out. This module only
puts them in the wire format.

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

from pydantic import BaseModel

from protocol import frames
from protocol.events import project_entry
from rules.actions import Action
from rules.round import Phase, Round, legal_actions
from rules.tiles import NUM_KINDS, tile_name
from rules.view import PRIVATE_TYPES, Viewer, view_of

__all__ = [
    "PRIVATE_TYPES",
    "ErrorItem",
    "Frame",
    "Item",
    "PromptItem",
    "SnapshotItem",
    "Viewer",
    "round_view",
    "view_for",
    "view_key",
]


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

    @classmethod
    def of(
        cls, table: str, seq: int, r: Round, seat: int, left: float | None, bank: float
    ) -> PromptItem:
        """The prompt of decision `seq` for `seat`: its legal moves, its default (the move a
        timeout plays) and, on a timed table, `left` seconds in all, `bank` of them the bank
        (`left` None: no clock)."""
        return cls(
            table,
            seq,
            seat,
            [_choice(a) for a in legal_actions(r, seat)],
            _choice(r.default_action(seat)),
            None if left is None else max(0, int(left * 1000)),
            None if left is None else int(bank * 1000),
        )


def _choice(action: Action) -> dict[str, Any]:
    """A move as a prompt lists it."""
    d: dict[str, Any] = {"act": action.act}
    if action.tile is not None:
        d["tile"] = tile_name(action.tile)
    return d


@dataclass(frozen=True, slots=True)
class ErrorItem:
    """A refusal addressed to one viewer."""

    code: str
    message: str
    ref: str | None = None
    table: str | None = None
    seq: int | None = None


Item = dict[str, Any] | SnapshotItem | PromptItem | ErrorItem
# A frame to send: a logged event's projected fields (validated when encoded), or a model.
Frame = dict[str, Any] | BaseModel


def view_for(item: Item, viewer: Viewer) -> Frame | None:
    """The frame `viewer` gets for `item`, or None if it gets nothing: a logged event as its
    projected fields (a public event the very same dict for every viewer, so a sender can
    serialise it once), a prompt as its fields (`protocol.frames.prompt_fields`: one for every
    decision, made from the engine's legal actions), any other frame as its model
    (`protocol.frames`)."""
    if isinstance(item, dict):
        return _event_view(item, viewer)
    if isinstance(item, PromptItem):
        if viewer != item.seat:
            return None
        return frames.prompt_fields(
            item.table,
            item.seq,
            item.seat,
            item.actions,
            item.default,
            item.deadline_ms,
            item.bank_ms,
        )
    if isinstance(item, SnapshotItem):
        r = item.round
        view = None if r is None else round_view(r, item.round_no, viewer, item.commitment)
        return frames.snapshot(item.table, item.seq, item.info, viewer, view)
    # An error carries only its own text and the table's number; never a tile of anyone else.
    return frames.error(item.code, item.message, item.ref, item.table, item.seq)


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
    """The logged event as `viewer` gets it (`protocol.events.project_entry`, which masks it with
    `rules.view.project`). Public events are the logged dict itself."""
    return project_entry(event, viewer)


def round_view(
    r: Round, round_no: int, viewer: Viewer, commitment: str | None = None
) -> dict[str, Any]:
    """The round state for a snapshot (protocol `RoundView`): `rules.view.view_of` written out."""
    v = view_of(r, viewer)
    hand = None
    if v.hand is not None:
        hand = [name for name, n in zip(NAMES, v.hand, strict=True) if n for _ in range(n)]
    drawn = v.drawn if v.phase is Phase.TURN else None
    return {
        "round_no": round_no,
        "dealer": v.dealer,
        "streak": v.streak,
        "base": r.base,
        "phase": v.phase.value,
        "turn": v.turn,
        "wall_left": v.wall_left,
        "hand": hand,
        "drawn": None if drawn is None else NAMES[drawn],
        "hand_sizes": list(v.hand_sizes),
        "melds": [
            [
                {
                    "kind": kind,
                    "tile": None if tile is None else NAMES[tile],
                    "from_seat": from_seat,
                    "dou": dou,
                }
                for kind, tile, from_seat, dou in row
            ]
            for row in v.melds
        ],
        "discards": [
            [
                {"tile": NAMES[t], "claimed": claimed, "declared": declared}
                for t, claimed, declared in row
            ]
            for row in v.discards
        ],
        "declared": list(v.declared),
        "claim_tile": None if v.claim_tile is None else NAMES[v.claim_tile],
        "claim_from": v.claim_from,
        "commitment": commitment,
        "weekday": v.weekday,
    }


NAMES = tuple(tile_name(k) for k in range(NUM_KINDS))
