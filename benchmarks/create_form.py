"""How long the create-table form takes to open, and to load a house preset, in a real Textual app
driven by Pilot (issue 23: ≤ 200 ms to open, ≤ 100 ms to load a preset on the dev machine).

    nice -n 10 python benchmarks/create_form.py [--runs 7]

Prints the median and the range of each, over `--runs` opens in one process (the first open
pays Python's imports and is reported apart). "preset" picks a saved house preset (another
preset, three options, table settings) in the form's house list, as a player does, and waits
until the form shows its changes."""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from pathlib import Path

from client_tui.app import ZhuojiApp


async def measure(runs: int, houses: Path) -> dict[str, list[float]]:
    from textual.widgets import Select, Static

    from client_tui.screens.forms import CreateTableScreen
    from protocol.house import House, save_house

    house = House("anshun", {"benji": True, "hand_cap": 30, "wuguji": False}, {"rounds": 4})
    save_house("bench", house, houses)
    out: dict[str, list[float]] = {"open": [], "preset": []}
    app = ZhuojiApp("ws://offline", name="me", lang="zh", connect=False)
    async with app.run_test(size=(120, 40)) as pilot:
        for _ in range(runs + 1):
            form = CreateTableScreen(app.lang, "me", houses=houses)
            t0 = time.perf_counter()
            app.push_screen(form)
            await pilot.pause()
            out["open"].append((time.perf_counter() - t0) * 1000)
            changes = form.query_one("#changes", Static)
            before = str(changes.render())
            t0 = time.perf_counter()
            form.query_one("#house", Select).value = "bench"
            while str(changes.render()) == before:
                await pilot.pause()
            out["preset"].append((time.perf_counter() - t0) * 1000)
            app.pop_screen()
            await pilot.pause()
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--runs", type=int, default=7)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        res = asyncio.run(measure(args.runs, Path(tmp)))
    for what, ms in res.items():
        first, rest = ms[0], ms[1:]
        print(
            f"{what}: first {first:.0f} ms; then median {statistics.median(rest):.0f} ms "
            f"(min {min(rest):.0f}, max {max(rest):.0f}, n={len(rest)})"
        )


if __name__ == "__main__":
    main()
