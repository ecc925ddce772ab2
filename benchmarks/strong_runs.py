"""What the strong bot's measuring scripts share (`components.py`, `deal_ins.py`): their
arguments, a variant of `rules.players.bot_strong`'s constants set in each worker, and the
deals spread over a pool of workers."""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from multiprocessing import Pool
from typing import Any, TypeVar

Job = tuple[dict[str, Any], str, str, int, list[int]]  # variant, policy, preset, seed, deals
Row = TypeVar("Row")


def parse_args(description: str, deals: int) -> argparse.Namespace:
    """`--policy --preset --seed --deals --workers --variant`; `variant` comes back parsed."""
    p = argparse.ArgumentParser(description=description)
    p.add_argument("--policy", default="strong")
    p.add_argument("--preset", default="guiyang")
    p.add_argument("--seed", type=int, default=77)
    p.add_argument("--deals", type=int, default=deals)
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--variant", default="{}", help="JSON of rules.players.bot_strong constants")
    args = p.parse_args()
    try:
        args.variant = json.loads(args.variant)
    except json.JSONDecodeError as e:
        p.error(f"--variant: not JSON ({e}): {args.variant!r}")
    if not isinstance(args.variant, dict):
        p.error(f'--variant: a JSON object of constants, like {{"HAZARD": 0.04}}: {args.variant!r}')
    return args


def set_variant(variant: dict[str, Any]) -> None:
    """Set `rules.players.bot_strong`'s module constants by name (in a worker process)."""
    import rules.players.bot_strong as strong

    for name, value in variant.items():
        setattr(strong, name, value)


def run_deals(work: Callable[[Job], list[Row]], args: argparse.Namespace) -> list[Row]:
    """`work` over every deal of the run, the deals dealt round-robin to 4 chunks per worker."""
    n = 4 * args.workers
    chunks = [list(range(i, args.deals, n)) for i in range(n)]
    jobs = [(args.variant, args.policy, args.preset, args.seed, c) for c in chunks]
    with Pool(args.workers) as pool:
        return [row for part in pool.map(work, jobs) for row in part]
