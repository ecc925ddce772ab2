"""The round state machine (RULES.md §2, §4, §5, §8.4, §12): actions in, events out.

`Round.apply(action)` is the one transition: it checks the action against `legal_actions`,
changes the round in place and returns the events it caused. An illegal action raises
`IllegalAction` with a stable code and leaves the round untouched. `step(round, action)` is the
same transition without touching its argument.

Draws are automatic: after an action the round runs on until some seat must answer (a turn, a
claim window, a 抢杠 window) or the round is over.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

from rules.actions import Action, IllegalAction
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
    Revealed,
    RoundEnded,
    RoundStarted,
    Won,
)
from rules.fairdeal import deal_order
from rules.legality import (
    discard_claims,
    may_declare,
    rob_claims,
    turn_actions,
    why_illegal,
    why_no_hu,
)
from rules.legality import seat_wait_mask as seat_wait_mask  # re-exported
from rules.options import PATTERN_KIND, RuleOptions
from rules.patterns import Meld, dilong_on, holding, win_pattern
from rules.phase import Phase
from rules.record import DiscardRecord, FirstDiscard, RoundRecord, WinInfo, ZerenClaim
from rules.settle import Settlement, settle
from rules.tiles import COPIES, NUM_KINDS, WUGUJI, YAOJI, tile_name, to_counts
from rules.wall import shuffled_wall


class DealError(ValueError):
    """A deal that cannot be played: wrong hand sizes, more than four of a tile, bad seats."""


class Round:
    """One round (一局): `Round.deal(opts, seed=…)` shuffles a wall from a seed; the constructor
    takes fixed hands and a live wall (front first), as deal scripts do."""

    def __init__(
        self,
        opts: RuleOptions,
        hands: Sequence[Sequence[int]],
        wall: Sequence[int],
        *,
        dealer: int = 0,
        streak: int = 0,
        base: int = 1,
        weekday: int | None = None,
    ) -> None:
        _check_deal(hands, wall, dealer)
        if weekday is not None and not 1 <= weekday <= 7:
            raise DealError(f"weekday must be 1 (Monday) to 7 (Sunday), got {weekday}")
        self.opts = opts
        self.base = base
        self.weekday = weekday  # the day of the deal, for 星期鸡 (RULES.md §13.12)
        self.dilong = dilong_on(opts)  # 地龙 is a complete hand at this table (§13.16)
        self.dealer = dealer
        self.streak = streak
        self.wall: list[int] = list(wall)  # never mutated: `front` and `back` move instead
        # Every tile in dealing order, for the fair-deal commitment (rules.fairdeal).
        self.deal_order: tuple[int, ...] = tuple(deal_order(hands, wall, dealer))
        self.front = 0
        self.back = len(self.wall)
        self.hands: list[list[int]] = [to_counts(h) for h in hands]
        # Each hand's size, kept with every change of `hands` (every view shows the four sizes)
        self.hand_sizes: list[int] = [len(h) for h in hands]
        self.melds: list[list[Meld]] = [[], [], [], []]
        # Bumped whenever a meld is made or changed: `rules.view.view_of` keeps what it shows of
        # the melds per viewer until then (`melds_seen_memo`: (meld_changes, viewer → rows)).
        self.meld_changes = 0
        self.melds_seen_memo: tuple[int, dict[object, object]] = (-1, {})
        self.discards: list[list[DiscardRecord]] = [[], [], [], []]
        self.phase = Phase.TURN
        self.turn = dealer
        self.drawn: int | None = None
        self.last_draw_replacement = False
        self.after_pong = False
        self.turn_gangs: list[Meld] = []
        self.turn_num = [0, 0, 0, 0]
        self.draws = [0, 0, 0, 0]
        self.discard_count = [0, 0, 0, 0]
        self.four_turn: list[dict[int, int]] = [{}, {}, {}, {}]
        self.any_claim = False
        self.declared = [False, False, False, False]
        self.passed = [False, False, False, False]  # passed a win since own last draw (§2.5)
        # The claim window (after a discard) or the 抢杠 window (after a 补杠 declaration).
        self.claim_tile: int | None = None
        self.claim_from: int | None = None
        self.claim_hot = False
        self.claim_hot_gang: Meld | None = None
        self.claim_dihu = False
        self.claim_declared = False
        self.claim_options: dict[int, tuple[str, ...]] = {}
        self.claim_answers: dict[int, Action] = {}
        # Chicken bookkeeping: the first discard of 1s / 8p and what became of it.
        self.first_discard: dict[int, tuple[int, int]] = {}  # kind → (seat, index in row)
        self.zeren: dict[int, tuple[int, int]] = {}  # kind → (claimer, discarder)
        self.winners: list[WinInfo] = []
        self.flip: int | None = None
        self.exhausted = False
        self.record: RoundRecord | None = None  # once OVER: what settlement reads
        self.result: Settlement | None = None  # once OVER
        # Deal scripts answer a discard even when nobody can claim it (§12.21): they set this so
        # that an empty window stays open until `resolve_window()`.
        self.hold_empty_windows = False
        self._wait_cache: list[int | None] = [None, None, None, None]  # see `wait_mask`
        self.events: list[Event] = []
        self._start()

    # ----- construction -----

    @classmethod
    def deal(
        cls,
        opts: RuleOptions,
        *,
        seed: int | str | bytes,
        dealer: int = 0,
        streak: int = 0,
        base: int = 1,
        weekday: int | None = None,
    ) -> Round:
        """A round dealt from the shuffled wall: the dealer takes 14, the others 13 each."""
        tiles = shuffled_wall(seed)
        hands: list[list[int]] = [[], [], [], []]
        pos = 0
        for i in range(4):
            seat = (dealer + i) % 4
            n = 14 if seat == dealer else 13
            hands[seat] = tiles[pos : pos + n]
            pos += n
        return cls(
            opts, hands, tiles[pos:], dealer=dealer, streak=streak, base=base, weekday=weekday
        )

    def clone(self) -> Round:
        """An independent copy (events and melds are immutable and shared)."""
        c = object.__new__(Round)
        c.__dict__.update(self.__dict__)
        c.hands = [list(h) for h in self.hands]
        c.hand_sizes = list(self.hand_sizes)
        c.melds = [list(m) for m in self.melds]
        c.melds_seen_memo = (-1, {})
        c.discards = [list(d) for d in self.discards]
        c.turn_gangs = list(self.turn_gangs)
        c.turn_num = list(self.turn_num)
        c.draws = list(self.draws)
        c.discard_count = list(self.discard_count)
        c.four_turn = [dict(f) for f in self.four_turn]
        c.declared = list(self.declared)
        c.passed = list(self.passed)
        c.claim_options = dict(self.claim_options)
        c.claim_answers = dict(self.claim_answers)
        c.first_discard = dict(self.first_discard)
        c.zeren = dict(self.zeren)
        c.winners = list(self.winners)
        c._wait_cache = list(self._wait_cache)
        c.events = list(self.events)
        return c

    def _start(self) -> None:
        for seat in range(4):
            hand = self.hands[seat]
            if 4 in hand:
                for k in range(NUM_KINDS):
                    if hand[k] == 4:
                        self.four_turn[seat][k] = 1  # dealt tiles arrive on the first turn
        hands = tuple(tuple(_kinds(h)) for h in self.hands)
        self._emit(RoundStarted(self.dealer, self.streak, hands, self.wall_left, self.weekday))
        self.turn = self.dealer
        self.turn_num[self.dealer] = 1
        self.phase = Phase.TURN

    # ----- queries -----

    @property
    def wall_left(self) -> int:
        return self.back - self.front

    def awaiting(self) -> list[int]:
        """The seats that must answer now."""
        if self.phase is Phase.TURN:
            return [self.turn]
        if self.phase in (Phase.CLAIM, Phase.ROB):
            return [s for s in self.claim_options if s not in self.claim_answers]
        return []

    def wait_mask(self, seat: int) -> int:
        """Bit k set when kind k completes the seat's 13-tile hand; cached until it changes."""
        mask = self._wait_cache[seat]
        if mask is None:
            mask = seat_wait_mask(self.opts, self.hands[seat], self.melds[seat])  # 地龙 too
            self._wait_cache[seat] = mask
        return mask

    def holding(self, seat: int, kind: int) -> int:
        return holding(self.hands[seat], self.melds[seat], kind)

    def meld_kinds(self, seat: int) -> list[int]:
        return [m.tile for m in self.melds[seat]]

    def is_ready(self, seat: int) -> bool:
        """Ready on 13 tiles (melds counting 3), §7: some kind completes the hand that the
        player does not already hold four of."""
        mask = self.wait_mask(seat)
        while mask:
            low = mask & -mask
            if self.holding(seat, low.bit_length() - 1) < 4:
                return True
            mask ^= low
        return False

    def default_action(self, seat: int) -> Action:
        """The move played for a seat that timed out or is away: pass claims; on turn discard
        the drawn tile, or with nothing drawn the last tile in sort order (§9 draw-discard)."""
        if self.phase is Phase.TURN and seat == self.turn:
            if self.drawn is not None and self.hands[seat][self.drawn]:
                return Action(seat, "discard", self.drawn)
            return Action(seat, "discard", max(_kinds(self.hands[seat])))
        return Action(seat, "pass")

    # ----- the transition -----

    def apply(self, action: Action) -> list[Event]:
        """Play `action`; return the events it caused. Raises IllegalAction, changing nothing."""
        if action.act == "discard" and self._is_plain_discard(action):
            # the most common move, straight to its transition (`_normalize` leaves a discard
            # as it is, and `_turn_action` would send it here)
            mark = len(self.events)
            self._discard(action.seat, action.tile, declare=False)  # type: ignore[arg-type]
            return self.events[mark:]
        action = self._normalize(action)
        fast = self._is_plain_discard(action) or self._is_plain_ready(action)
        if not fast and action not in legal_actions(self, action.seat):
            code, message = self._why_illegal(action)
            raise IllegalAction(code, message)
        mark = len(self.events)
        if self.phase is Phase.TURN:
            self._turn_action(action)
        else:
            self._answer(action)
        return self.events[mark:]

    def may_declare_with(self, seat: int, tile: int) -> bool:
        """报听/天听 with this discard (§8.4, §12.26): see `may_declare`."""
        return may_declare(
            self.opts,
            self.hands[seat],
            self.melds[seat],
            tile,
            after_pong=self.after_pong,
            any_claim=self.any_claim,
            discards=self.discard_count[seat],
            declared=self.declared[seat],
        )

    def _is_plain_ready(self, a: Action) -> bool:
        return (
            a.act == "ready"
            and self.phase is Phase.TURN
            and a.seat == self.turn
            and a.tile is not None
            and 0 <= a.tile < NUM_KINDS
            and self.may_declare_with(a.seat, a.tile)
        )

    def _is_plain_discard(self, a: Action) -> bool:
        """The common case of `legal_actions`, checked without listing them all."""
        return (
            a.act == "discard"
            and self.phase is Phase.TURN
            and a.seat == self.turn
            and a.tile is not None
            and 0 <= a.tile < NUM_KINDS
            and self.hands[a.seat][a.tile] > 0
            and (not self.declared[a.seat] or a.tile == self.drawn)
        )

    def _normalize(self, action: Action) -> Action:
        """Claims carry no tile (a given tile must be the claimed one); 自摸 carries none."""
        if self.phase in (Phase.CLAIM, Phase.ROB):
            if action.act in ("hu", "pong", "gang", "pass") and action.tile == self.claim_tile:
                return Action(action.seat, action.act)
        elif action.act in ("hu", "pass") and action.tile is not None:
            return Action(action.seat, action.act)
        return action

    def _why_illegal(self, a: Action) -> tuple[str, str]:
        return why_illegal(self, a)

    def _why_no_hu(self, seat: int) -> tuple[str, str]:
        return why_no_hu(self, seat)

    # ----- turn actions -----

    def _turn_action(self, a: Action) -> None:
        seat = a.seat
        if a.act == "hu":
            self._win_zimo(seat)
        elif a.act == "discard":
            self._discard(seat, a.tile, declare=False)  # type: ignore[arg-type]
        elif a.act == "ready":
            self._discard(seat, a.tile, declare=True)  # type: ignore[arg-type]
        else:  # gang
            tile = a.tile
            assert tile is not None
            if self.hands[seat][tile] == 4:
                self._concealed_gang(seat, tile)
            else:
                self._declare_added_gang(seat, tile)

    def _late(self, seat: int, tile: int) -> bool:
        """A gang declared on a later turn than the one its fourth tile arrived on (憨包豆), where
        the options have 憨包豆 (RULES.md §13.7, §14.1)."""
        return self.opts.hanbao_dou and self.four_turn[seat].get(tile) != self.turn_num[seat]

    def _concealed_gang(self, seat: int, tile: int) -> None:
        self.hands[seat][tile] -= 4
        self.hand_sizes[seat] -= 4
        self._wait_cache[seat] = None
        meld = Meld("an", tile, None, "hanbao" if self._late(seat, tile) else "men")
        self.melds[seat].append(meld)
        self.meld_changes += 1
        self.turn_gangs.append(meld)
        self.any_claim = True
        self._emit(ConcealedGang(seat, tile, meld.dou or ""))
        self._draw(seat, replacement=True)

    def _declare_added_gang(self, seat: int, tile: int) -> None:
        self._emit(AddGangDeclared(seat, tile))
        options: dict[int, tuple[str, ...]] = {}
        for other in OTHERS[seat]:
            if self._can_rob(other, tile):
                options[other] = ("hu",)
        self._open_window(Phase.ROB, seat, tile, options)
        if not options and not self.hold_empty_windows:
            self.resolve_window()

    def _complete_added_gang(self) -> None:
        seat, tile = self.turn, self.claim_tile
        assert tile is not None
        self._close_window()
        self.hands[seat][tile] -= 1
        self.hand_sizes[seat] -= 1
        self._wait_cache[seat] = None
        row = self.melds[seat]
        i = next(i for i, m in enumerate(row) if m.kind == "pong" and m.tile == tile)
        meld = Meld(
            "bu", tile, row[i].from_seat, "hanbao" if self._late(seat, tile) else "zhuanwan"
        )
        row[i] = meld
        self.meld_changes += 1
        self.turn_gangs.append(meld)
        self.any_claim = True
        self._emit(AddedGang(seat, tile, meld.dou or ""))
        self._draw(seat, replacement=True)

    def _discard(self, seat: int, tile: int, declare: bool) -> None:
        hands = self.hands
        hands[seat][tile] -= 1
        self.hand_sizes[seat] -= 1
        self._wait_cache[seat] = None
        declared = self.declared
        if declare:
            declared[seat] = True
        n_discards = self.discard_count[seat] = self.discard_count[seat] + 1
        row = self.discards[seat]
        row.append(_DISCARD_RECORDS[tile][declare])
        if (tile == YAOJI or tile == WUGUJI) and tile not in self.first_discard:
            self.first_discard[tile] = (seat, len(row) - 1)
        hot = self.last_draw_replacement
        self.events.append(_discarded(seat, tile, declare, hot))
        self.drawn = None
        self.claim_hot = hot
        gangs = self.turn_gangs
        self.claim_hot_gang = gangs[-1] if hot and gangs else None
        self.claim_dihu = seat == self.dealer and n_discards == 1 and not self.any_claim
        self.claim_declared = declared[seat]
        options: dict[int, tuple[str, ...]] = {}
        lo, hi = NEAR[tile]
        waits = self._wait_cache
        for other in OTHERS[seat]:
            hand = hands[other]
            # The common case first: no pair of the tile and nothing it could complete (a wait
            # on the tile needs a tile within two ranks: looked at only while the mask is not
            # known, to spare working it out).
            if hand[tile] < 2:
                mask = waits[other]
                if mask is None:
                    if not any(hand[lo:hi]):
                        continue
                    mask = self.wait_mask(other)
                if not mask >> tile & 1:
                    continue
            opts = self._claim_options(other, tile, seat)
            if opts:
                options[other] = opts
        self.claim_from = seat
        self.claim_tile = tile
        if options or self.hold_empty_windows:
            self._open_window(Phase.CLAIM, seat, tile, options)
        else:  # nobody can claim: straight on to the next draw
            self._next_draw((seat + 1) % 4)

    # ----- claim windows -----

    def _open_window(
        self, phase: Phase, from_seat: int, tile: int, options: dict[int, tuple[str, ...]]
    ) -> None:
        self.phase = phase
        self.claim_from = from_seat
        self.claim_tile = tile
        self.claim_options = options
        self.claim_answers = {}

    def _close_window(self) -> None:
        self.claim_options = {}
        self.claim_answers = {}

    def after_diandou(self) -> bool:
        """Whether the discard in the window was made right after its discarder's 点豆."""
        gang = self.claim_hot_gang
        return gang is not None and gang.kind == "ming"

    def _claim_options(self, seat: int, tile: int, from_seat: int) -> tuple[str, ...]:
        return discard_claims(
            self.opts,
            self.hands[seat],
            self.melds[seat],
            tile,
            wins=bool(self.wait_mask(seat) >> tile & 1),
            declared=self.declared[seat],
            passed=self.passed[seat],
            wall_left=self.wall_left,
            hot=self.claim_hot,
            after_diandou=self.after_diandou(),
            from_declared=self.declared[from_seat],
        )

    def _can_rob(self, seat: int, tile: int) -> bool:
        return bool(
            rob_claims(
                self.opts, wins=bool(self.wait_mask(seat) >> tile & 1), passed=self.passed[seat]
            )
        )

    def _answer(self, a: Action) -> None:
        self.claim_answers[a.seat] = a
        if len(self.claim_answers) == len(self.claim_options):
            self.resolve_window()

    def resolve_window(self) -> None:
        """Close the claim or 抢杠 window once every seat in it has answered."""
        assert len(self.claim_answers) == len(self.claim_options), "a seat has not answered"
        # Everyone has answered: whoever could win and did not has passed a win (§12.6).
        winners = [s for s, ans in self.claim_answers.items() if ans.act == "hu"]
        for s, options in self.claim_options.items():
            if "hu" in options and s not in winners:
                self.passed[s] = True
        if self.phase is Phase.ROB:
            if winners:
                self._win_rob(winners)
            else:
                self._complete_added_gang()
            return
        if winners:
            self._win_on_discard(winners)
            return
        taker = next(
            (ans for ans in self.claim_answers.values() if ans.act in ("pong", "gang")), None
        )
        discarder = self.claim_from
        assert discarder is not None
        self._close_window()
        if taker is None:
            self._next_draw((discarder + 1) % 4)
        else:
            self._take_discard(taker.seat, taker.act, discarder)

    def _take_discard(self, seat: int, act: str, discarder: int) -> None:
        tile = self.claim_tile
        assert tile is not None
        row = self.discards[discarder]
        row[-1] = DiscardRecord(tile, True, row[-1].declared)
        first = self.first_discard.get(tile)
        if first == (discarder, len(row) - 1):
            self.zeren[tile] = (seat, discarder)
        self.any_claim = True
        self.meld_changes += 1
        self._wait_cache[seat] = None
        self._begin_turn(seat)
        if act == "pong":
            self.hands[seat][tile] -= 2
            self.hand_sizes[seat] -= 2
            self.melds[seat].append(Meld("pong", tile, discarder))
            self.after_pong = True
            if self.holding(seat, tile) == 4:
                self.four_turn[seat][tile] = self.turn_num[seat]
            self._emit(Claimed(seat, "pong", tile, discarder))
        else:
            self.hands[seat][tile] -= 3
            self.hand_sizes[seat] -= 3
            meld = Meld("ming", tile, discarder, "dian")
            self.melds[seat].append(meld)
            self.turn_gangs.append(meld)
            self._emit(Claimed(seat, "gang", tile, discarder))
            self._draw(seat, replacement=True)

    # ----- draws and turns -----

    def _begin_turn(self, seat: int) -> None:
        self.phase = Phase.TURN
        self.turn = seat
        self.turn_num[seat] += 1
        self.after_pong = False
        self.last_draw_replacement = False
        self.turn_gangs = []
        self.drawn = None

    def _next_draw(self, seat: int) -> None:
        if self.wall_left == 0:
            self._exhaust()
            return
        self._begin_turn(seat)
        self._draw(seat, replacement=False)

    def _draw(self, seat: int, replacement: bool) -> None:
        if replacement:
            self.back -= 1
            tile = self.wall[self.back]
        else:
            tile = self.wall[self.front]
            self.front += 1
        hand = self.hands[seat]
        hand[tile] += 1
        self.hand_sizes[seat] += 1
        self._wait_cache[seat] = None
        self.draws[seat] += 1
        self.drawn = tile
        self.last_draw_replacement = replacement
        self.passed[seat] = False  # any draw of one's own ends the 过水 lock (§12.7)
        if hand[tile] == 4 or (self.melds[seat] and self.holding(seat, tile) == 4):
            self.four_turn[seat][tile] = self.turn_num[seat]
        self.phase = Phase.TURN
        self.events.append(_drew(seat, tile, replacement, self.back - self.front))

    # ----- wins and the end -----

    def _make_win(
        self,
        seat: int,
        how: str,
        tile: int | None,
        from_seat: int | None,
        counts: list[int],
        owns_tile: bool,
    ) -> WinInfo:
        found = win_pattern(self.opts, counts, self.melds[seat])
        assert found is not None, "a win must have a pattern"
        zimo = how in ("zimo", "rob")
        on_discard = how == "discard"
        void = self.opts.pass_win == "penalty" and how != "zimo" and self.passed[seat]
        return WinInfo(
            seat=seat,
            how=how,
            tile=tile,
            from_seat=from_seat,
            pattern=found[0],
            value=found[1],
            counts=tuple(counts),
            owns_tile=owns_tile,
            zimo=zimo,
            gangkai=how == "zimo" and self.last_draw_replacement,
            hot=on_discard and self.claim_hot,
            tianhu=how == "zimo" and seat == self.dealer and self.draws[seat] == 0,
            dihu=(
                (
                    how == "zimo"
                    and seat != self.dealer
                    and self.draws[seat] == 1
                    and not self.any_claim
                )
                or (on_discard and self.claim_dihu)
            ),
            declared=self.declared[seat],
            shabao=on_discard and self.opts.declare == "tianting" and self.claim_declared,
            void=void,
        )

    def _win_zimo(self, seat: int) -> None:
        counts = list(self.hands[seat])
        self.winners = [self._make_win(seat, "zimo", self.drawn, None, counts, True)]
        self._finish()

    def _ordered_from(self, seats: list[int], start: int) -> list[int]:
        """`seats` in play order after `start`."""
        return sorted(seats, key=lambda s: (s - start) % 4)

    def _win_on_discard(self, seats: list[int]) -> None:
        discarder = self.claim_from
        assert discarder is not None
        row = self.discards[discarder]
        row[-1] = DiscardRecord(row[-1].tile, True, row[-1].declared)
        self._win_on_tile(seats, "discard")

    def _win_rob(self, seats: list[int]) -> None:
        tile, robbed = self.claim_tile, self.claim_from
        assert tile is not None and robbed is not None
        self._wait_cache[robbed] = None
        self.hands[robbed][tile] -= 1  # the robbed tile leaves the hand; the 碰 stays (§12.25)
        self.hand_sizes[robbed] -= 1
        self._win_on_tile(seats, "rob")

    def _win_on_tile(self, seats: list[int], how: str) -> None:
        """Wins on the window's tile; it belongs to the first winner after its owner (§12.16)."""
        tile, source = self.claim_tile, self.claim_from
        assert tile is not None and source is not None
        wins = []
        for i, seat in enumerate(self._ordered_from(seats, source)):
            counts = list(self.hands[seat])
            counts[tile] += 1
            wins.append(self._make_win(seat, how, tile, source, counts, i == 0))
        self.winners = wins
        self._finish()

    def _exhaust(self) -> None:
        self.exhausted = True
        self._emit(Exhausted())
        self._finish()

    def _finish(self) -> None:
        self._close_window()
        self.phase = Phase.OVER
        for w in self.winners:
            self._emit(won_event(w, self.opts))
        valid = [w for w in self.winners if not w.void]
        any_void = any(w.void for w in self.winners)
        if valid and not any_void and self.wall_left > 0:
            self.flip = self.wall[self.front]
            self._emit(Flipped(self.flip))
        self.record = self._make_record()
        self.result = settle(self.record)
        self._emit(RoundEnded(tuple(self.result.net), self.revealed(), self.result))

    def _make_record(self) -> RoundRecord:
        return RoundRecord(
            opts=self.opts,
            base=self.base,
            dealer=self.dealer,
            streak=self.streak,
            weekday=self.weekday,
            hands=tuple(tuple(h) for h in self.hands),
            melds=tuple(tuple(m) for m in self.melds),
            discards=tuple(tuple(d) for d in self.discards),
            declared=tuple(self.declared),
            winners=tuple(self.winners),
            exhausted=self.exhausted,
            flip=self.flip,
            first_discards=tuple(FirstDiscard(k, s, i) for k, (s, i) in self.first_discard.items()),
            zeren=tuple(ZerenClaim(k, c, d) for k, (c, d) in sorted(self.zeren.items())),
            hot_gang=self.claim_hot_gang if any(w.hot for w in self.winners) else None,
        )

    def revealed(self) -> Revealed:
        """Every hand and meld, shown to all once the round is over (暗杠 tiles included)."""
        return Revealed(
            tuple(tuple(_kinds(h)) for h in self.hands), tuple(tuple(row) for row in self.melds)
        )

    def _emit(self, event: Event) -> None:
        self.events.append(event)


