"""`zhuoji bench --json`: one JSON object with the keys the benchmarks README promises."""

from __future__ import annotations

import json
import subprocess
import sys


def test_bench_json_small_run() -> None:
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "zhuoji.cli",
            "bench",
            "--json",
            "--hands",
            "40",
            "--rounds",
            "12",
            "--repeat",
            "2",
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    for key in (
        "is_win_us",
        "waits_us",
        "is_agari_us",
        "is_agari_x27_us",
        "is_win_speedup",
        "waits_speedup",
        "rounds_per_s",
        "rounds_per_s_wall",
    ):
        assert out[key] > 0, key
    shares = out["zimo_share"] + out["discard_win_share"] + out["rob_share"] + out["draw_share"]
    assert abs(shares - 1) < 1e-9
    assert out["rounds"] == 12
    assert (
        abs(out["is_win_speedup"] - out["is_agari_us"] / out["is_win_us"])
        < 0.1 * out["is_win_speedup"]
    )
