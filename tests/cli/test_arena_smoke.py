"""An arena smoke run (50 deals; 200 in the soak step, `tests.support.volume`): the strong bot
is not weaker than the normal one beyond noise,
and every round is zero-sum. (The measurement itself is `zhuoji arena`, in benchmarks/README.md;
this only catches a strong bot that broke.)"""

from __future__ import annotations

from itertools import count

import pytest

from rules.options import GUIYANG
from rules.players.arena import play_deals, report
from rules.players.levels import policy_for
from tests.support import volume

DEALS = volume(50, 200)


# About 10 s of CPU (40 s at full volume); a loaded 2-core machine stretches that a lot.
@pytest.mark.slow
@pytest.mark.timeout(900)
def test_strong_is_not_weaker_than_normal_on_200_deals() -> None:
    ticks = count()
    # One game per deal, the strong seat rotating with the deal: a quarter of a full arena run.
    results = play_deals(
        GUIYANG,
        2026,
        range(DEALS),
        policy_for,
        "strong",
        "normal",
        lambda: next(ticks) / 1000,
        rotate=True,
    )
    assert len(results) == DEALS
    for d in results:
        assert len(d.nets) == 1 and sum(d.nets[0]) == 0
    out = report(results, "strong", "normal")
    diff = out["difference"]
    assert diff["mean"] > -3 * diff["se"], diff
    assert out["diagnostics"]["challenger"]["decisions"] > 5 * DEALS
