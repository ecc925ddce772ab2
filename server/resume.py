"""Rebuilding a stored round through the rules engine, and checking it against what was stored.

A round is stored as its deal (seed, hands, wall), its fair-deal commitment, every action played
(in order) and every event sent. `rebuild_round` deals it again from the seed, checks that
this is the stored deal and that the commitment opens to it, plays the actions through the engine and checks that the events it gives are
the stored ones. A restarted server resumes a table from the rebuilt round (`Table.restore`);
`zhuoji verify` runs the same checks over finished rounds.

>>> engine_view({"type": "drew", "table": "1", "seq": 9, "seat": 0, "tile": "5p",
...              "replacement": False, "wall_left": 50})
{'type': 'drew', 'seat': 0, 'tile': '5p', 'replacement': False, 'wall_left': 50}
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from protocol.messages import ROUND_EVENT_TYPES
from rules.actions import Action, IllegalAction
from rules.fairdeal import verify
from rules.options import RuleOptions
from rules.round import DealError, Phase, Round
from rules.tiles import TileParseError, parse_tile
from server.storage.stored import StoredRound

# What the table adds to an engine event (its number, the round's context, the fair deal).
TABLE_FIELDS = frozenset({"table", "seq", "round_no", "base", "scores", "commitment", "deal"})
# What a settlement says in words for people (a payment's readable `detail`, a chicken line's
# `tag`, why a 豆 scores nothing): its wording changes between versions, what the rules decided
# does not. A round is checked on its decisions (`decisions`).
WORDING = frozenset({"detail", "tag", "why"})


def decisions(event: dict[str, Any]) -> Any:
    """What the rules decided in an engine event, without its wording: a stored round whose
    settlement was worded by an older zhuoji compares equal to its replay. A round's end is
    its outcome, its winners (seats), every payment (payer, payee, amount, in order) and the
    deal passing; any other event is compared whole but for wording."""
    if event.get("type") == "round_ended" and isinstance(event.get("result"), dict):
        result = event["result"]
        return {
            "type": "round_ended",
            "outcome": result.get("outcome"),
            # The winners' seats: `wins` since it was added, `winners` in a settlement from
            # before it (schema version 0; protocol version 3 has no `winners`).
            "winners": [w.get("seat") for w in result.get("wins", result.get("winners")) or []],
            "payments": [
                (p.get("from"), p.get("to"), p.get("amount")) for p in result.get("payments") or []
            ],
            "next": (result.get("next_dealer"), result.get("next_streak")),
        }
    return _unworded(event)


def _unworded(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _unworded(v) for k, v in value.items() if k not in WORDING}
    if isinstance(value, list):
        return [_unworded(v) for v in value]
    return value


def _first_difference(want: Any, got: Any, where: str = "") -> str:
    """Where two decoded values first differ (`.result.payments[3]`), for the message."""
    if isinstance(want, dict) and isinstance(got, dict):
        for k in list(want) + [k for k in got if k not in want]:
            if want.get(k) != got.get(k):
                return _first_difference(want.get(k), got.get(k), f"{where}.{k}")
    if isinstance(want, list | tuple) and isinstance(got, list | tuple) and len(want) == len(got):
        for i, (a, b) in enumerate(zip(want, got, strict=True)):
            if a != b:
                return _first_difference(a, b, f"{where}[{i}]")
    return f"{where or 'the event'}: stored {want!r:.80}, rebuilt {got!r:.80}"


class RebuildError(Exception):
    """A stored round that does not rebuild to what was stored; the message says where."""


def engine_view(event: dict[str, Any]) -> dict[str, Any]:
    """A stored round event without the fields the table added: the engine's `to_dict()`."""
    return {k: v for k, v in event.items() if k not in TABLE_FIELDS}


def engine_events(events: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """The engine's events among a round's stored events (not `auto_played`, `seat_status`,
    `table`), as the engine gave them."""
    return [engine_view(e) for e in events if e["type"] in ROUND_EVENT_TYPES]


def _tiles(names: Sequence[str], what: str) -> list[int]:
    try:
        return [parse_tile(n) for n in names]
    except (TileParseError, TypeError) as err:
        raise RebuildError(f"{what}: {err}") from None


def rebuild_round(
    opts: RuleOptions,
    stored: StoredRound,
    actions: Sequence[tuple[int, str, str | None, str]],
    events: Sequence[dict[str, Any]],
) -> Round:
    """The round as it stood after its last stored action; raises RebuildError if the deal is
    not the one its seed gives, the commitment does not open to it, an action is refused, or the
    events differ from the stored ones (`events`: the round's stored events, any order of types).
    """
    try:
        seed = int(stored.seed)
    except ValueError:
        raise RebuildError(f"round {stored.round_no}: a bad seed {stored.seed!r}") from None
    try:
        r = Round.deal(
            opts,
            seed=seed,
            dealer=stored.dealer,
            streak=stored.streak,
            base=stored.base,
            weekday=stored.weekday,  # 星期鸡 (§13.12): the day it was dealt, not today
        )
    except (DealError, TypeError, IndexError) as err:
        raise RebuildError(f"round {stored.round_no}: a bad deal: {err}") from None
    hands = [
        sorted(_tiles(h, f"round {stored.round_no} hand {i}")) for i, h in enumerate(stored.hands)
    ]
    wall = _tiles(stored.wall, f"round {stored.round_no} wall")
    dealt = [sorted(k for k in range(len(c)) for _ in range(c[k])) for c in r.hands]
    if dealt != hands or list(r.wall) != wall:
        raise RebuildError(
            f"round {stored.round_no}: the stored deal is not the one its seed gives"
        )
    if stored.commitment is not None and not verify(
        r.deal_order, stored.salt or "", stored.commitment
    ):
        raise RebuildError(f"round {stored.round_no}: the commitment does not open to the deal")
    logged = engine_events(events)
    # A table holds each claim window open for its minimum, whether or not anyone may claim
    # (`server.table.core`): a window nobody could claim in closes by the table's clock, not by
    # an action. It closed here if the stored events go on past it.
    r.hold_empty_windows = True

    def close_empty_window() -> None:
        if r.phase in (Phase.CLAIM, Phase.ROB) and not r.awaiting():
            if len(r.events) < len(logged):
                r.resolve_window()

    for i, (seat, act, tile, _phase) in enumerate(actions):
        close_empty_window()
        if r.phase is Phase.OVER:
            raise RebuildError(f"round {stored.round_no}: action {i} after the round was over")
        try:
            r.apply(Action.from_dict({"seat": seat, "act": act, "tile": tile}))
        except (IllegalAction, TileParseError, ValueError, TypeError) as err:
            raise RebuildError(
                f"round {stored.round_no}: action {i} ({seat} {act} {tile}) is refused: {err}"
            ) from None
    close_empty_window()
    rebuilt = [json.loads(json.dumps(e.to_dict())) for e in r.events]
    for k, (want, got) in enumerate(zip(logged, rebuilt, strict=False)):
        if want != got and decisions(want) != decisions(got):
            raise RebuildError(
                f"round {stored.round_no}: event {k} ({want['type']}) differs in what the rules"
                f" decided: {_first_difference(decisions(want), decisions(got))}"
            )
    if len(logged) != len(rebuilt):
        raise RebuildError(
            f"round {stored.round_no}: {len(logged)} events stored, {len(rebuilt)} rebuilt"
        )
    return r
