"""Events the round emits. Each is a small frozen record with a `type` holding values — seats,
tile kinds, the identifiers of `rules.kinds` — never display names; `to_dict()` gives the JSON
form (the table's log, and the wire's round events) with tiles in notation and identifiers as
their values. What each viewer may see of an event is `rules.view.project`; the fields that are
private are named in `PRIVATE_FIELDS`. (`zhuoji replay --json` writes its own, older form:
`rules.replay_form`.)
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from enum import StrEnum
from typing import TYPE_CHECKING, Any, ClassVar

from rules.kinds import BonusKind, PatternKind
from rules.tiles import tile_name

if TYPE_CHECKING:
    from rules.patterns import Meld
    from rules.settle import Settlement


def _jsonable(name: str, value: Any) -> Any:
    if isinstance(value, StrEnum):
        return value.value
    if value is None or isinstance(value, bool | str):
        return value
    if name in ("tile", "flip") and isinstance(value, int):
        return tile_name(value)
    if name in ("hand", "tiles") and isinstance(value, tuple):
        return [tile_name(k) for k in value]
    if name == "hands" and isinstance(value, tuple):
        return [[tile_name(k) for k in h] for h in value]
    if isinstance(value, tuple):
        return [_jsonable("", v) for v in value]
    return value


OMITTED_WHEN_NONE = frozenset({"weekday"})
"""Fields left out of `to_dict` when None: added after the JSON form was public (`zhuoji replay
--json`), so a round without them writes exactly what it did before."""


@dataclass(frozen=True, slots=True)
class Event:
    type: ClassVar[str] = "event"

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"type": self.type}
        for f in fields(self):
            value = getattr(self, f.name)
            if value is None and f.name in OMITTED_WHEN_NONE:
                continue
            d[f.name] = _jsonable(f.name, value)
        return d


@dataclass(frozen=True, slots=True)
class RoundStarted(Event):
    """The deal. `hands[seat]` is private to that seat; `wall_left` is the live wall's size;
    `weekday` (1 Monday … 7 Sunday) the day of the deal, when known (星期鸡, RULES.md §13.12)."""

    type: ClassVar[str] = "round_started"
    dealer: int
    streak: int
    hands: tuple[tuple[int, ...], ...]
    wall_left: int
    weekday: int | None = None


@dataclass(frozen=True, slots=True)
class Drew(Event):
    """A draw from the front, or a gang replacement from the back. `tile` is private."""

    type: ClassVar[str] = "drew"
    seat: int
    tile: int
    replacement: bool
    wall_left: int


@dataclass(frozen=True, slots=True)
class Discarded(Event):
    """A discard; `declared` when it comes with 报听/天听; `hot` when it is a 热炮."""

    type: ClassVar[str] = "discarded"
    seat: int
    tile: int
    declared: bool
    hot: bool


@dataclass(frozen=True, slots=True)
class Claimed(Event):
    """A 碰 or 明杠 (点豆) of `from_seat`'s discard."""

    type: ClassVar[str] = "claimed"
    seat: int
    act: str
    tile: int
    from_seat: int


@dataclass(frozen=True, slots=True)
class ConcealedGang(Event):
    """A 暗杠; `tile` is private until the round ends. `dou` is `men` or `hanbao`."""

    type: ClassVar[str] = "concealed_gang"
    seat: int
    tile: int
    dou: str


@dataclass(frozen=True, slots=True)
class AddGangDeclared(Event):
    """A 补杠 is declared; others may rob it (抢杠) before it happens."""

    type: ClassVar[str] = "add_gang_declared"
    seat: int
    tile: int


@dataclass(frozen=True, slots=True)
class AddedGang(Event):
    """The 补杠 happened (nobody robbed it). `dou` is `zhuanwan` or `hanbao`."""

    type: ClassVar[str] = "added_gang"
    seat: int
    tile: int
    dou: str


@dataclass(frozen=True, slots=True)
class Won(Event):
    """A win. `how` is `zimo`, `discard` or `rob`; `pattern` and `bonuses` (every situation of
    the win, RULES.md §12.23) are identifiers; `hand` is the concealed hand, revealed."""

    type: ClassVar[str] = "won"
    seat: int
    how: str
    tile: int | None
    from_seat: int | None
    pattern: PatternKind
    bonuses: tuple[BonusKind, ...]
    void: bool
    hand: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Exhausted(Event):
    """A draw was due and the live wall was empty: 荒庄."""

    type: ClassVar[str] = "exhausted"


@dataclass(frozen=True, slots=True)
class Flipped(Event):
    """The flip (翻牌) at the end of a round with a winner."""

    type: ClassVar[str] = "flipped"
    tile: int


@dataclass(frozen=True, slots=True)
class Revealed:
    """Every seat's concealed tiles (tile kinds, in order) and melds (暗杠 tiles included), shown
    to everyone once the round is over. A discard or 抢杠 winner's hand is without the winning
    tile (its `Won.hand` has it)."""

    hands: tuple[tuple[int, ...], ...]
    melds: tuple[tuple[Meld, ...], ...]

    def to_dict(self) -> dict[str, Any]:
        """The JSON form (`round_ended.result`'s `hands` and `melds`)."""
        return {
            "hands": [[tile_name(k) for k in h] for h in self.hands],
            "melds": [
                [
                    {"kind": m.kind, "tile": tile_name(m.tile), "from": m.from_seat, "dou": m.dou}
                    for m in row
                ]
                for row in self.melds
            ],
        }


@dataclass(frozen=True, slots=True)
class RoundEnded(Event):
    """The round's end: each seat's `net`, every hand and meld `revealed`, and the engine's
    `settlement` (None when the event was read back from its JSON, whose `result` holds it;
    not compared). A viewer's round follows `net` and `revealed` (`rules.view`)."""

    type: ClassVar[str] = "round_ended"
    net: tuple[int, ...]
    revealed: Revealed
    settlement: Settlement | None = field(default=None, compare=False)

    def to_dict(self) -> dict[str, Any]:
        """`{"type": "round_ended", "result": …}`: the settlement's JSON with `hands` and
        `melds` (`protocol.settlement.RoundResult`)."""
        assert self.settlement is not None, "an ended round read from JSON is not written again"
        return {
            "type": self.type,
            "result": {**self.settlement.to_dict(), **self.revealed.to_dict()},
        }


PRIVATE_FIELDS: dict[str, str] = {
    "round_started": "hands",
    "drew": "tile",
    "concealed_gang": "tile",
}
