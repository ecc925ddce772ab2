"""One seat's view of a round: what a seat (or a spectator) may know, built once for everyone.

A `SeatView` is immutable. Three pure functions make and move it, and every part of the project
that follows a round for one viewer uses them (the bot policy, the server's projection and
snapshots, the protocol bot and tracker, the terminal client):

- `view_of(round, viewer)`: the view built from the round itself;
- `project(event, viewer)`: what of one rules event that viewer may receive (`None`: nothing);
- `reduce(view, event)`: the view after a projected event.

The invariant that ties them (tests/test_view_invariants.py): after every step of a round,
reducing the projected events from the deal on gives exactly `view_of(round, viewer)`, for each
seat and a spectator. And `legal_actions_for(view)` is `rules.round.legal_actions(round, seat)`
for a seat that must answer, computed by the engine's own legality functions over the view.

What a viewer may know: its own concealed hand and drawn tile; the size of every hand; every meld
(a 暗杠's tile only its holder's until the round is over); every discard with its claimed and
declared marks; the turn, the phase, the tile in a claim or 抢杠 window and whose it is; the live
wall's size; who declared; and, once the round is over, the wins, the flip, every hand and 暗杠
and each seat's net. Its own claims in a window, and whether it passed a win since its last draw
(过水, 包牌), it works out itself from that.

>>> from rules.options import GUIYANG
>>> from rules.round import Round
>>> r = Round.deal(GUIYANG, seed=1)
>>> v = start(GUIYANG, 2, project(r.events[0], 2))
>>> v == view_of(r, 2), sum(v.hand or ()), v.hand_sizes
(True, 13, (14, 13, 13, 13))
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any, ClassVar, NamedTuple

from rules.actions import Action
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
    RoundEnded,
    RoundStarted,
    Won,
)
from rules.legality import discard_claims, rob_claims, seat_wait_mask, turn_actions
from rules.options import RuleOptions
from rules.patterns import DouKind, Meld, MeldKind
from rules.round import DiscardRecord, Phase, Round, won_event
from rules.tiles import NUM_KINDS, to_counts

Viewer = int | None
"""A seat 0–3, or None for a spectator."""

PRIVATE_TYPES = frozenset({"round_started", "drew", "concealed_gang"})
"""The event types whose projection differs between viewers; every other event is public."""


# ----- projected events: the private events as one viewer receives them -----


@dataclass(frozen=True, slots=True)
class DealSeen(Event):
    """The deal as one viewer gets it: its own hand (kinds, sorted; None for a spectator), the
    size of every hand, and the day of the deal (public: it makes the 星期鸡)."""

    type: ClassVar[str] = "round_started"
    dealer: int
    streak: int
    wall_left: int
    hand: tuple[int, ...] | None
    hand_sizes: tuple[int, ...]
    weekday: int | None = None


@dataclass(frozen=True, slots=True)
class DrawSeen(Event):
    """A draw as one viewer gets it: `tile` only for the drawer."""

    type: ClassVar[str] = "drew"
    seat: int
    tile: int | None
    replacement: bool
    wall_left: int


@dataclass(frozen=True, slots=True)
class ConcealedGangSeen(Event):
    """A 暗杠 as one viewer gets it: `tile` only for its holder."""

    type: ClassVar[str] = "concealed_gang"
    seat: int
    tile: int | None
    dou: str


def project(event: Event, viewer: Viewer) -> Event | None:
    """What `viewer` may receive of `event` (a full rules event, or one already projected for
    the same viewer). Public events come back as the very same object. Every rules event reaches
    every viewer today, masked or not; None is kept for events a viewer would not get at all."""
    if event.type not in PRIVATE_TYPES:
        return event
    if isinstance(event, RoundStarted):
        hand = event.hands[viewer] if viewer is not None else None
        sizes = tuple(len(h) for h in event.hands)
        return DealSeen(event.dealer, event.streak, event.wall_left, hand, sizes, event.weekday)
    if isinstance(event, Drew | DrawSeen):
        tile = event.tile if viewer == event.seat else None
        return DrawSeen(event.seat, tile, event.replacement, event.wall_left)
    if isinstance(event, ConcealedGang | ConcealedGangSeen):
        tile = event.tile if viewer == event.seat else None
        return ConcealedGangSeen(event.seat, tile, event.dou)
    return event


# ----- the view -----


class MeldSeen(NamedTuple):
    """A meld as a viewer sees it: `tile` None for another seat's 暗杠 while the round is on."""

    kind: MeldKind
    tile: int | None
    from_seat: int | None = None
    dou: DouKind | None = None


