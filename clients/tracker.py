"""A seat's view of the round, rebuilt from the frames it was sent, to compare with the server's.

`SeatTracker.on_frame(frame)` applies every table frame once (a `seq` already applied is skipped,
as a reconnect's catch-up may repeat nothing but could); a `snapshot` replaces the view.
The view is a `rules.view.SeatView` reduced from the frames (the one the server builds for this
seat). `differences(snapshot)` lists where it and a fresh server snapshot disagree: the phase,
turn and claim tile, the viewer's hand, every seat's hand size, melds (a 暗杠 of another seat
hidden), discards, 报听 and the wall. `zhuoji loadtest --chaos` counts a reconnected client whose list is not empty as a
mismatch. It also checks each round's fair deal (`protocol.fairdeal.check_deal`) from the
dealt hand, the draws and the flip this seat saw.
"""

from __future__ import annotations

from typing import Any

from protocol.events import seen_event, snapshot_view
from protocol.fairdeal import check_deal
from protocol.messages import TABLE_EVENT_TYPES
from rules.options import RuleOptions, make_options
from rules.tiles import tile_name
from rules.view import SeatView, reduce, start


class SeatTracker:
    """The round as one seat has been shown it: a `rules.view.SeatView` reduced from the frames
    (`view`), with the round's number and fair-deal commitment."""

    def __init__(self, seat: int | None) -> None:
        self.seat = seat
        self.seq = 0  # the last table event (or snapshot) applied
        self.view: SeatView | None = None
        self.round_no = 0
        self.commitment: str | None = None
        self.opts: RuleOptions | None = None
        self.fair_checked = 0
        self.fair_problems: list[str] = []
        self._dealt: list[str] | None = None
        self._draws: list[tuple[bool, str | None]] = []
        self._flip: str | None = None
        self._partial = True  # the round was joined from a snapshot: its deal cannot be checked

    # ----- frames in -----

    def on_frame(self, f: dict[str, Any]) -> None:
        kind = f["type"]
        if kind == "joined":
            self.seat = f["seat"]
            return
        if kind in ("snapshot", "table"):
            self._options(f["info"])
        if kind == "snapshot":
            self.seq = f["seq"]
            self._from_snapshot(f["round"])
            return
        if kind not in TABLE_EVENT_TYPES:
            return
        if f["seq"] <= self.seq:
            return  # already applied
        self.seq = f["seq"]
        event = seen_event(f)
        if event is None:
            return  # a table event that is not a round's
        if kind == "round_started":
            self._started(f)
            return
        if self.view is None:
            return
        self.view = reduce(self.view, event)
        if kind == "drew":
            self._draws.append((f["replacement"], f["tile"]))
        elif kind == "flipped":
            self._flip = f["tile"]
        elif kind == "round_ended":
            self._check_deal(f)

    def _options(self, info: dict[str, Any]) -> None:
        try:
            self.opts = make_options(info["preset"], info.get("options") or {})
        except (KeyError, ValueError):
            pass  # a header we cannot read: keep what we had

    def _rules(self) -> RuleOptions:
        """The table's rules; only the view's own claims depend on them, and those are not
        compared, so a tracker that never saw the header reads the round as guiyang."""
        return self.opts if self.opts is not None else make_options("guiyang", {})

    def _from_snapshot(self, rv: dict[str, Any] | None) -> None:
        self._partial = True
        if rv is None:
            self.view = None
            return
        self.round_no = rv["round_no"]
        self.commitment = rv.get("commitment")
        self.view = snapshot_view(rv, self.seat, self._rules())

    def _started(self, f: dict[str, Any]) -> None:
        self.round_no = f["round_no"]
        self.commitment = f.get("commitment")
        event = seen_event(f)
        assert event is not None
        self.view = start(self._rules(), self.seat, event)
        self._partial = False
        self._dealt = list(f["hand"]) if f["hand"] is not None else None
        self._draws = []
        self._flip = None

    def _check_deal(self, f: dict[str, Any]) -> None:
        if self._partial or self.view is None:
            return
        self.fair_checked += 1
        problems = check_deal(
            self.commitment,
            f.get("deal"),
            dealer=self.view.dealer,
            seat=self.seat,
            hand=self._dealt,
            draws=self._draws,
            flip=self._flip,
        )
        self.fair_problems += [f"round {self.round_no}: {p}" for p in problems]

    # ----- comparing -----

    def differences(self, snapshot: dict[str, Any]) -> list[str]:
        """Where this view and a fresh snapshot (at the same `seq`) disagree."""
        if snapshot["seq"] != self.seq:
            return [f"the snapshot is at seq {snapshot['seq']}, the view at {self.seq}"]
        rv = snapshot["round"]
        if rv is None:
            return []  # between rounds after a restart: no round to compare
        if self.view is None:
            return [f"no round in the view; the server is in round {rv['round_no']}"]
        theirs = _comparable(
            snapshot_view(rv, self.seat, self.view.opts),
            rv["round_no"],
            rv.get("commitment"),
            self.seat,
        )
        ours = _comparable(self.view, self.round_no, self.commitment, self.seat)
        return [
            f"{key}: the view has {ours[key]}, the server {value}"
            for key, value in theirs.items()
            if ours[key] != value
        ]


def _comparable(
    v: SeatView, round_no: int, commitment: str | None, seat: int | None
) -> dict[str, Any]:
    """What a snapshot says of the round, as the view has it. Another seat's 暗杠 is compared
    without its tile (the server shows it once the round is over)."""
    return {
        "round_no": round_no,
        "phase": v.phase.value,
        "turn": v.turn,
        "hand": v.hand,
        "hand_sizes": v.hand_sizes,
        "melds": tuple(
            tuple(m._replace(tile=None) if m.kind == "an" and s != seat else m for m in row)
            for s, row in enumerate(v.melds)
        ),
        "discards": v.discards,
        "declared": v.declared,
        "wall_left": v.wall_left,
        "claim_tile": None if v.claim_tile is None else tile_name(v.claim_tile),
        "claim_from": v.claim_from,
        "commitment": commitment,
    }
