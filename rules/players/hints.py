"""Hints: the strong bot's best moves for one seat, each with its value and one reason.

`top_moves(view, n, seed)` ranks the seat's legal moves by `rules.players.bot_strong.appraise` (the
values the strong bot compares, on samples of the seat's own future draws from the tiles it has
not seen) and gives each a reason as data: a `reason` identifier and its `params` (tiles in
notation, chances in whole percent), which the client words in its own language. It reads the
seat's `SeatView` alone, so a hint tells a player nothing their own view does not hold.

    reason            params                    says
    win               pattern                   win now (the pattern's Chinese name)
    ready_waits       waits, live, win          ready on `waits` kinds, `live` copies unseen
    declare           waits, live, win          报听 with this discard
    releases_chicken  tile, ready               lets a known chicken go (standing, 星期鸡)
    keeps_chicken     tile, ready               keeps a known chicken
    ready_chance      ready                     the chance of getting ready
    gang              ready                     a 豆 and a 通行证
    pong              ready                     碰 and discard
    pass              ready                     pass and keep the hand

Every discard (and 报听) hint also carries `danger`, how likely the tile is won on by another
seat from what this seat sees (`rules.players.danger`): `safe` (under 2 %), `low` (under 5 %),
`some` (under 10 %) or `high`; and `declared` 1 when a seat that declared 报听/天听 may be
waiting on it (0 otherwise).

>>> from rules.view import view_of
>>> from rules.round import Round
>>> from rules.options import make_options
>>> r = Round.deal(make_options("guiyang"), seed=3)
>>> hints = top_moves(view_of(r, r.turn), n=3, seed=1)
>>> len(hints), hints[0].value >= hints[-1].value, hints[0].reason in REASONS
(3, True, True)
"""

from __future__ import annotations

from dataclasses import dataclass, field

from rules.actions import Action
from rules.chickens import known_chickens
from rules.hand import wait_mask
from rules.patterns import best_pattern
from rules.players.bot_strong import Appraisal, appraise
from rules.players.danger import danger, unseen_counts
from rules.players.shanten import best_discards
from rules.tiles import NUM_KINDS, tile_name
from rules.view import SeatView

REASONS = (
    "win",
    "ready_waits",
    "declare",
    "releases_chicken",
    "keeps_chicken",
    "ready_chance",
    "gang",
    "pong",
    "pass",
)


@dataclass(frozen=True)
class Hint:
    """One suggested move: the `action`, its estimated `value` (units, as the bot compares
    moves: only the differences between hints mean much) and why, as `reason` with `params`."""

    action: Action
    value: float
    reason: str
    params: dict[str, int | str] = field(default_factory=dict, hash=False)


def top_moves(v: SeatView, n: int = 3, seed: int | str = 0) -> list[Hint]:
    """The seat's `n` best legal moves by the strong bot's estimate, best first (fewer when it
    has fewer; none when it has nothing to do). Deterministic from `seed`."""
    return [_hint(v, a) for a in appraise(v, seed)[:n]]


def _pct(x: float) -> int:
    return max(0, min(100, round(100 * x)))


def danger_of(v: SeatView, tile: int) -> dict[str, int | str]:
    """The `danger` and `declared` params of discarding `tile` (see the module docstring)."""
    d = danger(v, tile)
    return {"danger": d.word, "declared": int(d.declared)}


def _hint(v: SeatView, a: Appraisal) -> Hint:
    h = _reason(v, a)
    if h.action.act in ("discard", "ready") and h.action.tile is not None:
        return Hint(h.action, h.value, h.reason, {**h.params, **danger_of(v, h.action.tile)})
    return h


def _reason(v: SeatView, a: Appraisal) -> Hint:
    act = a.action
    value = round(a.value, 1)
    ready: dict[str, int | str] = {"ready": _pct(a.ready)}
    if act.act == "hu":
        return Hint(act, value, "win", {"pattern": _pattern(v)})
    if act.act in ("gang", "pong", "pass"):
        return Hint(act, value, act.act, ready)
    assert act.tile is not None and v.hand is not None
    after = list(v.hand)
    after[act.tile] -= 1
    waits = wait_mask(after, len(v.own_melds))
    if waits:
        unseen = unseen_counts(v)
        kinds = [k for k in range(NUM_KINDS) if waits >> k & 1]
        params: dict[str, int | str] = {
            "waits": len(kinds),
            "live": sum(unseen[k] for k in kinds),
            "win": _pct(a.win),
        }
        return Hint(act, value, "declare" if act.act == "ready" else "ready_waits", params)
    chickens = known_chickens(v.opts, v.weekday)
    if act.tile in chickens:
        return Hint(act, value, "releases_chicken", {"tile": tile_name(act.tile), **ready})
    # A chicken the hand could spare as well as this tile (no further from ready) is kept.
    spare = best_discards(list(v.hand), len(v.own_melds))[1]
    kept = [k for k in sorted(chickens) if after[k] and k in spare]
    if kept:
        return Hint(act, value, "keeps_chicken", {"tile": tile_name(kept[0]), **ready})
    return Hint(act, value, "ready_chance", ready)


def _pattern(v: SeatView) -> str:
    """The pattern a win now would be (its Chinese name)."""
    assert v.hand is not None
    counts = list(v.hand)
    if not v.on_turn and v.claim_tile is not None:
        counts[v.claim_tile] += 1
    melds = v.own_melds
    found = best_pattern(v.opts, counts, [m.tile for m in melds], melds)
    return "" if found is None else found[0].value
