"""The acceptance test of the create-table form and house presets, as a user meets them in an
80×24 terminal: a real `python -m zhuoji serve`, real `python -m zhuoji join` processes in tmux.
Alice creates a table from the form with 乌骨鸡 off, 本鸡 on and 封顶 20 — switches and a
number field, no JSON typed — and saves the choice as the house preset "friday"; the table's
header shows the three overrides. Bob (the same user's config directory, another terminal)
opens a new form, picks "friday", and the form holds the three again.

The keys are the ones a user presses: Tab to a field, Space to flip a switch, digits into a
number field. How many Tabs reach a field is read off the form itself (its focus chain, in a
Pilot run of the same screen), not hand-counted. Skipped only when tmux is not installed."""

from __future__ import annotations

import asyncio
import re
import shlex
import sys
from pathlib import Path

import pytest
from test_tui_tmux import Tmux, server, tmux  # noqa: F401  (fixtures)
from textual.app import App
from textual.widgets import Collapsible

from client_tui.i18n import Lang
from client_tui.screens.forms import CreateTableScreen, form_folds, option_id
from protocol.house import load_house

pytestmark = pytest.mark.skipif(Tmux is None, reason="tmux is not installed")

ROOT = Path(__file__).resolve().parents[2]
WANT = "乌骨鸡 off · 本鸡 on · Cap 封顶 20"


def focus_order(config: Path) -> list[str]:
    """The ids of the form's fields in Tab order, as the client will show it."""

    async def run() -> list[str]:
        app: App[None] = App()
        async with app.run_test(size=(80, 24)) as pilot:
            form = CreateTableScreen(Lang("en"), "alice", houses=config / "houses")
            app.push_screen(form)
            while not form.query("#options"):
                await pilot.pause(0.01)
            for fold in ("chicken", "score"):  # the two sections the test opens, with Enter
                form.query_one(f"#fold-{fold}", Collapsible).collapsed = False
            wanted = [f"#{option_id(k)}" for k in ("wuguji", "benji", "hand_cap")]
            while not all(form.query(w) for w in wanted):  # both sections built
                await pilot.pause(0.01)
            return [
                # a focusable child of a Collapsible itself is its title (the body sits in
                # the Collapsible's Contents container): named by the Collapsible's id
                f"title-{w.parent.id}" if isinstance(w.parent, Collapsible) else w.id or ""
                for w in form.focus_chain
            ]

    return asyncio.run(run())


def join(url: str, name: str, tmp: Path) -> str:
    env = {
        "PYTHONPATH": str(ROOT),
        "ZHUOJI_STATE_DIR": str(tmp / f"state-{name}"),
        "ZHUOJI_CONFIG_DIR": str(tmp / "config"),
        "TERM": "xterm-256color",
    }
    args = [sys.executable, "-m", "zhuoji", "join", url, "--name", name, "--lang", "en", "--ascii"]
    assigns = " ".join(f"{k}={shlex.quote(v)}" for k, v in env.items())
    return f"cd {shlex.quote(str(ROOT))} && exec env {assigns} {shlex.join(args)}"


