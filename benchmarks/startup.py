"""How long the command line takes to start (issue 26), as a user sees it.

    python benchmarks/startup.py [--runs 21] [--play-runs 7] [--before DIR] [--json]

Each case is a fresh process, timed from its start to its exit (or, for `zhuoji play`, until
its table shows in a terminal), the cases interleaved run by run, one warm-up run each; printed
as the median and the quartiles of the wall time, and the median CPU time of the process (which
a busy machine inflates far less than the wall time), in milliseconds. `python -c pass` is the floor: the
interpreter and its site packages (an editable install's import hook among them), which no
change to zhuoji can lower.

- `--version`, `--help`: `python -m zhuoji --version` / `--help`;
- `replay`: `python -m zhuoji replay` of a worked deal script (imports rules, plays, prints);
- `play`: `zhuoji play` in a 100x30 tmux pane, with a fresh database and state folder, from the
  command's start until the table shows ("Round 1/"), polled every 10 ms. Its CPU time is the
  command's and its child processes' (the server runs in a forked child since issue 26, on a
  thread before), with the command's own in brackets: on two idle cores the wall time follows the
  busier of the two processes, not their sum. "unqueued" is its wall time less the time its main
  thread waited for a core (`run_delay`): on a busy machine, an estimate of the idle one's.

`--before DIR` runs every case a second time on another checkout (DIR on PYTHONPATH, e.g. an
older commit unpacked with `git archive REV | tar -x -C DIR`), interleaved with this one, so
both columns come from the same minutes of the same machine.

Bytecode is written and read as usual (PYTHONDONTWRITEBYTECODE is dropped from the children's
environment): a user's install has it. Run it on an otherwise quiet machine, under `nice` if
others work on it; the numbers of benchmarks/README.md say how they were taken.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "tests" / "scenarios" / "guiyang_05_qidui_zimo.json"
TABLE_SHOWN = "Round 1/"


def environment(root: Path) -> dict[str, str]:
    """The children's environment: `root` first on the path, bytecode cached as usual."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPATH"] = str(root)
    return env


# (wall seconds, CPU seconds of the process and its children, CPU seconds of the process alone,
# wall seconds less the time its main thread waited for a core: see `run_delay`)
Sample = tuple[float, float, float, float]


