"""Deal scripts (RULES.md §9, §12.21–22, §12.29): one round fixed completely, as JSON data.

`run_script(data)` plays the script through the round engine and returns the finished round, or
raises `ScriptError` — with the 0-based `index` of the offending action when it is about one.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NamedTuple

from rules.actions import Action, IllegalAction
from rules.options import OptionsError, RuleOptions, make_options
from rules.replay_form import replay_json as replay_json  # the public `--json` object
from rules.round import DealError, Phase, Round, legal_actions
from rules.tiles import TileParseError, parse_tile

CLAIM_ACTS = ("hu", "pong", "gang", "pass")
ROB_ACTS = ("hu", "pass")
THEN_MODES = ("stop", "draw-discard")


class ScriptError(Exception):
    """A script that cannot be played. `index` names the action when the error is about one."""

    def __init__(self, message: str, index: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.index = index

    def __str__(self) -> str:
        if self.index is None:
            return self.message
        return f"action {self.index}: {self.message}"


@dataclass(frozen=True, slots=True)
class Script:
    ruleset: str
    options: RuleOptions
    base: int
    dealer: int
    streak: int
    hands: list[list[int]]
    wall: list[int]
    actions: list[Action]
    then: str
    weekday: int | None = None  # 1 Monday … 7 Sunday (RULES.md §13.12); None: no 星期鸡


def _int_field(data: dict[str, Any], name: str, default: int, lo: int, hi: int) -> int:
    value = data.get(name, default)
    if not isinstance(value, int) or isinstance(value, bool) or not lo <= value <= hi:
        raise ScriptError(f"{name!r} must be an integer from {lo} to {hi}, got {value!r}")
    return value


def _tiles_field(value: Any, what: str) -> list[int]:
    if not isinstance(value, list):
        raise ScriptError(f'{what} must be a list of tiles like "5p", got {type(value).__name__}')
    tiles = []
    for i, name in enumerate(value):
        if not isinstance(name, str):
            raise ScriptError(f'{what}[{i}] must be a tile like "5p", got {name!r}')
        try:
            tiles.append(parse_tile(name))
        except TileParseError as err:
            raise ScriptError(f"{what}[{i}]: {err}") from None
    return tiles


def parse_script(data: Any) -> Script:
    """Check a script's shape and values (not yet the legality of its actions)."""
    if not isinstance(data, dict):
        raise ScriptError("a deal script must be a JSON object")
    ruleset = data.get("ruleset", "guiyang")
    if not isinstance(ruleset, str):
        raise ScriptError(f"'ruleset' must be a string, got {ruleset!r}")
    overrides = data.get("options") or {}
    if not isinstance(overrides, dict):
        raise ScriptError("'options' must be an object")
    try:
        options = make_options(ruleset, overrides)
    except OptionsError as err:
        raise ScriptError(str(err)) from None
    base = _int_field(data, "base", 1, 1, 1_000_000)
    dealer = _int_field(data, "dealer", 0, 0, 3)
    streak = _int_field(data, "streak", 0, 0, 10_000)
    weekday = _int_field(data, "weekday", 1, 1, 7) if "weekday" in data else None
    hands_raw = data.get("hands")
    if not isinstance(hands_raw, list) or len(hands_raw) != 4:
        raise ScriptError("'hands' must be a list of four hands")
    hands = [_tiles_field(h, f"hands[{i}]") for i, h in enumerate(hands_raw)]
    wall = _tiles_field(data.get("wall", []), "wall")
    actions_raw = data.get("actions", [])
    if not isinstance(actions_raw, list):
        raise ScriptError("'actions' must be a list")
    actions = []
    for i, a in enumerate(actions_raw):
        if not isinstance(a, dict):
            raise ScriptError('an action must be an object like {"seat": 0, "act": "discard"}', i)
        try:
            actions.append(Action.from_dict(a))
        except (ValueError, TileParseError) as err:
            raise ScriptError(str(err), i) from None
    then = data.get("then", "stop")
    if then not in THEN_MODES:
        raise ScriptError(f"'then' must be one of {', '.join(THEN_MODES)}, got {then!r}")
    return Script(ruleset, options, base, dealer, streak, hands, wall, actions, then, weekday)