class SeatView(NamedTuple):
    """What `viewer` (a seat, or None for a spectator) knows of the round now.

    `hand` is the viewer's 27 counts (the drawn tile included; None for a spectator) and `drawn`
    the tile it just drew while the turn is its own. `claim_tile`/`claim_from` are set in a claim
    or 抢杠 window only. `hot`: the latest discard was a 热炮 (made after a gang's replacement
    draw); `turn_gang`: the kind of the latest gang of the current turn (a 点豆 before a discard
    takes 平胡 off it where the rules say so). `offered` is the viewer's claims in the open window
    (`hu`, `pong`, `gang`); `passed` whether it passed a win since its own last draw. Once the
    round is over: `wins`, `flip`, `exhausted`, `hands` (every seat's counts) and `net`.

    (A NamedTuple: immutable, and cheap to copy with a change, as `reduce` does on every event.)
    """

    viewer: Viewer
    opts: RuleOptions
    dealer: int
    streak: int
    phase: Phase
    turn: int
    wall_left: int
    hand: tuple[int, ...] | None
    drawn: int | None
    hand_sizes: tuple[int, ...]
    melds: tuple[tuple[MeldSeen, ...], ...]
    discards: tuple[tuple[DiscardRecord, ...], ...]
    declared: tuple[bool, ...]
    claim_tile: int | None = None
    claim_from: int | None = None
    hot: bool = False
    turn_gang: MeldKind | None = None
    after_pong: bool = False
    passed: bool = False
    offered: tuple[str, ...] = ()
    wins: tuple[Won, ...] = ()
    exhausted: bool = False
    flip: int | None = None
    hands: tuple[tuple[int, ...], ...] | None = None
    net: tuple[int, ...] | None = None
    weekday: int | None = None  # the day of the deal, 1 Monday … 7 Sunday (星期鸡, §13.12)

    # ----- what the policy and the legality read -----

    @property
    def on_turn(self) -> bool:
        """The viewer must act on its own turn."""
        return self.phase is Phase.TURN and self.viewer == self.turn

    @property
    def over(self) -> bool:
        return self.phase is Phase.OVER

    @property
    def any_claim(self) -> bool:
        """Whether any 碰 or gang has been made this round (a meld exists exactly then)."""
        return any(self.melds)

    def discard_count(self, seat: int) -> int:
        """How many tiles the seat has discarded (its row keeps the claimed ones too)."""
        return len(self.discards[seat])

    @property
    def counts(self) -> list[int]:
        """The viewer's hand as a fresh list of counts (all zero for a spectator)."""
        return list(self.hand) if self.hand is not None else [0] * NUM_KINDS

    @property
    def own_melds(self) -> list[Meld]:
        """The viewer's melds, every tile known (none for a spectator)."""
        if self.viewer is None:
            return []
        return [_meld(m) for m in self.melds[self.viewer]]


def _meld(m: MeldSeen) -> Meld:
    assert m.tile is not None, "a seat knows its own melds"
    return Meld(m.kind, m.tile, m.from_seat, m.dou)


def legal_actions_for(v: SeatView) -> list[Action]:
    """The viewer's legal moves, by the engine's own legality functions over what it knows:
    equal to `rules.round.legal_actions(round, seat)` whenever the engine awaits that seat."""
    seat = v.viewer
    if seat is None or v.hand is None or v.phase is Phase.OVER:
        return []
    if v.phase is Phase.TURN:
        if seat != v.turn:
            return []
        return turn_actions(
            v.opts,
            seat,
            v.hand,
            v.own_melds,
            drawn=v.drawn,
            after_pong=v.after_pong,
            declared=v.declared[seat],
            wall_left=v.wall_left,
            any_claim=v.any_claim,
            discards=v.discard_count(seat),
        )
    if not v.offered:
        return []
    return [Action(seat, act) for act in v.offered] + [Action(seat, "pass")]  # type: ignore[arg-type]


# ----- the view built from the round -----


