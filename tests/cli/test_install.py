"""zhuoji as a tool: the wheel `python -m build` makes installs into a fresh virtualenv, with the
dependencies it declares, and its `zhuoji` command works there, away from the checkout.

The build runs on a copy of the files a build reads (pyproject.toml, README.md, the packages), so
it leaves nothing (build/, *.egg-info) in the checkout. The new virtualenv has no pip of its own
(that saves a few seconds): this process's pip installs into it (`pip --python`), from its cache
where it can. The whole test takes 20-40 s on an idle 2-core machine, mostly pip; it is marked
`slow` (which still runs by default) and given a longer timeout.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("rules", "protocol", "server", "client_tui", "clients", "zhuoji")
SCENARIO = "guiyang_03_pinghu_discard_with_mendou.json"
# The project's public scenarios, beside the checkout (tests/conftest.py); the same file is kept
# in tests/scenarios/ for a checkout without them.
SHARED = ROOT.parent / "shared" / "scenarios" / SCENARIO
LOCAL = ROOT / "tests" / "scenarios" / SCENARIO


def run(*cmd: str | Path, cwd: Path, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    done = subprocess.run(
        [str(c) for c in cmd], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout
    )
    assert done.returncode == 0, f"{cmd}: {done.stdout[-2000:]}{done.stderr[-4000:]}"
    return done


def package_files() -> set[str]:
    """What the wheel must hold of the packages: every module and data file under them."""
    files = set()
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*"):
            if path.is_file() and "__pycache__" not in path.parts and path.suffix != ".pyc":
                files.add(path.relative_to(ROOT).as_posix())
    return files


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_the_wheel_installs_into_a_fresh_venv_and_its_command_works(tmp_path: Path) -> None:
    version = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    src = tmp_path / "src"
    src.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, src / name)
    for package in PACKAGES:
        shutil.copytree(
            ROOT / package, src / package, ignore=shutil.ignore_patterns("__pycache__", "*.pyc")
        )

    dist = tmp_path / "dist"
    run(sys.executable, "-m", "build", "--wheel", "--outdir", dist, src, cwd=tmp_path)
    (wheel,) = dist.glob("zhuoji-*.whl")
    assert wheel.name == f"zhuoji-{version}-py3-none-any.whl"
    with zipfile.ZipFile(wheel) as z:
        names = set(z.namelist())
        entry_points = z.read(f"zhuoji-{version}.dist-info/entry_points.txt").decode()
    missing = package_files() - names
    assert not missing, f"not in the wheel: {sorted(missing)}"
    assert "protocol/schema.json" in names
    assert not [n for n in names if n.startswith("tests/")]
    assert "zhuoji = zhuoji.cli:main" in entry_points

    venv = tmp_path / "venv"
    run(sys.executable, "-m", "venv", "--without-pip", venv, cwd=tmp_path)
    python = venv / "bin" / "python"
    run(sys.executable, "-m", "pip", "--python", python, "install", "-q", wheel, cwd=tmp_path)
    zhuoji = venv / "bin" / "zhuoji"

    done = run(zhuoji, "--version", cwd=tmp_path)
    assert done.stdout.strip() == f"zhuoji {version}"
    where = run(
        python,
        "-c",
        "import zhuoji, server.metrics, prometheus_client, textual; print(zhuoji.__file__)",
        cwd=tmp_path,
    )
    assert Path(where.stdout.strip()).is_relative_to(venv), where.stdout  # not the checkout's

    scenario = SHARED if SHARED.exists() else LOCAL
    done = run(zhuoji, "replay", scenario, "--json", cwd=tmp_path)
    expected = json.loads(scenario.read_text(encoding="utf-8"))["expected"]
    out = json.loads(done.stdout)
    assert out["net"] == expected["net"] == [-2, 7, -2, -3]
    paid = [
        {k: p[k] for k in e} for p, e in zip(out["payments"], expected["payments"], strict=True)
    ]
    assert paid == expected["payments"]
    # The packaged schema is there and is the models' own.
    done = run(zhuoji, "schema", "--check", cwd=tmp_path)
    assert "is up to date" in done.stdout
