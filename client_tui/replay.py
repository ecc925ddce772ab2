"""A stored or scripted round, replayed one move at a time for the replay browser.

A `RoundTape` is a round played once from its deal script (RULES.md §9) with the points between
its moves noted (`rules.script.play_steps`). The view at a step is built the way a live client
builds it: the round's events up to that step, masked for the viewer by the rules core
(`client_tui.offline.project`), reduced into a `View` by the client's own reducer. So what the
browser shows of a seat is what that seat saw at the table; the "all hands" viewpoint is the
spectator's view with every seat's concealed hand (each taken from that seat's own view) laid open.

>>> import json
>>> from pathlib import Path
>>> data = json.loads(Path("tests/scenarios/guiyang_01_pinghu_zimo_dealer.json").read_text())
>>> tape = tape_from_script(data)
>>> view_at(tape, 0, 0).round.wall_left == tape.round.events[0].to_dict()["wall_left"]
True
>>> view_at(tape, tape.last, ALL).result.net == tuple(tape.round.result.net)
True
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Final, Literal

from client_tui.offline import project, table_info
from client_tui.reducer import reduce
from client_tui.view import View
from protocol.messages import SERVER_ADAPTER
from rules.round import Round
from rules.script import Step, parse_script, play_steps

ALL: Final = "all"
Viewpoint = int | None | Literal["all"]
"""A seat 0–3, None for a spectator, or `ALL` for every hand open."""

VIEWPOINTS: Final[tuple[Viewpoint, ...]] = (ALL, 0, 1, 2, 3, None)
"""The order `v` cycles through."""


@dataclass(frozen=True)
class RoundTape:
    """One round of a match: its deal script, the round played from it, and its steps."""

    script: dict[str, Any]
    round: Round
    steps: tuple[Step, ...]
    round_no: int = 1
    rounds: int = 1
    names: tuple[str, ...] = ("#1", "#2", "#3", "#4")
    scores_before: tuple[int, ...] = (0, 0, 0, 0)
    table: str = "replay"
    table_name: str = "replay"
    preset: str = "guiyang"

    @property
    def last(self) -> int:
        """The last step: the round's end (or as far as a cut-short round went)."""
        return len(self.steps) - 1

    @property
    def finished(self) -> bool:
        return self.round.result is not None


def tape_from_script(
    data: dict[str, Any],
    *,
    round_no: int = 1,
    rounds: int = 1,
    names: tuple[str, ...] | None = None,
    scores_before: tuple[int, ...] = (0, 0, 0, 0),
    table: str = "replay",
    table_name: str = "replay",
) -> RoundTape:
    """Play a deal script into a tape. A script that ends with `then: "stop"` before the round
    is over (a stored round cut short) replays as far as it went. Raises `ScriptError` for a
    script that cannot be played."""
    script = parse_script(data)
    r, steps = play_steps(script, partial=True)
    return RoundTape(
        script=data,
        round=r,
        steps=tuple(steps),
        round_no=round_no,
        rounds=rounds,
        names=names or ("#1", "#2", "#3", "#4"),
        scores_before=scores_before,
        table=table,
        table_name=table_name,
        preset=script.ruleset,
    )


def _frames(tape: RoundTape, step: int, viewer: int | None) -> list[dict[str, Any]]:
    """What `viewer` received from the table's opening to `step`, as wire frames."""
    info = table_info(
        tape.table,
        preset=tape.preset,
        names=list(tape.names),
        state="playing",
        scores=list(tape.scores_before),
        round_no=tape.round_no,
        rounds=tape.rounds,
        me=viewer,
    )
    info["name"] = tape.table_name
    info["options"] = dict(tape.script.get("options") or {})
    info["base"] = tape.round.base
    info["seats"] = [dict(s, kind="human", connected=True) for s in info["seats"]]
    frames: list[dict[str, Any]] = [
        {"type": "welcome", "version": 1, "server": "replay", "name": "replay"},
        {
            "type": "joined",
            "table": tape.table,
            "seq": 1,
            "seat": viewer,
            "token": None,
            "resume": "snapshot",
        },
        {
            "type": "snapshot",
            "table": tape.table,
            "seq": 1,
            "info": info,
            "seat": viewer,
            "round": None,
        },
    ]
    scores = list(tape.scores_before)
    upto = tape.steps[step].events
    for seq, event in enumerate(tape.round.events[:upto], start=2):
        d = event.to_dict()
        d.update(table=tape.table, seq=seq)
        if d["type"] == "round_started":
            d.update(round_no=tape.round_no, base=tape.round.base)
        elif d["type"] == "round_ended":
            scores = [a + b for a, b in zip(scores, d["result"]["net"], strict=True)]
            d["scores"] = scores
        frames.append(project(d, viewer))
    return frames


def _view(tape: RoundTape, step: int, viewer: int | None) -> View:
    view = View(my_name="replay", status="connected")
    for frame in _frames(tape, step, viewer):
        view = reduce(view, SERVER_ADAPTER.validate_python(frame))
    return replace(view, notice=None)


def view_at(tape: RoundTape, step: int, viewpoint: Viewpoint) -> View:
    """The table at `step` (0 = the deal, `tape.last` = the end) from `viewpoint`."""
    step = max(0, min(step, tape.last))
    if viewpoint != ALL:
        return _view(tape, step, viewpoint)  # type: ignore[arg-type]
    view = _view(tape, step, None)
    if view.round is None or view.round.hands is not None:
        return view  # over: the round's end reveals every hand anyway
    hands = []
    for seat in range(4):
        own = _view(tape, step, seat).round
        hands.append(own.hand if own is not None and own.hand is not None else ())
    return replace(view, round=replace(view.round, hands=tuple(hands)))


def export_script(tape: RoundTape, step: int) -> dict[str, Any]:
    """The deal script of the round from its deal to `step`: the same deal and the actions
    played so far. At the last step it is the whole round and replays to the same settlement
    (`zhuoji replay`); before it, it ends with `then: "stop"`, so `zhuoji replay` reports where
    the actions ran out."""
    step = max(0, min(step, tape.last))
    out = dict(tape.script)
    if step == tape.last:
        return out
    out["actions"] = list(tape.script.get("actions") or [])[: tape.steps[step].actions]
    out["then"] = "stop"
    return out
