"""Legality (RULES.md §2, §4, §8.4, §12): what a seat may do, and why not.

The engine (`rules.round`) and one seat's view (`rules.view.legal_actions_for`) decide legality
with the same functions, over plain data a seat knows (its hand, melds, the public record):
`turn_actions`, `may_declare`, `discard_claims`, `rob_claims`, `seat_wait_mask`. Whether a win on a
discard is allowed reads the pattern the settlement pays (`rules.patterns.win_pattern`), so the
two never disagree (issue 27). `why_illegal(round, action)` is the reason the engine gives for an
action it refuses.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from rules.actions import Action
from rules.hand import wait_mask as hand_wait_mask
from rules.options import Pattern, RuleOptions
from rules.patterns import (
    Meld,
    dilong_mask,
    dilong_on,
    has_pass,
    is_complete,
    ready_waits,
    win_pattern,
)
from rules.phase import Phase
from rules.tiles import NUM_KINDS, tile_name

if TYPE_CHECKING:
    from rules.round import Round

__all__ = [
    "discard_claims",
    "may_declare",
    "rob_claims",
    "seat_wait_mask",
    "turn_actions",
    "why_illegal",
    "why_no_hu",
]


# ----- over plain data (shared with `rules.view`, which knows only one seat) -----


def seat_wait_mask(opts: RuleOptions, hand: Sequence[int], melds: Sequence[Meld]) -> int:
    """Bit k set when kind k completes this 13-tile hand at this table (地龙 included where the
    options have it, RULES.md §13.16)."""
    mask = hand_wait_mask(hand, len(melds))
    if dilong_on(opts):
        mask |= dilong_mask(opts, hand, melds)
    return mask


def turn_actions(
    opts: RuleOptions,
    seat: int,
    hand: Sequence[int],
    melds: Sequence[Meld],
    *,
    drawn: int | None,
    after_pong: bool,
    declared: bool,
    wall_left: int,
    any_claim: bool,
    discards: int,
) -> list[Action]:
    """Every move of `seat` on its turn, from what that seat knows: its hand (27 counts, the
    drawn tile included), its melds, the tile it drew, and the public record."""
    kinds = [k for k in range(NUM_KINDS) if hand[k]]
    actions: list[Action] = []
    if not after_pong and is_complete(opts, hand, melds):
        actions.append(Action(seat, "hu"))
    if declared:
        if drawn is not None and hand[drawn]:
            actions.append(Action(seat, "discard", drawn))
        return actions
    if not after_pong and wall_left > 0:
        for k in kinds:
            if hand[k] == 4:
                actions.append(Action(seat, "gang", k))
        for m in melds:
            if m.kind == "pong" and hand[m.tile]:
                actions.append(Action(seat, "gang", m.tile))
    actions.extend(Action(seat, "discard", k) for k in kinds)
    actions.extend(
        Action(seat, "ready", k)
        for k in kinds
        if may_declare(
            opts,
            hand,
            melds,
            k,
            after_pong=after_pong,
            any_claim=any_claim,
            discards=discards,
            declared=declared,
        )
    )
    return actions


def may_declare(
    opts: RuleOptions,
    hand: Sequence[int],
    melds: Sequence[Meld],
    tile: int,
    *,
    after_pong: bool,
    any_claim: bool,
    discards: int,
    declared: bool,
) -> bool:
    """报听/天听 with this discard (§8.4, §12.26): the first discard, no claim yet by anyone,
    and the hand ready after it."""
    if opts.declare == "none" or after_pong or any_claim or discards or declared or not hand[tile]:
        return False
    after = list(hand)
    after[tile] -= 1
    return bool(ready_waits(after, melds, opts))


def discard_claims(
    opts: RuleOptions,
    hand: Sequence[int],
    melds: Sequence[Meld],
    tile: int,
    *,
    wins: bool,
    declared: bool,
    passed: bool,
    wall_left: int,
    hot: bool,
    after_diandou: bool,
    from_declared: bool,
) -> tuple[str, ...]:
    """A seat's claims of a discard of `tile` (`hu`, `pong`, `gang`), from its own hand and
    melds and the public record. `wins`: `tile` completes the hand; `hot`: the discard is a
    热炮; `after_diandou`: made right after its discarder's 点豆; `from_declared`: the
    discarder has declared."""
    options: list[str] = []
    if wins:
        counts = list(hand)
        counts[tile] += 1
        if _hu_allowed_on_discard(
            opts,
            counts,
            melds,
            passed=passed,
            hot=hot,
            after_diandou=after_diandou,
            from_declared=from_declared,
        ):
            options.append("hu")
    if not declared:
        if hand[tile] >= 2:
            options.append("pong")
        if hand[tile] == 3 and wall_left > 0:
            options.append("gang")
    return tuple(options)


def _hu_allowed_on_discard(
    opts: RuleOptions,
    counts: list[int],
    melds: Sequence[Meld],
    *,
    passed: bool,
    hot: bool,
    after_diandou: bool,
    from_declared: bool,
) -> bool:
    """§4: may a seat win on this discard (`counts` includes it)?"""
    if opts.pass_win == "lock" and passed:
        return False
    found = win_pattern(opts, counts, melds)  # the pattern the settlement pays (§3, §13.16)
    if found is None:
        return False
    if found[0] is not Pattern.PINGHU:
        return True
    if opts.no_pinghu_after_diandou and after_diandou:
        return False
    if hot:
        return True
    if opts.declare == "tianting" and from_declared:
        return True  # 杀报
    return has_pass(opts, melds)


def rob_claims(opts: RuleOptions, *, wins: bool, passed: bool) -> tuple[str, ...]:
    """A seat's claims of a declared 补杠 (抢杠): `hu` when the tile completes its hand, unless
    it passed a win under 过水."""
    if not wins or (opts.pass_win == "lock" and passed):
        return ()
    return ("hu",)


# ----- the reason an action is refused -----


def why_illegal(r: Round, a: Action) -> tuple[str, str]:
    """Why `a` is not legal in round `r` now: a stable code and a sentence for a person (what
    `IllegalAction` carries). Only asked about an action `legal_actions` does not list."""
    if r.phase is Phase.OVER:
        return "round_over", "the round is over"
    if r.phase is Phase.TURN and a.seat != r.turn:
        return "not_your_turn", f"it is seat {r.turn}'s turn, not seat {a.seat}'s"
    if r.phase in (Phase.CLAIM, Phase.ROB):
        if a.seat == r.claim_from:
            return "own_tile", "you cannot claim your own tile"
        if a.seat in r.claim_answers:
            return "already_answered", f"seat {a.seat} has already answered this tile"
        if a.tile is not None and a.tile != r.claim_tile:
            return "wrong_tile", f"the tile to claim is {tile_name(r.claim_tile or 0)}"
        if a.act == "hu":
            return why_no_hu(r, a.seat)
        if a.act in ("pong", "gang"):
            if r.phase is Phase.ROB:
                return "rob_only_hu", "a 补杠 can only be robbed (胡) or passed"
            if r.declared[a.seat]:
                return "declared", "after 报听 you may not 碰 or 杠"
            if a.act == "gang" and r.wall_left == 0:
                return "wall_empty", "no gang when the live wall is empty"
            return "cannot_claim", f"you cannot {a.act} {tile_name(r.claim_tile or 0)}"
        return "bad_action", f"{a.act} is not an answer to a claim window"
    # TURN
    hand = r.hands[a.seat]
    if a.act == "pass" or a.act == "pong":
        return "bad_action", f"{a.act} is not a move on your own turn"
    if a.act == "hu":
        if r.after_pong:
            return "after_pong", "after a 碰 you may only discard"
        return "not_complete", "the hand is not complete"
    if a.tile is None:
        return "tile_required", f"{a.act} needs a tile"
    if a.act in ("discard", "ready") and not hand[a.tile]:
        return "tile_not_in_hand", f"{tile_name(a.tile)} is not in your hand"
    if a.act == "discard":
        return (
            "declared",
            f"after 报听 you must discard the drawn tile {tile_name(r.drawn or 0)}",
        )
    if a.act == "ready":
        if r.opts.declare == "none":
            return "no_declaration", "this ruleset has no 报听"
        if r.discard_count[a.seat] or r.any_claim or r.declared[a.seat]:
            return "too_late", "报听 only with your first discard, before any claim"
        return "not_ready", f"discarding {tile_name(a.tile)} does not leave the hand ready"
    # gang on turn
    if r.after_pong:
        return "after_pong", "after a 碰 you may only discard"
    if r.declared[a.seat]:
        return "declared", "after 报听 you may not 杠"
    if r.wall_left == 0:
        return "wall_empty", "no gang when the live wall is empty"
    return "cannot_gang", f"you hold no four of {tile_name(a.tile)} and no 碰 of it to add to"


def why_no_hu(r: Round, seat: int) -> tuple[str, str]:
    """Why `seat` may not 胡 the tile in the open window (§4, §2.5, §12.6)."""
    tile = r.claim_tile
    assert tile is not None
    counts = list(r.hands[seat])
    counts[tile] += 1
    if not is_complete(r.opts, counts, r.melds[seat]):
        return "not_complete", f"{tile_name(tile)} does not complete your hand"
    if r.opts.pass_win == "lock" and r.passed[seat]:
        return "passed_win", "you passed a win: no win on a discard until your next draw (过水)"
    if r.opts.no_pinghu_after_diandou and r.after_diandou():
        return (
            "after_diandou",
            "平胡 may not win on the discard right after its discarder's 点豆",
        )
    if r.opts.pass_gangs == "concealed_or_added":
        return "no_pass", (
            "平胡 on a discard needs a pass (a 闷豆 or 转弯豆); without one it wins only by 自摸"
        )
    return "no_pass", "平胡 on a discard needs a pass (a 豆); without one it wins only by 自摸"
