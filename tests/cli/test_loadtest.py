"""`zhuoji serve` and `zhuoji loadtest` as a user runs them: two processes, a real port."""

from __future__ import annotations

import json
import signal
import socket
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from server.storage.reads import table_row


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_serve_and_loadtest_end_to_end(tmp_path: Path, serve: Callable[..., Any]) -> None:
    port = _free_port()
    db = tmp_path / "serve.db"
    server = serve(db, port)
    server.start()
    try:
        run = subprocess.run(
            [
                sys.executable,
                "-m",
                "zhuoji.cli",
                "loadtest",
                "--url",
                f"ws://127.0.0.1:{port}",
                "--tables",
                "4",
                "--rounds",
                "2",
                "--think-ms",
                "2",
                "--json",
            ],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert run.returncode == 0, run.stdout + run.stderr
        report = json.loads(run.stdout)
        assert report["rounds_completed"] == 8 and report["matches_completed"] == 4
        assert report["errors"] == 0 and report["zero_sum"] is True
        assert report["samples"] > 100
        assert 0 < report["p50_ms"] <= report["p99_ms"] <= report["max_ms"]
        assert report["reconnects"] == 0 and report["mismatches"] == 0
        # The server's own CPU (its /metrics) per action and per frame the clients received:
        # every action reaches at least the three other seats.
        assert report["frames"] > 3 * report["actions"] > 0
        assert report["server_cpu_s"] > 0
        per_frame = report["server_cpu_s"] * 1e6 / report["frames"]
        assert abs(report["server_cpu_per_frame_us"] - per_frame) <= 0.1 + per_frame * 1e-3
        assert report["server_cpu_per_action_us"] > report["server_cpu_per_frame_us"]
        # With chaos: dropped connections come back, and their views are the server's.
        run = subprocess.run(
            [
                sys.executable,
                "-m",
                "zhuoji.cli",
                "loadtest",
                "--url",
                f"ws://127.0.0.1:{port}",
                "--tables",
                "3",
                "--rounds",
                "1",
                "--think-ms",
                "2",
                "--chaos",
                "0.05",
                "--json",
            ],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert run.returncode == 0, run.stdout + run.stderr
        report = json.loads(run.stdout)
        assert report["chaos"] == 0.05 and report["matches_completed"] == 3
        assert report["reconnects"] > 5 and report["mismatches"] == 0
    finally:
        out = server.signal(signal.SIGINT)
    assert server.proc.returncode == 0, out
    assert "serving on ws://127.0.0.1" in out
    for table in ("1", "2", "3", "4", "5", "6", "7"):
        row = table_row(db, table)
        assert row is not None and row["state"] == "finished" and sum(row["scores"]) == 0
