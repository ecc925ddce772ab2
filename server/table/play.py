"""The round's moves and its claim window: who is asked, their prompts and clocks, the server's
moves (bots, 托管, timeouts), a move checked and played or held in the claim window, and what a
move makes (numbered events, the stored action, the round's end).

`Play` works on the table through `PlayTable`, the part of `TableCore` it needs.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterator
from typing import Any, Generic, Protocol, TypeVar, cast

from pydantic import BaseModel

from protocol import codes, frames
from protocol.events import LoggedEntry
from protocol.messages import Act, Auto
from rules.actions import Action, IllegalAction
from rules.events import Event
from rules.match import Match
from rules.round import Phase, Round, step
from rules.tiles import parse_tile
from server.storage.records import MatchStarted, Record
from server.table.clock import Idleness
from server.table.effects import Accepted, Send
from server.table.fanout import EARLY, Outbox, Stamp
from server.table.policies import Policies
from server.table.projection import PromptItem, view_for
from server.table.rounds import RoundBook, weekday_of
from server.table.seams import WINDOW_PHASES, EndingFace
from server.table.seating import AutoReason, Seats
from server.table.settings import Settings, Timing
from server.table.tally import Tally
from server.table.window import ClaimWindow, HeldAnswer

M = TypeVar("M", bound=Hashable)


class PlayTable(Protocol[M]):
    """What `Play` reads and does of the table (`TableCore` is one)."""

    # The table's parts it holds (taken once, at its making).
    @property
    def book(self) -> RoundBook: ...
    @property
    def id(self) -> str: ...
    @property
    def idle(self) -> Idleness: ...
    @property
    def match(self) -> Match: ...
    @property
    def new_salt(self) -> Callable[[], str]: ...
    @property
    def outbox(self) -> Outbox[M]: ...
    @property
    def policies(self) -> Policies: ...
    @property
    def s(self) -> Settings: ...
    @property
    def seats(self) -> Seats[M]: ...
    @property
    def tally(self) -> Tally: ...
    @property
    def timing(self) -> Timing: ...
    @property
    def window(self) -> ClaimWindow[Action]: ...

    # What it reads of the table's state.
    @property
    def bot_delay(self) -> float: ...
    @property
    def round_no(self) -> int: ...
    @property
    def scores(self) -> list[int]: ...
    @property
    def seq(self) -> int: ...
    @property
    def wall(self) -> float: ...

    # What of the table's state it changes.
    decision_seq: int
    round: Round | None
    state: str

    # What it asks of the core (its numbered events, frames and errors).
    def commit(
        self,
        events: list[dict[str, Any]],
        records: list[Record],
        now: float,
        *,
        round_no: int,
        exclude: M | None = None,
    ) -> None: ...
    def error(self, member: M, code: str, message: str, ref: str | None) -> None: ...
    def event(self, d: dict[str, Any]) -> dict[str, Any]: ...
    def logged(self, frame: BaseModel) -> dict[str, Any]: ...
    def paced(
        self, sends: list[Send[M]], *, event: bool, claim: bool = False, stamp: Stamp | None = None
    ) -> None: ...
    def seat_changed(self, index: int, now: float) -> None: ...
    def seated(self, member: M, ref: str) -> int | None: ...

    # The other concerns it reaches (`seams`).
    @property
    def ending(self) -> EndingFace[M]: ...


class Play(Generic[M]):
    """The round's moves and claim window of one table."""

    def __init__(self, core: PlayTable[M]) -> None:
        self.core = core
        self.book = core.book
        self.id = core.id
        self.idle = core.idle
        self.match = core.match
        self.new_salt = core.new_salt
        self.outbox = core.outbox
        self.policies = core.policies
        self.s = core.s
        self.seats = core.seats
        self.tally = core.tally
        self.timing = core.timing
        self.window = core.window

    def start(self, member: M, now: float) -> None:
        if self.core.seated(member, "start") is None:
            return
        if self.core.state != "waiting":
            self.core.error(member, codes.ALREADY_STARTED, "the match has already started", "start")
            return
        if any(seat.kind == "empty" for seat in self.seats):
            self.core.error(member, codes.NOT_ENOUGH_PLAYERS, "four seats must be taken", "start")
            return
        self.start_match(now)

    def start_match(self, now: float) -> None:
        self.core.state = "playing"
        names = [seat.name or "" for seat in self.seats]
        event = self.core.logged(
            frames.match_started(self.id, self.core.seq + 1, self.s.rounds, names)
        )
        keys = self.seats.token_keys()
        self.core.commit(
            [event],
            [MatchStarted(self.id, self.seats.rows(), keys, self.core.wall)],
            now,
            round_no=0,
        )
        self.start_round(now)

    def auto(self, member: M, msg: Auto, now: float) -> None:
        index = self.core.seated(member, msg.type)
        if index is None:
            return
        seat = self.seats[index]
        if seat.auto == msg.on:
            return
        seat.auto = seat.auto_requested = msg.on
        self.core.seat_changed(index, now)
        seat.quiet_auto = False
        if msg.on:
            self.advance(now)
        elif index in self.asked():
            self.send_prompts(now, resend=index)

    def act(self, member: M, msg: Act, now: float) -> None:
        index = self.core.seated(member, msg.type)
        if index is None:
            return
        refused = self._act_refusal(index, msg.seq)
        if refused is not None:
            self.core.error(member, *refused, msg.type)
            return
        seat = self.seats[index]
        action = Action(index, msg.act, None if msg.tile is None else parse_tile(msg.tile))
        answered = self.core.decision_seq
        self.tally.new_move()
        try:
            self._move(index, action, None, now)  # refused: the round is unchanged
        except IllegalAction as err:
            self.core.error(member, err.code, err.message, msg.type)
            return
        seat.clock.spend(answered, now, self.s.turn_seconds)
        seat.quiet_auto = False
        self.advance(now)
        # A move the table accepted answers a prompt the server sent: it does not count
        # against the rate limit, so a quick bot at a quick table is never cut off. It is
        # timed (the metrics) only if an event showed it: a pass in a claim window is not.
        self.outbox.emit(Accepted(member, shown=self.tally.showed(index)))

    def _act_refusal(self, index: int, seq: int) -> tuple[str, str] | None:
        """Why seat `index` may not answer decision `seq` now (an error code and its
        message), or None: it may, if the move is legal."""
        r = self.core.round
        if self.core.state != "playing" or r is None or r.phase is Phase.OVER:
            return codes.NOT_PLAYING, "no round is being played"
        if seq == self.seats[index].clock.answered_seq:
            return codes.DUPLICATE, f"you already answered {seq}"
        if seq != self.core.decision_seq:
            return (
                codes.STALE,
                f"that answers {seq}; the move asked now is {self.core.decision_seq}",
            )
        if index not in self.asked():
            return codes.NOTHING_TO_DO, "nothing is asked of you now"
        return None

    def moves_due(self, now: float) -> None:
        """What is due in the round at `now`: the machine's answers in a held claim window
        past its middle, the moves of seats whose clock ran out and of bots whose time came,
        and the window's close at its end."""
        r = self.core.round
        if r is None or r.phase is Phase.OVER or self.core.state != "playing":
            return
        moved = self._machine_answers(r, now)
        moved = self._clocks_due(r, now) or moved
        if self.core.round is r and r.phase in WINDOW_PHASES and self.window.due(now):
            self._close_window(now)
            moved = True
        if moved:
            self.advance(now)

    def _machine_answers(self, r: Round, now: float) -> bool:
        """A held claim window past its middle: the seats the server answers for (托管, quiet
        托管, away) give their answers. Whether any did."""
        if r.phase not in WINDOW_PHASES or not self.window.timed():
            return False
        if self.window.middle() > now + EARLY:
            return False
        moved = False
        for index in self.asked():
            if self.core.round is not r or r.phase not in WINDOW_PHASES:
                break  # the window closed (it was no longer held)
            if index in self.asked() and self.plays_at_once(index):
                self._answer_at_once(index, now)
                moved = True
        return moved

    def _clocks_due(self, r: Round, now: float) -> bool:
        """Seats prompted whose clock ran out are played for; bots whose time came play.
        Whether any moved."""
        moved = False
        for index in list(self.asked()):
            if self.core.round is not r or r.phase is Phase.OVER or index not in self.asked():
                continue
            if self.seats[index].clock.prompted_seq != self.core.decision_seq:
                continue
            deadline, bot_at = self.seat_deadlines(index)
            if deadline is not None and deadline <= now + EARLY:
                self._timed_out(index, r.phase is Phase.TURN, now)
                moved = True
            elif bot_at is not None and bot_at <= now + EARLY:
                self._play_bot(index, now)
                moved = True
        return moved

    def _timed_out(self, index: int, turn: bool, now: float) -> None:
        """A seat's clock ran out: the policy moves for it, and on its `turn` it is put in
        托管 (announced). In a claim window it is not: that would tell who was asked; its
        claims are answered for it until it moves again (`quiet_auto`)."""
        seat = self.seats[index]
        reason: AutoReason = "disconnected" if not seat.connected else "timeout"
        if not turn:
            seat.quiet_auto = True
        elif not seat.auto:
            seat.auto = True
            self.core.seat_changed(index, now)
        self._play_policy(index, reason, now)

    def _close_window(self, now: float) -> None:
        """The claim window's minimum is over: the answers held are played, in order, and a
        window nobody could claim in closes."""
        r = self.core.round
        assert r is not None
        for held in self.window.close():
            new = r.apply(held.action)  # checked when it was held; the round has not moved since
            reason = cast(AutoReason | None, held.reason)  # one of them, as it was held
            self._record(held.action, new, held.answered, held.phase, now, reason=reason)
        if r.phase in WINDOW_PHASES and not r.awaiting():
            mark = len(r.events)
            r.resolve_window()
            self._record(
                None, r.events[mark:], self.core.decision_seq, r.phase.value, now, reason=None
            )

    def plays_at_once(self, index: int) -> bool:
        """The server answers for the seat without prompting it (`SeatState.plays_at_once`)."""
        r = self.core.round
        return self.seats[index].plays_at_once(r is not None and r.phase in WINDOW_PHASES)

    def asked(self) -> list[int]:
        """The seats the round waits on whose answer is not held yet."""
        r = self.core.round
        if r is None:
            return []
        return [s for s in r.awaiting() if s not in self.window.held]

    def _window_held(self, now: float) -> bool:
        """A claim window whose minimum is still running (answers wait for its end)."""
        r = self.core.round
        if r is None or r.phase not in WINDOW_PHASES or not self.s.holds_claims:
            return False
        return self.window.holds(now)

    def _move(self, index: int, action: Action, reason: AutoReason | None, now: float) -> None:
        """Play a seat's move, or (in a held claim window) check it and hold it until the
        window closes. Raises IllegalAction, changing nothing, if the move is illegal."""
        r = self.core.round
        assert r is not None
        answered, phase = self.core.decision_seq, r.phase.value
        if self._window_held(now):
            step(r, action)  # on a copy: only to check it
            self.window.hold(index, HeldAnswer(action, reason, answered, phase))
            self.seats[index].clock.answered_seq = answered
            return
        new = r.apply(action)
        self._record(action, new, answered, phase, now, reason=reason)

    def _answer_at_once(self, index: int, now: float) -> None:
        """The move of a seat the server answers for (`Play.plays_at_once`): its policy's, but a
        seat nobody is at and not in 托管 only wins or passes (`SeatState.claims_for_itself`).
        Either comes within the window's minimum, so neither tells who could claim."""
        r, seat = self.core.round, self.seats[index]
        assert r is not None
        if seat.claims_for_itself and r.phase in WINDOW_PHASES:
            owed = "hu" in r.claim_options.get(index, ())
            action = Action(index, "hu") if owed else r.default_action(index)
            self._move(index, action, seat.reason_at_once(), now)
        else:
            self._play_policy(index, seat.reason_at_once(), now)

    def _play_policy(self, index: int, reason: AutoReason | None, now: float) -> None:
        """The seat's move by its policy; its default (`Round.default_action`) only if the
        policy fails or picks an illegal move."""
        r = self.core.round
        assert r is not None
        action = self.policies.choose(r, index)  # None: the policy failed
        if action is not None:
            try:
                self._move(index, action, reason, now)
                return
            except IllegalAction:
                pass
        self.policies.fell_back()
        # IllegalAction here is a broken invariant: the table freezes.
        self._move(index, r.default_action(index), reason, now)

    def _play_bot(self, index: int, now: float) -> None:
        """A server bot's move, chosen by its policy."""
        self.seats[index].clock.spend(self.core.decision_seq, now, self.s.turn_seconds)
        self._play_policy(index, None, now)

    def start_round(self, now: float) -> None:
        r = self.match.next_round(weekday=weekday_of(self.core.wall))  # 星期鸡 (§13.12)
        seed = str(self.match.round_seed(self.core.round_no))
        self.core.round = r
        r.hold_empty_windows = self.s.holds_claims  # claim windows close by the core's clock
        self.window.reset()
        for seat in self.seats:
            seat.clock.new_round(self.s.bank_seconds)
        self.book.deal(r, self.new_salt())
        events = [self._engine_event(e) for e in r.events]
        dealt = self.book.dealt(r, self.core.round_no, seed, events[0]["hands"], self.core.wall)
        self.core.commit(events, [dealt], now, round_no=self.core.round_no)
        self.advance(now)

    def _engine_event(self, e: Event) -> dict[str, Any]:
        """An engine event as the log keeps it (its dict, a private one with the event beside
        it: `LoggedEntry`), numbered, with the table's context; it opens a decision."""
        d = self.book.context(
            LoggedEntry.of(e.to_dict(), e),
            self.core.round,
            round_no=self.core.round_no,
            base=self.s.base,
            scores=self.core.scores,
        )
        event = self.core.event(d)
        self.core.decision_seq = self.core.seq
        return event

    def _record(
        self,
        action: Action | None,
        new: list[Event],
        answered: int,
        phase: str,
        now: float,
        *,
        reason: AutoReason | None,
    ) -> None:
        """Number, store and send what an applied action caused (`action` None: a claim
        window nobody could claim in closed).

        A move the server made for a seat is announced (`auto_played`) on the seat's turn only:
        an answer in a claim window is no one else's business (a pass shows nothing; a 碰 or 胡
        shows by its own event)."""
        r = self.core.round
        assert r is not None
        pre: list[dict[str, Any]] = []
        records: list[Record] = []
        if action is not None:
            pre, records = self._played(action, answered, phase, reason)
        if phase != "turn":
            self.tally.claims(new, self.seats)
        over = r.phase is Phase.OVER
        if over:
            self.match.record(r)
            self.tally.round_ended()
        events = pre + [self._engine_event(e) for e in new]
        if over:
            result, rows = events[-1]["result"], self.seats.rows()
            records += self.book.over(
                r, self.core.round_no, result, self.core.scores, rows, self.core.wall
            )
        self.core.commit(events, records, now, round_no=self.core.round_no)

    def _played(
        self, action: Action, answered: int, phase: str, reason: AutoReason | None
    ) -> tuple[list[dict[str, Any]], list[Record]]:
        """An applied action's own part: the seat answered `answered`; on its turn, the move
        is counted, and announced (`auto_played`) if the server made it; its stored record."""
        seat = self.seats[action.seat]
        seat.clock.answered_seq = answered
        pre: list[dict[str, Any]] = []
        if phase == "turn":
            if reason is not None:
                frame = frames.auto_played(
                    self.id, self.core.seq + 1, action.seat, action.act, reason
                )
                pre.append(self.core.logged(frame))
            self.tally.turn(action.seat, reason=reason, bot=seat.kind == "bot")
        played = self.book.played(
            self.core.round_no, action, phase, reason is not None, self.core.wall
        )
        return pre, [played]

    def advance(self, now: float) -> None:
        """Play 托管 seats at once (by the policy); then prompt the others, or finish the
        round."""
        while self.core.round is not None and self.core.round.phase is not Phase.OVER:
            if self._window_held(now) or self.idle.paused:
                break  # a held claim window's 托管 answers come at its middle (`moves_due`)
            auto = [s for s in self.asked() if self.plays_at_once(s)]
            if not auto:
                break
            self._answer_at_once(auto[0], now)
        if self.core.round is None:
            return
        if self.core.round.phase is Phase.OVER:
            if self.book.end_handled():
                self.core.ending.round_over(now)
            return
        self.send_prompts(now)

    def prompted(self) -> Iterator[int]:
        """The seats asked to move now whose prompt has gone (or is going) out."""
        r = self.core.round
        if r is None or r.phase is Phase.OVER or self.core.state != "playing":
            return
        for index in self.asked():
            if self.seats[index].clock.prompted_seq == self.core.decision_seq:
                yield index

    def seat_deadlines(self, index: int) -> tuple[float | None, float | None]:
        """(when the seat's clock runs out, when a server bot in it moves)."""
        r = self.core.round
        return self.seats[index].deadlines(
            turn=self.s.turn_seconds if self.s.timed else None,
            grace=self.timing.disconnect_grace,
            bot_delay=self.core.bot_delay,
            claim_answer_at=self.window.middle() if self.window.timed() else None,
            in_window=r is not None and r.phase in WINDOW_PHASES,
        )

    def send_prompts(self, now: float, *, resend: int | None = None) -> None:
        """Prompt every awaited seat not yet prompted at this `seq` (and `resend` again, its
        clock running on from the first prompt). A prompt's clock starts when it goes out (a
        server bot's prompt has no frame but goes out all the same)."""
        r = self.core.round
        assert r is not None
        for index in self.asked():
            if self.plays_at_once(index):
                continue  # the server answers for it (in a held window: at its middle)
            seat = self.seats[index]
            fresh = seat.clock.prompt(self.core.decision_seq)
            if not fresh and index != resend:
                continue
            sends: list[Send[M]] = []
            if seat.member is not None:
                deadline = (
                    seat.clock.deadline(self.s.turn_seconds, sending_at=now)
                    if self.s.timed
                    else None
                )
                left = None if deadline is None else deadline - now
                item = PromptItem.of(
                    self.id, self.core.decision_seq, r, index, left, seat.clock.bank
                )
                frame = view_for(item, index)
                if frame is not None:
                    sends.append(Send((seat.member,), frame))
            self.core.paced(
                sends, event=False, stamp=(index, self.core.decision_seq) if fresh else None
            )
