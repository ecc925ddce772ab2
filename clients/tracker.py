"""A seat's view of the round, rebuilt from the frames it was sent, to compare with the server's.

`SeatTracker.on_frame(frame)` applies every table frame once (a `seq` already applied is skipped,
as a reconnect's catch-up may repeat nothing but could); a `snapshot` replaces the view.
`differences(snapshot)` lists where the rebuilt view and a fresh server snapshot disagree: the
viewer's hand, every seat's hand size, melds (a 暗杠 of another seat hidden), discards, 报听 and
the wall. `zhuoji loadtest --chaos` counts a reconnected client whose list is not empty as a
mismatch. It also checks each round's fair deal (`protocol.fairdeal.check_deal`) from the
dealt hand, the draws and the flip this seat saw.
"""

from __future__ import annotations

from typing import Any

from protocol.fairdeal import check_deal

EVENT_TYPES = frozenset(
    {
        "round_started", "drew", "discarded", "claimed", "concealed_gang", "add_gang_declared",
        "added_gang", "won", "exhausted", "flipped", "round_ended", "auto_played", "seat_status",
        "match_ended", "match_started", "table",
    }
)  # fmt: skip


class SeatTracker:
    """The round as one seat has been shown it."""

    def __init__(self, seat: int | None) -> None:
        self.seat = seat
        self.seq = 0  # the last table event (or snapshot) applied
        self.round: dict[str, Any] | None = None
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
        if kind == "snapshot":
            self.seq = f["seq"]
            self._from_snapshot(f["round"])
            return
        if kind not in EVENT_TYPES:
            return
        if f["seq"] <= self.seq:
            return  # already applied
        self.seq = f["seq"]
        handler = getattr(self, "_on_" + kind, None)
        if handler is not None and (self.round is not None or kind == "round_started"):
            handler(f)

    def _from_snapshot(self, view: dict[str, Any] | None) -> None:
        self._partial = True
        if view is None:
            self.round = None
            return
        self.round = {
            "round_no": view["round_no"],
            "dealer": view["dealer"],
            "hand": list(view["hand"] or []),
            "hand_sizes": list(view["hand_sizes"]),
            "melds": [[dict(m) for m in row] for row in view["melds"]],
            "discards": [[dict(d) for d in row] for row in view["discards"]],
            "declared": list(view["declared"]),
            "wall_left": view["wall_left"],
            "commitment": view.get("commitment"),
            "over": view["phase"] == "over",
        }

    def _on_round_started(self, f: dict[str, Any]) -> None:
        self.round = {
            "round_no": f["round_no"],
            "dealer": f["dealer"],
            "hand": list(f["hand"] or []),
            "hand_sizes": list(f["hand_sizes"]),
            "melds": [[], [], [], []],
            "discards": [[], [], [], []],
            "declared": [False] * 4,
            "wall_left": f["wall_left"],
            "commitment": f.get("commitment"),
            "over": False,
        }
        self._partial = False
        self._dealt = list(f["hand"]) if f["hand"] is not None else None
        self._draws = []
        self._flip = None

    def _mine(self, f: dict[str, Any]) -> bool:
        return self.seat is not None and f["seat"] == self.seat

    def _on_drew(self, f: dict[str, Any]) -> None:
        r = self.round
        assert r is not None
        r["hand_sizes"][f["seat"]] += 1
        r["wall_left"] = f["wall_left"]
        if self._mine(f):
            r["hand"].append(f["tile"])
        self._draws.append((f["replacement"], f["tile"]))

    def _on_discarded(self, f: dict[str, Any]) -> None:
        r = self.round
        assert r is not None
        seat = f["seat"]
        r["hand_sizes"][seat] -= 1
        if self._mine(f):
            r["hand"].remove(f["tile"])
        r["discards"][seat].append({"tile": f["tile"], "claimed": False, "declared": f["declared"]})
        if f["declared"]:
            r["declared"][seat] = True

    def _take_last_discard(self, from_seat: int) -> None:
        r = self.round
        assert r is not None
        row = r["discards"][from_seat]
        if row:
            row[-1] = {**row[-1], "claimed": True}

    def _on_claimed(self, f: dict[str, Any]) -> None:
        r = self.round
        assert r is not None
        seat, tile = f["seat"], f["tile"]
        n = 2 if f["act"] == "pong" else 3
        r["hand_sizes"][seat] -= n
        if self._mine(f):
            for _ in range(n):
                r["hand"].remove(tile)
        self._take_last_discard(f["from_seat"])
        kind, dou = ("pong", None) if f["act"] == "pong" else ("ming", "dian")
        r["melds"][seat].append(
            {"kind": kind, "tile": tile, "from_seat": f["from_seat"], "dou": dou}
        )

    def _on_concealed_gang(self, f: dict[str, Any]) -> None:
        r = self.round
        assert r is not None
        seat = f["seat"]
        r["hand_sizes"][seat] -= 4
        if self._mine(f):
            for _ in range(4):
                r["hand"].remove(f["tile"])
        r["melds"][seat].append(
            {"kind": "an", "tile": f["tile"], "from_seat": None, "dou": f["dou"]}
        )

    def _on_added_gang(self, f: dict[str, Any]) -> None:
        r = self.round
        assert r is not None
        seat, tile = f["seat"], f["tile"]
        r["hand_sizes"][seat] -= 1
        if self._mine(f):
            r["hand"].remove(tile)
        row = r["melds"][seat]
        for i, m in enumerate(row):
            if m["kind"] == "pong" and m["tile"] == tile:
                row[i] = {**m, "kind": "bu", "dou": f["dou"]}
                break

    def _on_won(self, f: dict[str, Any]) -> None:
        r = self.round
        assert r is not None
        r["over"] = True
        if f["how"] == "discard":
            self._take_last_discard(f["from_seat"])
        elif f["how"] == "rob" and not r.get("robbed"):
            r["robbed"] = True  # the robbed tile leaves the hand once, whoever won
            r["hand_sizes"][f["from_seat"]] -= 1
            if self.seat == f["from_seat"]:
                r["hand"].remove(f["tile"])

    def _on_exhausted(self, f: dict[str, Any]) -> None:
        assert self.round is not None
        self.round["over"] = True

    def _on_flipped(self, f: dict[str, Any]) -> None:
        self._flip = f["tile"]

    def _on_round_ended(self, f: dict[str, Any]) -> None:
        r = self.round
        assert r is not None
        r["over"] = True
        if self._partial:
            return
        self.fair_checked += 1
        problems = check_deal(
            r["commitment"], f.get("deal"), dealer=r["dealer"], seat=self.seat,
            hand=self._dealt, draws=self._draws, flip=self._flip,
        )  # fmt: skip
        self.fair_problems += [f"round {r['round_no']}: {p}" for p in problems]

    # ----- comparing -----

    def differences(self, snapshot: dict[str, Any]) -> list[str]:
        """Where this view and a fresh snapshot (at the same `seq`) disagree."""
        if snapshot["seq"] != self.seq:
            return [f"the snapshot is at seq {snapshot['seq']}, the view at {self.seq}"]
        view = snapshot["round"]
        mine = self.round
        if view is None:
            return []  # between rounds after a restart: no round to compare
        if mine is None:
            return [f"no round in the view; the server is in round {view['round_no']}"]
        problems = []
        theirs = {
            "round_no": view["round_no"],
            "hand": sorted(view["hand"] or []),
            "hand_sizes": view["hand_sizes"],
            "melds": _masked(view["melds"], self.seat),
            "discards": view["discards"],
            "declared": view["declared"],
            "wall_left": view["wall_left"],
            "commitment": view.get("commitment"),
        }
        ours = {
            "round_no": mine["round_no"],
            "hand": sorted(mine["hand"]),
            "hand_sizes": mine["hand_sizes"],
            "melds": _masked(mine["melds"], self.seat),
            "discards": mine["discards"],
            "declared": mine["declared"],
            "wall_left": mine["wall_left"],
            "commitment": mine["commitment"],
        }
        for key, value in theirs.items():
            if ours[key] != value:
                problems.append(f"{key}: the view has {ours[key]}, the server {value}")
        return problems


def _masked(melds: list[list[dict[str, Any]]], seat: int | None) -> list[Any]:
    """Melds as a viewer may compare them: another seat's 暗杠 without its tile (the server
    shows it once the round is over, the events never did)."""
    return [
        [{**m, "tile": None} if m["kind"] == "an" and s != seat else m for m in row]
        for s, row in enumerate(melds)
    ]
