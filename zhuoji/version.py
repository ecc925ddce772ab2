"""zhuoji's version: the installed distribution's, else the checkout's pyproject.toml."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pathlib import Path

UNKNOWN = "0+unknown"


def version() -> str:
    """The version in the installed package's metadata (`pip`, `pipx`, `uv tool`, an editable
    install); run from a checkout that is not installed (`PYTHONPATH=. python -m zhuoji`), the
    version its pyproject.toml names; failing both, "0+unknown"."""
    from importlib import metadata  # here, not at the top: only `--version` pays for it

    try:
        return metadata.version("zhuoji")
    except metadata.PackageNotFoundError:
        pass
    from pathlib import Path

    return _from_pyproject(Path(__file__).resolve().parent.parent / "pyproject.toml") or UNKNOWN


def _from_pyproject(path: Path) -> str | None:
    import tomllib

    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return None
    project = data.get("project")
    if not isinstance(project, dict) or project.get("name") != "zhuoji":
        return None
    value = project.get("version")
    return value if isinstance(value, str) else None
