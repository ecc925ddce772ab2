"""What a command imports when it starts (issue 26): `zhuoji --version` and `zhuoji --help`
import none of the subcommands' modules, and a subcommand imports only what it uses. How fast
that is, is measured in benchmarks/startup.py, not here."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
# What no start of the command line needs: the Textual client, the server, the wire models, the
# websockets library and the hand tables.
HEAVY = ("textual", "client_tui", "server", "pydantic", "protocol", "websockets", "rules.hand")


# `python -m zhuoji ARGS`, printing the modules loaded when it exits (after a marker line).
PROBE = """
import atexit, runpy, sys
atexit.register(lambda: print("-- modules", *sorted(sys.modules), sep="\\n", file=sys.stderr))
sys.argv = ["zhuoji", *sys.argv[1:]]
runpy.run_module("zhuoji", run_name="__main__")
"""


def imported(*args: str) -> set[str]:
    """The modules loaded by `zhuoji ARGS` (run as `python -m zhuoji`), which must succeed."""
    done = subprocess.run(
        [sys.executable, "-c", PROBE, *args], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return set(done.stderr.split("-- modules\n", 1)[1].split())


def heavy(modules: set[str], *allowed: str) -> list[str]:
    """The modules of `HEAVY` (or inside them) imported, apart from `allowed`."""
    return sorted(
        m for m in modules for h in HEAVY if (m == h or m.startswith(h + ".")) and h not in allowed
    )


@pytest.mark.parametrize("flag", ["--version", "--help"])
def test_the_command_s_own_flags_import_no_subcommand(flag: str) -> None:
    modules = imported(flag)
    assert "zhuoji.cli" in modules
    assert not [m for m in modules if m.startswith("zhuoji.cmd_")]
    assert not [m for m in modules if m == "rules" or m.startswith("rules.")]
    assert not heavy(modules)


def test_a_subcommand_imports_its_own_module_only() -> None:
    modules = imported("replay", "--help")
    assert sorted(m for m in modules if m.startswith("zhuoji.cmd_")) == ["zhuoji.cmd_replay"]
    # a replay plays rules and prints text: no terminal app, no server, no network
    assert not heavy(modules, "rules.hand", "pydantic", "protocol", "client_tui")


def test_the_client_app_imports_the_records_screen_only_when_it_opens() -> None:
    """`zhuoji play` imports the client app before its table shows; the Records screen and
    textual-plotext's plots wait until the screen is first opened."""
    probe = "import sys, client_tui.app; print(sorted(m for m in sys.modules if 'plotext' in m"
    probe += " or m == 'client_tui.screens.records'))"
    done = subprocess.run(
        [sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "[]"