def test_a_table_from_the_form_and_a_house_preset_saved_and_reloaded(
    tmux: Tmux,  # noqa: F811
    server: str,  # noqa: F811
    tmp_path: Path,
) -> None:
    order = focus_order(tmp_path / "config")
    at = {wid: order.index(wid) for wid in order}
    wuguji, benji, cap = (at[option_id(k)] for k in ("wuguji", "benji", "hand_cap"))
    chickens, score = at["title-fold-chicken"], at["title-fold-score"]
    start = at["name"]  # the form opens with the table's name focused
    assert start < at["house"] < at["house-name"] < chickens < wuguji < benji < score < cap

    tmux.run("resize-window", "-t", tmux.session, "-x", "80", "-y", "24")
    a = tmux.window("alice", join(server, "alice", tmp_path))
    tmux.run("resize-window", "-t", a, "-x", "80", "-y", "24")
    tmux.wait(a, lambda s: "No tables yet" in s, "alice's lobby", timeout=60)
    tmux.keys(a, "c")
    tmux.wait(a, lambda s: "Create a table" in s and "Changes: as the preset" in s, "the form", 60)

    def press(target: str, *keys: str) -> None:
        """Each key in turn, waiting until the screen (with its colours: a Tab moves the focus
        highlight) shows it was taken, as a person watching the screen would."""
        for key in keys:
            before = tmux.run("capture-pane", "-e", "-p", "-t", target)
            tmux.keys(target, key)
            tmux.wait(
                target,
                lambda _s, was=before: tmux.run("capture-pane", "-e", "-p", "-t", target) != was,
                f"the key {key}",
                60,
            )

    def tab(target: str, n: int, back: bool = False) -> None:
        press(target, *(["BTab"] if back else ["Tab"]) * n)

    # Typing a name first (it replaces the selected default) shows the form has its keys.
    press(a, *"Friday")
    tmux.wait(a, lambda s: re.search(r"Table name +Friday", s) is not None, "the name typed", 60)
    en = Lang("en")
    tab(a, chickens - start)
    tmux.keys(a, "Enter")  # the sections open (and are built) when asked for
    tmux.wait(a, lambda s: en.option_help("wuguji")[:20] in s, "the chicken section open", 60)
    tab(a, wuguji - chickens)
    tmux.keys(a, "Space")  # 乌骨鸡 off
    tmux.wait(a, lambda s: "乌骨鸡 off" in s, "乌骨鸡 switched off", 60)
    tab(a, benji - wuguji)
    tmux.keys(a, "Space")  # 本鸡 on
    tmux.wait(a, lambda s: "本鸡 on" in s, "本鸡 switched on", 60)
    tab(a, score - benji)
    tmux.keys(a, "Enter")
    first = en.option(form_folds(en)["score"][1][0].key)  # its first field, just below it
    tmux.wait(a, lambda s: "▼" in s and first in s, "the scoring section open", 60)
    tab(a, cap - score)
    press(a, "2", "0")  # 封顶 20
    form = tmux.wait(a, lambda s: f"Changes: {WANT}" in s, "the three changes on the form", 60)
    assert "{" not in form, "no JSON was typed"

    tab(a, cap - at["house-name"], back=True)
    press(a, *"friday")
    tmux.keys(a, "Enter")  # Enter in "Save as" saves
    tmux.wait(a, lambda s: "House rules friday saved" in s, "the house preset saved", 60)
    saved = load_house(tmp_path / "config" / "houses" / "friday.toml")
    assert (saved.preset, saved.overrides) == (
        "guiyang",
        {"wuguji": False, "benji": True, "hand_cap": 20},
    )
    tab(a, 1)  # to "Rounds"; Enter there creates the table
    tmux.keys(a, "Enter")
    room = tmux.wait(a, lambda s: "waiting to start" in s, "alice's room", 60)
    header = room.splitlines()[0]
    assert f"guiyang 贵阳 ({WANT})" in header, room

    b = tmux.window("bob", join(server, "bob", tmp_path))
    tmux.run("resize-window", "-t", b, "-x", "80", "-y", "24")
    lobby = tmux.wait(b, lambda s: "alice" in s and "1/4" in s, "the table in bob's lobby", 60)
    assert "乌骨鸡 off" in lobby, "the lobby lists the overrides too"
    tmux.keys(b, "c")
    tmux.wait(b, lambda s: "Changes: as the preset" in s, "bob's new form", 60)
    press(b, *"Sat")
    tmux.wait(b, lambda s: re.search(r"Table name +Sat", s) is not None, "bob's name typed", 60)
    tab(b, at["house"] - start)
    tmux.keys(b, "Enter")  # open the house list: (none), friday
    tmux.wait(b, lambda s: "friday" in s, "the saved house in the list", 60)
    tmux.keys(b, "Down", "Enter")
    again = tmux.wait(b, lambda s: f"Changes: {WANT}" in s, "the house preset reloaded", 60)
    assert "House rules friday loaded" in again