def timed(argv: list[str], root: Path) -> Sample:
    """Wall and CPU seconds from starting `argv` (in `root`) to its exit; it must succeed."""
    cpu_before = children_cpu()
    began = time.perf_counter()
    done = subprocess.run(argv, cwd=root, env=environment(root), capture_output=True, timeout=120)
    took = time.perf_counter() - began
    if done.returncode != 0:
        raise SystemExit(f"{argv} failed: {done.stderr.decode(errors='replace')[-2000:]}")
    cpu = children_cpu() - cpu_before
    return took, cpu, cpu, took


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def process_cpu(pid: int) -> float:
    """CPU seconds a running process has used so far (all its threads; /proc, Linux)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def run_delay(pid: int) -> float:
    """Seconds the main thread of a running process has spent ready to run but waiting for a
    core (/proc/PID/schedstat, Linux). On a machine others keep busy, the wall time less this is
    about what an idle machine would show, as long as the process did not wait on another one
    that was slowed too."""
    return int(Path(f"/proc/{pid}/schedstat").read_text().split()[1]) / 1e9


def tree_cpu(pid: int) -> float:
    """CPU seconds used so far by a running process and its living descendants (`zhuoji play`'s
    server is a child process since issue 26: its work counts, as its thread's did)."""
    total = 0.0
    todo = [pid]
    while todo:
        p = todo.pop()
        try:
            total += process_cpu(p)
            for task in Path(f"/proc/{p}/task").iterdir():
                todo += [int(c) for c in (task / "children").read_text().split()]
        except (FileNotFoundError, ProcessLookupError):
            continue  # it ended meanwhile
    return total


def play_shown(root: Path) -> Sample:
    """Wall seconds from starting `zhuoji play` in a tmux pane to its table on the screen, and
    the CPU seconds its processes (the client and, forked from it, its server) had used by then."""
    tmux = shutil.which("tmux")
    if tmux is None:
        raise SystemExit("the play case needs tmux")
    with tempfile.TemporaryDirectory() as tmp:
        sock = str(Path(tmp) / "tmux.sock")
        env = environment(root) | {"ZHUOJI_STATE_DIR": str(Path(tmp) / "state")}
        env["TERM"] = "xterm-256color"
        argv = [sys.executable, "-m", "zhuoji", "play", "--db", str(Path(tmp) / "p.db")]
        argv += ["--name", "me", "--lang", "en", "--ascii", "--new"]
        command = shlex.join(["env", "-i", *(f"{k}={v}" for k, v in env.items()), *argv])
        base = [tmux, "-S", sock, "-f", "/dev/null"]
        began = time.perf_counter()
        subprocess.run(
            [*base, "new-session", "-d", "-x", "100", "-y", "30", "-c", str(root), command],
            check=True,
        )
        try:
            deadline = began + 60
            while time.perf_counter() < deadline:
                screen = subprocess.run(
                    [*base, "capture-pane", "-p"], capture_output=True, text=True
                ).stdout
                if TABLE_SHOWN in screen:
                    took = time.perf_counter() - began
                    pid = int(
                        subprocess.run(
                            [*base, "display-message", "-p", "#{pane_pid}"],
                            capture_output=True,
                            text=True,
                        ).stdout
                    )
                    return took, tree_cpu(pid), process_cpu(pid), took - run_delay(pid)
                time.sleep(0.01)
            raise SystemExit(f"zhuoji play showed no table within 60 s:\n{screen}")
        finally:
            subprocess.run([*base, "kill-server"], capture_output=True)


def cases(root: Path) -> dict[str, Callable[[], Sample]]:
    python = [sys.executable]
    zhuoji = [sys.executable, "-m", "zhuoji"]
    return {
        "python -c pass": lambda: timed([*python, "-c", "pass"], root),
        "zhuoji --version": lambda: timed([*zhuoji, "--version"], root),
        "zhuoji --help": lambda: timed([*zhuoji, "--help"], root),
        "zhuoji replay SCRIPT": lambda: timed([*zhuoji, "replay", str(SCRIPT)], root),
        "zhuoji play (to the table)": lambda: play_shown(root),
    }


def summary(samples: list[Sample]) -> dict[str, float]:
    """Median and quartiles of the wall time, medians of the CPU times (all the processes', the
    command's own), in milliseconds."""
    q1, median, q3 = statistics.quantiles([w for w, *_ in samples], n=4, method="inclusive")
    cpu = statistics.median(c for _, c, _, _ in samples)
    own = statistics.median(c for _, _, c, _ in samples)
    unqueued = statistics.median(u for *_, u in samples)
    return {
        "median_ms": median * 1000,
        "q1_ms": q1 * 1000,
        "q3_ms": q3 * 1000,
        "cpu_median_ms": cpu * 1000,
        "own_cpu_median_ms": own * 1000,
        "unqueued_median_ms": unqueued * 1000,
        "n": len(samples),
    }


def ratio_interval(
    now: list[float], before: list[float], draws: int = 2000, seed: int = 26
) -> tuple[float, float, float]:
    """The ratio of the medians now / before, with a 95 % bootstrap interval (each side's runs
    resampled with replacement, `draws` times, from a seeded generator)."""
    rng = random.Random(seed)
    ratios = sorted(
        statistics.median(rng.choices(now, k=len(now)))
        / statistics.median(rng.choices(before, k=len(before)))
        for _ in range(draws)
    )
    point = statistics.median(now) / statistics.median(before)
    return point, ratios[int(0.025 * draws)], ratios[int(0.975 * draws) - 1]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=21, help="runs of each quick case (21)")
    parser.add_argument("--play-runs", type=int, default=7, help="runs of the play case (7)")
    parser.add_argument("--before", type=Path, help="another checkout to run side by side")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args()

    roots = {"now": ROOT} | ({"before": args.before.resolve()} if args.before else {})
    plan = {(label, name): case for label, r in roots.items() for name, case in cases(r).items()}
    times: dict[tuple[str, str], list[Sample]] = {key: [] for key in plan}
    for case in plan.values():
        case()  # warm-up: bytecode and the hand tables' cache written
    for i in range(max(args.runs, args.play_runs)):
        for (label, name), case in plan.items():
            if i < (args.play_runs if name.startswith("zhuoji play") else args.runs):
                times[label, name].append(case())

    result = {
        label: {name: summary(times[label, name]) for (lab, name) in plan if lab == label}
        for label in roots
    }
    if "before" in roots:
        # How zhuoji play compares, measure by measure, with its uncertainty.
        play = next(name for name in cases(ROOT) if name.startswith("zhuoji play"))
        result["play_ratios"] = {
            key: dict(
                zip(
                    ("ratio", "low", "high"),
                    ratio_interval(
                        [x[i] for x in times["now", play]], [x[i] for x in times["before", play]]
                    ),
                    strict=True,
                )
            )
            for i, key in enumerate(("wall", "cpu", "own_cpu", "unqueued"))
        }
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    for name in cases(ROOT):
        row = [f"{name:28}"]
        for label in roots:
            s = result[label][name]
            row.append(
                f"{label}: {s['median_ms']:6.0f} ms [{s['q1_ms']:.0f}–{s['q3_ms']:.0f}]"
                f" cpu {s['cpu_median_ms']:5.0f} ms"
                + (
                    f" (own {s['own_cpu_median_ms']:.0f}) unqueued {s['unqueued_median_ms']:.0f} ms"
                    if name.startswith("zhuoji play")
                    else ""
                )
            )
        print("  ".join(row))
    if "play_ratios" in result:
        print(
            "zhuoji play, now / before (median ratio, 95 % bootstrap interval): "
            + ", ".join(
                f"{key} {r['ratio']:.2f} [{r['low']:.2f}–{r['high']:.2f}]"
                for key, r in result["play_ratios"].items()
            )
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