def view_of(r: Round, viewer: Viewer) -> SeatView:
    """What `viewer` knows of round `r` now. (Made with `tuple.__new__`, in field order: a bot
    asks one per decision, and `SeatView(...)` would pass 26 arguments through a Python-level
    `__new__` first.)"""
    phase = r.phase
    over = phase is Phase.OVER
    window = phase is Phase.CLAIM or phase is Phase.ROB
    return _new_view(
        SeatView,
        (
            viewer,
            r.opts,
            r.dealer,
            r.streak,
            phase,
            r.turn,
            r.back - r.front,  # the live wall's size
            None if viewer is None else tuple(r.hands[viewer]),
            r.drawn if viewer is not None and viewer == r.turn else None,
            tuple(r.hand_sizes),
            _melds_seen(r, viewer, over),
            tuple(map(tuple, r.discards)),
            tuple(r.declared),
            r.claim_tile if window else None,
            r.claim_from if window else None,
            r.claim_hot,
            r.turn_gangs[-1].kind if r.turn_gangs else None,
            r.after_pong,
            False if viewer is None else r.passed[viewer],
            r.claim_options.get(viewer, ()) if window and viewer is not None else (),
            tuple(won_event(w, r.opts) for w in r.winners) if over else (),
            r.exhausted,
            r.flip,
            tuple(map(tuple, r.hands)) if over else None,
            None if r.result is None else tuple(r.result.net),
            r.weekday,
        ),
    )


_new_view = tuple.__new__


def _melds_seen(r: Round, viewer: Viewer, over: bool) -> tuple[tuple[MeldSeen, ...], ...]:
    melds = r.melds
    if not (melds[0] or melds[1] or melds[2] or melds[3]):
        return _NO_MELDS
    # The same rows for a viewer until a meld changes (`Round.meld_changes`): kept on the round.
    changes, memo = r.melds_seen_memo
    if changes != r.meld_changes:
        memo = {}
        r.melds_seen_memo = (r.meld_changes, memo)
    found = memo.get((viewer, over))
    if found is not None:
        return found  # type: ignore[return-value]
    rows: list[tuple[MeldSeen, ...]] = []
    for seat, row in enumerate(melds):
        if not row:
            rows.append(())
            continue
        shown = over or seat == viewer
        rows.append(tuple([_meld_seen(m, shown) for m in row]))
    seen = memo[(viewer, over)] = tuple(rows)
    return seen


@lru_cache(maxsize=4096)
def _meld_seen(m: Meld, shown: bool) -> MeldSeen:
    """A meld as seen (its tile hidden if it is an 暗杠 and not `shown`). Cached by value: melds
    are few (kind, tile, claimed from, 豆), and every view shows every meld again."""
    return MeldSeen(m.kind, m.tile if shown or m.kind != "an" else None, m.from_seat, m.dou)


# Per kind, the kinds within two ranks of it in its suit: a wait on a kind always holds one.
_NEAR = tuple(slice(k - min(k % 9, 2), k + min(8 - k % 9, 2) + 1) for k in range(NUM_KINDS))
_NO_MELDS: tuple[tuple[MeldSeen, ...], ...] = ((), (), (), ())


# ----- the view moved by events -----


def start(opts: RuleOptions, viewer: Viewer, deal: Event) -> SeatView:
    """The view at a deal (`round_started`, full or projected)."""
    seen = project(deal, viewer)
    assert isinstance(seen, DealSeen), f"a view starts at a deal, not at {deal.type}"
    if viewer is None and seen.hand is not None:
        raise Leak("the deal shows a spectator a hand")
    hand: tuple[int, ...] | None = None
    if seen.hand is not None:
        counts = [0] * NUM_KINDS
        for k in seen.hand:
            counts[k] += 1
        hand = tuple(counts)
    return SeatView(
        viewer=viewer,
        opts=opts,
        dealer=seen.dealer,
        streak=seen.streak,
        phase=Phase.TURN,
        turn=seen.dealer,
        wall_left=seen.wall_left,
        hand=hand,
        drawn=None,
        hand_sizes=tuple(seen.hand_sizes),
        melds=((), (), (), ()),
        discards=((), (), (), ()),
        declared=(False, False, False, False),
        weekday=seen.weekday,
    )


class Leak(ValueError):
    """A projected event that carries what its viewer may not know."""


def reduce(v: SeatView, event: Event) -> SeatView:
    """The view after `event`. A full event is projected for the view's viewer first, so reducing
    an event and reducing its projection give the same view. A projected event that shows the
    viewer another seat's tile is refused (`Leak`): a view holds only what its viewer may know."""
    step = _STEPS.get(type(event))
    if step is None:
        if isinstance(event, RoundStarted | Drew | ConcealedGang):
            seen = project(event, v.viewer)
            assert seen is not None
            return reduce(v, seen)
        return v  # not a round event
    if v.offered and step is not _won:
        v = _window_closed(v)
    return step(v, event)  # type: ignore[no-any-return]


