"""How long the create-table form takes to open, and to load a house preset, in a real Textual app
driven by Pilot (issue 23: ≤ 200 ms to open, ≤ 100 ms to load a preset on the dev machine).

    nice -n 10 python benchmarks/create_form.py [--runs 7]

Prints the median and the range of each, over `--runs` opens in one process (the first open
pays Python's imports and is reported apart)."""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time

from client_tui.app import ZhuojiApp


async def measure(runs: int) -> dict[str, list[float]]:
    from client_tui.screens.forms import CreateTableScreen

    out: dict[str, list[float]] = {"open": []}
    app = ZhuojiApp("ws://offline", name="me", lang="zh", connect=False)
    async with app.run_test(size=(120, 40)) as pilot:
        for _ in range(runs + 1):
            t0 = time.perf_counter()
            app.push_screen(CreateTableScreen(app.lang, "me"))
            await pilot.pause()
            out["open"].append((time.perf_counter() - t0) * 1000)
            app.pop_screen()
            await pilot.pause()
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--runs", type=int, default=7)
    args = ap.parse_args()
    res = asyncio.run(measure(args.runs))
    for what, ms in res.items():
        first, rest = ms[0], ms[1:]
        print(
            f"{what}: first {first:.0f} ms; then median {statistics.median(rest):.0f} ms "
            f"(min {min(rest):.0f}, max {max(rest):.0f}, n={len(rest)})"
        )


if __name__ == "__main__":
    main()
