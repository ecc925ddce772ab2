"""The soak a slice at a time (`.ci/run`): ZHUOJI_TEST_SLICE=I/K keeps slice I of K of the volume
tests (marked slow), and the K slices are all of them, each once, of sizes that differ by one at
most. The last test is a real pytest collection, as CI runs it."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests.support import ROOT, in_slice, soak_slice

IDS = [f"tests/rules/test_x.py::test_{name}[{i}]" for name in "abc" for i in range(7)] + [
    "tests/server/test_y.py::test_alone"
]


@pytest.mark.parametrize("k", [1, 2, 3, 16, 40])
def test_the_slices_are_every_volume_test_once_in_near_equal_parts(k: int) -> None:
    slices = [in_slice(IDS, (i, k)) for i in range(k)]
    assert set().union(*slices) == set(IDS)
    assert sum(len(s) for s in slices) == len(IDS), "no test in two slices"
    sizes = [len(s) for s in slices]
    assert max(sizes) - min(sizes) <= 1, sizes
    # The parts of one test go to different slices (while there are slices enough).
    if k >= 7:
        assert all(len({t for t in s if "test_a[" in t}) <= 1 for s in slices)


def test_the_slice_is_read_from_its_variable_and_a_bad_one_is_refused() -> None:
    assert soak_slice("3/16") == (3, 16)
    assert soak_slice("0/1") == (0, 1)
    assert soak_slice("") is None
    for bad in ("16/16", "-1/4", "3", "a/b", "1/0", "2/1"):
        with pytest.raises(ValueError, match="expected I/K"):
            soak_slice(bad)


def collected(slice_spec: str | None) -> list[str]:
    """The node ids a full-volume `pytest -m slow` run of the house mixes collects."""
    env = {k: v for k, v in os.environ.items() if k != "ZHUOJI_TEST_SLICE"}
    env["ZHUOJI_TEST_VOLUME"] = "full"
    if slice_spec is not None:
        env["ZHUOJI_TEST_SLICE"] = slice_spec
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-n", "0",
         "-p", "no:cacheprovider", "-m", "slow", "tests/rules/test_house_mixes.py"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    return [line for line in done.stdout.splitlines() if "::" in line]


def test_a_run_with_a_slice_collects_its_slice_of_the_full_volume_tests() -> None:
    every = collected(None)
    assert len(every) == 60  # 3,000 mixes in parts of 50
    half = collected("1/2")
    assert len(half) == 30 and set(half) == in_slice(every, (1, 2))