def _window_closed(v: SeatView) -> SeatView:
    """The window the viewer could claim in is over: had it a win and did not take it, it has
    passed a win (§12.6)."""
    won = any(w.seat == v.viewer for w in v.wins)
    return v._replace(offered=(), passed=v.passed or ("hu" in v.offered and not won))


def _bump(values: tuple[int, ...], i: int, delta: int) -> tuple[int, ...]:
    return values[:i] + (values[i] + delta,) + values[i + 1 :]


def _set(values: tuple[Any, ...], i: int, value: Any) -> tuple[Any, ...]:
    return values[:i] + (value,) + values[i + 1 :]


def _mine(v: SeatView, seat: int) -> bool:
    return v.viewer == seat and v.hand is not None


def _refuse_leak(v: SeatView, e: DrawSeen | ConcealedGangSeen) -> None:
    if e.tile is not None and e.seat != v.viewer:
        raise Leak(f"{e.type} shows seat {e.seat}'s tile to viewer {v.viewer}")


def _drew(v: SeatView, e: DrawSeen) -> SeatView:
    _refuse_leak(v, e)
    seat = e.seat
    hand, drawn, passed = v.hand, None, v.passed
    if _mine(v, seat) and e.tile is not None and hand is not None:
        hand, drawn, passed = _bump(hand, e.tile, 1), e.tile, False
    if e.replacement:  # a gang's replacement: the same turn goes on
        return v._replace(
            hand=hand,
            drawn=drawn,
            passed=passed,
            wall_left=e.wall_left,
            hand_sizes=_bump(v.hand_sizes, seat, 1),
        )
    return v._replace(
        phase=Phase.TURN,
        turn=seat,
        hand=hand,
        drawn=drawn,
        passed=passed,
        wall_left=e.wall_left,
        hand_sizes=_bump(v.hand_sizes, seat, 1),
        claim_tile=None,
        claim_from=None,
        after_pong=False,
        turn_gang=None,
    )


def _discarded(v: SeatView, e: Discarded) -> SeatView:
    seat, tile = e.seat, e.tile
    hand, drawn = v.hand, v.drawn
    if _mine(v, seat) and hand is not None:
        hand, drawn = _bump(hand, tile, -1), None
    declared = _set(v.declared, seat, True) if e.declared else v.declared
    row = v.discards[seat] + (DiscardRecord(tile, False, e.declared),)
    return v._replace(
        phase=Phase.CLAIM,
        turn=seat,
        hand=hand,
        drawn=drawn,
        declared=declared,
        hand_sizes=_bump(v.hand_sizes, seat, -1),
        discards=_set(v.discards, seat, row),
        claim_tile=tile,
        claim_from=seat,
        hot=e.hot,
        offered=_claims(v, e, hand, declared),
    )


def _claims(
    v: SeatView, e: Discarded, hand: tuple[int, ...] | None, declared: tuple[bool, ...]
) -> tuple[str, ...]:
    """The viewer's claims of the discard, by the engine's own rule (`discard_claims`)."""
    me, tile = v.viewer, e.tile
    if me is None or me == e.seat or hand is None:
        return ()
    if hand[tile] < 2 and not any(hand[_NEAR[tile]]):
        return ()  # no pair of it and nothing it could complete: the common case
    own = v.own_melds
    return discard_claims(
        v.opts,
        hand,
        own,
        tile,
        wins=bool(seat_wait_mask(v.opts, hand, own) >> tile & 1),
        declared=declared[me],
        passed=v.passed,
        wall_left=v.wall_left,
        hot=e.hot,
        after_diandou=e.hot and v.turn_gang == "ming",
        from_declared=declared[e.seat],
    )


def _claimed_last(v: SeatView, seat: int) -> tuple[tuple[DiscardRecord, ...], ...]:
    row = v.discards[seat]
    if not row or row[-1].claimed:
        return v.discards
    return _set(v.discards, seat, row[:-1] + (row[-1]._replace(claimed=True),))


def _claimed(v: SeatView, e: Claimed) -> SeatView:
    seat, tile = e.seat, e.tile
    pong = e.act == "pong"
    n = 2 if pong else 3
    hand = v.hand
    if _mine(v, seat) and hand is not None:
        hand = _bump(hand, tile, -n)
    meld = (
        MeldSeen("pong", tile, e.from_seat) if pong else MeldSeen("ming", tile, e.from_seat, "dian")
    )
    return v._replace(
        phase=Phase.TURN,
        turn=seat,
        hand=hand,
        drawn=None,
        hand_sizes=_bump(v.hand_sizes, seat, -n),
        melds=_set(v.melds, seat, v.melds[seat] + (meld,)),
        discards=_claimed_last(v, e.from_seat),
        claim_tile=None,
        claim_from=None,
        after_pong=pong,
        turn_gang=None if pong else "ming",
    )


