"""Fair deal: a commitment to the wall order, published at the deal and opened at the end.

At the deal the server publishes `commitment(order, salt)`; the salt stays secret until the round
ends, when both are revealed and anyone can check `verify(...)`. The order is every tile of the
deal: the dealer's hand, then the others' in play order, then the live wall front to back.

>>> order = [0, 1, 2]
>>> c = commitment(order, "00ff")
>>> verify(order, "00ff", c), verify([0, 2, 1], "00ff", c)
(True, False)
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Sequence

from rules.tiles import tile_name


def order_text(order: Sequence[int]) -> str:
    """The order as text: tile names, comma-separated (`1m,5p,9s`)."""
    return ",".join(tile_name(k) for k in order)


def commitment(order: Sequence[int], salt_hex: str) -> str:
    """SHA-256 over the salt's bytes, a colon and the order's text; hex."""
    salt = bytes.fromhex(salt_hex)
    return hashlib.sha256(salt + b":" + order_text(order).encode()).hexdigest()


def verify(order: Sequence[int], salt_hex: str, expected: str) -> bool:
    """Whether the revealed order and salt match the published commitment."""
    try:
        got = commitment(order, salt_hex)
    except ValueError:
        return False
    return hmac.compare_digest(got, expected.lower())


def deal_order(hands: Sequence[Sequence[int]], wall: Sequence[int], dealer: int) -> list[int]:
    """Every tile of a deal in dealing order: hands from the dealer in play order, then the wall."""
    order: list[int] = []
    for i in range(4):
        order.extend(hands[(dealer + i) % 4])
    order.extend(wall)
    return order
