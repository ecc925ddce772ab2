"""Settlement reads a frozen record of the finished round, not the live round."""

from __future__ import annotations

import ast
import dataclasses
from pathlib import Path

import pytest

from rules import PRESETS, Phase, Round, settle
from rules.players import Bot


def _bot_round(preset: str, seed: int) -> Round:
    r = Round.deal(PRESETS[preset], seed=seed, dealer=seed % 4, streak=seed % 2)
    bot = Bot(seed)
    while r.phase is not Phase.OVER:
        seat = r.awaiting()[0]
        r.apply(bot.choose(r, seat))
    return r


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_a_record_settles_as_its_round_did(preset: str) -> None:
    for seed in range(12):
        r = _bot_round(preset, seed)
        assert r.record is not None and r.result is not None
        again = settle(r.record)
        assert again.to_dict() == r.result.to_dict()
        assert again.net == r.result.net


def test_the_record_is_frozen() -> None:
    r = _bot_round("guiyang", 3)
    assert r.record is not None
    with pytest.raises(dataclasses.FrozenInstanceError):
        r.record.flip = None  # type: ignore[misc]
    assert isinstance(r.record.hands, tuple) and isinstance(r.record.melds[0], tuple)


def _imports(module: str) -> set[str]:
    path = Path(__file__).parents[2] / "rules" / f"{module}.py"
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module}


@pytest.mark.parametrize("module", ["settle", "chickens", "record", "patterns", "options"])
def test_settlement_does_not_import_the_round_engine(module: str) -> None:
    """No cycle rules.round → settle → chickens → rules.round (not even inside a function)."""
    assert "rules.round" not in _imports(module)
