"""The worked deal scripts (RULES.md §9) replay to their expected payments, exactly."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from rules.script import ScriptError, replay_json, run_script

HERE = Path(__file__).parents[1] / "scenarios"
SCRIPTS = sorted(HERE.glob("*.json"))


def _key(p: dict[str, Any]) -> tuple[int, int, str, int]:
    return (p["from"], p["to"], p["item"], p["amount"])


@pytest.mark.parametrize("path", SCRIPTS, ids=[p.stem for p in SCRIPTS])
def test_scenario(path: Path) -> None:
    data = json.loads(path.read_text(encoding="utf-8"))
    expected = data["expected"]
    if "error" in expected:
        with pytest.raises(ScriptError) as info:
            run_script(data)
        assert info.value.index == expected["error"]["index"]
        assert info.value.message == expected["error"]["reason"]
        return
    out = replay_json(run_script(data))
    assert out["net"] == expected["net"]
    assert sum(out["net"]) == 0
    assert out["outcome"] == expected["outcome"]
    assert out["winners"] == expected["winners"]
    assert out["flip"] == expected["flip"]
    assert sorted(map(_key, out["payments"])) == sorted(map(_key, expected["payments"]))
    assert out["next_dealer"] == expected["next_dealer"]
    assert out["next_streak"] == expected["next_streak"]


def test_at_least_the_shared_scenarios_are_here() -> None:
    assert len(SCRIPTS) >= 12


SHARED = [
    p
    for p in SCRIPTS
    if p.stem.startswith(("guiyang_0", "guiyang_1"))
    and "error" not in json.loads(p.read_text(encoding="utf-8"))["expected"]
]


@pytest.mark.parametrize("path", SHARED, ids=[p.stem for p in SHARED])
def test_the_worked_scripts_payments_are_exact_to_the_line(path: Path) -> None:
    """The twelve worked scripts of ../shared/scenarios (copied here): every payment as they
    write it, its readable `detail` line included, in their order."""
    data = json.loads(path.read_text(encoding="utf-8"))
    out = replay_json(run_script(data))
    fields = ("from", "to", "item", "amount", "detail")
    assert [{k: p[k] for k in fields} for p in out["payments"]] == data["expected"]["payments"]
