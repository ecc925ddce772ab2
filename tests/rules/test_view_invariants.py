"""The one seat view (`rules.view`): reduced from the projected events it is the view built from the
round, for every seat and a spectator, after every step; and its legal actions are the engine's.

Over bot-played rounds of each preset (the bots decide from the reduced views; 200 rounds, 2,000
in the soak step: `tests.support.volume`) and every deal script (tests/scenarios, tests/scripts,
../shared/scenarios), and rounds under any mix of the options that change what a seat may claim.
And the checker is shown to fail on projections broken on purpose.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rules.script
from rules.actions import Action
from rules.events import Drew, Event, RoundStarted
from rules.options import PRESETS, make_options
from rules.players.bot import Bot
from rules.round import Phase, Round, legal_actions, step
from rules.script import ScriptError
from rules.view import (
    DealSeen,
    DrawSeen,
    Leak,
    SeatView,
    Viewer,
    legal_actions_for,
    project,
    reduce,
    start,
    view_of,
)
from tests.support import volume

VIEWERS: tuple[Viewer, ...] = (0, 1, 2, 3, None)
TESTS = Path(__file__).parents[1]
SCRIPT_DIRS = [TESTS / "scenarios", TESTS / "scripts", TESTS.parent.parent / "shared" / "scenarios"]
ROUNDS_PER_PRESET = volume(200, 2000)

Project = Callable[[Event, Viewer], Event | None]


class Checker:
    """Follows one round for every viewer: each event projected (by `projector`) and reduced;
    `check()` compares every view with `view_of` and the legal actions of each awaited seat."""

    def __init__(self, r: Round, projector: Project = project) -> None:
        self.round = r
        self.project = projector
        self.done = 0
        self.views: list[SeatView | None] = [None] * len(VIEWERS)
        self.steps = 0

    def feed(self) -> None:
        for event in self.round.events[self.done :]:
            for i, viewer in enumerate(VIEWERS):
                seen = self.project(event, viewer)
                if seen is None:
                    continue
                view = self.views[i]
                try:
                    self.views[i] = (
                        start(self.round.opts, viewer, seen) if view is None else reduce(view, seen)
                    )
                except Leak as err:
                    raise AssertionError(f"viewer {viewer}: {err}") from None
        self.done = len(self.round.events)

    def check(self) -> None:
        self.feed()
        r = self.round
        for viewer, view in zip(VIEWERS, self.views, strict=True):
            want = view_of(r, viewer)
            if view != want:
                assert view is not None, f"viewer {viewer} has no view"
                diff = [
                    f"{f}: reduced {a!r}, view_of {b!r}"
                    for f, a, b in zip(SeatView._fields, view, want, strict=True)
                    if a != b
                ]
                raise AssertionError(f"viewer {viewer} after {self.steps} steps: {diff}")
        for seat in r.awaiting():
            view = self.views[seat]
            assert view is not None
            assert legal_actions_for(view) == legal_actions(r, seat), f"seat {seat}"
        self.steps += 1

    def view(self, seat: int) -> SeatView:
        view = self.views[seat]
        assert view is not None
        return view


def play_bot_round(preset: str, seed: int, projector: Project = project) -> Checker:
    """A bot-played round, checked after every step; the bots decide from the reduced views."""
    bots = [Bot(f"{seed}:{s}") for s in range(4)]
    r = Round.deal(PRESETS[preset], seed=seed, dealer=seed % 4, streak=seed % 3)
    checker = Checker(r, projector)
    checker.check()
    while r.phase is not Phase.OVER:
        seat = r.awaiting()[0]
        r.apply(bots[seat].choose_for(checker.view(seat)))
        checker.check()
    return checker


@pytest.mark.slow
@pytest.mark.timeout(600)
@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_reduced_views_are_the_round_s_views_over_many_bot_rounds(preset: str) -> None:
    steps = kinds = 0
    seen: set[str] = set()
    for seed in range(ROUNDS_PER_PRESET):
        checker = play_bot_round(preset, seed)
        steps += checker.steps
        r = checker.round
        seen |= {e.type for e in r.events} | {m.kind for row in r.melds for m in row}
        kinds += sum(len(row) for row in r.melds)
    assert steps > 40 * ROUNDS_PER_PRESET
    for kind in ("an", "bu", "ming", "pong", "won", "exhausted", "add_gang_declared", "flipped"):
        assert kind in seen, f"no {kind} in {ROUNDS_PER_PRESET} rounds"


# ----- deal scripts -----


def _scripts() -> list[Path]:
    paths: list[Path] = []
    for d in SCRIPT_DIRS:
        if d.is_dir():
            paths += sorted(d.glob("*.json"))
    return paths


def test_every_deal_script_keeps_the_views(monkeypatch: pytest.MonkeyPatch) -> None:
    """The scripts are played by `rules.script` itself; each round it makes is checked after
    every transition (`apply` and a held window's `resolve_window`)."""
    checkers: list[Checker] = []

    class Checked(Round):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self.checker = Checker(self)
            checkers.append(self.checker)
            self.checker.check()

        def apply(self, action: Any) -> list[Event]:
            events = super().apply(action)
            self.checker.check()
            return events

        def resolve_window(self) -> None:
            super().resolve_window()
            self.checker.check()

    monkeypatch.setattr(rules.script, "Round", Checked)
    played = 0
    for path in _scripts():
        data = json.loads(path.read_text())
        try:
            rules.script.run_script(data)
        except ScriptError:
            # A script that ends in a refused move is checked up to it.
            assert "error" in data.get("expected", {}), path
            continue
        played += 1
    assert played >= 80 and len(checkers) >= played
    assert sum(c.steps for c in checkers) > 1000


# ----- the checker catches broken projections -----


def _leaky_draw(event: Event, viewer: Viewer) -> Event | None:
    if isinstance(event, Drew):
        return DrawSeen(event.seat, event.tile, event.replacement, event.wall_left)
    return project(event, viewer)


def _spectator_gets_a_hand(event: Event, viewer: Viewer) -> Event | None:
    if isinstance(event, RoundStarted) and viewer is None:
        seen = project(event, 0)
        assert isinstance(seen, DealSeen)
        return seen
    return project(event, viewer)


def _wrong_hand(event: Event, viewer: Viewer) -> Event | None:
    if isinstance(event, RoundStarted) and viewer is not None:
        return project(event, (viewer + 1) % 4)  # another seat's hand
    return project(event, viewer)


def _lost_discard(event: Event, viewer: Viewer) -> Event | None:
    if event.type == "discarded" and viewer == 2:
        return None
    return project(event, viewer)


@pytest.mark.parametrize(
    ("projector", "why"),
    [
        (_leaky_draw, "drew shows seat [0-3]'s tile to viewer"),
        (_spectator_gets_a_hand, "shows a spectator a hand"),
        (_wrong_hand, "viewer [0-3] after 0 steps: .*hand: reduced"),
        (_lost_discard, "viewer 2 after [0-9]+ steps"),
    ],
)
def test_the_checker_catches_a_broken_projection(projector: Project, why: str) -> None:
    with pytest.raises(AssertionError, match=why):
        for seed in range(5):
            play_bot_round("guiyang", seed, projector)


def test_reducing_a_full_event_is_reducing_its_projection() -> None:
    r = Round.deal(PRESETS["chuan"], seed=4)
    bots = [Bot(s) for s in range(4)]
    while r.phase is not Phase.OVER:
        seat = r.awaiting()[0]
        r.apply(bots[seat].choose(r, seat))
    for viewer in VIEWERS:
        full = start(r.opts, viewer, r.events[0])
        seen = start(r.opts, viewer, project(r.events[0], viewer) or r.events[0])
        for e in r.events[1:]:
            full = reduce(full, e)
            p = project(e, viewer)
            assert p is not None
            seen = reduce(seen, p)
        assert full == seen == view_of(r, viewer)


# ----- any mix of the options that change what a seat may do -----


@settings(max_examples=60, deadline=None, derandomize=True)
@given(
    preset=st.sampled_from(sorted(PRESETS)),
    seed=st.integers(0, 2**31),
    pass_gangs=st.sampled_from(["any", "concealed_or_added"]),
    no_pinghu_after_diandou=st.booleans(),
    pass_win=st.sampled_from(["lock", "penalty"]),
    declare=st.sampled_from(["none", "baoting", "tianting"]),
)
def test_views_hold_under_any_mix_of_claim_rules(
    preset: str,
    seed: int,
    pass_gangs: str,
    no_pinghu_after_diandou: bool,
    pass_win: str,
    declare: str,
) -> None:
    opts = make_options(
        preset,
        {
            "pass_gangs": pass_gangs,
            "no_pinghu_after_diandou": no_pinghu_after_diandou,
            "pass_win": pass_win,
            "declare": declare,
        },
    )
    bots = [Bot(f"{seed}:{s}") for s in range(4)]
    r = Round.deal(opts, seed=seed, dealer=seed % 4)
    checker = Checker(r)
    checker.check()
    while r.phase is not Phase.OVER:
        seat = r.awaiting()[0]
        r.apply(bots[seat].choose_for(checker.view(seat)))
        checker.check()


def test_views_of_rounds_branched_at_a_claim_show_each_branch_s_melds() -> None:
    # `view_of` keeps the melds it shows on the round until a meld changes (`meld_changes`); a
    # clone (`step`) must not share that with the round it came from. At each 碰 offered, the
    # views of the round are made first (so the round holds them), then both branches are
    # checked against their own events, for every viewer; and the round itself after each step.
    branched = 0
    for seed in range(40):
        bots = [Bot(f"branch:{seed}:{s}") for s in range(4)]
        r = Round.deal(PRESETS["guiyang"], seed=f"branch-{seed}", dealer=seed % 4)
        main = Checker(r)
        while r.phase is not Phase.OVER:
            seat = r.awaiting()[0]
            if Action(seat, "pong") in legal_actions(r, seat):
                for viewer in VIEWERS:
                    view_of(r, viewer)
                for act in ("pong", "pass"):
                    branch, _ = step(r, Action(seat, act))  # type: ignore[arg-type]
                    for viewer in VIEWERS:
                        view_of(branch, viewer)
                    Checker(branch).check()
                branched += 1
            r.apply(bots[seat].choose(r, seat))
            main.check()
    assert branched >= 20
