"""The duplicate-deal arena: its statistics, its determinism, and the `zhuoji arena` command."""

from __future__ import annotations

import json
import math
import os
import re
import signal
import subprocess
import sys
import threading
from collections.abc import Callable
from itertools import count

import pytest

from rules.options import GUIYANG
from rules.players.arena import (
    Z95,
    DealResult,
    Diagnostics,
    clustered_estimate,
    deal_seed,
    play_deals,
    report,
    seat_seed,
)
from rules.players.levels import policy_for


def fake_clock() -> Callable[[], float]:
    """A clock that advances 1 ms per reading: every decision takes exactly 1 ms."""
    ticks = count()
    return lambda: next(ticks) / 1000


def test_clustered_estimate_on_known_numbers() -> None:
    e = clustered_estimate([1.0, 2.0, 3.0, 4.0])
    assert e.mean == 2.5
    assert e.se == pytest.approx(math.sqrt(5 / 12), abs=1e-15)  # sd² = 5/3 over 4 deals
    assert e.low == pytest.approx(2.5 - Z95 * 0.6454972243679028, abs=1e-12)
    assert e.high == pytest.approx(3.7651513119, abs=1e-9)
    assert e.to_dict()["deals"] == 4


def test_report_clusters_by_deal_not_by_game() -> None:
    """Two deals: the challenger's points are the mean of its four seats per deal; the SE comes
    from the two per-deal means (not from the eight games)."""
    d0 = DealResult(
        0,
        [[4, 0, -4, 0], [0, 2, -2, 0], [0, 0, 2, -2], [-1, -1, -1, 3]],
        0,
        {"challenger": Diagnostics(), "baseline": Diagnostics()},
    )
    # challenger seats: 4, 2, 2, 3 → 2.75; baseline: (0-4+0 + 0-2+0 + 0+0-2 -1-1-1) / 12
    d1 = DealResult(
        1, [[-3, 1, 1, 1]] * 4, 4, {"challenger": Diagnostics(), "baseline": Diagnostics()}
    )
    # challenger seats: -3, 1, 1, 1 → 0.0
    out = report([d1, d0], "a", "b")
    ch = out["points_per_round"]["challenger"]
    assert ch["mean"] == pytest.approx(1.375)
    assert ch["se"] == pytest.approx(1.375)  # sd of (2.75, 0) = 1.9445 / √2
    bl = out["points_per_round"]["baseline"]
    assert bl["mean"] == pytest.approx((-11 / 12 + 0.0) / 2)
    diff = out["difference"]
    assert diff["mean"] == pytest.approx((2.75 + 11 / 12 + 0.0) / 2)
    assert out["rounds"] == 8
    assert out["draw_rate"] == 0.5
    assert out["nets"][0] == d0.nets


def test_decision_time_quantiles_from_the_histogram() -> None:
    d = Diagnostics()
    for ms in [0.01] * 90 + [1.0] * 9 + [30.0]:
        d.decisions += 1
        d.decision_ms += ms
        d.time_bins[int(ms / 0.05)] += 1
    s = d.summary()
    assert s["decision_ms_mean"] == pytest.approx((0.9 + 9 + 30) / 100)
    assert s["decision_ms_p95"] == pytest.approx(1.05)  # the 95th decision is a 1 ms one


def test_seeds_depend_only_on_deal_and_seat() -> None:
    assert deal_seed(7, 3) == deal_seed(7, 3) != deal_seed(7, 4) != deal_seed(8, 3)
    assert len({seat_seed(7, 3, s) for s in range(4)}) == 4


def test_duplicate_deals_are_deterministic() -> None:
    a = play_deals(GUIYANG, 5, range(3), policy_for, "normal", "normal", fake_clock())
    b = play_deals(GUIYANG, 5, range(3), policy_for, "normal", "normal", fake_clock())
    assert [d.nets for d in a] == [d.nets for d in b]
    assert [d.diag["challenger"].summary() for d in a] == [
        d.diag["challenger"].summary() for d in b
    ]
    c = play_deals(GUIYANG, 6, range(3), policy_for, "normal", "normal", fake_clock())
    assert [d.nets for d in a] != [d.nets for d in c]
    for d in a:
        # The same policy in every seat with seat-seeded opponents: the four games are the
        # same game, so the challenger's mean is exactly the zero-sum mean, 0.
        assert all(n == d.nets[0] for n in d.nets)
        assert d.challenger_points == 0
        assert all(sum(n) == 0 for n in d.nets)
        assert d.diag["challenger"].decision_ms == pytest.approx(d.diag["challenger"].decisions)


