"""How long the create-table form takes to open, and to load a house preset, in a real Textual app
driven by Pilot (issue 23: ≤ 200 ms to open, ≤ 100 ms to load a preset on the dev machine).

    nice -n 10 python benchmarks/create_form.py [--runs 7] [--against REV]

"open" is from constructing the form to its first frame (the first screen update drawn with the
form on top, as a person sees it: Textual's `App._display` is wrapped to catch it); "complete" is
until every widget of the form is mounted and drawn (its advanced field, the last one, exists and
a refresh followed: the form builds what is below the table's settings after its first frame);
"preset" picks a saved house preset (another preset, three options, table settings) in the
form's house list, as a player does, until the form has redrawn its changes. Each is timed in
wall time and in the process's CPU time: on a shared machine the wall time is the CPU time
stretched by the load, so quote both. Prints the medians and ranges
over `--runs` opens in one process (the first open pays Python's imports and is left out).

`--against REV` also opens the form as it was at the git revision REV (its
`client_tui/screens/forms.py`, with today's other modules), alternating the two in random order
in the same app: a before/after measured side by side."""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import ModuleType

from textual.screen import Screen

from client_tui.app import ZhuojiApp

ROOT = Path(__file__).resolve().parents[1]
FORMS = "client_tui/screens/forms.py"


def forms_at(rev: str, folder: Path) -> ModuleType:
    """The form's module as it was at git revision `rev`."""
    text = subprocess.run(
        ["git", "show", f"{rev}:{FORMS}"], cwd=ROOT, check=True, capture_output=True, text=True
    ).stdout
    path = folder / "forms_at_rev.py"
    path.write_text(text)
    spec = importlib.util.spec_from_file_location("forms_at_rev", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


async def refreshed(screen: Screen[object]) -> None:
    """Return once `screen` has been refreshed (laid out and drawn)."""
    done = asyncio.Event()
    screen.call_after_refresh(done.set)
    await done.wait()


async def measure(
    runs: int, houses: Path, forms: dict[str, ModuleType]
) -> dict[str, dict[str, list[float]]]:
    from textual.widgets import Select, Static

    from protocol.house import House, save_house

    house = House("anshun", {"benji": True, "hand_cap": 30, "wuguji": False}, {"rounds": 4})
    save_house("bench", house, houses)
    keys = ("open", "open cpu", "complete", "complete cpu", "preset", "preset cpu")
    out: dict[str, dict[str, list[float]]] = {name: {k: [] for k in keys} for name in forms}
    app = ZhuojiApp("ws://offline", name="me", lang="zh", connect=False)
    drawn: list[tuple[float, float]] = []  # (wall, cpu) of each frame drawn with the form on top
    display = app._display

    def timed_display(screen: Screen[object], renderable: object) -> None:
        if renderable is not None and screen is app.screen:
            drawn.append((time.perf_counter(), time.process_time()))
        display(screen, renderable)  # type: ignore[arg-type]

    app._display = timed_display  # type: ignore[method-assign]
    async with app.run_test(size=(120, 40)) as pilot:
        for run in range(runs + 1):
            order = list(forms.items())
            random.shuffle(order)
            for name, module in order:
                await pilot.pause()
                drawn.clear()
                t0, c0 = time.perf_counter(), time.process_time()
                form = module.CreateTableScreen(app.lang, "me", houses=houses)
                await app.push_screen(form)
                while not form.query("#options"):
                    await asyncio.sleep(0.001)
                await refreshed(form)
                t1, c1 = time.perf_counter(), time.process_time()
                tf, cf = drawn[0]
                await pilot.pause()
                changes = form.query_one("#changes", Static)
                before = str(changes.render())
                t2, c2 = time.perf_counter(), time.process_time()
                form.query_one("#house", Select).value = "bench"
                while str(changes.render()) == before:
                    await asyncio.sleep(0.001)
                await refreshed(form)
                t3, c3 = time.perf_counter(), time.process_time()
                if run:
                    times = (tf - t0, cf - c0, t1 - t0, c1 - c0, t3 - t2, c3 - c2)
                    for key, ms in zip(keys, times, strict=True):
                        out[name][key].append(ms * 1000)
                app.pop_screen()
                await pilot.pause()
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--against", metavar="REV", help="also time the form as it was at REV")
    args = ap.parse_args()
    from client_tui.screens import forms

    with tempfile.TemporaryDirectory() as tmp:
        modules = {"now": forms}
        if args.against:
            modules = {args.against: forms_at(args.against, Path(tmp)), "now": forms}
        res = asyncio.run(measure(args.runs, Path(tmp), modules))
    for name, by_key in res.items():
        for key, ms in by_key.items():
            print(
                f"{name:>10} {key:12}: median {statistics.median(ms):5.0f} ms "
                f"(min {min(ms):.0f}, max {max(ms):.0f}, n={len(ms)})"
            )


if __name__ == "__main__":
    main()