def _apply(r: Round, action: Action, index: int) -> None:
    try:
        r.apply(action)
    except IllegalAction as err:
        raise ScriptError(err.message, index) from None


def _window_run(r: Round, actions: list[Action], start: int) -> list[int]:
    """The indexes of the actions that answer the open window (§12.21, §12.29)."""
    allowed = ROB_ACTS if r.phase is Phase.ROB else CLAIM_ACTS
    seen: set[int] = set()
    run = []
    i = start
    while i < len(actions):
        a = actions[i]
        if a.act not in allowed or a.seat == r.claim_from or a.seat in seen:
            break
        if a.tile is not None and a.tile != r.claim_tile:
            break
        seen.add(a.seat)
        run.append(i)
        i += 1
    return run


def _answer_window(r: Round, actions: list[Action], start: int) -> int:
    """Answer the open window from the script; every seat not scripted passes. Returns the
    index of the next action."""
    run = _window_run(r, actions, start)
    awaiting = set(r.awaiting())
    # Check every scripted answer while the window is as it was, then play them in order.
    for i in run:
        a = Action(actions[i].seat, actions[i].act)
        if a.seat not in awaiting:
            if a.act != "pass":
                raise ScriptError(r._why_illegal(a)[1], i)
        elif a not in legal_actions(r, a.seat):
            raise ScriptError(r._why_illegal(a)[1], i)
    window = len(r.events)
    for i in run:
        a = Action(actions[i].seat, actions[i].act)
        if a.seat in awaiting:
            _apply(r, a, i)
    if len(r.events) == window:  # still the same window: the rest pass
        for seat in r.awaiting():
            r.apply(Action(seat, "pass"))
    if len(r.events) == window:  # a window nobody could answer
        r.resolve_window()
    return start + len(run)


class Step(NamedTuple):
    """A point between two moves of a played script: how many of its actions were played and
    how many events the round had logged by then (a claim window answered by passes is one
    move)."""

    actions: int
    events: int


def _deal(script: Script) -> Round:
    try:
        r = Round(
            script.options,
            script.hands,
            script.wall,
            dealer=script.dealer,
            streak=script.streak,
            base=script.base,
            weekday=script.weekday,
        )
    except DealError as err:
        raise ScriptError(str(err)) from None
    r.hold_empty_windows = True
    return r


def _play(script: Script, steps: list[Step] | None, partial: bool) -> Round:
    r = _deal(script)
    actions = script.actions
    i = 0
    if steps is not None:
        steps.append(Step(0, len(r.events)))
    while r.phase is not Phase.OVER:
        if r.phase in (Phase.CLAIM, Phase.ROB):
            i = _answer_window(r, actions, i)
        elif i < len(actions):
            _apply(r, actions[i], i)
            i += 1
        elif script.then == "draw-discard":
            r.apply(r.default_action(r.turn))
        elif partial:
            break
        else:
            raise ScriptError("the actions ran out before the round ended", len(actions))
        if steps is not None:
            steps.append(Step(i, len(r.events)))
    if i < len(actions):
        raise ScriptError("actions left over after the round ended", i)
    return r


def play_script(script: Script) -> Round:
    return _play(script, None, partial=False)


def play_steps(script: Script, *, partial: bool = False) -> tuple[Round, list[Step]]:
    """Play the script, noting every `Step` from the deal on (for a replay that moves one action
    at a time). `partial`: a round whose actions run out (cut short when a server stopped) ends
    where they do instead of raising."""
    steps: list[Step] = []
    return _play(script, steps, partial), steps


def run_script(data: Any) -> Round:
    """Parse and play a deal script (a decoded JSON object)."""
    return play_script(parse_script(data))
