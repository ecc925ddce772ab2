"""The rules core of zhuoji: pure and deterministic (no I/O, no clock, randomness only from a seed).

This package is the one import surface for the other packages: `from rules import Round, …`.
The modules behind it (round, settle, record, chickens, patterns, options, kinds, script, …) are
its implementation. The bot policies are not rules: they live in `rules.players`
(`from rules.players import Bot, policy_for`), which this surface does not load.

>>> from rules import parse_tiles, is_win, waits
>>> is_win(parse_tiles("11122233344455m"))
True
"""

from rules.actions import ACT_KINDS, Action, IllegalAction
from rules.events import PRIVATE_FIELDS, Event
from rules.fairdeal import commitment, deal_order, verify
from rules.hand import is_win, is_win_counts, wait_kinds, waits
from rules.kinds import (
    BonusKind,
    ChickenKind,
    DouKind,
    ExtraKind,
    PatternKind,
    PaymentKind,
)
from rules.match import Match
from rules.options import (
    CHUAN,
    GUIYANG,
    PRESETS,
    OptionsError,
    Pattern,
    RuleOptions,
    inert_options,
    make_options,
    normalize_overrides,
    overrides_of,
)
from rules.patterns import Meld, best_pattern, has_pass, ready_value, ready_waits
from rules.record import DiscardRecord, RoundRecord, WinInfo
from rules.round import DealError, Phase, Round, legal_actions, step
from rules.script import ScriptError, parse_script, play_script, replay_json, run_script
from rules.settle import Payment, Settlement, settle
from rules.tiles import (
    COPIES,
    NUM_KINDS,
    WUGUJI,
    YAOJI,
    TileParseError,
    next_kind,
    parse_tile,
    parse_tiles,
    prev_kind,
    tile_name,
    tile_zh,
    tiles_str,
    to_counts,
)
from rules.view import SeatView, legal_actions_for, project, reduce, start, view_of
from rules.wall import seed_to_int, shuffled_wall

__all__ = [
    "ACT_KINDS",
    "CHUAN",
    "COPIES",
    "GUIYANG",
    "NUM_KINDS",
    "PRESETS",
    "PRIVATE_FIELDS",
    "WUGUJI",
    "YAOJI",
    "Action",
    "BonusKind",
    "ChickenKind",
    "DealError",
    "DiscardRecord",
    "DouKind",
    "Event",
    "ExtraKind",
    "IllegalAction",
    "Match",
    "Meld",
    "OptionsError",
    "Pattern",
    "PatternKind",
    "Payment",
    "PaymentKind",
    "Phase",
    "Round",
    "RoundRecord",
    "RuleOptions",
    "ScriptError",
    "SeatView",
    "Settlement",
    "TileParseError",
    "WinInfo",
    "best_pattern",
    "commitment",
    "deal_order",
    "has_pass",
    "inert_options",
    "is_win",
    "is_win_counts",
    "legal_actions",
    "legal_actions_for",
    "make_options",
    "next_kind",
    "normalize_overrides",
    "overrides_of",
    "parse_script",
    "parse_tile",
    "parse_tiles",
    "play_script",
    "prev_kind",
    "project",
    "ready_value",
    "ready_waits",
    "reduce",
    "replay_json",
    "run_script",
    "seed_to_int",
    "settle",
    "shuffled_wall",
    "start",
    "step",
    "tile_name",
    "tile_zh",
    "tiles_str",
    "to_counts",
    "verify",
    "view_of",
    "wait_kinds",
    "waits",
]
