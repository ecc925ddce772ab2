"""The rules core emits values, never words (issue 21): a `won` names its pattern and bonuses by
the identifiers of rules/kinds.py, a round's end holds the nets and the revealed hands and melds
as tile kinds; the words are the client's. Checked on every event of every deal script."""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path
from typing import Any

import pytest

from rules.events import Revealed, RoundEnded, Won
from rules.kinds import BonusKind, PatternKind
from rules.patterns import Meld
from rules.script import ScriptError, run_script

TESTS = Path(__file__).resolve().parents[1]
SCRIPTS = sorted((TESTS / "scripts").glob("*.json")) + sorted((TESTS / "scenarios").glob("*.json"))
HAN = re.compile(r"[\u4e00-\u9fff]")


def _strings(value: Any) -> list[str]:
    """Every string in an event's own fields (the engine's `settlement`, which keeps its notes
    for the replay, left out)."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return [
            s
            for f in dataclasses.fields(value)
            if f.name != "settlement"
            for s in _strings(getattr(value, f.name))
        ]
    if isinstance(value, tuple | list):
        return [s for v in value for s in _strings(v)]
    return [value] if isinstance(value, str) else []


@pytest.mark.parametrize("path", SCRIPTS, ids=lambda p: p.stem)
def test_every_event_holds_values_not_words(path: Path) -> None:
    try:
        r = run_script(json.loads(path.read_text(encoding="utf-8")))
    except ScriptError:
        pytest.skip("a script that is refused")
    assert [s for e in r.events for s in _strings(e) if HAN.search(s)] == []
    for e in r.events:
        if isinstance(e, Won):
            assert type(e.pattern) is PatternKind
            assert all(type(b) is BonusKind for b in e.bonuses)
    end = r.events[-1]
    assert isinstance(end, RoundEnded) and isinstance(end.revealed, Revealed)
    assert end.settlement is r.result and end.net == tuple(r.result.net)
    assert all(isinstance(k, int) for h in end.revealed.hands for k in h)
    assert all(isinstance(m, Meld) for row in end.revealed.melds for m in row)
    # The revealed hands are the round's final concealed tiles.
    counts = [[0] * 27 for _ in range(4)]
    for seat, hand in enumerate(end.revealed.hands):
        for k in hand:
            counts[seat][k] += 1
    assert [tuple(c) for c in counts] == [tuple(h) for h in r.hands]
