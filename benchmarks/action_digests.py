"""Digests of every bot action over seeded rounds: run it in two checkouts to show that a speed
change left the decisions alone (issue 24: "same decisions").

Each configuration is `WHO:PRESET`: `strong1` (one `strong` seat, rotating, among three
`normal`), `strong4` (four `strong`), or a level for all four seats (`normal`, `easy`, `strong`).
Every action (seat, kind, tile) and every round's nets are hashed, as
`tests/rules/test_bot_golden.py` does for `normal` and `easy`; `strong`'s decisions are changed
on purpose by other work, so its digests live here and not in a test.

    python benchmarks/action_digests.py --rounds 100 strong1:guiyang strong1:chuan normal:anshun
    (cd /tmp/main-copy && PYTHONPATH=. python /path/to/benchmarks/action_digests.py ...)
"""

from __future__ import annotations

import argparse
import json

from rules.options import make_options
from rules.players.levels import action_digest, policy_for
from rules.round import Round


def levels_for(who: str, i: int) -> list[str]:
    """The four seats' levels of round `i` for a configuration's `WHO`."""
    if who == "strong1":
        levels = ["normal"] * 4
        levels[i % 4] = "strong"
        return levels
    if who == "strong4":
        return ["strong"] * 4
    return [who] * 4


def digest(who: str, preset: str, rounds: int) -> str:
    """The first 16 hex digits of the SHA-256 of every action and net of `rounds` rounds."""
    opts = make_options(preset, {})
    return action_digest(
        (
            Round.deal(opts, seed=f"hash-{preset}-{i}", dealer=i % 4),
            [policy_for(level, f"hash-{i}-{s}") for s, level in enumerate(levels_for(who, i))],
        )
        for i in range(rounds)
    )


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("configs", nargs="+", help="WHO:PRESET, e.g. strong1:guiyang")
    p.add_argument("--rounds", type=int, default=100, help="rounds per configuration (100)")
    args = p.parse_args()
    for spec in args.configs:
        who, _, preset = spec.partition(":")
        print(
            json.dumps(
                {"config": spec, "rounds": args.rounds, "digest": digest(who, preset, args.rounds)}
            ),
            flush=True,
        )


if __name__ == "__main__":
    main()
