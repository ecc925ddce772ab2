"""Round events between their JSON form and the rules core's: a table's log entry or a wire frame
back into a `rules.events` event, so that one `rules.view.reduce` follows a round on the server
and in every client.

Two readings of the same JSON (`Event.to_dict()`, plus the table's `table`, `seq`, … fields,
which are ignored here):

- `engine_event(d)`: an entry of the table's log, private fields included (`hands`, every drawn
  and 暗杠 tile): the full event;
- `seen_event(frame)`: a frame as one viewer got it (`rules.view.project`): `round_started`,
  `drew` and `concealed_gang` become the projected forms (`DealSeen`, `DrawSeen`,
  `ConcealedGangSeen`), the others the public events themselves.

Both accept a decoded dict or a `protocol.messages` model. Anything that is not a round event
gives None. `project_entry` masks a log entry for one viewer (the server's frames and the offline
client's); `snapshot_view` reads a snapshot's round as a `SeatView`.

>>> seen_event({"type": "drew", "table": "1", "seq": 4, "seat": 2, "tile": None,
...             "replacement": False, "wall_left": 50})
DrawSeen(seat=2, tile=None, replacement=False, wall_left=50)
>>> engine_event({"type": "discarded", "seat": 0, "tile": "9m", "declared": False, "hot": False})
Discarded(seat=0, tile=8, declared=False, hot=False)
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from pydantic import BaseModel

from rules.events import (
    AddedGang,
    AddGangDeclared,
    Claimed,
    ConcealedGang,
    Discarded,
    Drew,
    Event,
    Exhausted,
    Flipped,
    Revealed,
    RoundEnded,
    RoundStarted,
    Won,
)
from rules.kinds import BonusKind, PatternKind
from rules.options import RuleOptions
from rules.patterns import Meld
from rules.replay_form import WHY_WORDS
from rules.round import DiscardRecord, Phase
from rules.tiles import NUM_KINDS, parse_tile, tile_name
from rules.view import (
    PRIVATE_TYPES,
    ConcealedGangSeen,
    DealSeen,
    DrawSeen,
    MeldSeen,
    SeatView,
    project,
)

Source = Mapping[str, Any] | BaseModel


def engine_event(d: Source) -> Event | None:
    """The full rules event of a log entry (private fields included)."""
    return _event(d, seen=False)


def seen_event(frame: Source) -> Event | None:
    """The projected rules event of a frame one viewer was sent."""
    return _event(frame, seen=True)


class LoggedEntry(dict[str, Any]):
    """A log entry as a live table keeps it: the dict it stores and sends, with the rules event
    it was written from beside it (`event`), so that each viewer's frame is projected from the
    value, never from the dict read back. Only private events need it (a public one is sent as
    its dict); an entry read from the store is parsed once (`read`).

    >>> from rules.events import Drew
    >>> e = LoggedEntry.of({"type": "drew", "seat": 1, "tile": "5p", "replacement": False,
    ...                     "wall_left": 50}, Drew(1, 13, False, 50))
    >>> project_entry(e, 2)["tile"], project_entry(e, 1)["tile"], e == dict(e)
    (None, '5p', True)
    """

    __slots__ = ("event",)
    event: Event

    @classmethod
    def of(cls, d: dict[str, Any], event: Event) -> dict[str, Any]:
        """`d` (the event's dict, the table's fields to come) kept with `event` if private."""
        if d["type"] not in PRIVATE_TYPES:
            return d
        entry = cls(d)
        entry.event = event
        return entry

    @classmethod
    def read(cls, d: dict[str, Any]) -> dict[str, Any]:
        """A stored entry kept with its event, parsed from the dict once (if private)."""
        if d["type"] not in PRIVATE_TYPES:
            return d
        event = engine_event(d)
        assert event is not None, f"not a round event: {d['type']}"
        return cls.of(d, event)


def project_entry(entry: dict[str, Any], viewer: int | None) -> dict[str, Any]:
    """A log entry (a full event's JSON with the table's fields) as `viewer` gets it: the JSON of
    `rules.view.project` of its event, the table's own fields (`table`, `seq`, `round_no`, …)
    kept. A public event comes back as the very same dict. A `LoggedEntry` is projected from
    the event it holds; a plain dict is read into its event first."""
    if entry["type"] not in PRIVATE_TYPES:
        return entry
    if isinstance(entry, LoggedEntry):
        full: Event | None = entry.event
    # An entry is projected for several viewers in a row: it is read once (the one-entry cache
    # holds the entry itself, so an entry that is gone is never mistaken for a new one).
    elif _last[0] is entry:
        full = _last[1]
    else:
        full = engine_event(entry)
        _last[:] = [entry, full]
    assert full is not None, f"not a round event: {entry['type']}"
    seen = project(full, viewer)
    assert seen is not None, "every viewer gets every round event"
    frame = {k: v for k, v in entry.items() if k != "hands"}
    if isinstance(seen, DrawSeen | ConcealedGangSeen):
        frame["tile"] = None if seen.tile is None else NAMES[seen.tile]
    elif isinstance(seen, DealSeen):
        frame["hand"] = None if seen.hand is None else [NAMES[k] for k in seen.hand]
        frame["hand_sizes"] = list(seen.hand_sizes)
    else:
        frame.update(seen.to_dict())
    return frame


_last: list[Any] = [None, None]
NAMES = tuple(tile_name(k) for k in range(NUM_KINDS))

_PATTERNS = {k.value: k for k in PatternKind}
_BONUSES = {k.value: k for k in BonusKind}
_PATTERN_OF_ZH = {k.zh: k.value for k in PatternKind}
_BONUS_OF_ZH = {k.zh: k.value for k in BonusKind}


def upgrade_entry(entry: dict[str, Any]) -> dict[str, Any]:
    """A stored log entry in the form of protocol version 3, whatever version wrote it: before
    version 3 a `won` named its pattern and bonuses by their Chinese names, and a settlement had
    `winners` (those names again) beside `wins`. Anything else, and an entry already in the new
    form, comes back as it is (the same dict).

    >>> upgrade_entry({"type": "won", "pattern": "大对子", "bonuses": ["自摸"], "seat": 1})
    {'type': 'won', 'pattern': 'daduizi', 'bonuses': ['zimo'], 'seat': 1}
    >>> upgrade_entry({"type": "round_ended", "result": {"outcome": "draw", "winners": [],
    ...                "wins": []}})
    {'type': 'round_ended', 'result': {'outcome': 'draw', 'wins': []}}
    """
    kind = entry.get("type")
    if kind == "won" and entry.get("pattern") in _PATTERN_OF_ZH:
        return {
            **entry,
            "pattern": _PATTERN_OF_ZH[entry["pattern"]],
            "bonuses": [_BONUS_OF_ZH.get(b, b) for b in entry.get("bonuses") or []],
        }
    if kind == "round_ended" and isinstance(entry.get("result"), dict):
        result = _upgraded_result(entry["result"])
        if result is not entry["result"]:
            return {**entry, "result": result}
    return entry


def _upgraded_result(result: dict[str, Any]) -> dict[str, Any]:
    """A settlement without the words of version 2: `winners` (a settlement from before `wins`,
    schema version 0, keeps it: that is all it says of its winners), a payment's `detail`, a
    chicken line's `tag`, and a 豆's `why` in words."""
    if not any(k in result for k in ("winners", "payments", "chickens", "dou")):
        return result
    out = dict(result)
    if "wins" in out:
        out.pop("winners", None)
    if isinstance(out.get("payments"), list):
        out["payments"] = [_without(p, "detail") for p in out["payments"]]
    if isinstance(out.get("chickens"), list):
        out["chickens"] = [
            {**t, "lines": [_without(ln, "tag") for ln in t.get("lines") or []]}
            for t in out["chickens"]
        ]
    if isinstance(out.get("dou"), list):
        out["dou"] = [
            {**g, "why": _WHY_OF_WORDS[g["why"]]} if g.get("why") in _WHY_OF_WORDS else g
            for g in out["dou"]
        ]
    return out if out != result else result


def _without(d: dict[str, Any], key: str) -> dict[str, Any]:
    return {k: v for k, v in d.items() if k != key} if key in d else d


_WHY_OF_WORDS = {words: why for why, words in WHY_WORDS.items()}


def _tile(name: str | None) -> int | None:
    return None if name is None else parse_tile(name)


def _tiles(names: Any) -> tuple[int, ...]:
    return tuple(parse_tile(n) for n in names)


def _event(d: Source, *, seen: bool) -> Event | None:
    get = _getter(d)
    kind = get("type")
    if kind == "round_started":
        if seen:
            hand = get("hand")
            return DealSeen(
                get("dealer"),
                get("streak"),
                get("wall_left"),
                None if hand is None else _tiles(hand),
                tuple(get("hand_sizes")),
                _optional(d, "weekday"),
            )
        hands = tuple(_tiles(h) for h in get("hands"))
        return RoundStarted(
            get("dealer"), get("streak"), hands, get("wall_left"), _optional(d, "weekday")
        )
    if kind == "drew":
        tile = _tile(get("tile"))
        if seen or tile is None:
            return DrawSeen(get("seat"), tile, get("replacement"), get("wall_left"))
        return Drew(get("seat"), tile, get("replacement"), get("wall_left"))
    if kind == "concealed_gang":
        tile = _tile(get("tile"))
        if seen or tile is None:
            return ConcealedGangSeen(get("seat"), tile, get("dou"))
        return ConcealedGang(get("seat"), tile, get("dou"))
    if kind == "discarded":
        return Discarded(get("seat"), parse_tile(get("tile")), get("declared"), get("hot"))
    if kind == "claimed":
        return Claimed(get("seat"), get("act"), parse_tile(get("tile")), get("from_seat"))
    if kind == "add_gang_declared":
        return AddGangDeclared(get("seat"), parse_tile(get("tile")))
    if kind == "added_gang":
        return AddedGang(get("seat"), parse_tile(get("tile")), get("dou"))
    if kind == "won":
        return Won(
            get("seat"),
            get("how"),
            _tile(get("tile")),
            get("from_seat"),
            _PATTERNS[get("pattern")],
            tuple(_BONUSES[b] for b in get("bonuses")),
            get("void"),
            _tiles(get("hand")),
        )
    if kind == "exhausted":
        return Exhausted()
    if kind == "flipped":
        return Flipped(parse_tile(get("tile")))
    if kind == "round_ended":
        return _round_ended(get("result"))
    return None


def _round_ended(result: Any) -> RoundEnded:
    """The typed end of a round from its `result` (a decoded dict, as the frame keeps it)."""
    melds = tuple(
        tuple(Meld(m["kind"], parse_tile(m["tile"]), m["from"], m["dou"]) for m in row)
        for row in result["melds"]
    )
    hands = tuple(_tiles(h) for h in result["hands"])
    return RoundEnded(tuple(result["net"]), Revealed(hands, melds))


def snapshot_view(rv: Source, viewer: int | None, opts: RuleOptions) -> SeatView:
    """The `rules.view.SeatView` of a snapshot's round (`RoundView`, dict or model).

    A snapshot says less than the events did: whether the latest discard was a 热炮, the latest
    gang of the turn, the viewer's claims in an open window (its prompt says them), whether it
    passed a win, and an ended round's wins are not in it and keep their defaults. A fresh 碰 is
    read from the hand: on turn, nothing drawn, the last meld a 碰 and the hand one tile over."""
    get = _getter(rv)
    hand: tuple[int, ...] | None = None
    if get("hand") is not None and viewer is not None:
        counts = [0] * NUM_KINDS
        for k in _tiles(get("hand")):
            counts[k] += 1
        hand = tuple(counts)
    melds = tuple(
        tuple(
            MeldSeen(_m(m, "kind"), _tile(_m(m, "tile")), _m(m, "from_seat"), _m(m, "dou"))
            for m in row
        )
        for row in get("melds")
    )
    discards = tuple(
        tuple(
            DiscardRecord(parse_tile(_m(d, "tile")), _m(d, "claimed"), _m(d, "declared"))
            for d in row
        )
        for row in get("discards")
    )
    phase = Phase(get("phase"))
    drawn = _tile(get("drawn"))
    after_pong = False
    if viewer is not None and hand is not None and phase is Phase.TURN and get("turn") == viewer:
        mine = melds[viewer]
        after_pong = (
            drawn is None
            and bool(mine)
            and mine[-1].kind == "pong"
            and sum(hand) + 3 * len(mine) == 14
        )
    return SeatView(
        viewer=viewer,
        opts=opts,
        dealer=get("dealer"),
        streak=get("streak"),
        phase=phase,
        turn=get("turn"),
        wall_left=get("wall_left"),
        hand=hand,
        drawn=drawn,
        hand_sizes=tuple(get("hand_sizes")),
        melds=melds,
        discards=discards,
        declared=tuple(get("declared")),
        claim_tile=_tile(get("claim_tile")),
        claim_from=get("claim_from"),
        after_pong=after_pong,
        weekday=_optional(rv, "weekday"),
    )


def _getter(d: Source) -> Callable[[str], Any]:
    if isinstance(d, BaseModel):
        return d.__getattribute__
    return d.__getitem__


def _optional(d: Source, name: str) -> Any:
    """A field added later (a log entry or frame from before it has none): None when absent."""
    return getattr(d, name, None) if isinstance(d, BaseModel) else d.get(name)


def _m(d: Source, name: str) -> Any:
    return getattr(d, name) if isinstance(d, BaseModel) else d[name]
