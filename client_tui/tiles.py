"""How a tile looks: CJK text (`一万`, `幺鸡` for 1s) or ASCII notation (`1m`), with suit colours.

A tile is given in notation (`"5p"`) or as a kind 0–26 (`rules.tiles`: how the round is kept,
`rules.view.SeatView`); the words are made here, where it is drawn.

>>> label("1s", ascii=False), label("1s", ascii=True), label(13, ascii=False)
('幺鸡', '1s', '五筒')
>>> face("9m", ascii=False), face("9m", ascii=True)
(('九', '万'), ('9m', '  '))
>>> grouped(["5p", "1s", "5m", "6m", "5p", "4s"], ascii=False).plain
'五六万 五五筒 幺四条'
>>> grouped(["5p", "1s", "5m", "6m", "5p", "4s"], ascii=True).plain
'56m 55p 14s'
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.style import Style
from rich.text import Text

from rules.tiles import NUM_KINDS, parse_tile, tile_name, tile_zh

Tile = str | int
"""A tile in notation (`"5p"`) or as a kind (0–26)."""

SUITS = "mps"
SUIT_ZH = {"m": "万", "p": "筒", "s": "条"}

# 万 red, 筒 blue, 条 green: the colours of most printed sets.
SUIT_COLOURS = {"m": "#d23c3c", "p": "#3b78d8", "s": "#2e9d4f"}
FACE_BG = "#efe9d9"
HIDDEN_BG = "#4a6d5a"
CHICKENS = frozenset({"1s", "8p"})


NAMES = tuple(tile_name(k) for k in range(NUM_KINDS))


def notation(tile: Tile) -> str:
    """The tile in notation: `13` → `5p`."""
    return NAMES[tile] if isinstance(tile, int) else tile


def names(counts: tuple[int, ...] | list[int]) -> tuple[str, ...]:
    """A hand of counts per kind as tiles in notation, sorted.

    >>> names([2] + [0] * 17 + [1] + [0] * 8)
    ('1m', '1m', '1s')
    """
    return tuple(name for name, n in zip(NAMES, counts, strict=True) for _ in range(n))


def colour(tile: Tile) -> str:
    """The tile's suit colour."""
    return SUIT_COLOURS[notation(tile)[1]]


def label(tile: Tile, ascii: bool) -> str:
    """The tile's name as shown: `幺鸡`/`五筒`, or `1s`/`5p` in ASCII mode."""
    tile = notation(tile)
    return tile if ascii else tile_zh(parse_tile(tile))


def face(tile: Tile, ascii: bool) -> tuple[str, str]:
    """Two lines of two cells for a tile face: rank above suit, or the notation above a blank."""
    tile = notation(tile)
    if ascii:
        return tile, "  "
    zh = tile_zh(parse_tile(tile))
    return zh[0], zh[1]


def style(tile: Tile, *, dim: bool = False, bold: bool = False) -> Style:
    """The suit colour (bold for the standing chickens 幺鸡 and 乌骨鸡)."""
    tile = notation(tile)
    return Style(color=SUIT_COLOURS[tile[1]], dim=dim, bold=bold or tile in CHICKENS)


def text(
    tile: Tile | None,
    ascii: bool,
    *,
    dim: bool = False,
    strike: bool = False,
    underline: bool = False,
) -> Text:
    """A tile as coloured inline text; None is a face-down tile (an opponent's 暗杠)."""
    if tile is None:
        return Text("##" if ascii else "▒▒", style=Style(color="grey50"))
    s = style(tile, dim=dim) + Style(strike=strike, underline=underline)
    return Text(label(tile, ascii), style=s)


def tiles_text(tiles: Sequence[Tile], ascii: bool, sep: str = " ") -> Text:
    """Several tiles in a row."""
    out = Text()
    for i, t in enumerate(tiles):
        if i:
            out.append(sep)
        out.append_text(text(t, ascii))
    return out


def grouped(
    tiles: list[str] | tuple[str, ...], ascii: bool, *, marks: frozenset[str] = frozenset()
) -> Text:
    """A whole hand the way players write one: ranks grouped by suit (`五六万 幺四条`, or `56m 14s`),
    sorted, each rank in its suit colour; a tile in `marks` is underlined."""
    out = Text()
    for suit in SUITS:
        ranks = sorted(t for t in tiles if t[1] == suit)
        if not ranks:
            continue
        if out:
            out.append(" ")
        for t in ranks:
            rank = t[0] if ascii else tile_zh(parse_tile(t))[0]
            out.append(rank, style=style(t) + Style(underline=t in marks))
        out.append(suit if ascii else SUIT_ZH[suit], style=Style(color=SUIT_COLOURS[suit]))
    return out
