"""Checking a fair deal as a client: the commitment sent at the deal against the order and salt
revealed at the end, and the revealed order against what this seat was dealt and drew.

At `round_started` the server sends `commitment`; at `round_ended` it reveals `deal` =
`{"order": [108 tiles], "salt": hex}`. The order is every tile in dealing order: the dealer's 14,
then 13 for each other seat in play order, then the live wall front to back (a gang's
replacement tiles come from the back). `check_deal` says what does not hold, if anything.

>>> from rules.fairdeal import commitment
>>> from rules.tiles import parse_tile
>>> order = [f"{n}{s}" for s in "mps" for n in range(1, 10) for _ in range(4)]
>>> salt = "00ff"
>>> c = commitment([parse_tile(t) for t in order], salt)
>>> check_deal(c, {"order": order, "salt": salt}, dealer=0, seat=1, hand=order[14:27])
[]
>>> check_deal(c, {"order": order, "salt": "01"}, dealer=0)
['the revealed order and salt do not open the commitment']
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rules.fairdeal import verify
from rules.tiles import TileParseError, parse_tile

DEALT = 14 + 3 * 13  # tiles dealt into hands; the live wall follows


def hand_slice(dealer: int, seat: int) -> slice:
    """Where `seat`'s dealt hand lies in the deal order."""
    i = (seat - dealer) % 4
    start = 0 if i == 0 else 14 + 13 * (i - 1)
    return slice(start, start + (14 if i == 0 else 13))


def check_deal(
    commitment: str | None,
    deal: dict[str, Any] | None,
    *,
    dealer: int,
    seat: int | None = None,
    hand: Sequence[str] | None = None,
    draws: Sequence[tuple[bool, str | None]] = (),
    flip: str | None = None,
) -> list[str]:
    """What is wrong with a revealed deal ([] when it checks out).

    `hand` is the seat's dealt hand, `draws` every draw of the round in order as
    `(replacement, tile)` (the tile when this viewer saw it, else None), `flip` the 翻牌."""
    if commitment is None:
        return ["no commitment was seen for this round"]
    if not deal:
        return ["the deal was not revealed"]
    names = deal.get("order")
    salt = deal.get("salt")
    if not isinstance(names, list) or not isinstance(salt, str):
        return ["the revealed deal is malformed"]
    try:
        order = [parse_tile(t) for t in names]
    except (TileParseError, TypeError):
        return ["the revealed order holds a bad tile"]
    if not verify(order, salt, commitment):
        return ["the revealed order and salt do not open the commitment"]
    problems: list[str] = []
    if (
        seat is not None
        and hand is not None
        and sorted(names[hand_slice(dealer, seat)]) != sorted(hand)
    ):
        problems.append("the hand dealt is not the one committed to")
    wall = names[DEALT:]
    front, back = 0, len(wall)
    for replacement, tile in draws:
        if replacement:
            back -= 1
            at = back
        else:
            at = front
            front += 1
        if not 0 <= at < len(wall) or front > back:
            problems.append("more tiles were drawn than the wall held")
            break
        if tile is not None and wall[at] != tile:
            problems.append(f"a draw of {tile} where the committed wall has {wall[at]}")
            break
    if flip is not None and (front >= len(wall) or wall[front] != flip):
        problems.append("the flipped tile is not the committed one")
    return problems
