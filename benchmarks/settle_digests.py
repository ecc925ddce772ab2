"""Digests of every settlement and final view: run it in two checkouts to show that a speed
change to the engine (`rules/round.py`, `rules/view.py`, `rules/settle.py`,
`rules/chickens.py`) left the payments and what each seat sees alone (issue 24: "same
payments").

For each preset, `--rounds` seeded rounds played by four `normal` bots (one in eight with a
`strong` seat, rotating, so its rarer paths are met too) and every deal script given
(`--scripts DIR ...`, each `*.json` played by `rules.script.run_script`) are hashed: the
actions, every payment (payer, payee, item, amount, kind, detail, details), the settlement's
net, ready flags, chicken and 豆 lines and wins, and the view of each seat and of a spectator
after every action (`rules.view.view_of`, the bots' input) and at the end.

    python benchmarks/settle_digests.py --rounds 10000 guiyang chuan anshun \\
        --scripts ../shared/scenarios tests/scenarios tests/scripts
"""

from __future__ import annotations

import argparse
import hashlib
import json
from pathlib import Path
from typing import Any

from rules.options import make_options
from rules.players.levels import policy_for
from rules.round import Phase, Round
from rules.script import ScriptError, run_script
from rules.view import view_of


def _settlement(r: Round) -> str:
    """Every value of the round's settlement, payments with their readable detail."""
    s = r.result
    assert s is not None
    return json.dumps(
        {
            **s.to_dict(notes=True),
            "payments": [
                [p.payer, p.payee, p.item, p.amount, p.kind, p.detail, p.details]
                for p in s.payments
            ],
        },
        sort_keys=True,
        default=repr,
    )


def _views(r: Round) -> str:
    return repr([view_of(r, v) for v in (0, 1, 2, 3, None)])


def round_digest(preset: str, rounds: int, every_view: bool) -> str:
    """The digest of `rounds` seeded rounds of `preset`."""
    opts = make_options(preset, {})
    h = hashlib.sha256()
    for i in range(rounds):
        r = Round.deal(opts, seed=f"settle-{preset}-{i}", dealer=i % 4)
        levels = ["normal"] * 4
        if i % 8 == 7:
            levels[i // 8 % 4] = "strong"
        bots = [policy_for(level, f"settle-{i}-{s}") for s, level in enumerate(levels)]
        while r.phase is not Phase.OVER:
            seat = r.awaiting()[0]
            a = bots[seat].choose(r, seat)
            h.update(f"{a.seat}{a.act}{a.tile};".encode())
            r.apply(a)
            if every_view:
                h.update(_views(r).encode())
        h.update(_settlement(r).encode())
        h.update(_views(r).encode())
    return h.hexdigest()[:16]


def script_digest(paths: list[Path]) -> tuple[int, str]:
    """(scripts played, the digest of their settlements and final views; a script that the
    engine refuses is hashed by its error)."""
    h = hashlib.sha256()
    n = 0
    for path in paths:
        data: Any = json.loads(path.read_text(encoding="utf-8"))
        h.update(path.name.encode())
        n += 1
        try:
            r = run_script(data)
        except ScriptError as err:
            h.update(f"error:{err}".encode())
            continue
        if r.result is not None:
            h.update(_settlement(r).encode())
        h.update(_views(r).encode())
    return n, h.hexdigest()[:16]


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("presets", nargs="*", help="presets to play rounds of (guiyang chuan anshun)")
    p.add_argument("--rounds", type=int, default=1000, help="rounds per preset (1000)")
    p.add_argument("--every-view", action="store_true", help="hash every view after each action")
    p.add_argument("--scripts", nargs="*", default=[], help="folders of deal scripts (*.json)")
    args = p.parse_args()
    for preset in args.presets:
        d = round_digest(preset, args.rounds, args.every_view)
        print(
            json.dumps(
                {
                    "preset": preset,
                    "rounds": args.rounds,
                    "every_view": args.every_view,
                    "digest": d,
                }
            ),
            flush=True,
        )
    if args.scripts:
        paths = sorted(f for d in args.scripts for f in Path(d).glob("*.json"))
        n, d = script_digest(paths)
        print(json.dumps({"scripts": n, "digest": d}), flush=True)


if __name__ == "__main__":
    main()
