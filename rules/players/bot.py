"""A bot policy every part of the project uses: server bots, self-play, benchmarks and tests.

It wins whenever it may (but never into a void 包牌 win), takes every gang (a 豆 scores and is the
通行证), pongs only when that brings the hand closer to ready, declares 报听/天听 when its first
discard leaves it ready, and otherwise discards to keep the hand closest to ready (the exact
shanten of `rules.players.shanten`); among discards that keep it ready it keeps the wait with the
most unseen copies, and otherwise keeps connected tiles and its chickens when the choice is even:
the standing kinds and the 星期鸡 of the table's options and the deal's day (`chicken_kinds`).
Deterministic from its seed.

The approximate shanten below (`approx_shanten`, `approx_best_discards`, `row_info`) is what the
strong bot's playouts use: it is several times cheaper and the playouts only need it roughly.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache, lru_cache
from typing import NamedTuple

from rules.actions import Action, ActKind
from rules.chickens import known_chickens
from rules.hand import is_win_counts, wait_mask
from rules.legality import may_declare
from rules.players import shanten as exact
from rules.players import suit_index
from rules.players.suit_index import RANK_UNIT
from rules.round import Round
from rules.view import SeatView, view_of
from rules.wall import SplitMix64

NEG = -100
ROW_CACHE = 1 << 13  # rows kept by each of `_suit_value` and `row_info` (bounded: a server's
# bots share them for as long as it runs)


_DIGITS = bytes.maketrans(bytes(range(5)), b"01234")  # count → its base-5 digit


def _suit_value(counts: Sequence[int], need_eye: bool) -> int:
    """`suit_value(counts, need_eye)`, read from its precomputed index by suit key
    (`rules.players.suit_index.load_approx`)."""
    return _suit_values(int(bytes(counts).translate(_DIGITS), 5), counts)[need_eye]


def _suit_values(key: int, counts: Sequence[int]) -> tuple[int, int]:
    """(plain, eyed) `suit_value`s of the row `counts` whose suit key is `key`."""
    index, pairs = suit_index.load_approx()
    n = index[key]
    if n == suit_index.NONE:  # more than 14 tiles: no hand holds such a row
        return suit_value(tuple(counts), False), suit_value(tuple(counts), True)
    plain, eyed = pairs[n]
    return plain, NEG if eyed == suit_index.APPROX_NEG else eyed


@lru_cache(maxsize=2 * ROW_CACHE)
def suit_value(counts: tuple[int, ...], need_eye: bool) -> int:
    """Best 2×sets + partials (pairs, two-sided and gapped waits) in one suit's nine counts;
    with `need_eye`, exactly one pair is set aside as the eye (worth 1). The definition: the
    bots read it from the precomputed index (`_suit_value`), which this builds and checks."""
    i = next((k for k in range(9) if counts[k]), -1)
    if i < 0:
        return NEG if need_eye else 0
    c = list(counts)
    best = NEG

    def sub(delta: dict[int, int], gain: int, eye: bool) -> None:
        nonlocal best
        for k, d in delta.items():
            c[k] -= d
        v = suit_value(tuple(c), eye)
        for k, d in delta.items():
            c[k] += d
        if v > NEG and v + gain > best:
            best = v + gain

    if c[i] >= 3:
        sub({i: 3}, 2, need_eye)
    if i <= 6 and c[i + 1] and c[i + 2]:
        sub({i: 1, i + 1: 1, i + 2: 1}, 2, need_eye)
    if c[i] >= 2:
        sub({i: 2}, 1, need_eye)
        if need_eye:
            sub({i: 2}, 1, False)
    if i <= 7 and c[i + 1]:
        sub({i: 1, i + 1: 1}, 1, need_eye)
    if i <= 6 and c[i + 2]:
        sub({i: 1, i + 2: 1}, 1, need_eye)
    sub({i: 1}, 0, need_eye)
    return best


def _std_shanten(plain: list[int], eyed: list[int], n_melds: int) -> int:
    total = plain[0] + plain[1] + plain[2]
    best = total
    for s in range(3):
        if eyed[s] > NEG:
            best = max(best, total - plain[s] + eyed[s])
    cap = 9 - 2 * n_melds  # the value of a complete hand's concealed part
    return 8 - 2 * n_melds - min(best, cap)


def shanten(counts: Sequence[int], n_melds: int) -> int:
    """Exact tiles-from-ready: -1 complete, 0 ready (`rules.players.shanten.shanten`)."""
    return exact.shanten(counts, n_melds)


def approx_shanten(counts: Sequence[int], n_melds: int) -> int:
    """Approximate tiles-from-ready (-1 complete, 0 ready): best 2 × sets + partial sets, which
    can count a hand with no pair as ready. For the strong bot's playouts only."""
    suits = [tuple(counts[s * 9 : s * 9 + 9]) for s in range(3)]
    std = _std_shanten(
        [_suit_value(t, False) for t in suits], [_suit_value(t, True) for t in suits], n_melds
    )
    if n_melds:
        return std
    pairs = sum(c // 2 for c in counts)
    return min(std, 6 - pairs)


@lru_cache(maxsize=ROW_CACHE)
def row_info(row: tuple[int, ...]) -> RowInfo:
    """Everything the bot asks of one suit's nine counts, computed once per distinct row
    (cached: a bot asks of the same rows again and again). The small tuples inside are shared
    between rows (`_Shared`): the strong bot's playouts make thousands of rows, and a cached
    row holds references, not copies."""
    key = int(bytes(row).translate(_DIGITS), 5)
    sh = _shared()
    index, pairs = sh.index, sh.pairs
    removals = []
    present = []
    pairs_held = 0
    for r in range(9):
        c = row[r]
        if not c:
            removals.append(_NO_READING)
            continue
        n = index[key - RANK_UNIT[r]]
        if n == suit_index.NONE:  # from a row of more than 15 tiles: the definition
            t = list(row)
            t[r] -= 1
            rem = _suit_values(key - RANK_UNIT[r], t)
            present.append((r, rem[0], rem[1], 1 - c % 2))
        else:
            rem = pairs[n]
            present.append(sh.present[(r * len(pairs) + n) * 2 + 1 - c % 2])
        removals.append(rem)
        pairs_held += c // 2
    plain, eyed = _suit_values(key, row)
    keep, lonely = _shape_scores(key)  # by tables: `_keep_score` and the lonely singles
    return RowInfo(
        plain,
        eyed,
        pairs_held,
        tuple(removals),
        _MASK_RANKS[lonely],
        keep,
        tuple(present),
    )


_MASK_RANKS = tuple(tuple(r for r in range(9) if m >> r & 1) for m in range(512))


_NO_READING = (NEG, NEG)


class _Shared:
    """The approximate index (`suit_index.load_approx`) with its (plain, eyed) pairs as the
    bot reads them (`NEG` for no eyed reading), and every `RowInfo.present` entry a row can
    have, made once: (rank, plain, eyed, breaks a pair) at `(rank * pairs + number) * 2 +
    breaks`."""

    def __init__(self) -> None:
        self.index, raw = suit_index.load_approx()
        self.pairs = tuple(
            (plain, NEG if eyed == suit_index.APPROX_NEG else eyed) for plain, eyed in raw
        )
        self.present = tuple(
            (r, plain, eyed, breaks)
            for r in range(9)
            for plain, eyed in self.pairs
            for breaks in (0, 1)
        )


@cache
def _shared() -> _Shared:
    return _Shared()


def row_tiebreak(row: tuple[int, ...]) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """`row_info(row)`'s `keep` and `lonely` alone: what the greedy bot's tie-break asks of a
    row, without the approximate shanten it does not use (cached by suit key in
    `_tiebreak_scores`)."""
    keep = []
    lonely = []
    for r in range(9):
        if row[r]:
            lo, hi = max(0, r - 2), min(8, r + 2)
            if row[r] == 1 and sum(row[lo : hi + 1]) == 1:
                lonely.append(r)
            keep.append(_keep_score(row, r))
        else:
            keep.append(0)
    return tuple(keep), tuple(lonely)


class RowInfo(NamedTuple):
    plain: int  # best 2×sets + partials
    eyed: int  # the same with one pair as the eye (NEG if none)
    pairs: int
    removals: tuple[tuple[int, int], ...]  # (plain, eyed) after removing one of each rank
    lonely: tuple[int, ...]  # ranks of single tiles with no neighbour within two ranks
    keep: tuple[int, ...]  # per rank: how much the tile is worth keeping (ties only)
    # per rank held: (rank, plain, eyed after removing one, 1 if that breaks a pair)
    present: tuple[tuple[int, int, int, int], ...]


def _keep_score(row: tuple[int, ...], r: int) -> int:
    """Tie-break when discarding: higher means keep. Connected tiles and pairs are kept."""
    score = 0
    for d in (-2, -1, 1, 2):
        if 0 <= r + d <= 8 and row[r + d]:
            score += 2 if abs(d) == 1 else 1
    if row[r] >= 2:
        score += 3
    if r in (0, 8):
        score -= 1
    return score


CHICKEN_KEEP = 3  # a chicken kind is kept when the choice is otherwise even


def chicken_kinds(v: SeatView) -> frozenset[int]:
    """The kinds the seat knows to be chickens while it plays (`rules.chickens.known_chickens`
    of the table's options and the day of the deal): 幺鸡, 乌骨鸡 unless `wuguji` is off, the
    星期鸡 under `xingqiji`. (A 翻牌鸡 or 本鸡 is known only at the flip.)"""
    return frozenset(known_chickens(v.opts, v.weekday))


def row_infos(counts: Sequence[int]) -> tuple[RowInfo, RowInfo, RowInfo]:
    """`row_info` of each suit of a hand's 27 counts (man, pin, sou)."""
    return (
        row_info(tuple(counts[0:9])),
        row_info(tuple(counts[9:18])),
        row_info(tuple(counts[18:27])),
    )


def approx_best_discards(
    counts: Sequence[int], n_melds: int, infos: tuple[RowInfo, RowInfo, RowInfo] | None = None
) -> tuple[int, list[int]]:
    """The lowest `approx_shanten` reachable by one discard, and every discard reaching it."""
    if infos is None:
        infos = row_infos(counts)
    i0, i1, i2 = infos
    g0 = i0.eyed - i0.plain if i0.eyed > NEG else NEG
    g1 = i1.eyed - i1.plain if i1.eyed > NEG else NEG
    g2 = i2.eyed - i2.plain if i2.eyed > NEG else NEG
    rest = (
        (i1.plain + i2.plain, max(0, g1, g2)),
        (i0.plain + i2.plain, max(0, g0, g2)),
        (i0.plain + i1.plain, max(0, g0, g1)),
    )
    qd_base = 6 - (i0.pairs + i1.pairs + i2.pairs) if not n_melds else 99
    cap = 9 - 2 * n_melds
    base = 8 - 2 * n_melds
    low = 99
    found: list[int] = []
    for s in range(3):
        others, gain = rest[s]
        offset = 9 * s
        for r, p, e, breaks_pair in infos[s].present:
            best = others + (p + gain if p + gain > e else e)
            std = base - (best if best < cap else cap)
            qd = qd_base + breaks_pair
            if qd < std:
                std = qd
            if std < low:
                low = std
                found = [offset + r]
            elif std == low:
                found.append(offset + r)
    return low, found


def keep_value(kind: int, info: RowInfo, chickens: frozenset[int]) -> int:
    """How much `kind` is worth keeping when discards are otherwise even (higher: keep), from
    its suit's `row_info`: connected tiles and pairs, and the `chickens` (`CHICKEN_KEEP`)."""
    return info.keep[kind % 9] + (CHICKEN_KEEP if kind in chickens else 0)


_BOT_ACTS: tuple[ActKind, ...] = ("discard", "ready", "gang", "hu", "pong", "pass")
_ACTIONS: dict[tuple[int, ActKind, int | None], Action] = {
    (seat, act, tile): Action(seat, act, tile)
    for seat in range(4)
    for act in _BOT_ACTS
    for tile in (None, *range(27))
}
"""Every move a bot makes, made once (an `Action` is immutable): a decision looks its move up
instead of building one."""


def _action(seat: int, act: ActKind, tile: int | None = None) -> Action:
    found = _ACTIONS.get((seat, act, tile))
    return found if found is not None else Action(seat, act, tile)


class Bot:
    """`Bot(seed).choose_for(view)` → one of `legal_actions_for(view)`, decided from one seat's
    view (`rules.view.SeatView`) and nothing else; `Bot(seed).choose(round, seat)` is
    `choose_for(view_of(round, seat))`."""

    def __init__(self, seed: int | str = 0) -> None:
        self.rng = SplitMix64(seed)
        # `chicken_kinds` of the last view's options and day (the same all round): the options
        # object is held here, so comparing it by identity never meets a freed one's successor
        self._chickens_of: tuple[object, int | None, frozenset[int]] | None = None

    def choose(self, r: Round, seat: int) -> Action:
        return self.choose_for(view_of(r, seat))

    def _chicken_kinds(self, v: SeatView) -> frozenset[int]:
        held = self._chickens_of
        if held is not None and held[0] is v.opts and held[1] == v.weekday:
            return held[2]
        kinds = chicken_kinds(v)
        self._chickens_of = (v.opts, v.weekday, kinds)
        return kinds

    def choose_for(self, v: SeatView) -> Action:
        """The move for the view's seat; ValueError if it has nothing to do."""
        if v.on_turn:
            return self._turn(v)
        if v.offered:
            return self._answer(v)
        raise ValueError(f"seat {v.viewer} has nothing to do now")

    def _turn(self, v: SeatView) -> Action:
        """The turn, decided with the same rules as `legal_actions` (the tests hold it to them)."""
        seat, hand = v.viewer, v.hand
        assert seat is not None and hand is not None
        melds = v.melds[seat]  # as seen: the seat sees every tile of its own
        declared = v.declared[seat]
        if not v.after_pong and is_win_counts(hand, len(melds)):
            return _action(seat, "hu")
        if declared and v.drawn is not None:
            return _action(seat, "discard", v.drawn)
        if not v.after_pong and not declared and v.wall_left > 0:
            if 4 in hand:
                return _action(seat, "gang", hand.index(4))
            for m in melds:
                if m.kind == "pong" and m.tile is not None and hand[m.tile]:
                    return _action(seat, "gang", m.tile)
        choice = self._best_discard(v, hand, len(melds), self._chicken_kinds(v))
        discards = v.discard_count(seat)
        if discards == 0 and may_declare(
            v.opts,
            hand,
            v.own_melds,
            choice,
            after_pong=v.after_pong,
            any_claim=v.any_claim,
            discards=discards,
            declared=declared,
        ):
            return _action(seat, "ready", choice)  # 报听/天听 with the first discard
        return _action(seat, "discard", choice)

    def _answer(self, v: SeatView) -> Action:
        seat, acts = v.viewer, v.offered
        assert seat is not None
        void = v.opts.pass_win == "penalty" and v.passed
        if "hu" in acts and not void:
            return _action(seat, "hu")
        if "gang" in acts:
            return _action(seat, "gang")
        if "pong" in acts and self._pong_helps(v):
            return _action(seat, "pong")
        return _action(seat, "pass")

    @staticmethod
    def _pong_helps(v: SeatView) -> bool:
        tile, seat = v.claim_tile, v.viewer
        assert tile is not None and seat is not None
        hand = v.counts
        n = len(v.melds[seat])
        before = exact.shanten(hand, n)
        hand[tile] -= 2
        after = exact.best_discard_masks(hand, n + 1)[0]  # no list of the discards wanted
        return after < before

    def _best_discard(
        self, v: SeatView, hand: Sequence[int], n_melds: int, chickens: frozenset[int]
    ) -> int:
        """The discard that keeps the hand closest to ready (exact shanten); when it stays
        ready, the one whose waits have the most unseen copies; then ties keep connected tiles
        and `chickens`, isolated singles going first; then the seed decides."""
        candidates = greedy_discards(v, hand, n_melds, chickens)
        if len(candidates) == 1:
            return candidates[0]
        return candidates[self.rng.below(len(candidates))]


def greedy_discards(
    v: SeatView, hand: Sequence[int], n_melds: int, chickens: frozenset[int]
) -> list[int]:
    """`Bot`'s discard choice before the seed: the discards that keep the hand closest to ready
    (exact shanten); when it stays ready, those whose waits have the most unseen copies; then
    those that keep connected tiles and `chickens`, isolated singles going first.

    Short of ready the tie-break goes suit by suit (`_suit_least`: a suit's least keep score
    among its best discards, and which reach it, cached), as the waits do not come into it."""
    low, m0, m1, m2, keys = exact.best_discard_masks(hand, n_melds)
    if low == 0 and (m0 | m1 << 9 | m2 << 18) & ((m0 | m1 << 9 | m2 << 18) - 1):
        candidates = [*_KINDS0[m0], *_KINDS1[m1], *_KINDS2[m2]]
        return _tiebreak(_widest_waits(v, hand, n_melds, candidates), keys, chickens)
    c0, c1, c2 = _chicken_masks(chickens)
    k0, k1, k2 = keys
    memo = _SUIT_LEAST
    s0 = s1 = s2 = _NO_LEAST
    if m0:
        s0 = memo.get(k0 << 18 | m0 << 9 | c0) or _suit_least(k0, m0, c0)
    if m1:
        s1 = memo.get(k1 << 18 | m1 << 9 | c1) or _suit_least(k1, m1, c1)
    if m2:
        s2 = memo.get(k2 << 18 | m2 << 9 | c2) or _suit_least(k2, m2, c2)
    least = min(s0, s1, s2) >> 9  # the least score over all three (`_suit_least`'s encoding)
    return [
        *_KINDS0[s0 & 511 if s0 >> 9 == least else 0],
        *_KINDS1[s1 & 511 if s1 >> 9 == least else 0],
        *_KINDS2[s2 & 511 if s2 >> 9 == least else 0],
    ]


def _tiebreak(
    candidates: list[int], keys: tuple[int, int, int], chickens: frozenset[int]
) -> list[int]:
    """Of `candidates`, those that keep connected tiles and `chickens` best (the least keep
    score), isolated singles going first; in the order given."""
    if len(candidates) <= 1:
        return candidates
    memo = _TIEBREAKS
    k0, k1, k2 = keys
    keep0, plain0 = memo.get(k0) or _tiebreak_scores(k0)
    keep1, plain1 = memo.get(k1) or _tiebreak_scores(k1)
    keep2, plain2 = memo.get(k2) or _tiebreak_scores(k2)
    plain = plain0 + plain1 + plain2
    if chickens:
        keep = keep0 + keep1 + keep2
        keeps = [keep[k] + CHICKEN_KEEP if k in chickens else plain[k] for k in candidates]
    else:
        keeps = [plain[k] for k in candidates]
    least = min(keeps)
    return [k for k, score in zip(candidates, keeps, strict=True) if score == least]


_KINDS0, _KINDS1, _KINDS2 = exact.MASK_KINDS  # the kinds of a suit's rank mask
# A keep score is small (|score| < 64): `_suit_least` packs (score + 64, rank mask) into one int
_SCORE_BIAS = 64
_NO_LEAST = 1 << 20  # a suit with no candidate: above any packed score
_SUIT_LEAST: dict[int, int] = {}  # `_suit_least` by `key << 18 | discards << 9 | chickens`
_CHICKEN_MASKS: dict[frozenset[int], tuple[int, int, int]] = {}


def _chicken_masks(chickens: frozenset[int]) -> tuple[int, int, int]:
    """Per suit, the rank mask of the `chickens` kinds in it (a bot's chickens are a few sets,
    the same all round: kept by the set)."""
    found = _CHICKEN_MASKS.get(chickens)
    if found is None:
        masks = [0, 0, 0]
        for k in chickens:
            masks[k // 9] |= 1 << k % 9
        found = masks[0], masks[1], masks[2]
        if len(_CHICKEN_MASKS) >= 64:
            _CHICKEN_MASKS.clear()
        _CHICKEN_MASKS[chickens] = found
    return found


def _suit_least(key: int, discards: int, chickens: int) -> int:
    """Of one suit's candidate discards (`discards`, a rank mask) in the row of suit key `key`,
    the least tie-break score (`_tiebreak`'s: the keep score, `CHICKEN_KEEP` more on the
    `chickens` ranks and 9 less on a lonely single that is not a chicken) and the ranks that
    reach it, packed as `(score + _SCORE_BIAS) << 9 | ranks`. Cached in `_SUIT_LEAST` (one int
    key, one int value), emptied when it holds `SUIT_LEAST_CACHE` entries."""
    keep, plain = _TIEBREAKS.get(key) or _tiebreak_scores(key)
    least = _NO_LEAST
    ranks = 0
    m = discards
    while m:
        bit = m & -m
        m ^= bit
        r = bit.bit_length() - 1
        score = keep[r] + CHICKEN_KEEP if chickens & bit else plain[r]
        if score < least:
            least, ranks = score, bit
        elif score == least:
            ranks |= bit
    packed = (least + _SCORE_BIAS) << 9 | ranks
    if len(_SUIT_LEAST) >= SUIT_LEAST_CACHE:
        _SUIT_LEAST.clear()
    _SUIT_LEAST[key << 18 | discards << 9 | chickens] = packed
    return packed


SUIT_LEAST_CACHE = 1 << 15  # `_suit_least` entries (one int each way: ~3 MB when full)


_TIEBREAKS: dict[int, tuple[tuple[int, ...], tuple[int, ...]]] = {}  # `_tiebreak_scores` by key


def _tiebreak_scores(key: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """`row_tiebreak` of the row whose suit key is `key`, as two score rows: `keep`, and `keep`
    less 9 on the lonely ranks (the greedy tie-break's score of a tile that is not a chicken).
    Kept in `_TIEBREAKS` by the int key (the tie-break asks it of three rows per decision; a
    hit is one dict lookup), emptied when it holds `ROW_CACHE` entries.

    A row's scores depend only on which ranks it holds and which of those more than once
    (`_keep_score` reads a neighbour's presence and a pair; a lonely tile is a single with no
    neighbour within two ranks), so a new key is read as those two rank masks
    (`_Shapes`) and scored from a table per held mask, not rank by rank."""
    keep, lonely = _shape_scores(key)
    plain = (
        keep if not lonely else tuple([v - 9 if lonely >> r & 1 else v for r, v in enumerate(keep)])
    )
    scores = keep, plain
    if len(_TIEBREAKS) >= ROW_CACHE:
        _TIEBREAKS.clear()
    _TIEBREAKS[key] = scores
    return scores


def _shape_scores(key: int) -> tuple[tuple[int, ...], int]:
    """(`_keep_score` of each rank held by the suit key's row, 0 for the others; the rank mask
    of its lonely tiles: singles with no other tile within two ranks), from the row's shape
    (`_Shapes`)."""
    sh = _shapes()
    lo, hi = key % _LOW_KEYS, key // _LOW_KEYS
    held = sh.held_lo[lo] | sh.held_hi[hi]
    multi = sh.multi_lo[lo] | sh.multi_hi[hi]
    base = sh.base[held]
    keep = (
        base if not multi else tuple([b + 3 if multi >> r & 1 else b for r, b in enumerate(base)])
    )
    return keep, held & ~multi & ~sh.near[held]


_LOW_RANKS = 5  # a suit key read as its last five digits (ranks 4-8) and the rest (`_Shapes`)
_LOW_KEYS = 5**_LOW_RANKS


class _Shapes:
    """Tables for `_tiebreak_scores`: per low part of a suit key (`key % 5**5`: ranks 4-8) and per
    high part (ranks 0-3) the rank masks held and held more than once; per held mask (512) the keep
    score of each held rank without its pair bonus (`_keep_score` of a row holding one of each
    held rank), and the held ranks with another held rank within two."""

    def __init__(self) -> None:
        def masks(part: int, digits: int, first: int) -> tuple[int, int]:
            # digit j of the part (5**j) is rank `first - j` (`RANK_UNIT`: rank 0 is 5**8)
            held = multi = 0
            for j in range(digits):
                c = part // 5**j % 5
                if c:
                    held |= 1 << (first - j)
                if c >= 2:
                    multi |= 1 << (first - j)
            return held, multi

        low = [masks(k, _LOW_RANKS, 8) for k in range(_LOW_KEYS)]
        high = [masks(k, 9 - _LOW_RANKS, 8 - _LOW_RANKS) for k in range(5 ** (9 - _LOW_RANKS))]
        self.held_lo = tuple(h for h, _ in low)
        self.multi_lo = tuple(m for _, m in low)
        self.held_hi = tuple(h for h, _ in high)
        self.multi_hi = tuple(m for _, m in high)
        rows = [tuple(held >> r & 1 for r in range(9)) for held in range(512)]
        self.base = tuple(
            tuple(_keep_score(row, r) if row[r] else 0 for r in range(9)) for row in rows
        )
        self.near = tuple(
            sum(
                1 << r
                for r in range(9)
                if row[r] and any(row[q] for q in range(max(0, r - 2), min(8, r + 2) + 1) if q != r)
            )
            for row in rows
        )


@cache
def _shapes() -> _Shapes:
    return _Shapes()


def _widest_waits(v: SeatView, hand: Sequence[int], n_melds: int, ready: list[int]) -> list[int]:
    """Of the discards that leave the hand ready, those whose waits have the most copies the
    seat has not seen."""
    seen = list(hand)
    for row in v.melds:
        for m in row:
            if m.tile is not None:
                seen[m.tile] += 3 if m.kind == "pong" else 4
    for discards in v.discards:
        for tile, claimed, _ in discards:  # `DiscardRecord`s, unpacked
            if not claimed:
                seen[tile] += 1
    after = list(hand)
    live: dict[int, int] = {}
    for k in ready:
        after[k] -= 1
        mask = wait_mask(after, n_melds)
        after[k] += 1
        copies = 0
        while mask:  # the waits, one set bit at a time (a wait has 1-9 kinds, mostly 1-3)
            low = mask & -mask
            w = low.bit_length() - 1
            if seen[w] < 4:
                copies += 4 - seen[w]
            mask ^= low
        live[k] = copies
    most = max(live.values())
    return [k for k in ready if live[k] == most]
