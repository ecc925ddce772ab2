"""Tiles: kinds 0–26, their names, and the compact notation.

A tile *kind* is an int: 0–8 are 1m–9m (万), 9–17 are 1p–9p (筒), 18–26 are 1s–9s (条).
That is also the sort order of RULES.md §1 (m, p, s, then rank).

>>> parse_tiles("123m11s")
[0, 1, 2, 18, 18]
>>> tiles_str([0, 1, 2, 18, 18])
'123m11s'
>>> tile_name(25)
'8s'
"""

from __future__ import annotations

from collections.abc import Iterable

SUITS = "mps"
NUM_KINDS = 27
COPIES = 4

SUIT_ZH = {"m": "万", "p": "筒", "s": "条"}
RANK_ZH = "一二三四五六七八九"

YAOJI = 18  # 1s, 幺鸡
WUGUJI = 16  # 8p, 乌骨鸡


class TileParseError(ValueError):
    """A tile string that is not valid notation; the message names the bad character."""


def tile_name(kind: int) -> str:
    """`0` → `'1m'`."""
    return f"{kind % 9 + 1}{SUITS[kind // 9]}"


def tile_zh(kind: int) -> str:
    """Chinese display name: `18` → `'幺鸡'`, `0` → `'一万'`."""
    if kind == YAOJI:
        return "幺鸡"
    return RANK_ZH[kind % 9] + SUIT_ZH[SUITS[kind // 9]]


def suit_of(kind: int) -> int:
    return kind // 9


def rank_of(kind: int) -> int:
    """1-based rank."""
    return kind % 9 + 1


def next_kind(kind: int) -> int:
    """The flip's *next* tile: one rank up in the same suit, 9 wrapping to 1."""
    return kind - 8 if kind % 9 == 8 else kind + 1


def prev_kind(kind: int) -> int:
    """One rank down in the same suit, 1 wrapping to 9."""
    return kind + 8 if kind % 9 == 0 else kind - 1


_NAME_TO_KIND = {tile_name(k): k for k in range(NUM_KINDS)}


def parse_tile(name: str) -> int:
    """`'5p'` → `13`. Raises TileParseError for anything else."""
    kind = _NAME_TO_KIND.get(name)
    if kind is None:
        raise TileParseError(f"not a tile: {name!r} (expected a rank 1-9 and a suit m, p or s)")
    return kind


def parse_tiles(text: str) -> list[int]:
    """Parse the compact form `'123m456p11s'` (spaces allowed) into kinds, in the given order.

    >>> parse_tiles("1m 2m 9s")
    [0, 1, 26]
    """
    kinds: list[int] = []
    pending: list[tuple[int, int]] = []  # (rank index, position) waiting for their suit letter
    for pos, ch in enumerate(text):
        if ch.isspace():
            continue
        if "1" <= ch <= "9":
            pending.append((int(ch) - 1, pos))
        elif ch in SUITS:
            if not pending:
                raise TileParseError(f"suit {ch!r} at position {pos} has no rank before it")
            base = SUITS.index(ch) * 9
            kinds.extend(base + rank for rank, _ in pending)
            pending = []
        else:
            raise TileParseError(
                f"unexpected character {ch!r} at position {pos} in {text!r}: "
                "use ranks 1-9 followed by a suit m, p or s"
            )
    if pending:
        raise TileParseError(f"ranks at the end of {text!r} have no suit letter (m, p or s)")
    return kinds


def tiles_str(kinds: Iterable[int]) -> str:
    """The compact form of the tiles, sorted: `[18, 0, 1]` → `'12m1s'`."""
    groups: list[str] = []
    ordered = sorted(kinds)
    for suit in range(3):
        ranks = "".join(str(k % 9 + 1) for k in ordered if k // 9 == suit)
        if ranks:
            groups.append(ranks + SUITS[suit])
    return "".join(groups)


def to_counts(kinds: Iterable[int]) -> list[int]:
    """27 counts, one per kind."""
    counts = [0] * NUM_KINDS
    for k in kinds:
        counts[k] += 1
    return counts


def from_counts(counts: list[int]) -> list[int]:
    """The sorted kinds of a count vector."""
    return [k for k in range(NUM_KINDS) for _ in range(counts[k])]
