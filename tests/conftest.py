"""What the tests share: the data folders, and fixtures for a database path, a running loopback
server, a deal script and a real `zhuoji serve` process.

The tests sit in one folder per layer (rules/, protocol/, server/, client_tui/, clients/, cli/);
the deal scripts stay in scenarios/ (the RULES.md worked examples) and scripts/. No fixture sleeps
to wait for a server: a process is ready when it says so on its output.
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from protocol import frames
from server.app import Server
from server.logs import QUIET
from server.testkit import running_server
from tests.support import Serve, in_slice, soak_slice

# Every frame a test's server sends is validated against its protocol model as it is encoded
# (`protocol.frames.CHECK`): the servers in this process, and the `zhuoji` processes the tests
# start (they inherit the environment). A server left to itself writes its trusted dicts as
# they are.
os.environ["ZHUOJI_CHECK_FRAMES"] = "1"
frames.CHECK = True

ROOT = Path(__file__).resolve().parent.parent
TESTS = ROOT / "tests"
SCENARIOS = TESTS / "scenarios"  # the worked deal scripts of RULES.md
SCRIPTS = TESTS / "scripts"  # independent deal scripts, results computed by hand
# The project's shared worked scripts, beside the checkout (absent outside the workplace).
SHARED_SCENARIOS = TESTS.parent.parent / "shared" / "scenarios"


@pytest.fixture(autouse=True)
def own_user_dirs(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each test's clients and `zhuoji` processes keep their config (the player key, config.toml,
    house rules) and state (seat tokens) in folders of their own, never in the user's home: a
    test run must not write `~/.config/zhuoji/player.key`, nor read the one a person has there.
    A test that sets either variable itself overrides this."""
    home = tmp_path_factory.mktemp("user")
    monkeypatch.setenv("ZHUOJI_CONFIG_DIR", str(home / "config"))
    monkeypatch.setenv("ZHUOJI_STATE_DIR", str(home / "state"))


@pytest.fixture(autouse=True)
def own_logging() -> Iterator[None]:
    """Each test gets the process's logging as it found it. `zhuoji serve` run in-process
    (`main(["serve", ...])`) points the root logger at the `sys.stderr` of that moment, a
    capture stream closed after the test; left in place, every later test's server log line
    failed with "--- Logging error ---" (I/O on a closed file)."""
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    quiet = {name: logging.getLogger(name).level for name in QUIET}
    yield
    root.handlers[:] = handlers
    root.setLevel(level)
    for name, old in quiet.items():
        logging.getLogger(name).setLevel(old)


@pytest.fixture
def db(tmp_path: Path) -> Path:
    """A fresh SQLite file's path for a server's store."""
    return tmp_path / "z.db"


@pytest.fixture
async def srv(db: Path) -> AsyncIterator[tuple[str, Server, Path]]:
    """A server on loopback (seeded; a seat that drops is kept for 60 s): (url, server, db)."""
    async with running_server(db, seed="test", disconnect_grace=60) as (url, server):
        yield url, server, db


@pytest.fixture
def deal_script() -> Callable[[str], dict[str, Any]]:
    """Load a deal script by file name from scenarios/ or scripts/."""

    def load(name: str) -> dict[str, Any]:
        path = SCENARIOS / name if (SCENARIOS / name).exists() else SCRIPTS / name
        data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
        return data

    return load


@pytest.fixture
def serve() -> Iterator[Callable[[Path, int], Serve]]:
    """Make `Serve`s (`serve(db, port)`, then `.start()`); any still running are killed after."""
    made: list[Serve] = []

    def make(db: Path, port: int) -> Serve:
        made.append(Serve(db, port))
        return made[-1]

    yield make
    for server in made:
        server.stop()


# The tests that take longest on their own (15-35 s each on a quiet machine, most of it waiting
# on real windows, processes or pip, or drawing the whole create form), by node id prefix. They
# run first: a worker that runs out of tests takes the end of another's queue (`--dist
# worksteal`), so the run ends on short tests, not with one worker alone on a long one.
LONG_FIRST = (
    "tests/client_tui/test_tui_create_form.py::",
    "tests/server/test_metrics.py::test_the_claim_windows_pause_is_left_out_of_the_latency",
    "tests/cli/test_install.py::",
    "tests/cli/test_serve_config.py::test_admin_backup_during_a_loadtest",
    "tests/client_tui/test_tui_play.py::test_play_whole_rounds_against_bots",
    "tests/server/test_protocol_doc.py::test_a_reader_too_far_behind",
    "tests/server/test_side_channels.py::test_a_claim_window_tells_nobody_who_could_claim",
    "tests/client_tui/test_tui_house_tmux.py::",
    "tests/client_tui/test_tui_tmux.py::",
)
LONG_TIMEOUT = 900  # seconds: the bound of each of them (the volume tests have as much)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The longest tests first (`LONG_FIRST`, otherwise in the order collected); and with
    ZHUOJI_TEST_SLICE=I/K (`.ci/run`'s soak slice) only slice I of K of the volume tests
    (marked slow; `tests.support.in_slice`), everything else deselected."""
    items.sort(key=lambda item: not item.nodeid.startswith(LONG_FIRST))  # a stable sort
    for item in items:
        if item.nodeid.startswith(LONG_FIRST) and not item.get_closest_marker("timeout"):
            # Their own bound: a create-form test is 10-60 s of CPU, which a machine at load
            # 7-11 (measured) stretched past the suite's 120 s, one of them past 360 s.
            item.add_marker(pytest.mark.timeout(LONG_TIMEOUT))
    which = soak_slice()
    if which is None:
        return
    keep = in_slice([item.nodeid for item in items if item.get_closest_marker("slow")], which)
    kept = [item for item in items if item.nodeid in keep]
    config.hook.pytest_deselected(items=[item for item in items if item.nodeid not in keep])
    items[:] = kept