# ----- legal actions -----


def legal_actions(r: Round, seat: int) -> list[Action]:
    """Every action `seat` may take now; [] when it has nothing to do."""
    if r.phase is Phase.OVER:
        return []
    if r.phase is Phase.TURN:
        return _turn_actions(r, seat) if seat == r.turn else []
    options = r.claim_options.get(seat)
    if options is None or seat in r.claim_answers:
        return []
    return [Action(seat, act) for act in options] + [Action(seat, "pass")]  # type: ignore[arg-type]


def _turn_actions(r: Round, seat: int) -> list[Action]:
    return turn_actions(
        r.opts,
        seat,
        r.hands[seat],
        r.melds[seat],
        drawn=r.drawn,
        after_pong=r.after_pong,
        declared=r.declared[seat],
        wall_left=r.wall_left,
        any_claim=r.any_claim,
        discards=r.discard_count[seat],
    )


def won_event(w: WinInfo, opts: RuleOptions) -> Won:
    """The win as announced, in identifiers (the winner's hand revealed, the winning tile
    included)."""
    return Won(
        w.seat,
        w.how,
        w.tile,
        w.from_seat,
        PATTERN_KIND[w.pattern],
        tuple(w.bonus_kinds(opts)),
        w.void,
        tuple(_kinds(list(w.counts))),
    )