def _concealed_gang(v: SeatView, e: ConcealedGangSeen) -> SeatView:
    _refuse_leak(v, e)
    seat = e.seat
    hand = v.hand
    if _mine(v, seat) and hand is not None and e.tile is not None:
        hand = _bump(hand, e.tile, -4)
    meld = MeldSeen("an", e.tile, None, e.dou)  # type: ignore[arg-type]
    return v._replace(
        hand=hand,
        drawn=None,
        hand_sizes=_bump(v.hand_sizes, seat, -4),
        melds=_set(v.melds, seat, v.melds[seat] + (meld,)),
        turn_gang="an",
    )


def _add_gang_declared(v: SeatView, e: AddGangDeclared) -> SeatView:
    v = v._replace(phase=Phase.ROB, turn=e.seat, claim_tile=e.tile, claim_from=e.seat)
    me, hand = v.viewer, v.hand
    if me is None or me == e.seat or hand is None:
        return v
    wins = bool(seat_wait_mask(v.opts, hand, v.own_melds) >> e.tile & 1)
    offered = rob_claims(v.opts, wins=wins, passed=v.passed)
    return v._replace(offered=offered) if offered else v


def _added_gang(v: SeatView, e: AddedGang) -> SeatView:
    seat, tile = e.seat, e.tile
    hand = v.hand
    if _mine(v, seat) and hand is not None:
        hand = _bump(hand, tile, -1)
    row = v.melds[seat]
    i = next(i for i, m in enumerate(row) if m.kind == "pong" and m.tile == tile)
    bu = MeldSeen("bu", tile, row[i].from_seat, e.dou)  # type: ignore[arg-type]
    return v._replace(
        phase=Phase.TURN,
        turn=seat,
        hand=hand,
        drawn=None,
        hand_sizes=_bump(v.hand_sizes, seat, -1),
        melds=_set(v.melds, seat, _set(row, i, bu)),
        claim_tile=None,
        claim_from=None,
        turn_gang="bu",
    )


def _won(v: SeatView, e: Won) -> SeatView:
    discards, sizes, hand = v.discards, v.hand_sizes, v.hand
    if e.how == "discard" and e.from_seat is not None:
        discards = _claimed_last(v, e.from_seat)
    elif e.how == "rob" and e.from_seat is not None and e.tile is not None:
        # The robbed tile leaves the 补杠 player's hand, once however many win on it (§12.25).
        if not any(w.how == "rob" for w in v.wins):
            sizes = _bump(sizes, e.from_seat, -1)
            if _mine(v, e.from_seat) and hand is not None:
                hand = _bump(hand, e.tile, -1)
    return v._replace(
        phase=Phase.OVER,
        wins=v.wins + (e,),
        discards=discards,
        hand_sizes=sizes,
        hand=hand,
        claim_tile=None,
        claim_from=None,
    )


def _exhausted(v: SeatView, e: Exhausted) -> SeatView:
    return v._replace(phase=Phase.OVER, exhausted=True, claim_tile=None, claim_from=None)


def _flipped(v: SeatView, e: Flipped) -> SeatView:
    return v._replace(flip=e.tile)


def _round_ended(v: SeatView, e: RoundEnded) -> SeatView:
    """Everything is shown at the end: every hand, every 暗杠's tile, the nets."""
    hands = tuple(tuple(to_counts(h)) for h in e.revealed.hands)
    melds = tuple(
        tuple(
            m._replace(tile=shown.tile) if m.tile is None else m
            for m, shown in zip(row, shown_row, strict=True)
        )
        for row, shown_row in zip(v.melds, e.revealed.melds, strict=True)
    )
    net = e.net
    return v._replace(
        phase=Phase.OVER,
        hands=hands,
        melds=melds,
        net=net,
        claim_tile=None,
        claim_from=None,
    )


_STEPS: dict[type, Any] = {
    DealSeen: lambda v, e: start(v.opts, v.viewer, e),
    DrawSeen: _drew,
    Discarded: _discarded,
    Claimed: _claimed,
    ConcealedGangSeen: _concealed_gang,
    AddGangDeclared: _add_gang_declared,
    AddedGang: _added_gang,
    Won: _won,
    Exhausted: _exhausted,
    Flipped: _flipped,
    RoundEnded: _round_ended,
}
