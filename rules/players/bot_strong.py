"""The strong bot: each legal move valued by sampling the seat's own future from the unseen tiles.

The decisions read the hand with the exact shanten (`rules.players.shanten`: which discards keep
the hand closest to ready, whether a 碰 or a gang costs steps); the sampled playouts use the
cheaper approximate one. For every candidate (each discard, 碰 or pass, a gang) the bot takes the 13-tile hand it would
keep and plays it forward on sampled futures: each sample is a random order of the tiles the
seat has not seen (108 minus its own hand and melds, every unclaimed discard and every meld it
sees; never another seat's hidden tiles), read four at a time as the seat's next draw and three other
players' discards. On a sample the hand keeps any draw that brings it closer to ready (the
approximate shanten of `rules.players.bot`, `approx_shanten`) and discards another tile; a step
whose draw does not help, it takes a 碰 of one of the three discards when that brings it closer
(`PLAYOUT_PONGS`: without it the samples undervalued pairs, which three seats' discards can make
pungs; +0.36 points/round in paired runs, benchmarks/README.md session 13); once ready it waits, winning by
自摸 on a wait it draws, and on another's discard when §4 allows it (a pattern above 平胡, or a
通行证). The same samples value every candidate (common random numbers), so the comparison is
much sharper than each value.

A sample's value counts what the seat would be paid: the hand (pattern + 自摸 + 报听 bonuses),
its chickens (paid only if ready at the end: 3 × its units), its 豆, 查叫 at 荒庄 when ready and its
cost when not, and 包鸡 on its exposed 幺鸡/乌骨鸡 when it is not ready. The round can end on any
step by another player's win (a fixed hazard per step). Around the samples: releasing the first
幺鸡/乌骨鸡 earns its 冲锋 value when unclaimed and risks a 碰 (责任鸡, and the claimer's chickens)
by the live pairs; a gang scores as a 豆 and is the 通行证; 报听 adds its bonus. Each discard is
charged the deal-in estimate of `rules.players.danger` (measured on bot play: who is likely
ready, whether a win on the tile is allowed, what it pays, chickens included; what the
opponent's discards near the tile say only under `DANGER_READING`, off): the payment,
plus the chance of it times what the round ending now costs the hand (its sampled value less
its value at an end now), so a valuable hand pushes and a poor one gives way. When every discard
that keeps the hand closest to ready is dangerous (`SAFE_FROM`), the safest other tile is a
candidate too: a step back to safety, taken only under the gate below.

Near ready the samples do not overrule `normal`'s discard (`rules.players.bot.greedy_discards`)
lightly: another discard is taken only when, on the shared samples, it beats normal's best by
more than `NORMAL_GATE` standard errors of the per-sample difference. Letting the sample means
decide alone made 40 % of those discards differ from normal's and lost to it (issue 24,
benchmarks/README.md session 8: +0.90 points/round, CI +0.28…+1.53, in a paired run).

A discard when none leaves the hand one step from ready (`GREEDY_FROM`) is not sampled: it takes
`normal`'s choice (`rules.players.bot.greedy_discards`), the safest of those, or folds to a safer
tile when the deal-in cost it saves is worth the steps it loses (`FAR_STEP_COST`). Those were the slowest decisions (cold
caches early in a round) and, against the exact-shanten `normal`, the samples chose worse than
it (issue 24: benchmarks/README.md, session 5).

A 碰 is also taken by a rule, unsampled, when it brings the hand nearer to ready counting a
大对子 route `PUNG_ROUTE` steps nearer than it is (`rules.players.routes`: the all-pungs
distance): a 大对子 pays 5 and wins on any discard where a 平胡 needs a 通行证, and its pungs come
by 碰 from three seats. `normal` takes only a 碰 that lowers the shanten, and the samples, whose
playouts steer to no pattern, rarely favoured one that did not (issue 24, benchmarks/README.md
session 11: +0.47 points/round in a paired run).

Decisions read the seat's `rules.view.SeatView` alone (its own hand and the public record:
discards, melds, declarations, the dealer; another seat's 暗杠 tile is not in it), and are
deterministic from the seed.
"""

from __future__ import annotations

import random
from collections import OrderedDict
from dataclasses import dataclass
from functools import lru_cache

from rules.actions import Action
from rules.chickens import chongfeng_value, known_chickens, standing_values
from rules.hand import is_win_counts, wait_mask
from rules.legality import may_declare
from rules.options import Pattern, RuleOptions
from rules.patterns import Meld, best_pattern, has_pass
from rules.players import shanten as exact
from rules.players.bot import NEG, RowInfo, greedy_discards, keep_value, row_info, row_infos
from rules.players.bot import approx_best_discards as best_discards
from rules.players.bot import approx_shanten as shanten
from rules.players.danger import DangerReader
from rules.players.danger import unseen_counts as unseen_counts  # re-exported
from rules.players.routes import best_pungs_distance, pungs_distance
from rules.round import Round
from rules.tiles import COPIES, NUM_KINDS, WUGUJI
from rules.view import SeatView, legal_actions_for, view_of
from rules.wall import seed_to_int

