"""Issue 23, "the client keeps the round once": one table widget for play, watch and the replay,
state down and intents up. A play table and a replay of the same deal draw the same seats with
the one widget (the replay without clocks), and no screen calls into the app."""

from __future__ import annotations

import ast
import json
from pathlib import Path

from textual.widgets import Static

from client_tui.app import ZhuojiApp
from client_tui.replay import OPENING, _frames, tape_from_script, view_at
from client_tui.screens.replay import ReplayScreen
from client_tui.screens.table import TableScreen
from client_tui.screens.table_view import TableView
from protocol.messages import SERVER_ADAPTER
from tests.support import until

ROOT = Path(__file__).resolve().parents[2]
SCREENS = ROOT / "client_tui" / "screens"
STEP = 15  # a step of the scenario mid-round


def panels(table: TableView) -> dict[str, str]:
    """What the table's four seats say (the table layout)."""
    return {
        wid: str(table.query_one(f"#{wid}", Static).render())
        for wid in ("w-top", "w-left", "w-right", "w-me")
    }


async def test_play_and_replay_draw_the_same_seats_with_one_widget_and_the_replay_no_clock() -> (
    None
):
    data = json.loads((ROOT / "tests/scenarios/opt_benji_01_flip_kind.json").read_text())
    names = ("me", "Bot-2", "Bot-3", "Bot-4")
    tape = tape_from_script(data, names=names)
    assert tape.last > STEP
    view = view_at(tape, STEP, 0)  # seat 0's view at that step
    assert view.round is not None and view.table is not None
    app = ZhuojiApp(
        "ws://offline", name="me", lang="en", ascii=True, connect=False, clock=lambda: 1000.0
    )
    async with app.run_test(size=(120, 40)) as pilot:
        # The play table at that point of the round: the frames seat 0 received until then.
        for frame in _frames(tape, 0)[: OPENING + tape.steps[STEP].events]:
            app.apply(SERVER_ADAPTER.validate_python(frame))
        assert app.view.round == view.round
        await until(pilot, lambda: isinstance(app.screen, TableScreen))
        play = app.screen
        assert isinstance(play, TableScreen)
        await pilot.pause()
        played = play.query_one(TableView)
        assert played.live and played.clocks is not None, "a live table keeps the seats' clocks"
        assert "⏱" in str(played.query_one("#w-centre", Static).render())
        seen_in_play = panels(played)

        app.push_screen(ReplayScreen([tape]))
        await until(pilot, lambda: isinstance(app.screen, ReplayScreen))
        replay = app.screen
        assert isinstance(replay, ReplayScreen) and not isinstance(replay, TableScreen)
        await pilot.press("v")  # all hands → seat 0's view
        for _ in range(STEP):
            await pilot.press("right")
        assert replay.step == STEP and replay.viewpoint == 0
        await pilot.pause()
        replayed = replay.query_one(TableView)
        assert len(replay.query(TableView)) == 1 and not replayed.live
        assert replayed.clocks is None
        assert panels(replayed) == seen_in_play
        centre = str(replayed.query_one("#w-centre", Static).render())
        assert "⏱" not in centre and "bank " not in centre, centre


APP_USES = {"push_screen", "pop_screen", "post_message", "call_from_thread"}
"""What a screen may use of its app: open and close screens, post messages (intents), and hop
from a worker thread back to the app's loop."""


def test_no_screen_calls_into_the_app() -> None:
    """Every `self.app.X` in client_tui/screens (and the replay browser's screens) is one of `APP_USES`, and no screen looks the
    app up by name (`getattr(self.app, …)`): what a screen wants goes up as an intent."""
    found: list[str] = []
    for path in [*sorted(SCREENS.glob("*.py")), ROOT / "client_tui" / "replay_app.py"]:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Attribute)
                and node.value.attr == "app"
                and isinstance(node.value.value, ast.Name)
                and node.value.value.id == "self"
                and node.attr not in APP_USES
            ):
                found.append(f"{path.name}:{node.lineno} self.app.{node.attr}")
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id == "getattr"
                and node.args
                and isinstance(node.args[0], ast.Attribute)
                and node.args[0].attr == "app"
            ):
                found.append(f"{path.name}:{node.lineno} getattr(self.app, …)")
    assert not found, found


def test_screen_styles_live_in_tcss_files_the_wheel_ships() -> None:
    """No screen or widget of the client carries its styles in Python (`DEFAULT_CSS`, `CSS`);
    every `.tcss` file a screen names exists beside it."""
    inline: list[str] = []
    for path in sorted((ROOT / "client_tui").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Assign):
                for target in node.targets:
                    if isinstance(target, ast.Name) and target.id in ("DEFAULT_CSS", "CSS"):
                        inline.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert not inline, inline
    for name in ("table_view", "table", "replay", "forms"):
        assert (SCREENS / f"{name}.tcss").is_file(), name
