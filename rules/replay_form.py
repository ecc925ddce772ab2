"""The `zhuoji replay --json` object (RULES.md §9): a public interface whose form is frozen.

It is the form the wire had at protocol version 2: beside `wins` (identifiers) the settlement
has `winners`, and the `won` events name their pattern and bonuses, by their Chinese names; a
payment has its readable `detail`, a chicken line its `tag`, a 豆 the words of `why`.
Since version 3 the wire and the table's log carry identifiers only (`Event.to_dict()`); this
module writes the replay's older words from those identifiers (`rules.kinds`, `.zh`), so that a
reader of `--json` sees byte for byte what it did (tests/cli/test_replay_golden.py).

>>> from rules.script import run_script
>>> import json
>>> from pathlib import Path
>>> script = Path(__file__).parents[1] / "tests/scenarios/guiyang_07_diandou.json"
>>> r = run_script(json.loads(script.read_text(encoding="utf-8")))
>>> replay_json(r)["winners"], replay_json(r)["wins"][0]["pattern"]
([{'seat': 2, 'pattern': '平胡', 'bonuses': []}], 'pinghu')
"""

from __future__ import annotations

from typing import Any

from rules.events import Event, RoundEnded, Won
from rules.kinds import BonusKind, DouVoid, PatternKind
from rules.round import Round
from rules.settle import Settlement

WHY_WORDS = {
    DouVoid.HANBAO.value: "憨包豆 scores nothing",
    DouVoid.REPAO.value: "voided by 热炮",
    DouVoid.QUANSHAO.value: "全烧",
    DouVoid.NOT_READY.value: "holder not ready",
}
"""Why a 豆 scored nothing, as the replay (and the wire before version 3) words it."""
_PATTERN_ZH = {k.value: k.zh for k in PatternKind}
_BONUS_ZH = {k.value: k.zh for k in BonusKind}


def replay_json(r: Round) -> dict[str, Any]:
    """The public `zhuoji replay --json` object of a finished round: its settlement, then every
    event."""
    assert r.result is not None, "the round is not over"
    out = replay_result(r.result)
    out["events"] = replay_events(r)
    return out


def replay_events(r: Round) -> list[dict[str, Any]]:
    """The round's events in the replay's form."""
    return [replay_event(e) for e in r.events]


def replay_event(e: Event) -> dict[str, Any]:
    """One event in the replay's form: a `won` by Chinese names, a `round_ended` with
    `winners`; any other event as its JSON form."""
    if isinstance(e, Won):
        d = e.to_dict()
        d["pattern"] = e.pattern.zh
        d["bonuses"] = [b.zh for b in e.bonuses]
        return d
    if isinstance(e, RoundEnded):
        assert e.settlement is not None
        return {
            "type": e.type,
            "result": {**replay_result(e.settlement), **e.revealed.to_dict()},
        }
    return e.to_dict()


def replay_result(s: Settlement) -> dict[str, Any]:
    """The settlement in the replay's form: `winners` (by Chinese names; `void` only when
    true) after `outcome`, then the settlement's JSON with the engine's notes (`detail`,
    `tag`) and each 豆's `why` in its old words."""
    d = s.to_dict(notes=True)
    d["dou"] = [{**g, "why": WHY_WORDS.get(g["why"], g["why"])} for g in d["dou"]]
    return {"outcome": d.pop("outcome"), "winners": [_winner(w) for w in s.wins], **d}


def _winner(w: dict[str, Any]) -> dict[str, Any]:
    d: dict[str, Any] = {
        "seat": w["seat"],
        "pattern": _PATTERN_ZH[w["pattern"]],
        "bonuses": [_BONUS_ZH[b] for b in w["bonuses"]],
    }
    if w["void"]:
        d["void"] = True
    return d