# HAZARD … FLIP_UNITS, the FAR_ constants, the sample counts, LEADERS, NORMAL_GATE, SAFE_FROM and
# GREEDY_FROM were re-measured after the 碰 rule, each moved both ways: none gained on two seeds
# (benchmarks/README.md session 12), so they stay as tuned before it.
HAZARD = 0.06  # chance per step (one own draw and three discards) that another player wins
# In the playouts a hand not ready takes a 碰 of another's (sampled) discard when it brings the
# hand nearer to ready, as `answer` mostly does (False: only its own draws move it).
PLAYOUT_PONGS = True
COLLECTORS = 4.0  # 包鸡 weight: more than the 1-2 players paid, the samples being optimistic
CLAIM_FACTOR = 0.8  # how often a seat that could 碰 a released chicken does
DRAW_OTHERS = 1.5  # players on the other side of a 查叫 at 荒庄, on average
OTHER_READY_COST = 3.0  # 查叫 + chickens a non-ready seat pays one ready player at 荒庄 (units)
FLIP_UNITS = 0.5  # expected 翻牌鸡 units of a hand (14 tiles, one kind in 27)
# the deal-in estimate (`rules.players.danger`) counts this much (2.0 over 1.5: −0.22 pp deal-in,
# points unchanged, over 2,000 paired deals; benchmarks/README.md session 11)
DEAL_IN_WEIGHT = 2.0
# the deal-in estimate reads a 平胡 wait by the opponent's discards near the tile
# (`rules.players.danger.READING`; False: by the tile's rank and copies alone). On, −0.23 pp
# deal-in (CI −0.41…−0.05) for −0.02 points/round (CI −0.07…+0.03) pooled over 3,000 paired
# deals, and on the arena's 4,000 guiyang deals (seed 2412) −0.19 pp for −0.05 points/round
# (benchmarks/README.md session 12): a trade, not a gain, so it stays off.
DANGER_READING = False
# Far from ready (`GREEDY_FROM`) a discard that is safer than `normal`'s choice is taken when
# what it saves in expected deal-in cost beats `FAR_STEP_COST` per step it costs the hand; the
# round ending on our discard there loses `FAR_END_LOSS` (units of 平胡) besides the payment.
FAR_STEP_COST = 1.0
FAR_OFF_COST = 0.5  # leaving `normal`'s tie-break (connected tiles kept) costs this much
FAR_END_LOSS = 1.0
FAR_DANGER_FLOOR = 0.02  # below this expected cost no discard is worth weighing for safety
# A gang may leave a hand not yet ready this many steps further (a 豆, the pass): 9 takes every
# gang of a hand not ready (+0.06 points/round in a paired arena run); a ready hand takes only
# one that keeps it ready.
GANG_SLACK = 9
# Where every 豆 scores whoever wins (chuan, `dou_need_ready` false), a 豆 is worth 1-6 平胡
# whether or not the hand gets ready: a gang is then taken even when it leaves the hand this
# many steps further from ready (or breaks a ready hand).
FREE_DOU_SLACK = 9
SAMPLES = 12  # first-stage samples per decision
MORE_SAMPLES = 28  # extra samples for the leading candidates
LEADERS = 4
# near ready, a discard other than `normal`'s choice is taken only when, on the shared samples,
# it beats that choice by more than this many standard errors of their difference (0: off)
NORMAL_GATE = 1.0
# near ready, when every best discard has at least this deal-in chance (`rules.players.danger`),
# the safest other tile is valued too, so the samples may weigh a step back against the risk
# (0: off)
SAFE_FROM = 0.06
GREEDY_FROM = 2  # discards leaving the hand this far from ready or more: `normal`'s choice
FAR_SAMPLES = 8  # the same, two or more steps from ready
FAR_MORE_SAMPLES = 16
# A 碰 is taken when it brings the hand nearer to ready with a 大对子 route counted
# `PUNG_ROUTE` steps nearer than it is (`rules.players.routes`): the least of the exact shanten
# and the all-pungs distance less `PUNG_ROUTE`, before and after (0: off). 1.5 takes a 碰 that
# leaves the all-pungs distance at most two steps above the shanten before it (issue 24,
# benchmarks/README.md session 11: +0.49 points/round in a paired run; 1.0 gave +0.27, 2.5 less).
PUNG_ROUTE = 1.5
# the rule above applies to a hand at least this far from ready: a ready hand is not broken for
# the route (+0.03 points/round over 2,000 paired deals)
PONG_FROM = 1
# The hand states are shared by every decision of the process (a server's strong bots and its
# 托管 seats): an LRU of this many entries (~0.6 KB each), so a server's memory stays bounded.
STATE_CACHE = 8_192
ROW_CACHE = 1 << 13  # rows kept by `_row_plus`


def discard_order(v: SeatView) -> list[tuple[int, int]]:
    """Every discard of the round as (seat, index in its row), in the order they were made,
    replayed from the public record. The dealer discards first; after a discard the next seat
    does, unless the discard was claimed by a 碰 or 明杠 (the claimer's meld of that tile from
    that seat, 补杠 or not), when the claimer does. A claimed discard with no such meld was won
    on: the round ended there."""
    rows, melds = v.discards, v.melds
    taken = [0, 0, 0, 0]
    used: set[tuple[int, int]] = set()
    order: list[tuple[int, int]] = []
    seat = v.dealer
    while taken[seat] < len(rows[seat]):
        i = taken[seat]
        taken[seat] += 1
        order.append((seat, i))
        d = rows[seat][i]
        if not d.claimed:
            seat = (seat + 1) % 4
            continue
        claim = next(
            (
                (s, j)
                for s in range(4)
                for j, m in enumerate(melds[s])
                if m.from_seat == seat and m.tile == d.tile and (s, j) not in used
            ),
            None,
        )
        if claim is None:
            break
        used.add(claim)
        seat = claim[0]
    return order


def first_chickens(v: SeatView) -> tuple[frozenset[int], frozenset[int]]:
    """(the standing chicken kinds, 幺鸡 and 乌骨鸡 where the options have them, already
    discarded once this round; those whose first discard is the viewer's and unclaimed: its
    冲锋鸡 candidates)."""
    standing = standing_values(v.opts)
    done = frozenset(k for k in standing for row in v.discards for d in row if d.tile == k)
    if not done:
        return done, frozenset()
    rows = v.discards
    firsts: list[tuple[int, int, int]] = []  # (kind, seat, row index) of each kind's first
    for s, i in discard_order(v):
        k = rows[s][i].tile
        if k in done and all(k != f[0] for f in firsts):
            firsts.append((k, s, i))
    if v.opts.chongfeng_scope == "round":  # only the round's first chicken discard (§13.4)
        firsts = firsts[:1]
    mine = frozenset(k for k, s, i in firsts if s == v.viewer and not rows[s][i].claimed)
    return done, mine


# ----- hand states: shanten, useful draws, waits (shared by every decision) -----


class _State:
    """A 13-tile hand (melds counting 3) with what the samples ask of it."""

    __slots__ = (
        "tok",
        "hand",
        "melds",
        "keep",
        "s",
        "mask",
        "nxt",
        "values",
        "ron",
        "pinghu",
        "ready_value",
        "pongs",
        "pongs_known",
        "pong_nxt",
    )

    def __init__(
        self,
        tok: int,
        hand: tuple[int, ...],
        melds: tuple[tuple[int, int], ...],
        keep: frozenset[int],
    ) -> None:
        self.tok = tok  # the table options' token (`options_token`)
        self.hand = hand
        self.melds = melds  # (kind, size) per meld
        self.keep = (
            keep  # the chicken kinds a sampled discard keeps (`rules.players.bot.chicken_kinds`)
        )
        self.s = 0  # shanten, 0 = ready
        self.mask = 0  # ready: the waits; otherwise the kinds whose draw lowers the shanten
        # per useful draw: the best discard after it, and the shanten then, as drop * 16 + s + 1
        # (the next state is looked up in the LRU: no state holds another alive)
        self.nxt: dict[int, int] = {}
        self.values: dict[int, int] = {}
        self.ron = 0  # the waits it may win on another's discard
        self.pinghu = 0  # the waits that win as a 平胡
        self.ready_value = 0
        self.pongs = 0  # of `pongs_known`, the kinds whose 碰 brings it nearer to ready
        self.pongs_known = 0
        self.pong_nxt: dict[int, int] = {}  # as `nxt`, after a 碰


