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
>>> view_at(tape, 0, 0).round.wall_left == tape.events[0]["wall_left"]
True
>>> view_at(tape, tape.last, ALL).result.net == tape.net
True
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any, Final, Literal

from client_tui.offline import project, table_info
from client_tui.reducer import reduce
from client_tui.view import View
from protocol.messages import SERVER_ADAPTER, Rounds
from rules.script import Step, parse_script, play_steps

ALL: Final = "all"
Viewpoint = int | None | Literal["all"]
"""A seat 0–3, None for a spectator, or `ALL` for every hand open."""

VIEWPOINTS: Final[tuple[Viewpoint, ...]] = (ALL, 0, 1, 2, 3, None)
"""The order `v` cycles through."""


@dataclass(frozen=True, eq=False)  # hashed by identity: its views are cached
class RoundTape:
    """One round of a match: its events, the points between its moves, and the match around it.

    Built from a deal script (`tape_from_script`), `events` are the engine's full events and any
    viewpoint can be shown; `script` is the deal script, for export. Built from a server's
    `rounds` answer (`tape_from_frames`), `events` are the frames one `seat` was sent: only
    that seat's view exists, and there is no script."""

    events: tuple[dict[str, Any], ...]
    steps: tuple[Step, ...]
    script: dict[str, Any] | None = None
    seat: int | None = None  # the events are this seat's frames already (None: full events)
    round_no: int = 1
    rounds: int = 1
    names: tuple[str, ...] = ("#1", "#2", "#3", "#4")
    scores_before: tuple[int, ...] = (0, 0, 0, 0)
    table: str = "replay"
    table_name: str = "replay"
    preset: str = "guiyang"
    options: tuple[tuple[str, Any], ...] = ()
    base: int = 1

    @property
    def last(self) -> int:
        """The last step: the round's end (or as far as a cut-short round went)."""
        return len(self.steps) - 1

    @property
    def finished(self) -> bool:
        return bool(self.events) and self.events[-1].get("type") == "round_ended"

    @property
    def net(self) -> tuple[int, ...] | None:
        """Each seat's net, once the round is over."""
        if not self.finished:
            return None
        return tuple(int(n) for n in self.events[-1]["result"]["net"])

    @property
    def dealer(self) -> int:
        return int(self.events[0].get("dealer", 0)) if self.events else 0

    @property
    def viewpoints(self) -> tuple[Viewpoint, ...]:
        """The viewpoints this tape can show, in the order `v` cycles through them."""
        return VIEWPOINTS if self.seat is None else (self.seat,)


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
        events=tuple(e.to_dict() for e in r.events),
        steps=tuple(steps),
        script=data,
        round_no=round_no,
        rounds=rounds,
        names=names or ("#1", "#2", "#3", "#4"),
        scores_before=scores_before,
        table=table,
        table_name=table_name,
        preset=script.ruleset,
        options=tuple(sorted((data.get("options") or {}).items())),
        base=r.base,
    )


def tapes_from_rounds(m: Rounds) -> list[RoundTape]:
    """A server's `rounds` answer as tapes, one per round, each step one event; the scores
    before each round are summed from the nets before it."""
    out: list[RoundTape] = []
    scores: tuple[int, ...] = (0, 0, 0, 0)
    for log in m.logs:
        events = tuple(
            e.model_dump(mode="json", by_alias=True, exclude={"table", "seq"}) for e in log.events
        )
        tape = RoundTape(
            events=events,
            steps=tuple(Step(0, n) for n in range(1, len(events) + 1)),
            seat=m.seat,
            round_no=log.round_no,
            rounds=m.rounds,
            names=tuple(m.names),
            scores_before=scores,
            table=m.table,
            table_name=m.name,
            preset=m.preset,
            options=tuple(sorted(m.options.items())),
        )
        out.append(tape)
        if tape.net is not None:
            scores = tuple(a + b for a, b in zip(scores, tape.net, strict=True))
    return out


def _frames(tape: RoundTape, viewer: int | None) -> list[dict[str, Any]]:
    """What `viewer` received from the table's opening to the round's last event, as wire
    frames: three opening frames, then one per event."""
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
    info["options"] = dict(tape.options)
    info["base"] = tape.base
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
    for seq, event in enumerate(tape.events, start=2):
        d = dict(event)
        d.update(table=tape.table, seq=seq)
        if d["type"] == "round_started":
            d.setdefault("base", tape.base)
            d.update(round_no=tape.round_no)
        elif d["type"] == "round_ended":
            scores = [a + b for a, b in zip(scores, d["result"]["net"], strict=True)]
            d["scores"] = scores
        frames.append(d if tape.seat is not None else project(d, viewer))
    return frames


@lru_cache(maxsize=256)
def _views(tape: RoundTape, viewer: int | None) -> tuple[View, ...]:
    """The viewer's view after the opening and after each event, built once per tape and
    viewer (stepping back and forth is then a lookup)."""
    frames = [SERVER_ADAPTER.validate_python(f) for f in _frames(tape, viewer)]
    view = View(my_name="replay", status="connected")
    for frame in frames[:OPENING]:
        view = reduce(view, frame)
    out = [view]
    for frame in frames[OPENING:]:
        view = reduce(view, frame)
        out.append(view)
    return tuple(replace(v, notice=None) for v in out)


OPENING = 3
"""The frames before the round's first event: welcome, joined, snapshot."""


def _view(tape: RoundTape, step: int, viewer: int | None) -> View:
    return _views(tape, viewer)[tape.steps[step].events]


def view_at(tape: RoundTape, step: int, viewpoint: Viewpoint) -> View:
    """The table at `step` (0 = the deal, `tape.last` = the end) from `viewpoint`."""
    step = max(0, min(step, tape.last))
    if tape.seat is not None:
        viewpoint = tape.seat  # one seat's frames: its view is all there is
    if viewpoint != ALL:
        return _view(tape, step, viewpoint)  # type: ignore[arg-type]
    view = _view(tape, step, None)
    if view.round is None or view.round.hands is not None:
        return view  # over: the round's end reveals every hand anyway
    hands = []
    for seat in range(4):
        own = _view(tape, step, seat).round
        hands.append(own.hand if own is not None and own.hand is not None else (0,) * 27)
    return replace(view, round=view.round._replace(hands=tuple(hands)))


def export_script(tape: RoundTape, step: int) -> dict[str, Any]:
    """The deal script of the round from its deal to `step`: the same deal and the actions
    played so far. At the last step it is the whole round and replays to the same settlement
    (`zhuoji replay`); before it, it ends with `then: "stop"`, so `zhuoji replay` reports where
    the actions ran out."""
    if tape.script is None:
        raise ValueError("this round holds one seat's view only, not its deal")
    step = max(0, min(step, tape.last))
    out = dict(tape.script)
    if step == tape.last:
        return out
    out["actions"] = list(out.get("actions") or [])[: tape.steps[step].actions]
    out["then"] = "stop"
    return out