def _arena(*flags: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "zhuoji", "arena", *flags],
        capture_output=True,
        text=True,
        timeout=600,
    )


def test_arena_command_json() -> None:
    done = _arena("--deals", "20", "--json", "--workers", "2", "--policies", "normal,normal")
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["deals"] == 20 and out["rounds"] == 80
    assert len(out["nets"]) == 20
    for deal in out["nets"]:
        assert len(deal) == 4
        for net in deal:
            assert len(net) == 4 and sum(net) == 0
    ppr = out["points_per_round"]["challenger"]
    assert ppr["ci95"][0] <= ppr["mean"] <= ppr["ci95"][1]
    for role in ("challenger", "baseline"):
        diag = out["diagnostics"][role]
        assert 0 <= diag["win_rate"] <= 1 and diag["decisions"] > 0
        assert diag["decision_ms_p95"] > 0
    assert "20/20" in done.stderr  # the progress bar


def test_an_interrupted_run_reports_the_deals_it_finished() -> None:
    """SIGTERM (or SIGINT, Ctrl-C) during a long run: the deals finished so far are reported."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "zhuoji", "arena", "--deals", "100000", "--json"]
        + ["--workers", "1", "--policies", "normal,normal"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, "TTY_COMPATIBLE": "1"},  # rich then redraws the progress bar
    )
    progressed = threading.Event()
    err = bytearray()

    def read_stderr() -> None:
        assert proc.stderr is not None
        while chunk := proc.stderr.read1(4096):
            err.extend(chunk)
            if re.search(rb"[1-9][0-9]*/100000", err):
                progressed.set()

    reader = threading.Thread(target=read_stderr, daemon=True)
    reader.start()
    try:
        assert progressed.wait(120), err.decode(errors="replace")
        proc.send_signal(signal.SIGTERM)
        assert proc.stdout is not None
        stdout = proc.stdout.read()
        assert proc.wait(120) == 0, err.decode(errors="replace")
    finally:
        proc.kill()
    reader.join(10)
    out = json.loads(stdout)
    assert out["interrupted"] is True and out["deals_asked"] == 100000
    assert 0 < out["deals"] < 100000 and len(out["nets"]) == out["deals"]
    assert all(sum(net) == 0 for deal in out["nets"] for net in deal)


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--deals", "0"], "--deals must be at least 1"),
        (["--policies", "normal"], "--policies takes two names"),
        (["--policies", "normal,grandmaster"], "unknown policy 'grandmaster'"),
        (["--options", "{nope"], "--options is not valid JSON"),
        (["--options", "[1]"], "--options must be a JSON object"),
        (["--options", '{"no_such_option": 1}'], "no_such_option"),
        (["--preset", "shanghai"], "unknown ruleset 'shanghai'"),
        (["--workers", "0"], "--workers must be at least 1"),
        (["--deals", "many"], "invalid int value: 'many'"),
    ],
)
def test_bad_flags_exit_2_with_a_clear_message(flags: list[str], message: str) -> None:
    done = _arena(*flags)
    assert done.returncode == 2
    assert message in done.stderr
    assert done.stdout == ""


def test_chongfeng_is_counted_only_where_the_preset_has_it() -> None:
    from rules.options import PRESETS

    chuan = play_deals(PRESETS["chuan"], 5, range(4), policy_for, "normal", "easy", fake_clock())
    assert all(d.diag[role].chongfeng == 0 for d in chuan for role in d.diag)
    guiyang = play_deals(GUIYANG, 5, range(4), policy_for, "normal", "easy", fake_clock())
    assert sum(d.diag[role].chongfeng for d in guiyang for role in d.diag) > 0