_STATES: OrderedDict[tuple[object, ...], _State] = OrderedDict()
_TOKENS: OrderedDict[RuleOptions, int] = OrderedDict()
_TOKEN_CACHE = 32
_next_token = 0


def options_token(opts: RuleOptions) -> int:
    """A small int standing for the options' value in the state keys: equal options get the
    same token (the key is the value, hashed once per decision, never `id(opts)`, which a freed
    object's successor may reuse). A token dropped from this small LRU is never given again."""
    global _next_token
    tok = _TOKENS.get(opts)
    if tok is not None:
        _TOKENS.move_to_end(opts)
        return tok
    _next_token += 1
    _TOKENS[opts] = _next_token
    if len(_TOKENS) > _TOKEN_CACHE:
        _TOKENS.popitem(last=False)
    return _next_token


def cache_sizes() -> dict[str, int]:
    """Entries in the strong bot's process-wide caches (for benchmarks and tests)."""
    return {
        "states": len(_STATES),
        "rows": _row_plus.cache_info().currsize,
        "row_info": row_info.cache_info().currsize,
    }


def _state(
    opts: RuleOptions,
    tok: int,
    hand: tuple[int, ...],
    melds: tuple[tuple[int, int], ...],
    pass_ok: bool,
    keep: frozenset[int],
    s: int | None = None,
) -> _State:
    """The cached state of a hand; `s`, when the caller knows it, is its shanten."""
    key = (hand, melds, pass_ok, keep, tok)  # tok: the options by value (`options_token`)
    st = _STATES.get(key)
    if st is not None:
        _STATES.move_to_end(key)
        return st
    if len(_STATES) >= STATE_CACHE:
        _STATES.popitem(last=False)
    st = _State(tok, hand, melds, keep)
    n = len(melds)
    held = list(hand)
    for k, size in melds:
        held[k] += size
    waits = wait_mask(hand, n)
    mask = 0
    if waits:
        meld_kinds = [k for k, _ in melds]
        work = list(hand)
        for k in range(NUM_KINDS):
            if waits >> k & 1 and held[k] < COPIES:
                work[k] += 1
                found = best_pattern(opts, work, meld_kinds)
                work[k] -= 1
                if found is None:
                    continue
                mask |= 1 << k
                st.values[k] = found[1]
                if found[0] is Pattern.PINGHU:
                    st.pinghu |= 1 << k
                if found[0] is not Pattern.PINGHU or pass_ok:
                    st.ron |= 1 << k
        st.ready_value = max(st.values.values(), default=0)
    if mask:
        st.s = 0
        st.mask = mask
    else:
        st.s = max(1, s if s is not None else shanten(list(hand), n))
        st.mask = _useful(hand, melds, st.s, held)
    _STATES[key] = st
    return st


@lru_cache(maxsize=ROW_CACHE)
def _row_plus(row: tuple[int, ...]) -> tuple[tuple[int, int, int] | None, ...]:
    """Per rank, the suit's (plain, eyed, pairs) values after drawing one more of it; None for
    a rank with no held tile within two ranks (such a draw cannot lower the shanten)."""
    out: list[tuple[int, int, int] | None] = []
    work = list(row)
    for r in range(9):
        if row[r] >= COPIES or not any(row[max(0, r - 2) : r + 3]):
            out.append(None)
            continue
        work[r] += 1
        info = row_info(tuple(work))
        work[r] -= 1
        out.append((info.plain, info.eyed, info.pairs))
    return tuple(out)


def _useful(
    hand: tuple[int, ...], melds: tuple[tuple[int, int], ...], s: int, held: list[int]
) -> int:
    """The kinds whose draw lowers the hand's shanten. Drawing a kind changes one suit, so
    the other two suits' values are computed once; the 14-tile hand's shanten stands for the
    best discard's (it can be one too low, rarely: the sample then simply keeps a tile)."""
    n_melds = len(melds)
    rows = (hand[0:9], hand[9:18], hand[18:27])
    i0, i1, i2 = row_info(rows[0]), row_info(rows[1]), row_info(rows[2])
    mask = (
        _suit_useful(rows[0], *_others(i1, i2), n_melds, s)
        | _suit_useful(rows[1], *_others(i0, i2), n_melds, s) << 9
        | _suit_useful(rows[2], *_others(i0, i1), n_melds, s) << 18
    )
    for k, _ in melds:  # a kind held four times counting its meld is not drawn
        if held[k] >= COPIES:
            mask &= ~(1 << k)
    return mask


def _others(o1: RowInfo, o2: RowInfo) -> tuple[int, int, int]:
    """What `_suit_useful` asks of the two other suits: their plain values, what one eye
    among them adds, their pairs."""
    gain = max(
        0,
        o1.eyed - o1.plain if o1.eyed > NEG else 0,
        o2.eyed - o2.plain if o2.eyed > NEG else 0,
    )
    return o1.plain + o2.plain, gain, o1.pairs + o2.pairs


@lru_cache(maxsize=ROW_CACHE)
def _suit_useful(
    row: tuple[int, ...], o_plain: int, o_gain: int, o_pairs: int, n_melds: int, s: int
) -> int:
    """The ranks of `row` whose draw lowers the shanten `s` of a hand with `n_melds` melds
    whose two other suits give `_others` (cached: states share suits and their neighbours'
    values, and a new state asks this of three suits)."""
    cap = 9 - 2 * n_melds
    base = 8 - 2 * n_melds
    mask = 0
    for r, plus in enumerate(_row_plus(row)):
        if plus is None:
            continue
        plain, eyed, pairs = plus
        best = o_plain + plain + o_gain
        if eyed > NEG and o_plain + eyed > best:
            best = o_plain + eyed
        after = base - (best if best < cap else cap)
        if not n_melds and 6 - o_pairs - pairs < after:
            after = 6 - o_pairs - pairs
        if after < s:
            mask |= 1 << r
    return mask