def step(r: Round, action: Action) -> tuple[Round, list[Event]]:
    """The pure form of `Round.apply`: a new round and the events; `r` is not touched."""
    new = r.clone()
    events = new.apply(action)
    return new, events


# ----- helpers -----


OTHERS = ((1, 2, 3), (2, 3, 0), (3, 0, 1), (0, 1, 2))  # the other seats in play order
# Per kind, the slice of kinds within two ranks of it in its suit.
NEAR = tuple((k - min(k % 9, 2), k + min(8 - k % 9, 2) + 1) for k in range(NUM_KINDS))


# A discard's event, made once per value (events are immutable; 432 values: seat, tile and the
# two marks); a draw's too (a frozen dataclass costs ~1.8 µs to make, a hit ~0.2): with the
# wall left in it there are at most 4 × 27 × 2 × 109 = 23,544 values, ~3 MB when all are met.
_discarded = lru_cache(maxsize=1 << 10)(Discarded)
_drew = lru_cache(maxsize=1 << 15)(Drew)
# A fresh discard's record (unclaimed), per tile and 报听 mark: records are immutable
_DISCARD_RECORDS = tuple(
    (DiscardRecord(k, False, False), DiscardRecord(k, False, True)) for k in range(NUM_KINDS)
)


def _kinds(counts: Sequence[int]) -> list[int]:
    """The kinds of 27 counts, each as often as counted, in sort order."""
    out: list[int] = []
    for k, c in enumerate(counts):
        if c == 1:
            out.append(k)
        elif c:
            out.extend(_REPEATS[k][c])
    return out


_REPEATS = tuple(tuple((k,) * c for c in range(COPIES + 1)) for k in range(NUM_KINDS))


def _check_deal(hands: Sequence[Sequence[int]], wall: Sequence[int], dealer: int) -> None:
    if len(hands) != 4:
        raise DealError(f"a deal has four hands, got {len(hands)}")
    if not 0 <= dealer <= 3:
        raise DealError(f"dealer must be a seat 0-3, got {dealer}")
    for seat, hand in enumerate(hands):
        want = 14 if seat == dealer else 13
        if len(hand) != want:
            role = "the dealer" if seat == dealer else "a non-dealer"
            raise DealError(f"seat {seat} ({role}) must hold {want} tiles, got {len(hand)}")
    total = to_counts([k for h in hands for k in h] + list(wall))
    over = [tile_name(k) for k in range(NUM_KINDS) if total[k] > COPIES]
    if over:
        raise DealError(f"more than four of {', '.join(over)} in the hands and wall")
