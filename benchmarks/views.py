"""The cost of one view of a logged event: projected for a class of viewer and encoded.

    nice -n 10 python benchmarks/views.py --rounds 60 --repeat 7

Plays `--rounds` bot rounds with the rules engine and logs their events as a table does (the
engine event's dict with the table's fields, numbered), then, for each event, makes every
distinct view the table sends (`server.table.fanout.view_groups` over four seats and a
spectator: one for a public event, two for a draw or a 暗杠, five for a deal) and encodes it
(`protocol.frames.encode`, the C JSON encoder). Two logs of the same events are timed, interleaved
in one process: `dict`, the entries as read back from the store (a private event is parsed into
its rules event, once per entry, before it is projected), and `value`, the entries as a live
table keeps them (`protocol.events.LoggedEntry`: the rules event beside its dict, projected
from the value). Prints the median µs per view of each over `--repeat` passes, and their ratio.
"""

from __future__ import annotations

import argparse
import gc
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run from a checkout


def logs(rounds: int, seed: int) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The same logged events twice: as plain dicts, and as a live table keeps them."""
    import protocol.events as pe
    from rules.options import make_options
    from rules.players import Bot
    from rules.round import Phase, Round, legal_actions

    carrier = getattr(pe, "LoggedEntry", None)
    opts = make_options("guiyang", {})
    plain: list[dict[str, Any]] = []
    live: list[dict[str, Any]] = []
    seq = 0
    for n in range(rounds):
        r = Round.deal(opts, seed=seed + n, dealer=n % 4, streak=0, base=1)
        bots = [Bot(seed * 10 + s) for s in range(4)]
        mark = 0
        while True:
            for e in r.events[mark:]:
                seq += 1
                d = e.to_dict()
                d["table"], d["seq"] = "7", seq
                if d["type"] == "round_started":
                    d.update(round_no=n + 1, base=1, commitment="c" * 64)
                plain.append(d)
                live.append(carrier.of(dict(d), e) if carrier is not None else d)
            mark = len(r.events)
            if r.phase is Phase.OVER:
                break
            seat = r.awaiting()[0]
            action = bots[seat].choose(r, seat)
            assert action in legal_actions(r, seat)
            r.apply(action)
    return plain, live


def one_pass(entries: list[dict[str, Any]]) -> tuple[float, int]:
    """Seconds to make and encode every view of every entry, and the number of views."""
    from protocol.frames import encode
    from server.table.fanout import view_groups

    members: dict[object, int | None] = {0: 0, 1: 1, 2: 2, 3: 3, "spectator": None}
    views = 0
    began = time.perf_counter()
    for entry in entries:
        for frame, _ in view_groups(entry, members):
            encode(frame)
            views += 1
    return time.perf_counter() - began, views


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=60)
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    plain, live = logs(args.rounds, args.seed)
    runs: dict[str, list[float]] = {"dict": [], "value": []}
    views = 0
    gc.disable()
    for _ in range(args.repeat):
        for name, entries in (("dict", plain), ("value", live)):
            seconds, views = one_pass(entries)
            runs[name].append(seconds / views * 1e6)
    gc.enable()
    med = {k: statistics.median(v) for k, v in runs.items()}
    print(
        json.dumps(
            {
                "events": len(plain),
                "views": views,
                "us_per_view": {k: round(v, 2) for k, v in med.items()},
                "passes": {k: [round(x, 2) for x in v] for k, v in runs.items()},
                "ratio_dict_over_value": round(med["dict"] / med["value"], 3),
            }
        )
    )


if __name__ == "__main__":
    main()