def _advance(opts: RuleOptions, st: _State, t: int, pass_ok: bool) -> _State:
    """The state after drawing the useful tile `t` and discarding the best other tile."""
    packed = st.nxt.get(t)
    work = list(st.hand)
    work[t] += 1
    if packed is not None:
        drop, low = packed >> 4, (packed & 15) - 1
        work[drop] -= 1
        return _state(opts, st.tok, tuple(work), st.melds, pass_ok, st.keep, low)
    infos = row_infos(work)
    low, cands = best_discards(work, len(st.melds), infos)
    drop, keep = -1, 99
    for c in cands:
        if c != t:
            score = keep_value(c, infos[c // 9], st.keep)
            if score < keep:
                drop, keep = c, score
    if drop < 0:
        drop = cands[0]
    work[drop] -= 1
    st.nxt[t] = drop << 4 | (low + 1)
    return _state(opts, st.tok, tuple(work), st.melds, pass_ok, st.keep, low)


def _pong_gain(st: _State, k: int) -> bool:
    """Whether a 碰 of `k` (`st` not ready, holding a pair of it) and the best discard then
    leave the hand nearer to ready (known once per state and kind)."""
    bit = 1 << k
    if not st.pongs_known & bit:
        st.pongs_known |= bit
        work = list(st.hand)
        work[k] -= 2
        n = len(st.melds)
        low, _ = best_discards(work, n + 1)
        if low < st.s:
            st.pongs |= bit
    return bool(st.pongs & bit)


def _pong(opts: RuleOptions, st: _State, t: int, pass_ok: bool) -> _State:
    """The state after a 碰 of `t` (`_pong_gain`) and the best discard then."""
    work = list(st.hand)
    work[t] -= 2
    melds = tuple(sorted((*st.melds, (t, 3))))
    packed = st.pong_nxt.get(t)
    if packed is not None:
        work[packed >> 4] -= 1
        return _state(opts, st.tok, tuple(work), melds, pass_ok, st.keep, (packed & 15) - 1)
    infos = row_infos(work)
    low, cands = best_discards(work, len(melds), infos)
    drop = min(cands, key=lambda c: (keep_value(c, infos[c // 9], st.keep), c))
    work[drop] -= 1
    st.pong_nxt[t] = drop << 4 | (low + 1)
    return _state(opts, st.tok, tuple(work), melds, pass_ok, st.keep, low)


def _pong_of(opts: RuleOptions, st: _State, tiles: tuple[int, int, int], pass_ok: bool) -> _State:
    """`st` after the first 碰 the three others' discards `tiles` offer that brings it nearer
    to ready (`st` itself when none does)."""
    hand = st.hand
    for u in tiles:
        if hand[u] >= 2 and _pong_gain(st, u):
            return _pong(opts, st, u, pass_ok)
    return st


# ----- values -----


@dataclass(slots=True)
class _Stakes:
    """What the seat's outcomes are worth, in units, for one candidate."""

    zimo_extra: int  # added to the pattern on a 自摸 (per payer)
    ron_extra: int  # added to the pattern on a discard win
    zimo_mult: int  # 2 where a 自摸 doubles
    yikouer: int  # added to a 平胡 on a 自摸 (一扣二, per payer)
    ready_gain: float  # chickens + 豆 collected when ready (or winning) at another's win
    exposed_cost: float  # 包鸡 paid when not ready at another's win
    draw_ready: float  # 荒庄, ready: collected besides the ready value
    draw_unready: float  # 荒庄, not ready: paid


def _chongfeng_extra(opts: RuleOptions, standing: dict[int, int], chongfeng: set[int]) -> int:
    """What the seat's 冲锋 tiles add to their standing value (not gold)."""
    return sum(chongfeng_value(opts, k, False) - standing[k] for k in chongfeng if k in standing)


def _flip_units(opts: RuleOptions) -> float:
    """The expected units of a hand's chickens made at the flip (翻牌鸡/摇摆鸡, 本鸡): `FLIP_UNITS`
    per flip kind. chuan's pay whether or not the seat is ready, the same for every move."""
    if opts.chickens == "chuan":
        return 0.0
    kinds = {"next": 1, "both": 2, "none": 0}[opts.flip_chickens] + opts.benji
    return FLIP_UNITS * kinds


def _chicken_units(
    opts: RuleOptions, known: dict[int, int], counts: list[int], chongfeng: set[int]
) -> float:
    """The seat's known chicken units (standing and 星期鸡 kinds in its hand, melds and own
    discards), its 冲锋 extras, and the flip's expectation."""
    units = float(sum(each * counts[k] for k, each in known.items()))
    units += _chongfeng_extra(opts, standing_values(opts), chongfeng)
    return units + _flip_units(opts)


def _exposed_units(opts: RuleOptions, exposed: list[int], chongfeng: set[int]) -> float:
    """The units of 包鸡 (guiyang: exposed standing chickens) a seat pays when not ready."""
    if opts.chickens != "guiyang" or not opts.chickens_need_ready:
        return 0.0
    standing = standing_values(opts)
    return sum(each * exposed[k] for k, each in standing.items()) + _chongfeng_extra(
        opts, standing, chongfeng
    )


def _dou_units(opts: RuleOptions, melds: list[Meld]) -> float:
    total = 0.0
    for m in melds:
        if m.dou == "dian":
            total += opts.dou_dian
        elif m.dou == "men":
            total += 3 * opts.dou_men
        elif m.dou == "zhuanwan":
            total += 3 * opts.dou_zhuanwan
    return total


def _clearly_better(a: list[float], b: list[float], z: float) -> bool:
    """Whether `a` beats `b` on the same samples by more than `z` standard errors of their
    per-sample difference (common random numbers: the difference is much less noisy than
    either value)."""
    n = len(a)
    d = [x - y for x, y in zip(a, b, strict=True)]
    mean = sum(d) / n
    if n < 2:
        return mean > 0
    var = sum((x - mean) ** 2 for x in d) / (n - 1)
    return mean > z * (var / n) ** 0.5


def _claim_chance(unseen: int, pool: int) -> float:
    """The chance that some opponent holds two of the `unseen` live copies (so can 碰)."""
    if unseen < 2 or pool <= 0:
        return 0.0
    f = min(1.0, 13 / pool)  # a live copy sits in a given opponent's hand
    p_one = 1 - (1 - f) ** unseen - unseen * f * (1 - f) ** (unseen - 1)
    return 1 - (1 - p_one) ** 3


class StrongBot:
    """`StrongBot(seed).choose_for(view)` → one of `legal_actions_for(view)`, decided from one
    seat's view alone; `choose(round, seat)` is `choose_for(view_of(round, seat))`."""

    def __init__(self, seed: int | str = 0) -> None:
        self.rng = random.Random(seed_to_int(seed))

    def choose(self, r: Round, seat: int) -> Action:
        return self.choose_for(view_of(r, seat))

    def choose_for(self, v: SeatView) -> Action:
        """The move for the view's seat; ValueError if it has nothing to do."""
        if v.on_turn:
            return _Context(v, self.rng).turn()
        if v.offered:
            return _Context(v, self.rng).answer()
        raise ValueError(f"seat {v.viewer} has nothing to do now")


@dataclass(frozen=True, slots=True)
class Appraisal:
    """One legal move as the strong bot sees it: its estimated `value` (units, as the bot
    compares moves), and the chances, on the same samples, that the hand is `ready` before the
    round ends and that it `wins` (both counted only while nobody else has won)."""

    action: Action
    value: float
    ready: float
    win: float


def appraise(v: SeatView, seed: int | str = 0) -> list[Appraisal]:
    """Every legal move of the view's seat with the strong bot's estimate of it, best first;
    empty when the seat has nothing to do. Deterministic from `seed`; reads `v` alone.
    (For hints: `rules.players.hints`. The bot's own choice may differ where it uses a rule, not a
    value: it always 胡s, gangs by `GANG_SLACK`/`FREE_DOU_SLACK`, takes `normal`'s discard far
    from ready, and near ready keeps `normal`'s discard unless another is clearly better
    (`NORMAL_GATE`), where these values rank by their means alone.)"""
    if v.viewer is None or v.hand is None or not (v.on_turn or v.offered):
        return []
    ctx = _Context(v, random.Random(seed_to_int(seed)))
    return sorted(ctx.appraise(), key=lambda a: -a.value)


class _Context:
    """One decision: the view, the unseen tiles, the shared samples."""

    def __init__(self, v: SeatView, rng: random.Random) -> None:
        assert v.viewer is not None and v.hand is not None
        self.v = v
        self.seat = seat = v.viewer
        self.hand = v.hand
        self.melds = v.own_melds
        self.declared = v.declared[seat]
        self.discards_made = v.discard_count(seat)
        self.opts = v.opts
        self.tok = options_token(v.opts)
        self.rng = rng
        self.unseen = unseen_counts(v)
        self.pool = [k for k in range(NUM_KINDS) for _ in range(self.unseen[k])]
        self.steps = max(0, min(v.wall_left // 4, len(self.pool) // 4))
        self.samples: list[list[int]] = []
        # Each seat's discards still in its row (a claimed one went to its claimer).
        self.live_discards = [[d.tile for d in row if not d.claimed] for row in v.discards]
        self.own_discards = self.live_discards[seat]
        self.first_done, self.chongfeng = first_chickens(v)
        self.known = known_chickens(self.opts, v.weekday)  # kind → units per tile
        self.keep = frozenset(self.known)
        self.standing = standing_values(self.opts)
        unit = self.opts.patterns.pinghu
        self.unit = unit
        self._danger: DangerReader | None = None
        self.decl_bonus = 0
        if self.opts.declare == "baoting":
            self.decl_bonus = self.opts.baoting_bonus
        elif self.opts.declare == "tianting":
            self.decl_bonus = self.opts.tianting_value

    @property
    def danger(self) -> DangerReader:
        """The deal-in estimate of the view's tiles (made when first asked for)."""
        if self._danger is None:
            self._danger = DangerReader(self.v, self.unseen, reading=DANGER_READING)
        return self._danger

    # --- samples ---

    def _sample(self, k: int) -> list[list[int]]:
        while len(self.samples) < k:
            self.samples.append(self.rng.sample(self.pool, 4 * self.steps))
        return self.samples[:k]

    # --- the decisions ---

    def turn(self) -> Action:
        v = self.v
        seat, hand, melds = self.seat, self.hand, self.melds
        if not v.after_pong and is_win_counts(hand, len(melds)):
            return Action(seat, "hu")
        if self.declared and v.drawn is not None:
            return Action(seat, "discard", v.drawn)
        low, _ = exact.best_discards(hand, len(melds))
        if not v.after_pong and not self.declared and v.wall_left > 0:
            gang = self._turn_gang(low, self._gang_slack(low))
            if gang is not None:
                return Action(seat, "gang", gang)
        if low >= GREEDY_FROM:  # far from ready: `normal`'s choice unless a safer one
            choice = self._far_discard(low)
        else:
            choice = self._best_discard(list(hand), list(melds))
        if self.discards_made == 0 and may_declare(
            self.opts,
            hand,
            melds,
            choice,
            after_pong=v.after_pong,
            any_claim=v.any_claim,
            discards=0,
            declared=self.declared,
        ):
            return Action(seat, "ready", choice)
        return Action(seat, "discard", choice)

    def _far_discard(self, low: int) -> int:
        """Far from ready: one of `normal`'s best discards (`greedy_discards`), the safest of
        them when some is dangerous; another tile is taken instead when the expected deal-in
        cost it saves beats `FAR_OFF_COST` and `FAR_STEP_COST` a step it costs the hand
        (folding)."""
        v, hand, n = self.v, self.hand, len(self.melds)
        cands = greedy_discards(v, hand, n, self.keep)
        unit = self.unit

        def cost(k: int) -> float:
            d = self.danger.of(k)
            return DEAL_IN_WEIGHT * (d.payment + d.chance * FAR_END_LOSS * unit)

        costs = {k: cost(k) for k in cands}
        least = min(costs.values())
        if least < FAR_DANGER_FLOOR * unit:
            safe = [k for k in cands if costs[k] < FAR_DANGER_FLOOR * unit]
            return safe[0] if len(safe) == 1 else safe[self.rng.randrange(len(safe))]
        best = min(cands, key=lambda k: costs[k])
        score = least
        for k, after in exact.discard_shantens(hand, n).items():
            if k in costs:
                continue
            s = cost(k) + (FAR_OFF_COST + FAR_STEP_COST * (after - low)) * unit
            if s < score:
                best, score = k, s
        return best

    def _gang_slack(self, low: int) -> int:
        """How many steps further from ready a gang may leave a hand now `low` steps away."""
        if not self.opts.dou_need_ready:
            return FREE_DOU_SLACK
        return GANG_SLACK if low > 0 else 0

    def _turn_gang(self, low: int, slack: int) -> int | None:
        """A 暗杠 or 补杠 that leaves the hand at most `slack` steps further from ready: a 豆
        and a 通行证."""
        hand = self.hand
        n = len(self.melds)
        for k in range(NUM_KINDS):
            if hand[k] == 4:
                after = list(hand)
                after[k] = 0
                if exact.shanten(after, n + 1) <= low + slack:
                    return k
        for m in self.melds:
            if m.kind == "pong" and hand[m.tile]:
                after = list(hand)
                after[m.tile] -= 1
                if exact.shanten(after, n) <= low + slack:
                    return m.tile
        return None

    def answer(self) -> Action:
        v = self.v
        seat, acts = self.seat, v.offered
        tile = v.claim_tile
        void = v.opts.pass_win == "penalty" and v.passed
        if "hu" in acts and not void:
            return Action(seat, "hu")
        if tile is None or not ({"pong", "gang"} & set(acts)):
            return Action(seat, "pass")
        n = len(self.melds)
        hand = list(self.hand)
        before = exact.shanten(hand, n)
        if "gang" in acts:
            after = list(hand)
            after[tile] -= 3
            if exact.shanten(after, n + 1) <= before + self._gang_slack(before):
                return Action(seat, "gang")
        if "pong" in acts:
            after = list(hand)
            after[tile] -= 2
            low, _ = exact.best_discards(after, n + 1)
            if PUNG_ROUTE and before >= PONG_FROM and self._pong_on_route(hand, before, low, after):
                return Action(seat, "pong")
            if low > before:
                return Action(seat, "pass")
            melds = [*self.melds, Meld("pong", tile, None)]
            _, pong_value = self._rank(after, melds, need_value=True)
            pass_value = self._value_of_hand(hand, list(self.melds), discarded=None)
            if pong_value > pass_value:
                return Action(seat, "pong")
        return Action(seat, "pass")

    def _pong_on_route(self, hand: list[int], before: int, low: int, after: list[int]) -> bool:
        """Whether a 碰 brings the hand nearer to ready counting a 大对子 route `PUNG_ROUTE`
        steps nearer (`hand`: 13 tiles, exact shanten `before`; `after`: less the pair, its
        best discard reaching shanten `low`)."""
        n = len(self.melds)
        now = min(before, pungs_distance(hand, n) - PUNG_ROUTE)
        then = min(low, best_pungs_distance(after, n + 1) - PUNG_ROUTE)
        return then < now

    # --- valuing candidates ---

    def _best_discard(self, hand: list[int], melds: list[Meld]) -> int:
        return self._rank(hand, melds, need_value=False)[0]

    def _rank(self, hand: list[int], melds: list[Meld], need_value: bool) -> tuple[int, float]:
        """The best discard from a 14-tile hand (melds counting 3) and its value. Every discard
        that keeps the hand closest to ready is valued on the first samples, and the `LEADERS`
        again on more. (A screen by live useful tiles that kept only five of them cost about
        +0.7 to +1.4 points/round in paired arena runs: the samples judge better.) Far from
        ready the samples are fewer: those decisions matter less and cost the most. A leader
        that is not one of `normal`'s choices must beat the best of those clearly
        (`NORMAL_GATE`, `_clearly_better`); the value returned is the chosen one's mean."""
        low, cands = exact.best_discards(hand, len(melds))
        if SAFE_FROM and not need_value:
            cands = self._with_safest(hand, len(melds), cands)
        if len(cands) == 1 and not need_value:
            return cands[0], 0.0
        first, more = (SAMPLES, MORE_SAMPLES) if low <= 1 else (FAR_SAMPLES, FAR_MORE_SAMPLES)
        scored = sorted(
            ((self._value_after(hand, melds, k, first), k) for k in cands), reverse=True
        )
        leaders = [k for _, k in scored[:LEADERS]]
        if not (len(leaders) > 1 or need_value):
            return scored[0][1], scored[0][0]
        n = first + more
        rows = {k: self._samples_after(hand, melds, k, n) for k in leaders}
        means = {k: sum(xs) / n for k, xs in rows.items()}
        best = max(leaders, key=lambda k: (means[k], k))
        if NORMAL_GATE:
            greedy = [k for k in greedy_discards(self.v, hand, len(melds), self.keep) if k in cands]
            if greedy and best not in greedy:
                for k in greedy:
                    if k not in rows:
                        rows[k] = self._samples_after(hand, melds, k, n)
                        means[k] = sum(rows[k]) / n
                ref = max(greedy, key=lambda k: (means[k], k))
                if not _clearly_better(rows[best], rows[ref], NORMAL_GATE):
                    best = ref
        return best, means[best]

    def _with_safest(self, hand: list[int], n_melds: int, cands: list[int]) -> list[int]:
        """`cands` and, when each of them has a deal-in chance of `SAFE_FROM` or more, the
        safest other tile of the hand (the lowest chance; the lower kind on a tie)."""
        danger = self.danger
        if min(danger.of(k).chance for k in cands) < SAFE_FROM:
            return cands
        others = [k for k in range(NUM_KINDS) if hand[k] and k not in cands]
        if not others:
            return cands
        return [*cands, min(others, key=lambda k: (danger.of(k).chance, k))]

    def _value_after(self, hand: list[int], melds: list[Meld], k: int, n_samples: int) -> float:
        """The value of discarding `k` from the 14-tile `hand`."""
        after = list(hand)
        after[k] -= 1
        value, end = self._hand_values(after, melds, discarded=k, n_samples=n_samples)
        return value - self._deal_in_risk(k, value - end)

    def _samples_after(
        self, hand: list[int], melds: list[Meld], k: int, n_samples: int
    ) -> list[float]:
        """`_value_after` per sample (the deal-in charge, from the mean, on each)."""
        after = list(hand)
        after[k] -= 1
        evs, end = self._hand_samples(after, melds, discarded=k, n_samples=n_samples)
        value = sum(evs) / len(evs)
        risk = self._deal_in_risk(k, value - end)
        return [x - risk for x in evs]

    def _value_of_hand(
        self,
        hand13: list[int],
        melds: list[Meld],
        discarded: int | None,
        n_samples: int | None = None,
    ) -> float:
        """Mean value over the samples of keeping the 13-tile `hand13` (`discarded` is the tile
        just discarded to keep it, if any; `n_samples` defaults to `SAMPLES` + `MORE_SAMPLES`)."""
        return self._hand_values(hand13, melds, discarded, n_samples)[0]

    def _hand_values(
        self,
        hand13: list[int],
        melds: list[Meld],
        discarded: int | None,
        n_samples: int | None = None,
    ) -> tuple[float, float]:
        """(`_value_of_hand`, what the hand is worth if the round ended now by another's win:
        its chickens and 豆 when ready, 包鸡 when not)."""
        if n_samples is None:  # read at the call, so the module's constants can be varied
            n_samples = SAMPLES + MORE_SAMPLES
        evs, end = self._hand_samples(hand13, melds, discarded, n_samples)
        return sum(evs) / len(evs), end

    def _hand_samples(
        self,
        hand13: list[int],
        melds: list[Meld],
        discarded: int | None,
        n_samples: int,
    ) -> tuple[list[float], float]:
        """(the hand's value on each of the first `n_samples` samples, its value at an end
        now: see `_hand_values`)."""
        opts = self.opts
        v = self.v
        pass_ok = has_pass(opts, melds)
        meld_sig = tuple(sorted((m.tile, m.size) for m in melds))
        st0 = _state(opts, self.tok, tuple(hand13), meld_sig, pass_ok, self.keep)
        stakes = self._stakes(hand13, melds, discarded)
        declared = self.declared or (
            self.discards_made == 0
            and not v.any_claim
            and not v.after_pong
            and opts.declare != "none"
            and st0.s == 0
            and discarded is not None
        )
        decl = self.decl_bonus if declared else 0
        samples = self._sample(n_samples)
        steps = self.steps
        keep = 1 - HAZARD
        pongs = PLAYOUT_PONGS and not declared
        evs: list[float] = []
        for seq in samples:
            st = st0
            alive = 1.0
            ev = 0.0
            done = False
            for i in range(steps):
                t = seq[4 * i]
                if st.mask >> t & 1:
                    if st.s == 0:
                        units = st.values[t] + stakes.zimo_extra + decl
                        if st.pinghu >> t & 1:
                            units += stakes.yikouer
                        ev += alive * units * stakes.zimo_mult * 3
                        ev += alive * stakes.ready_gain
                        done = True
                        break
                    if not declared:
                        st = _advance(opts, st, t, pass_ok)
                elif pongs and st.s > 0:
                    st = _pong_of(
                        opts, st, (seq[4 * i + 1], seq[4 * i + 2], seq[4 * i + 3]), pass_ok
                    )
                if st.s == 0 and st.ron:
                    r = st.ron
                    hit = -1
                    for u in (seq[4 * i + 1], seq[4 * i + 2], seq[4 * i + 3]):
                        if r >> u & 1:
                            hit = u
                            break
                    if hit >= 0:
                        ev += alive * (st.values[hit] + stakes.ron_extra + decl + stakes.ready_gain)
                        done = True
                        break
                if st.s == 0:
                    ev += alive * HAZARD * stakes.ready_gain
                else:
                    ev -= alive * HAZARD * stakes.exposed_cost
                alive *= keep
            if not done:
                if st.s == 0:
                    ev += alive * (DRAW_OTHERS * st.ready_value + stakes.draw_ready)
                else:
                    ev -= alive * stakes.draw_unready
            evs.append(ev)
        end = stakes.ready_gain if st0.s == 0 else -stakes.exposed_cost
        return evs, end

    def _stakes(self, hand13: list[int], melds: list[Meld], discarded: int | None) -> _Stakes:
        opts = self.opts
        v = self.v
        counts = list(hand13)
        exposed = [0] * NUM_KINDS
        for m in melds:
            counts[m.tile] += m.size
            exposed[m.tile] += m.size
        mine = opts.discards_are_chickens  # 满堂鸡: own unclaimed discards count
        for k in self.own_discards:
            exposed[k] += 1
            counts[k] += mine
        chongfeng = set(self.chongfeng)
        claim_cost = 0.0
        if discarded is not None:
            exposed[discarded] += 1
            counts[discarded] += mine
            claim_cost = self._claim_cost(discarded, chongfeng)
        if not mine:  # a 冲锋 tile counts for its discarder all the same (§13 fine points)
            for k in chongfeng:
                counts[k] += 1
        units = _chicken_units(opts, self.known, counts, chongfeng)
        dou = _dou_units(opts, melds) if opts.dou_need_ready else 0.0
        exposed_cost = COLLECTORS * _exposed_units(opts, exposed, chongfeng) + claim_cost
        if opts.chickens_need_ready:
            ready_gain = 3 * units + dou - claim_cost
        else:  # every seat's chickens score at any win (chuan; §13.5)
            ready_gain = dou - claim_cost + 3 * (units - _flip_units(opts))
            exposed_cost -= 3 * (units - _flip_units(opts))
        draw_units = 0.0
        if opts.draw_chickens:  # 荒庄 has no flip: no 星期鸡 either
            draw_units = _chicken_units(opts, self.standing, counts, chongfeng) - _flip_units(opts)
        dealer = v.dealer == self.seat
        # 坐庄/连庄 (§13.14): 1 + the streak on a payment with the dealer.
        dealer_extra = 1 + v.streak if opts.dealer_scoring == "lianzhuang" else 0
        return _Stakes(
            zimo_extra=opts.zimo_bonus + (dealer_extra if dealer else 0),
            ron_extra=dealer_extra,
            zimo_mult=2 if opts.zimo_double else 1,
            yikouer=1 if opts.dealer_scoring == "yikouer" else 0,
            ready_gain=ready_gain,
            exposed_cost=exposed_cost,
            draw_ready=DRAW_OTHERS * draw_units - claim_cost,
            draw_unready=DRAW_OTHERS * OTHER_READY_COST * self.unit + claim_cost,
        )

    def _claim_cost(self, discarded: int, chongfeng: set[int]) -> float:
        """What discarding a chicken kind risks by a 碰 (the live pairs): a claimed chicken is
        the claimer's, three of its units paid by us if the claimer is ready, and for the first
        standing chicken discarded, guiyang's 责任鸡 (`zeren_extra` per 1s, twice per 8p). An
        unclaimed first one is a 冲锋鸡: it joins `chongfeng`."""
        each = self.known.get(discarded, 0)
        if not each:
            return 0.0
        o = self.opts
        p = _claim_chance(self.unseen[discarded], len(self.pool)) * CLAIM_FACTOR
        standing = self.standing.get(discarded, 0)
        first = bool(standing) and discarded not in self.first_done
        if first and not (o.chongfeng_scope == "round" and self.first_done):
            chongfeng.add(discarded)
        zeren = 0.0  # per unit of the tile, as the other two terms
        if first and o.chickens == "guiyang":
            zeren = o.zeren_extra * (2 if discarded == WUGUJI else 1) / each
        return p * each * (3 * 0.6 + zeren * 0.6 + 3 * 0.5)

    def _deal_in_risk(self, k: int, at_stake: float) -> float:
        """The expected cost of discarding `k` into another seat's win (`rules.players.danger`):
        the payment, and the chance of it times what the round ending now loses (`at_stake`:
        the hand's value played on less its value at an end now; never negative)."""
        d = self.danger.of(k)
        return DEAL_IN_WEIGHT * (d.payment + d.chance * max(0.0, at_stake))

    # --- appraising every move (hints; additive: the decisions above do not use it) ---

    def appraise(self) -> list[Appraisal]:
        v = self.v
        hand, melds = list(self.hand), list(self.melds)
        n = SAMPLES + MORE_SAMPLES
        out: list[Appraisal] = []
        discards: list[Action] = []
        seen: set[tuple[str, int | None]] = set()
        for a in legal_actions_for(v):
            key = (a.act, a.tile)
            if key in seen:
                continue
            seen.add(key)
            if a.act == "hu":
                out.append(Appraisal(a, self._win_value(), 1.0, 1.0))
            elif a.act in ("discard", "ready") and a.tile is not None:
                discards.append(a)
            elif a.act == "gang" and v.on_turn and a.tile is not None:
                after, new = list(hand), list(melds)
                pong = next(
                    (i for i, m in enumerate(new) if m.kind == "pong" and m.tile == a.tile), None
                )
                if pong is None:
                    after[a.tile] = 0
                    new.append(Meld("an", a.tile, None, "men"))
                else:
                    after[a.tile] -= 1
                    new[pong] = Meld("bu", a.tile, new[pong].from_seat, "zhuanwan")
                value = self._value_of_hand(after, new, discarded=None, n_samples=n)
                out.append(Appraisal(a, value, *self._outlook(after, new, n)))
            elif a.act == "gang" and v.claim_tile is not None:
                after = list(hand)
                after[v.claim_tile] -= 3
                new = [*melds, Meld("ming", v.claim_tile, v.claim_from, "dian")]
                value = self._value_of_hand(after, new, discarded=None, n_samples=n)
                out.append(Appraisal(a, value, *self._outlook(after, new, n)))
            elif a.act == "pong" and v.claim_tile is not None:
                after = list(hand)
                after[v.claim_tile] -= 2
                new = [*melds, Meld("pong", v.claim_tile, v.claim_from)]
                k, value = self._rank(after, new, need_value=True)
                after[k] -= 1
                out.append(Appraisal(a, value, *self._outlook(after, new, n)))
            elif a.act == "pass":
                value = self._value_of_hand(hand, melds, discarded=None, n_samples=n)
                out.append(Appraisal(a, value, *self._outlook(hand, melds, n)))
        # Every discard on the first samples, the leaders again on all of them (as `_rank`).
        first = sorted(
            (
                (self._value_after(hand, melds, a.tile, SAMPLES), a)
                for a in discards
                if a.tile is not None
            ),
            key=lambda va: -va[0],
        )
        for i, (value, a) in enumerate(first):
            assert a.tile is not None
            k = n if i <= LEADERS else SAMPLES
            if k == n:
                value = self._value_after(hand, melds, a.tile, n)
            after = list(hand)
            after[a.tile] -= 1
            out.append(Appraisal(a, value, *self._outlook(after, melds, k)))
        return out

    def _win_value(self) -> float:
        """What winning now is worth: the pattern with its 自摸 or discard extras, from each
        payer on a 自摸 (the chickens and 豆 collected besides)."""
        v = self.v
        counts = list(self.hand)
        if not v.on_turn and v.claim_tile is not None:
            counts[v.claim_tile] += 1
        found = best_pattern(self.opts, counts, [m.tile for m in self.melds], self.melds)
        units = found[1] if found is not None else self.unit
        stakes = self._stakes(list(self.hand), list(self.melds), None)
        if v.on_turn:
            return (units + stakes.zimo_extra) * stakes.zimo_mult * 3 + stakes.ready_gain
        return units + stakes.ron_extra + stakes.ready_gain

    def _outlook(self, hand13: list[int], melds: list[Meld], n_samples: int) -> tuple[float, float]:
        """(the chance of being ready, the chance of winning) before the round ends, on the
        samples `_value_of_hand` uses, each weighted by the chance nobody else won first."""
        opts = self.opts
        pass_ok = has_pass(opts, melds)
        meld_sig = tuple(sorted((m.tile, m.size) for m in melds))
        st0 = _state(opts, self.tok, tuple(hand13), meld_sig, pass_ok, self.keep)
        samples = self._sample(n_samples)
        keep = 1 - HAZARD
        pongs = PLAYOUT_PONGS and not self.declared
        ready = win = 0.0
        for seq in samples:
            st = st0
            alive = 1.0
            was_ready = st.s == 0
            if was_ready:
                ready += 1.0
            for i in range(self.steps):
                t = seq[4 * i]
                if st.mask >> t & 1:
                    if st.s == 0:
                        win += alive
                        break
                    if not self.declared:
                        st = _advance(opts, st, t, pass_ok)
                elif pongs and st.s > 0:
                    st = _pong_of(
                        opts, st, (seq[4 * i + 1], seq[4 * i + 2], seq[4 * i + 3]), pass_ok
                    )
                if st.s == 0 and not was_ready:
                    was_ready = True
                    ready += alive
                if (
                    st.s == 0
                    and st.ron
                    and any(
                        st.ron >> u & 1 for u in (seq[4 * i + 1], seq[4 * i + 2], seq[4 * i + 3])
                    )
                ):
                    win += alive
                    break
                alive *= keep
        return ready / len(samples), win / len(samples)
