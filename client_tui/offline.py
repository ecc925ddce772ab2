"""A table without a server: a rules-engine round whose events are turned into the frames one seat
(or a spectator) would receive, so the client can be driven offline — in tests, snapshots and
demos — exactly as a server would drive it.

The masking is the rules core's (`rules.view.project`, through `protocol.events.project_entry`,
as the server's frames are made): a seat sees its own deal, draws and 暗杠 tiles; everyone else
gets `null` for those.

>>> from rules.options import GUIYANG
>>> t = OfflineTable(Round.deal(GUIYANG, seed=1), viewer=0)
>>> [f.type for f in t.opening()]
['welcome', 'joined', 'snapshot', 'match_started', 'round_started']
"""

from __future__ import annotations

from typing import Any

from protocol.events import project_entry
from protocol.messages import SERVER_ADAPTER, ServerMessage
from rules.actions import Action
from rules.round import Phase, Round, legal_actions
from rules.tiles import tile_name


def table_info(
    table: str = "1",
    *,
    preset: str = "guiyang",
    names: list[str] | None = None,
    state: str = "playing",
    scores: list[int] | None = None,
    round_no: int = 1,
    rounds: int = 8,
    me: int | None = 0,
) -> dict[str, Any]:
    """A `TableInfo` dict: four seats, the viewer human, the others bots."""
    names = names or ["me", "Bot-2", "Bot-3", "Bot-4"]
    return {
        "id": table,
        "name": "offline",
        "preset": preset,
        "options": {},
        "base": 1,
        "rounds": rounds,
        "turn_seconds": 15.0,
        "bank_seconds": 30.0,
        "claim_min_ms": 0,
        "has_password": False,
        "seats": [
            {"name": n, "kind": "human" if i == me else "bot", "connected": True, "auto": False}
            for i, n in enumerate(names)
        ],
        "spectators": 0,
        "state": state,
        "round_no": round_no,
        "scores": scores or [0, 0, 0, 0],
    }


def project(event: dict[str, Any], viewer: int | None) -> dict[str, Any]:
    """What `viewer` may see of an engine event (already numbered, with `table` and `seq`):
    the same masking as the server's frames, so offline and online frames cannot differ."""
    return dict(project_entry(event, viewer))


class OfflineTable:
    """One round of an offline table as seen from `viewer`; `seq` numbers every frame."""

    def __init__(
        self,
        r: Round,
        viewer: int | None,
        *,
        table: str = "1",
        round_no: int = 1,
        scores: list[int] | None = None,
        names: list[str] | None = None,
    ) -> None:
        self.round = r
        self.viewer = viewer
        self.table = table
        self.round_no = round_no
        self.scores = list(scores or [0, 0, 0, 0])
        self.names = names or ["me", "Bot-2", "Bot-3", "Bot-4"]
        self.seq = 0
        self._sent = 0

    def _parse(self, frame: dict[str, Any]) -> ServerMessage:
        return SERVER_ADAPTER.validate_python(frame)

    def opening(self) -> list[ServerMessage]:
        """Hello to the start of the round: welcome, joined, snapshot, match_started and the
        round's events so far."""
        self.seq = 1
        info = table_info(self.table, names=self.names, state="waiting", round_no=0, me=self.viewer)
        frames = [
            {"type": "welcome", "version": 1, "server": "offline", "name": self.names[0]},
            {
                "type": "joined",
                "table": self.table,
                "seq": 1,
                "seat": self.viewer,
                "token": None if self.viewer is None else "offline-token-0000",
                "resume": "snapshot",
            },
            {
                "type": "snapshot",
                "table": self.table,
                "seq": 1,
                "info": info,
                "seat": self.viewer,
                "round": None,
            },
        ]
        self.seq += 1
        frames.append(
            {
                "type": "match_started",
                "table": self.table,
                "seq": self.seq,
                "rounds": 8,
                "names": self.names,
            }
        )
        return [self._parse(f) for f in frames] + self.events()

    def events(self) -> list[ServerMessage]:
        """The round's events not sent yet, numbered and masked for the viewer."""
        out = []
        for event in self.round.events[self._sent :]:
            self.seq += 1
            d = event.to_dict()
            d.update(table=self.table, seq=self.seq)
            if d["type"] == "round_started":
                d.update(round_no=self.round_no, base=self.round.base)
            elif d["type"] == "round_ended":
                self.scores = [a + b for a, b in zip(self.scores, d["result"]["net"], strict=True)]
                d["scores"] = list(self.scores)
            out.append(self._parse(project(d, self.viewer)))
        self._sent = len(self.round.events)
        return out

    def apply(self, action: Action) -> list[ServerMessage]:
        self.round.apply(action)
        return self.events()

    def prompt(self, deadline_ms: int | None = 15000) -> ServerMessage | None:
        """The viewer's prompt now, or None when nothing is asked of it."""
        seat = self.viewer
        if seat is None or self.round.phase is Phase.OVER or seat not in self.round.awaiting():
            return None

        def choice(a: Action) -> dict[str, Any]:
            d: dict[str, Any] = {"act": a.act}
            if a.tile is not None:
                d["tile"] = tile_name(a.tile)
            return d

        return self._parse(
            {
                "type": "prompt",
                "table": self.table,
                "seq": self.seq,
                "seat": seat,
                "actions": [choice(a) for a in legal_actions(self.round, seat)],
                "default": choice(self.round.default_action(seat)),
                "deadline_ms": deadline_ms,
                "bank_ms": None if deadline_ms is None else 30000,
            }
        )
