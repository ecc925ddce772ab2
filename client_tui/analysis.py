"""What the client works out for its player with the shared rules core: the waits of a ready hand,
each with its pattern value, how many of it are still unseen, and whether it may be won on a
discard (通行证, RULES.md §4) or only by 自摸. It reads the seat's own view (`rules.view.SeatView`:
counts per tile kind), the way the bots do; tiles are kinds 0–26 (`rules.tiles.tile_name` words
them where they are drawn).

>>> from rules.options import GUIYANG
>>> from rules.tiles import parse_tiles, tile_name, to_counts
>>> hand = to_counts(parse_tiles("123456789m23s55p"))
>>> [(tile_name(w.tile), w.pattern, w.value, w.discard_ok)
...  for w in readiness(GUIYANG, hand, [], [4] * 27).waits]
[('1s', '平胡', 1, False), ('4s', '平胡', 1, False)]
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from client_tui.view import TableV, View
from rules.options import OptionsError, RuleOptions, make_options
from rules.patterns import Meld, best_pattern, has_pass, ready_waits
from rules.round import discard_claims
from rules.view import SeatView


@dataclass(frozen=True, slots=True)
class Wait:
    """A tile kind that completes the hand: its best pattern and value (no bonuses), how many
    copies the player has not seen (`left`), and whether a discard of it may be won on."""

    tile: int
    pattern: str
    value: int
    left: int
    discard_ok: bool


@dataclass(frozen=True, slots=True)
class Readiness:
    """A ready hand's waits; `has_pass` when the player holds a 豆 that is a 通行证."""

    waits: tuple[Wait, ...]
    has_pass: bool

    @property
    def zimo_only(self) -> bool:
        """Every wait is a 平胡 without a pass: the hand can win only by 自摸."""
        return bool(self.waits) and not any(w.discard_ok for w in self.waits)


def options_for(table: TableV | None) -> RuleOptions:
    """The table's rules as the rules core makes them (`make_options`: its preset with the
    overrides the server sent); guiyang when unknown. Only where no round is on: during a round
    the seat view's own options (`rules_for`) are the ones the round moves by."""
    if table is None:
        return make_options("guiyang")
    try:
        return make_options(table.preset, table.options_dict)
    except OptionsError:  # an option of a newer server: its preset, rather than no table at all
        return make_options(table.preset if table.preset in ("chuan", "anshun") else "guiyang")


def rules_for(view: View) -> RuleOptions:
    """The rules the viewer's round is played by: its seat view's (`rules.view.SeatView.opts`),
    else the table's (`options_for`)."""
    return view.round.opts if view.round is not None else options_for(view.table)


def unseen_counts(sv: SeatView) -> list[int]:
    """Per tile kind, how many copies the viewer has not seen: not in its hand, not in any meld
    it can see, not in any discard row (a claimed discard is counted once, in its meld)."""
    seen = sv.counts
    for row in sv.melds:
        for m in row:
            if m.tile is not None:
                seen[m.tile] += 3 if m.kind == "pong" else 4
    for discards in sv.discards:
        for d in discards:
            if not d.claimed:
                seen[d.tile] += 1
    return [max(0, 4 - n) for n in seen]


def readiness(
    opts: RuleOptions, hand: Sequence[int], melds: Sequence[Meld], unseen: Sequence[int]
) -> Readiness | None:
    """The waits of a hand of 13 tiles (`hand`: counts per kind; melds counting 3), or None when
    it is not ready.

    Everything is the rules core's, under the table's options: the waits (`ready_waits`, 地龙
    included where the table values it), the best pattern, and whether a discard of the wait may
    be won on (`discard_claims`: 通行证, anshun's passes; as on an ordinary discard, before any
    过水). A wait's value is its pattern's units, at most the table's 封顶 (`hand_cap`)."""
    if sum(hand) + 3 * len(melds) != 13:
        return None
    counts = list(hand)
    core = list(melds)
    meld_kinds = [m.tile for m in core]
    passed = has_pass(opts, core)
    waits: list[Wait] = []
    for k in ready_waits(counts, core, opts):
        counts[k] += 1
        found = best_pattern(opts, counts, meld_kinds, core)
        counts[k] -= 1
        if found is None:
            continue
        pattern, value = found
        if opts.hand_cap is not None:
            value = min(value, opts.hand_cap)
        claims = discard_claims(
            opts,
            counts,
            core,
            k,
            wins=True,
            declared=True,  # only whether it may 胡: no 碰/杠 asked
            passed=False,
            wall_left=1,
            hot=False,
            after_diandou=False,
            from_declared=False,
        )
        waits.append(Wait(k, pattern.value, value, unseen[k], "hu" in claims))
    if not waits:
        return None
    return Readiness(tuple(waits), passed)


def waits_now(sv: SeatView) -> Readiness | None:
    """The viewer's waits as the hand stands (13 tiles: not in the middle of a turn)."""
    if sv.hand is None:
        return None
    return readiness(sv.opts, sv.hand, sv.own_melds, unseen_counts(sv))


def waits_after(sv: SeatView, tile: int) -> Readiness | None:
    """The waits the viewer would have after discarding `tile` (a kind; 14 tiles, on turn)."""
    if sv.hand is None or not sv.hand[tile]:
        return None
    hand = list(sv.hand)
    hand[tile] -= 1
    return readiness(sv.opts, hand, sv.own_melds, unseen_counts(sv))


def ready_discards(sv: SeatView) -> frozenset[int]:
    """The tile kinds whose discard leaves the viewer's 14-tile hand ready."""
    if sv.hand is None or sv.viewer is None or sum(sv.hand) + 3 * len(sv.melds[sv.viewer]) != 14:
        return frozenset()
    return frozenset(k for k, n in enumerate(sv.hand) if n and waits_after(sv, k) is not None)
