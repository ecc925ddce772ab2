"""What the tests share beyond fixtures: the volume knob for long tests."""

from __future__ import annotations

import os


def volume(default: int, full: int) -> int:
    """How many rounds (mixes, deals, ...) a volume test runs: `default` in an ordinary run,
    `full` when the environment sets ZHUOJI_TEST_VOLUME=full (the soak step of .ci/run)."""
    return full if os.environ.get("ZHUOJI_TEST_VOLUME") == "full" else default
