"""The rules core of zhuoji: pure and deterministic (no I/O, no clock, randomness only from a seed).

>>> from rules import parse_tiles, is_win, waits
>>> is_win(parse_tiles("11122233344455m"))
True
"""

from rules.actions import Action, IllegalAction
from rules.hand import is_win, is_win_counts, wait_kinds, waits
from rules.options import PRESETS, Pattern, RuleOptions, make_options
from rules.round import Phase, Round, legal_actions, step
from rules.tiles import parse_tile, parse_tiles, tile_name, tiles_str

__all__ = [
    "PRESETS",
    "Action",
    "IllegalAction",
    "Pattern",
    "Phase",
    "Round",
    "RuleOptions",
    "is_win",
    "is_win_counts",
    "legal_actions",
    "make_options",
    "parse_tile",
    "parse_tiles",
    "step",
    "tile_name",
    "tiles_str",
    "wait_kinds",
    "waits",
]
