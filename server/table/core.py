"""One table as a state machine without I/O: who may do what now, and in what order.

`TableCore` coordinates a table: the rules core's `Match` and the round being played, and
what each input means for them. Its state lives in small values that never call back into it,
each with its own logic and tests: the seats and their tokens (`seating`), each seat's clock and
the table's idleness (`clock`), the claim window (`window`), between rounds and the rematch vote
(`between`), the round's books (`rounds`), the policies that move for the server's bots and for
seats in 托管 (`policies`), what it counts for the metrics (`tally`), the settings
(`settings`) and the fan-out — the numbered log, the outbox and its pacing, the view groups
(`fanout`). `next_wakeup()` is the earliest of their deadlines (docs/ENGINE.md, "A table's
deadlines"). It never reads a clock, never waits, never writes or sends: it is told what
happened and what time it is, and answers with what must be done (`effects`: typed records to
store, frames built by `protocol.frames` to send).
`server.table.shell.Table` is the thin asyncio shell that feeds it and performs its answers.

Inputs. Each is a method that takes `now` (seconds on a steady clock: the shell passes the event
loop's `loop.time()`, a test a fake clock) and optionally `wall` (the same moment on the wall
clock, for the records' timestamps; `now` if not given), and returns the effects it caused, in
order. A *member* is whatever the shell uses for a connection (hashable; the core only compares
it and hands it back in effects).

    create(member, name, now)                     the creator takes seat 0 (the row is stored)
    join(member, name, msg, now, busy=...)        `take_seat` / `watch`
    resume(member, key, token, last_seq, now)     a seat's token came back (a reconnect)
    gone(member, now, left=...)                   a connection closed, or asked to `leave`
    command(member, msg, now)                     add_bot, remove_bot, start, act, auto, sync,
                                                  hand_seat, next_round, rematch, propose_end,
                                                  vote_end
    rematch(seats, now)                           a new table's match for a rematch's seats
    tick(now)                                     time passed (see `next_wakeup`)
    resumed(now)                                  go on after a restart (`restore`)
    freeze(now)                                   a broken invariant or a failed write: stop
    close_by_host(now), kick(index, now)          `zhuoji admin`

Outputs: the effects (`Effect`), performed in order. Nothing after a `Write` may be performed
unless it succeeded; an event's frames are not in the effects of the input that made it but of
the next tick (due at once), which the shell gives only after performing the input's writes: so
what a player sees is on disk, and an event's time out is when it really went (`fanout`). After
every input `next_wakeup()` is the time of the next deadline, or None: the shell arms one timer
for it and calls `tick` then.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterator
from typing import Any, Generic, Literal, TypeVar, cast

from pydantic import BaseModel

from protocol import codes, frames
from protocol.codes import Close as CloseCode
from protocol.messages import (
    Act,
    AddBot,
    Auto,
    HandSeat,
    NextRound,
    ProposeEnd,
    Rematch,
    RemoveBot,
    Start,
    Sync,
    TakeSeat,
    VoteEnd,
    Watch,
)
from rules.actions import Action, IllegalAction
from rules.match import Match
from rules.round import Phase, Round, step
from rules.tiles import parse_tile
from server.credentials import new_salt, new_token, token_key
from server.storage.records import (
    EventLogged,
    MatchStarted,
    Record,
    SeatsChanged,
    TableAbandoned,
    TableEnded,
    TokensChanged,
)
from server.table.between import Between, Wait
from server.table.clock import Idleness
from server.table.effects import (
    Accepted,
    Bind,
    Close,
    DropToken,
    Effect,
    IssueToken,
    RematchSeat,
    Remove,
    Send,
    StartRematch,
    Unbind,
    Write,
)
from server.table.fanout import EARLY, EventLog, Outbox, SpectatorCount, Stamp
from server.table.inputs import TableCommand
from server.table.policies import Policies
from server.table.projection import (
    ErrorItem,
    PromptItem,
    SnapshotItem,
    view_for,
)
from server.table.rounds import RoundBook, weekday_of
from server.table.seating import AutoReason, Members, Seats, SeatState
from server.table.settings import Settings, Timing
from server.table.tally import Tally
from server.table.vote import EndVote
from server.table.window import ClaimWindow, HeldAnswer

CLAIM_HOLD_TYPES = frozenset({"discarded", "add_gang_declared"})
WINDOW_PHASES = (Phase.CLAIM, Phase.ROB)
WINDOW = -1  # the stamp's "seat" of a claim window's opening event
FROZEN = "this table stopped after a server fault"

M = TypeVar("M", bound=Hashable)


class TableCore(Generic[M]):
    """One table's state and rules of play; see the module docstring for inputs and effects."""

    def __init__(
        self,
        table_id: str,
        settings: Settings,
        *,
        seed: str,
        timing: Timing,
        tokens: Callable[[], str] = new_token,
        salts: Callable[[], str] = new_salt,
    ) -> None:
        self.id = table_id
        self.s = settings
        self.seed = seed
        self.timing = timing
        self._new_token = tokens
        self._new_salt = salts
        self.seats: Seats[M] = Seats()  # who sits where, and their tokens
        self.members: Members[M] = Members()  # who is at the table: seat, or None (watching)
        self.state = "waiting"  # waiting | playing | finished | abandoned
        self.events = EventLog(table_id)  # the numbered events (`seq`), the last kept
        # The seq of the last round event: the decision the round waits on. A prompt quotes it,
        # and stays good while other events (a seat's connection, a spectator) come and go.
        self.decision_seq = 0
        self.round: Round | None = None
        # Rounds, running scores and the deal passing (§8.3) are the rules core's `Match`.
        self.match = Match(settings.options, settings.rounds, seed=seed, base=settings.base)
        # The round's books: its fair deal's salt and commitment, its actions stored.
        self.book = RoundBook(table_id)
        self.frozen = False
        # A match that could not be restored: its stored standings are the truth (this core
        # never summed them), so its freeze records the end alone (`table_restore`).
        self.keep_stored_standings = False
        # Who chooses the server's moves: the bots' policies and 托管's (`policies`).
        self.policies = Policies(table_id, timing.auto_level)
        # The claim window's minimum as a deadline of the round itself: after a discard (or a
        # 补杠 declaration) the window stays open `claim_min_ms` from when it went out, whether
        # or not anyone may claim; answers meanwhile are checked and held (`held`), and played
        # when it closes. So the round a member can ask about (`sync`, `act`) is the same
        # whoever holds what.
        self.window: ClaimWindow[Action] = ClaimWindow(settings.claim_min_ms / 1000)
        # Spectators come and go unstored: a coalesced count frame (`spectators`).
        self.spectator_count = SpectatorCount()
        # Between rounds (`between`): the round to come starts when no seat holds it up, or at
        # `next_round_at` (None: no limit); after the match, the rematch vote.
        self.between = Between(timing.disconnect_grace)
        # The vote to end the match together (解散, `vote`): settled after every input.
        self.vote = EndVote(timing.disconnect_grace)
        self.ended_as: str | None = None  # how the match ended, as stored (`voted`: by vote)
        # What happened, counted for the server's metrics (`tally`; the shell takes it after
        # each input), and the seats whose move an event of this input showed.
        self.tally = Tally()
        self.linger_until: float | None = None
        self.creator: M | None = None  # who created it (a waiting table goes when they leave)
        self.idle = Idleness(timing.idle_pause, timing.idle_close)  # nobody connected
        # What an input answers, in order; its frames paced behind writes and claim holds.
        self.outbox: Outbox[M] = Outbox(settings.claim_min_ms / 1000)
        self.pacer = self.outbox.pacer
        self._now = 0.0  # the time of the input being handled (deadlines)
        self._wall = 0.0  # the same on the wall clock (what the records say)

    # ----- after a restart (`server.table.restore` rebuilt it) -----

    def resumed(self, now: float, *, wall: float | None = None) -> list[Effect]:
        """Go on after a restart: everyone is told the seats wait, the server's bots come back
        at the next tick, and the match continues where it stood."""
        self._begin(now, wall)
        event = self._logged(frames.table_update(self.id, self.seq + 1, self.info()))
        self._commit([event], [], now, round_no=0)
        for index, seat in enumerate(self.seats):
            if seat.kind == "bot":
                seat.restored_seq = None
                seat.bot_arrives = now
                self.policies.seat_bot(index, seat.level or "normal", since=self.seq)
        if self.round is not None:
            self.round.hold_empty_windows = self.s.holds_claims
            if self.round.phase in WINDOW_PHASES:
                self.window.ran_before(now)
            if any(seat.awaits_return for seat in self.seats):
                # Nothing plays until the first player is back, or for as long as a dropped
                # player is waited for: a restart is the server's doing, and the round must not
                # move on (a window close, a bot's turn) before anyone could see it. Whether
                # the table waits depends on its seats' kinds only, never on what they hold.
                self.idle.pause(now, now + self.timing.disconnect_grace)
            self._advance(now)
        elif self.match.over:
            self._end_match("finished", now)
        elif self.round_no == 0:
            self._start_round(now)
        else:
            # Between rounds: the wait begins again (the players are coming back; each is
            # waited for up to `disconnect_grace`, as ever).
            self._wait_next(now)
        return self._done()

    # ----- reading -----

    @property
    def seq(self) -> int:
        """The number of the table's last event."""
        return self.events.seq

    @property
    def round_no(self) -> int:
        return self.match.round_no

    @property
    def scores(self) -> list[int]:
        return self.match.scores

    @property
    def rounds_played(self) -> int:
        """Rounds that ended (a round cut short by an abandon is not one played)."""
        return len(self.match.history)

    @property
    def spectators(self) -> list[M]:
        return self.members.spectators

    def info(self) -> dict[str, Any]:
        """The table header (protocol `TableInfo`)."""
        return {
            "id": self.id,
            **self.s.header(self.timing),
            "seats": [seat.info(self.state != "waiting") for seat in self.seats],
            "spectators": len(self.spectators),
            "state": "finished" if self.state in ("finished", "abandoned") else self.state,
            "round_no": self.round_no,
            "scores": list(self.scores),
        }

    @property
    def bot_delay(self) -> float:
        """Seconds this table's bots wait before each move."""
        return self.s.pace(self.timing)

    def next_wakeup(self) -> float | None:
        """When the core next has something to do by itself (call `tick` then), or None: the
        earliest of its parts' deadlines (a paused or frozen table has only its own)."""
        times = [t for t in (self.pacer.due(self._now), self.linger_until) if t is not None]
        if self.frozen:
            return min(times, default=None)
        if self.state == "playing":
            times += self.idle.wakeups()
            if self.idle.paused:
                return min(times, default=None)
            times += self.between.wakeups(self.seats, self._now)
            times += self.vote.wakeups(self.seats, self._now)
        times += self.seats.arrivals()
        for index in self._prompted():
            times += [t for t in self._seat_deadlines(index) if t is not None]
        if self.spectator_count.due is not None:
            times.append(self.spectator_count.due)
        r = self.round
        if r is not None and self.state == "playing" and r.phase in WINDOW_PHASES:
            machine = any(self._plays_at_once(s) for s in self._asked())
            times += self.window.wakeups(machine_waits=machine)
        return min(times, default=None)

    # ----- inputs: membership -----

    def create(
        self, member: M, name: str | None, now: float, *, wall: float | None = None
    ) -> list[Effect]:
        """The table row is stored, then the creator takes seat 0."""
        self._begin(now, wall)
        self.creator = member
        self.outbox.emit(Write([self.s.created(self.id, self.seed, self._wall)]))
        self._join(member, name, TakeSeat(table=self.id, seat=0), now, creator=True, busy=False)
        return self._done()

    def join(
        self,
        member: M,
        name: str | None,
        msg: TakeSeat | Watch,
        now: float,
        *,
        busy: bool,
        wall: float | None = None,
        password_ok: bool | None = None,
    ) -> list[Effect]:
        """`take_seat` or `watch`; `busy`: the member is at a table already; `password_ok`:
        the shell checked the password off the event loop (None: check it here)."""
        self._begin(now, wall)
        if password_ok is None:
            password_ok = self.s.password_ok(msg.password)
        if not self._refused_frozen(member, msg.type):
            self._join(member, name, msg, now, creator=False, busy=busy, password_ok=password_ok)
        return self._done()

    def _join(
        self,
        member: M,
        name: str | None,
        msg: TakeSeat | Watch,
        now: float,
        *,
        creator: bool,
        busy: bool,
        password_ok: bool = True,
    ) -> None:
        if busy or member in self.members:
            self._error(member, codes.ALREADY_AT_TABLE, "leave your table first", msg.type)
            return
        if not creator and not password_ok:
            self._error(member, codes.BAD_PASSWORD, "wrong password for this table", msg.type)
            return
        if isinstance(msg, Watch):
            self._watch(member, name, now)
        elif self.state != "waiting":
            self._take_back(member, name, msg, now)
        else:
            self._reserve(member, name, msg, now)

    def _watch(self, member: M, name: str | None, now: float) -> None:
        """A spectator comes in (a paused table wakes: someone is there), unless the table
        has as many as the server allows — past which a seat's own player, come back to
        watch until the creator hands the seat on, is still let in (`Seats.returning`)."""
        cap = self.timing.spectators
        if (
            cap
            and len(self.spectators) >= cap
            and (
                not self.seats.returning(getattr(member, "player", None), name)
                or bool(self.members.named(name))
            )
        ):
            self._error(
                member,
                codes.SPECTATORS_FULL,
                f"this table has {cap} spectators already (the server's limit): try later",
                "watch",
            )
            return
        self._wake(now)
        self.members.watch(member, name)
        self.outbox.emit(Bind(member, None))
        self._spectators_changed(now)
        self._welcome(member, None, None)

    def _reserve(self, member: M, name: str | None, msg: TakeSeat, now: float) -> None:
        """`take_seat` before the start: the seat asked for (or the first free one) is the
        member's, with a new token."""
        index = self._free_seat(member, msg.seat, msg.type)
        if index is None:
            return
        seat = self.seats[index]
        seat.name, seat.kind, seat.member = name, "human", member
        seat.player = getattr(member, "player", None)
        token = self._issue_token(seat)
        self.members[member] = index
        self.outbox.emit(Bind(member, index))
        self._table_changed(now, exclude=member)
        self._welcome(member, index, token)

    def _take_back(self, member: M, name: str | None, msg: TakeSeat, now: float) -> None:
        """`take_seat` on a started match: a seat belongs to its player. Their player key
        (`hello`'s) takes back their away seat; a name and the table's password (which any
        spectator may know) take nothing — they let one watch. Otherwise the seat comes back
        with its token (`hello`), or the table's creator hands it on (`hand_seat`)."""
        if self.state != "playing":
            self._error(member, codes.ALREADY_STARTED, "the match is over: watch it", msg.type)
            return
        player = getattr(member, "player", None)
        claim = self.seats.claim(player, name, msg.seat)
        if claim.seat is None:
            self._error(member, claim.code, claim.message, msg.type)
            return
        self._seat_member(member, claim.seat, now)

    def _seat_member(self, member: M, index: int, now: float) -> None:
        """Put a member in a seat of the started match, with a new token (the old one no
        longer takes it): it gets the snapshot and the seat is its own again at once."""
        seat = self.seats[index]
        self._leave_place(member)
        self._drop_token(seat)
        token = self._issue_token(seat)
        seat.sit(member, getattr(member, "player", None))
        self.members[member] = index
        self.outbox.emit(Bind(member, index))
        self.outbox.emit(Write([self._seats_record()]))
        self._welcome(member, index, token)
        self._came_back(index, now)

    def _seats_record(self) -> SeatsChanged:
        """The seats' names and token digests as stored (what a restarted server knows)."""
        return SeatsChanged(self.id, self.seats.rows(), self.seats.token_keys())

    def _hand_seat(self, member: M, msg: HandSeat, now: float) -> None:
        """The table's creator (the player in seat 0) hands an away seat to a spectator."""
        index = self._seated(member, msg.type)
        if index is None:
            return
        named = self.members.named(msg.to)
        playing = self.state == "playing"
        refused = self.seats.hand_refusal(index, msg.seat, msg.to, len(named), playing=playing)
        if refused is not None:
            self._error(member, *refused, msg.type)
            return
        newcomer = named[0]
        # The seat is the newcomer's now: the old key, like the old token, takes nothing back.
        seat = self.seats[msg.seat]
        seat.name, seat.player = msg.to, getattr(newcomer, "player", None)
        self.vote.reseated(msg.seat)
        self._seat_member(newcomer, msg.seat, now)
        self._spectators_changed(now)
        self._table_changed(now)

    def _free_seat(self, member: M, wanted: int | None, ref: str) -> int | None:
        """The seat asked for, or the first free one; None (and an error) if there is none."""
        index = self.seats.free(wanted)
        if index is None:
            code, message = self.seats.refusal(wanted)
            self._error(member, code, message, ref)
        return index

    def _issue_token(self, seat: SeatState[M]) -> str:
        token = self._new_token()
        seat.token_key = token_key(token)
        self.outbox.emit(IssueToken(seat.token_key))
        return token

    def _welcome(self, member: M, seat: int | None, token: str | None) -> None:
        self.outbox.to(member, frames.joined(self.id, self.seq, seat, token, "snapshot"))
        self.outbox.view(member, seat, self._snapshot())
        self._send_wait((member,))

    def resume(
        self,
        member: M,
        key: str,
        token: str,
        last_seq: int | None,
        now: float,
        *,
        wall: float | None = None,
    ) -> list[Effect]:
        """A seat's token came back (a reconnect): the missed events, or a snapshot."""
        self._begin(now, wall)
        if self._refused_frozen(member, "resume"):
            self.tally.resumed("refused")
            return self._done()
        index = self.seats.holding(key)
        if index is None or self.seats[index].kind != "human":
            self.tally.resumed("refused")
            self._error(member, codes.BAD_TOKEN, "that seat is no longer yours", "hello")
            return self._done()
        self._wake(now)
        self._reseat(member, index)
        self._catch_up(member, index, token, last_seq)
        self._came_back(index, now)
        self._maybe_rematch()  # the last one who had asked is back
        return self._done()

    def _reseat(self, member: M, index: int) -> None:
        """A seat's token came back on `member`: the connection it had is replaced, and a
        seat taken before its player had a key becomes that player's."""
        seat = self.seats[index]
        old = seat.member
        if old is not None and old != member:
            self.members.pop(old, None)
            self.outbox.emit(Unbind(old))
            self.outbox.emit(Close(old, CloseCode.REPLACED, "this seat connected again elsewhere"))
        if self.members.get(member, index) != index:  # it watched, or sat elsewhere here
            self._leave_place(member)
        seat.sit(member)
        self.members[member] = index
        self.outbox.emit(Bind(member, index))
        player = getattr(member, "player", None)
        if seat.player is None and player is not None:
            # A seat taken before its player had a key (an older client, or a match carried
            # over an upgrade) is theirs from now on, in the store as in the records.
            seat.player = player
            self.outbox.emit(Write([self._seats_record()]))

    def _catch_up(self, member: M, index: int, token: str, last_seq: int | None) -> None:
        """`joined`, then the events after `last_seq` if the log still holds them, else a
        snapshot; then the wait between rounds, if any."""
        fresh = self.seats[index].fresh_since(last_seq)
        missed = self.events.since(last_seq) if fresh and last_seq is not None else None
        how: Literal["events", "snapshot"] = "snapshot" if missed is None else "events"
        self.tally.resumed(how)
        self.outbox.to(member, frames.joined(self.id, self.seq, index, token, how))
        for item in [self._snapshot()] if missed is None else missed:
            self.outbox.view(member, index, item)
        self._send_wait((member,))

    def _came_back(self, index: int, now: float) -> None:
        """A seat is taken again (its player, or a server bot): 托管 ends unless asked for, and
        a seat asked to move is prompted again, its clock going on as it stood."""
        self.seats[index].came_back()
        self._seat_changed(index, now)
        if index in self._asked():
            self._send_prompts(now, resend=index)

    def _leave_place(self, member: M) -> None:
        """Forget where a member was (before it takes another place here)."""
        if member in self.members and self.members[member] is None:
            self._spectators_changed(self._now)
        place = self.members.leave(member)
        if place is not None and self.seats[place].member == member:
            self.seats[place].member = None

    def gone(self, member: M, now: float, *, left: bool, wall: float | None = None) -> list[Effect]:
        """A connection closed (`left` False) or asked to leave the table."""
        self._begin(now, wall)
        if member not in self.members:
            return self._done()
        index = self.members.leave(member)
        self.outbox.emit(Unbind(member))
        if index is None:
            if left:
                self.outbox.to(member, frames.left(self.id))
            if not self.frozen:
                self._spectators_changed(now)
        else:
            seat = self.seats[index]
            if seat.member != member:
                return self._done()
            seat.member = None
            if left:
                self.outbox.to(member, frames.left(self.id))
            if self.frozen:
                pass
            elif self.state == "waiting" and member == self.creator:
                self._close_waiting(now, "the table's creator left: the table is closed")
            elif self.state == "waiting":
                self._free_reservation(index, now)
            else:
                seat.left(now, asked=left, playing=self.state == "playing")
                self._seat_changed(index, now)
                # 托管 (it left), or an away seat's claim answered at once (`_plays_at_once`).
                self._advance(now)
        self._remove_if_idle()
        return self._done()

    def _free_reservation(self, index: int, now: float) -> None:
        """Before the start a seat is only a reservation: its token goes and it is free."""
        self._drop_token(self.seats[index])
        self.seats.vacate(index)
        self._table_changed(now)

    def _drop_token(self, seat: SeatState[M]) -> None:
        if seat.token_key is not None:
            self.outbox.emit(DropToken(seat.token_key))

    def _remove_if_idle(self, *, force: bool = False) -> None:
        """A table that is not playing and has nobody at it (no human, no spectator, no player
        whose connection dropped during the match and who has not seen its end) goes away; a
        finished one goes anyway after `finished_linger` (`force`)."""
        if self.state == "playing" and not force:
            return
        people = any(s.kind == "human" and (s.member is not None or s.away) for s in self.seats)
        if force or not (people or self.spectators):
            self.linger_until = None
            if self.state == "waiting":  # never started: recorded as abandoned
                self.state = "abandoned"
                self.outbox.emit(Write([TableEnded(self.id, "abandoned", [0] * 4, 0, self._wall)]))
            self.outbox.emit(Remove())

    # ----- inputs: commands from members -----

    def command(
        self, member: M, msg: TableCommand, now: float, *, wall: float | None = None
    ) -> list[Effect]:
        """A table command from a member (`add_bot`, `remove_bot`, `start`, `act`, `auto`,
        `sync`, `hand_seat`, `next_round`, `rematch`)."""
        self._begin(now, wall)
        if self._refused_frozen(member, msg.type):
            return self._done()
        if member not in self.members:
            self._error(member, codes.NOT_AT_TABLE, "you are not at this table", msg.type)
            return self._done()
        match msg:
            case Act():
                self._act(member, msg, now)
            case Auto():
                self._auto(member, msg, now)
            case AddBot():
                self._add_bot(member, msg, now)
            case RemoveBot():
                self._remove_bot(member, msg, now)
            case HandSeat():
                self._hand_seat(member, msg, now)
            case NextRound():
                self._ready(member, msg.type)
            case Rematch():
                self._rematch_vote(member)
            case ProposeEnd():
                self._propose_end(member, now)
            case VoteEnd():
                self._vote_end(member, msg.agree, now)
            case Start():
                self._start(member, now)
            case Sync():
                self._sync(member)
        return self._done()

    def _ready(self, member: M, ref: str) -> None:
        """`next_round`: the seat no longer holds the next round up."""
        index = self._seated(member, ref)
        if index is not None and self.between.mark_ready(index):
            self.outbox.emit(Accepted(member))  # it answers the wait, as a move its prompt

    def _sync(self, member: M) -> None:
        """`sync`: the snapshot as this member sees it (its seat's, if it sits there), and
        the wait between rounds."""
        index = self.members[member]
        seated = index is not None and self.seats[index].member == member
        self.outbox.view(member, index if seated else None, self._snapshot())
        self._send_wait((member,))

    def _seated(self, member: M, ref: str) -> int | None:
        index = self.members.get(member)
        if index is None or self.seats[index].member != member:
            self._error(member, codes.NOT_SEATED, "only a seated player may do that", ref)
            return None
        return index

    def _add_bot(self, member: M, msg: AddBot, now: float) -> None:
        if self._seated(member, msg.type) is None:
            return
        if self.state != "waiting":
            self._error(member, codes.ALREADY_STARTED, "the match has started", msg.type)
            return
        index = self._free_seat(member, msg.seat, msg.type)
        if index is None:
            return
        seat = self.seats[index]
        seat.kind, seat.name, seat.level = "bot", f"Bot-{index + 1}", msg.level
        seat.bot_arrives = now  # it takes the seat at the next tick, as a client would
        self.policies.seat_bot(index, msg.level)
        self._table_changed(now)

    def _remove_bot(self, member: M, msg: RemoveBot, now: float) -> None:
        if self._seated(member, msg.type) is None:
            return
        if self.state != "waiting":
            self._error(member, codes.ALREADY_STARTED, "the match has started", msg.type)
            return
        seat = self.seats[msg.seat]
        if seat.kind != "bot":
            self._error(member, codes.NOT_A_BOT, f"seat {msg.seat} is not a bot", msg.type)
            return
        self.policies.remove_bot(msg.seat)
        self._free_reservation(msg.seat, now)

    def _start(self, member: M, now: float) -> None:
        if self._seated(member, "start") is None:
            return
        if self.state != "waiting":
            self._error(member, codes.ALREADY_STARTED, "the match has already started", "start")
            return
        if any(seat.kind == "empty" for seat in self.seats):
            self._error(member, codes.NOT_ENOUGH_PLAYERS, "four seats must be taken", "start")
            return
        self._start_match(now)

    def _start_match(self, now: float) -> None:
        self.state = "playing"
        names = [seat.name or "" for seat in self.seats]
        event = self._logged(frames.match_started(self.id, self.seq + 1, self.s.rounds, names))
        keys = self.seats.token_keys()
        self._commit(
            [event],
            [MatchStarted(self.id, self.seats.rows(), keys, self._wall)],
            now,
            round_no=0,
        )
        self._start_round(now)

    def _auto(self, member: M, msg: Auto, now: float) -> None:
        index = self._seated(member, msg.type)
        if index is None:
            return
        seat = self.seats[index]
        if seat.auto == msg.on:
            return
        seat.auto = seat.auto_requested = msg.on
        self._seat_changed(index, now)
        seat.quiet_auto = False
        if msg.on:
            self._advance(now)
        elif index in self._asked():
            self._send_prompts(now, resend=index)

    def _act(self, member: M, msg: Act, now: float) -> None:
        index = self._seated(member, msg.type)
        if index is None:
            return
        refused = self._act_refusal(index, msg.seq)
        if refused is not None:
            self._error(member, *refused, msg.type)
            return
        seat = self.seats[index]
        action = Action(index, msg.act, None if msg.tile is None else parse_tile(msg.tile))
        answered = self.decision_seq
        self.tally.new_move()
        try:
            self._move(index, action, None, now)  # refused: the round is unchanged
        except IllegalAction as err:
            self._error(member, err.code, err.message, msg.type)
            return
        seat.clock.spend(answered, now, self.s.turn_seconds)
        seat.quiet_auto = False
        self._advance(now)
        # A move the table accepted answers a prompt the server sent: it does not count
        # against the rate limit, so a quick bot at a quick table is never cut off. It is
        # timed (the metrics) only if an event showed it: a pass in a claim window is not.
        self.outbox.emit(Accepted(member, shown=self.tally.showed(index)))

    def _act_refusal(self, index: int, seq: int) -> tuple[str, str] | None:
        """Why seat `index` may not answer decision `seq` now (an error code and its
        message), or None: it may, if the move is legal."""
        r = self.round
        if self.state != "playing" or r is None or r.phase is Phase.OVER:
            return codes.NOT_PLAYING, "no round is being played"
        if seq == self.seats[index].clock.answered_seq:
            return codes.DUPLICATE, f"you already answered {seq}"
        if seq != self.decision_seq:
            return codes.STALE, f"that answers {seq}; the move asked now is {self.decision_seq}"
        if index not in self._asked():
            return codes.NOTHING_TO_DO, "nothing is asked of you now"
        return None

    # ----- inputs: time -----

    def tick(self, now: float, *, wall: float | None = None) -> list[Effect]:
        """Do what is due by `now`: paced frames, bots arriving and moving, prompts timing out,
        the next round, a finished table going away."""
        self._begin(now, wall)
        if (
            self.linger_until is not None
            and self.linger_until <= now + EARLY
            and not self.pacer.queue  # what it still had to say goes out first
        ):
            self._remove_if_idle(force=True)
            return self._done()
        if self.frozen or self._idle(now):
            return self._done()
        for index in self.seats.arrived(now):
            self._came_back(index, now)
        due = self.spectator_count.due
        if due is not None and due <= now + EARLY:
            self._send_spectators(now)
        if self.state == "playing" and self.between.due(self.seats, now):
            self.between.end()
            self._start_round(now)
        self._moves_due(now)
        return self._done()

    def _spectators_changed(self, now: float) -> None:
        """A spectator came or went: the count goes out once the last one is old enough."""
        self.spectator_count.changed(now)

    def _send_spectators(self, now: float) -> None:
        """The spectator count to every member, unstored and unnumbered (it carries the
        table's current `seq`, as a snapshot does), if it changed since the last one."""
        if self.frozen:
            self.spectator_count.due = None
            return
        count = len(self.spectators)
        if not self.spectator_count.take(now, count):
            return
        frame = frames.spectators(self.id, self.seq, count)
        if self.members:
            self.outbox.paced([Send(tuple(self.members), frame)], event=False)

    def _moves_due(self, now: float) -> None:
        """What is due in the round at `now`: the machine's answers in a held claim window
        past its middle, the moves of seats whose clock ran out and of bots whose time came,
        and the window's close at its end."""
        r = self.round
        if r is None or r.phase is Phase.OVER or self.state != "playing":
            return
        moved = self._machine_answers(r, now)
        moved = self._clocks_due(r, now) or moved
        if self.round is r and r.phase in WINDOW_PHASES and self.window.due(now):
            self._close_window(now)
            moved = True
        if moved:
            self._advance(now)

    def _machine_answers(self, r: Round, now: float) -> bool:
        """A held claim window past its middle: the seats the server answers for (托管, quiet
        托管, away) give their answers. Whether any did."""
        if r.phase not in WINDOW_PHASES or not self.window.timed():
            return False
        if self.window.middle() > now + EARLY:
            return False
        moved = False
        for index in self._asked():
            if self.round is not r or r.phase not in WINDOW_PHASES:
                break  # the window closed (it was no longer held)
            if index in self._asked() and self._plays_at_once(index):
                self._answer_at_once(index, now)
                moved = True
        return moved

    def _clocks_due(self, r: Round, now: float) -> bool:
        """Seats prompted whose clock ran out are played for; bots whose time came play.
        Whether any moved."""
        moved = False
        for index in list(self._asked()):
            if self.round is not r or r.phase is Phase.OVER or index not in self._asked():
                continue
            if self.seats[index].clock.prompted_seq != self.decision_seq:
                continue
            deadline, bot_at = self._seat_deadlines(index)
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
            self._seat_changed(index, now)
        self._play_policy(index, reason, now)

    def _close_window(self, now: float) -> None:
        """The claim window's minimum is over: the answers held are played, in order, and a
        window nobody could claim in closes."""
        r = self.round
        assert r is not None
        for held in self.window.close():
            new = r.apply(held.action)  # checked when it was held; the round has not moved since
            reason = cast(AutoReason | None, held.reason)  # one of them, as it was held
            self._record(held.action, new, held.answered, held.phase, now, reason=reason)
        if r.phase in WINDOW_PHASES and not r.awaiting():
            mark = len(r.events)
            r.resolve_window()
            self._record(None, r.events[mark:], self.decision_seq, r.phase.value, now, reason=None)

    def _plays_at_once(self, index: int) -> bool:
        """The server answers for the seat without prompting it (`SeatState.plays_at_once`)."""
        r = self.round
        return self.seats[index].plays_at_once(r is not None and r.phase in WINDOW_PHASES)

    def _asked(self) -> list[int]:
        """The seats the round waits on whose answer is not held yet."""
        r = self.round
        if r is None:
            return []
        return [s for s in r.awaiting() if s not in self.window.held]

    def _window_held(self, now: float) -> bool:
        """A claim window whose minimum is still running (answers wait for its end)."""
        r = self.round
        if r is None or r.phase not in WINDOW_PHASES or not self.s.holds_claims:
            return False
        return self.window.holds(now)

    def _move(self, index: int, action: Action, reason: AutoReason | None, now: float) -> None:
        """Play a seat's move, or (in a held claim window) check it and hold it until the
        window closes. Raises IllegalAction, changing nothing, if the move is illegal."""
        r = self.round
        assert r is not None
        answered, phase = self.decision_seq, r.phase.value
        if self._window_held(now):
            step(r, action)  # on a copy: only to check it
            self.window.hold(index, HeldAnswer(action, reason, answered, phase))
            self.seats[index].clock.answered_seq = answered
            return
        new = r.apply(action)
        self._record(action, new, answered, phase, now, reason=reason)

    def _answer_at_once(self, index: int, now: float) -> None:
        """The move of a seat the server answers for (`_plays_at_once`): its policy's, but a
        seat nobody is at and not in 托管 only wins or passes (`SeatState.claims_for_itself`).
        Either comes within the window's minimum, so neither tells who could claim."""
        r, seat = self.round, self.seats[index]
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
        r = self.round
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
        self.seats[index].clock.spend(self.decision_seq, now, self.s.turn_seconds)
        self._play_policy(index, None, now)

    def freeze(self, now: float, *, wall: float | None = None) -> list[Effect]:
        """After a broken invariant or a refused write: stop the match, keep its log, tell
        everyone. The first effect is the write of the table's end, so that the record and the
        players agree: nobody is told of an end that is not stored (if that write fails too,
        the shell sends nothing more).

        The frames still waiting are dropped, not sent: they may be of the write that failed."""
        if not self.frozen:
            self.pacer.clear()
        self._begin(now, wall)
        if self.frozen:
            return self._done()
        self.frozen = True
        self.state = "abandoned"
        self.between.end()
        self.vote.cancel()
        end: Record = (
            TableAbandoned(self.id, self._wall)
            if self.keep_stored_standings
            else TableEnded(self.id, "abandoned", list(self.scores), self.rounds_played, self._wall)
        )
        self.outbox.emit(Write([end]))
        for member, viewer in list(self.members.items()):
            error = ErrorItem(codes.TABLE_FROZEN, FROZEN, None, self.id, self.seq)
            self.outbox.view(member, viewer, error)
        event = self._logged(
            frames.match_ended(self.id, self.seq + 1, self.scores, self.rounds_played, "abandoned")
        )
        self.outbox.broadcast(event, self.members, stored=False)  # unlogged: with the errors
        self.linger_until = now + self.timing.finished_linger
        return self._done()

    def storage_waited(self, seconds: float) -> None:
        """The table waited `seconds` for a write (a storage fault): nobody's clock ran
        meanwhile, so the prompts and disconnection grace standing are pushed back by as much."""
        self.seats.shift(seconds, arrivals=False)

    # ----- idle tables -----

    def _idle(self, now: float) -> bool:
        """Whether the table is paused for want of anyone connected (it may close here)."""
        if self.state != "playing":
            return False
        verdict = self.idle.check(now)
        if verdict == "close":
            self._end_match("abandoned", now)
        elif verdict == "resume":
            self._wake(now)
            return False
        return verdict != "running"

    def _wake(self, now: float) -> None:
        """Someone is back: a paused table goes on, every clock as it stood at the pause."""
        paused = self.idle.wake(now)
        if paused:
            self._shift(paused)

    def _shift(self, seconds: float) -> None:
        """Push every deadline standing `seconds` later (the time nobody's clock ran)."""
        self.seats.shift(seconds, arrivals=True)
        self.between.shift(seconds)
        self.vote.shift(seconds)
        self.pacer.hold_until += seconds

    def idle_seconds(self, now: float) -> float | None:
        """How long nobody has been connected to this playing table (None: someone is)."""
        return self.idle.seconds(now)

    @property
    def paused(self) -> bool:
        return self.idle.paused

    # ----- inputs: the server's host (`zhuoji admin`) -----

    def _close_waiting(self, now: float, why: str) -> None:
        """A table that never started closes: everyone at it is told and it is removed (once
        what it still has to say is out)."""
        for member in list(self.members):
            self._error(member, codes.TABLE_CLOSED, why, None)
        for seat in self.seats:
            self._drop_token(seat)
        self.state = "abandoned"
        self.outbox.emit(Write([TableEnded(self.id, "abandoned", [0] * 4, 0, self._wall)]))
        self.linger_until = now

    def close_by_host(self, now: float, *, wall: float | None = None) -> list[Effect]:
        """`zhuoji admin close`: the match ends as abandoned (stored, then everyone is told:
        an `error` `table_closed` and `match_ended`), and the table is removed."""
        self._begin(now, wall)
        why = "the server's host closed this table"
        if self.state == "waiting":
            self._close_waiting(now, why)
        elif self.state == "playing" and not self.frozen:
            for member in list(self.members):
                self._error(member, codes.TABLE_CLOSED, why, None)
            self.idle.paused_at = None
            self._end_match("abandoned", now)
            self.linger_until = now
        else:
            self.linger_until = now
        return self._done()

    def kick_problem(self, index: int) -> str | None:
        """Why seat `index` cannot be kicked (None: it can)."""
        if not 0 <= index < 4:
            return f"no seat {index} (seats are 0-3)"
        if self.state not in ("waiting", "playing") or self.frozen:
            return f"table {self.id} is not open ({self.state})"
        if self.seats[index].kind != "human" or self.seats[index].token_key is None:
            return f"seat {index} of table {self.id} holds no player"
        return None

    def kick(self, index: int, now: float, *, wall: float | None = None) -> list[Effect]:
        """`zhuoji admin kick`: the player in seat `index` is told and sent away, and their
        token no longer takes the seat back. Before the start the seat is freed (the creator
        kicked closes the table); during a match it is played by the server (托管)."""
        self._begin(now, wall)
        if self.kick_problem(index) is not None:
            return self._done()
        seat = self.seats[index]
        member = seat.member
        if member is not None:
            self._error(
                member, codes.KICKED, f"the server's host removed you from seat {index}", None
            )
            self.outbox.to(member, frames.left(self.id))
            self.members.pop(member, None)
            self.outbox.emit(Unbind(member))
            seat.member = None
        if self.state == "waiting":
            if member is not None and member == self.creator:
                self._close_waiting(now, "the table's creator was removed: the table is closed")
                return self._done()
            self._free_reservation(index, now)
            self._remove_if_idle()
            return self._done()
        self._drop_token(seat)
        seat.kicked(now)
        self.outbox.emit(Write([TokensChanged(self.id, self.seats.token_keys())]))
        self._seat_changed(index, now)
        self._advance(now)
        return self._done()

    def _refused_frozen(self, member: M, ref: str) -> bool:
        if self.frozen:
            self._error(member, codes.TABLE_FROZEN, FROZEN, ref)
        return self.frozen

    # ----- the round -----

    def _start_round(self, now: float) -> None:
        r = self.match.next_round(weekday=weekday_of(self._wall))  # 星期鸡 (§13.12)
        seed = str(self.match.round_seed(self.round_no))
        self.round = r
        r.hold_empty_windows = self.s.holds_claims  # claim windows close by the core's clock
        self.window.reset()
        for seat in self.seats:
            seat.clock.new_round(self.s.bank_seconds)
        self.book.deal(r, self._new_salt())
        events = [self._engine_event(e.to_dict()) for e in r.events]
        dealt = self.book.dealt(r, self.round_no, seed, events[0]["hands"], self._wall)
        self._commit(events, [dealt], now, round_no=self.round_no)
        self._advance(now)

    def _engine_event(self, d: dict[str, Any]) -> dict[str, Any]:
        """Number an engine event and add the table's context to it; it opens a decision."""
        d = self.book.context(
            d, self.round, round_no=self.round_no, base=self.s.base, scores=self.scores
        )
        event = self._event(d)
        self.decision_seq = self.seq
        return event

    def _event(self, d: dict[str, Any]) -> dict[str, Any]:
        return self.events.number(d)

    def _logged(self, frame: BaseModel) -> dict[str, Any]:
        """A table event made by its builder (`protocol.frames`, numbered `seq + 1`), as the
        log keeps it."""
        return self._event(frames.logged(frame))

    def _record(
        self,
        action: Action | None,
        new: list[Any],
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
        r = self.round
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
        events = pre + [self._engine_event(e.to_dict()) for e in new]
        if over:
            result, rows = events[-1]["result"], self.seats.rows()
            records += self.book.over(r, self.round_no, result, self.scores, rows, self._wall)
        self._commit(events, records, now, round_no=self.round_no)

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
                frame = frames.auto_played(self.id, self.seq + 1, action.seat, action.act, reason)
                pre.append(self._logged(frame))
            self.tally.turn(action.seat, reason=reason, bot=seat.kind == "bot")
        played = self.book.played(self.round_no, action, phase, reason is not None, self._wall)
        return pre, [played]

    def _advance(self, now: float) -> None:
        """Play 托管 seats at once (by the policy); then prompt the others, or finish the
        round."""
        while self.round is not None and self.round.phase is not Phase.OVER:
            if self._window_held(now) or self.idle.paused:
                break  # a held claim window's 托管 answers come at its middle (`_moves_due`)
            auto = [s for s in self._asked() if self._plays_at_once(s)]
            if not auto:
                break
            self._answer_at_once(auto[0], now)
        if self.round is None:
            return
        if self.round.phase is Phase.OVER:
            if self.book.end_handled():
                self._round_over(now)
            return
        self._send_prompts(now)

    def _round_over(self, now: float) -> None:
        if self.match.over:
            self._end_match("finished", now)
        else:
            self._wait_next(now)

    # ----- between rounds, and the rematch -----

    def _wait_next(self, now: float) -> None:
        """The settlement sheet is up: wait for the players (`next_round`), at most
        `next_round_seconds`. The round starts at a tick, never inside the input that ended
        the last one (a table of bots and 托管 seats plays one round per step)."""
        self.between.begin(now, self.s.next_round_seconds)

    def _all_ready(self, now: float) -> bool:
        """Whether no seat holds up the next round (or the rematch, after the match)."""
        return self.between.all_ready(self.seats, now, playing=self.state == "playing")

    def _wait_state(self, now: float) -> Wait | None:
        """What `between_rounds` says now (None: no wait)."""
        if self.frozen:
            return None
        return self.between.wait(self.seats, now, round_no=self.round_no, state=self.state)

    def _send_wait(self, to: tuple[M, ...]) -> None:
        """The wait as it stands, to these members (one who just came in)."""
        state = self._wait_state(self._now)
        if state is not None and to:
            self.outbox.paced([Send(to, state.frame(self.id, self.seq, self._now))], event=False)
        ballot = self.vote.ballot(self._now)
        if ballot is not None and ballot.outcome == "open" and to:
            self.outbox.paced([Send(to, ballot.frame(self.id, self.seq, self._now))], event=False)

    def _wait_changed(self) -> None:
        """After every input: everyone at the table is told when the wait changed."""
        state = self._wait_state(self._now)
        if not self.between.changed(state):
            return
        if state is not None and self.members:
            self.outbox.paced(
                [Send(tuple(self.members), state.frame(self.id, self.seq, self._now))], event=False
            )

    def _rematch_vote(self, member: M) -> None:
        index = self._seated(member, "rematch")
        if index is None:
            return
        if self.state != "finished":
            self._error(member, codes.NOT_FINISHED, "the match is not over", "rematch")
            return
        self.between.votes.add(index)
        self._maybe_rematch()

    def _maybe_rematch(self) -> None:
        """Once every player has asked (and is here), they all move to the rematch."""
        if self.state != "finished" or not self._all_ready(self._now):
            return
        # Everyone asked: they move to a new table with the same seats and settings.
        seats = self.seats.hand_over()
        for was in seats:
            if was.member is not None:
                self.members.pop(was.member, None)
                self.outbox.emit(Unbind(was.member))
        # The spectators follow the table to its rematch (issue 23: a watcher was left behind
        # on the finished table); they are welcomed there as spectators.
        watchers = tuple((m, self.members.names.get(m)) for m in self.spectators)
        for m, _ in watchers:
            self._leave_place(m)
            self.outbox.emit(Unbind(m))
        self.between.votes.clear()
        self.outbox.emit(StartRematch(self.s, seats, watchers))
        self._remove_if_idle()

    def rematch(
        self,
        seats: list[RematchSeat[M]],
        now: float,
        *,
        wall: float | None = None,
        watchers: tuple[tuple[M, str | None], ...] = (),
    ) -> list[Effect]:
        """A new table for a rematch (`StartRematch`): the row is stored, the seats are taken
        as they were (each player gets `joined` with a new token; 托管 is off: they asked to
        play), the old table's spectators watch it (`joined` without a seat), and the match
        starts."""
        self._begin(now, wall)
        self.outbox.emit(Write([self.s.created(self.id, self.seed, self._wall)]))
        tokens: list[tuple[M, int, str]] = []
        for index, (seat, was) in enumerate(zip(self.seats, seats, strict=True)):
            seat.take_over(was, now)
            if was.kind == "bot":
                self.policies.seat_bot(index, was.level or "normal")
                continue
            token = self._issue_token(seat)
            if was.member is None:
                continue  # nobody holds its token: 托管
            self.members[was.member] = index
            self.outbox.emit(Bind(was.member, index))
            tokens.append((was.member, index, token))
        for member, index, token in tokens:
            self._welcome(member, index, token)
        for member, name in watchers:
            self.members.watch(member, name)
            self.outbox.emit(Bind(member, None))
            self._spectators_changed(now)
            self._welcome(member, None, None)
        self._start_match(now)
        return self._done()

    def _end_match(self, reason: Literal["finished", "abandoned", "vote"], now: float) -> None:
        """The match is over: every round played, abandoned, or ended by vote (a finished
        match for the table — the result stays up, a rematch may follow —, stored as `voted`:
        the scores so far, the round cut short counting for nothing)."""
        self.state = "abandoned" if reason == "abandoned" else "finished"
        self.between.end()
        if reason != "vote":
            self.vote.cancel()
        event = self._logged(
            frames.match_ended(self.id, self.seq + 1, self.scores, self.rounds_played, reason)
        )
        stored = self.ended_as = "voted" if reason == "vote" else self.state
        end = TableEnded(self.id, stored, list(self.scores), self.rounds_played, self._wall)
        self._commit([event], [end], now, round_no=0)
        # The server's bots are done and leave their seats; humans may look at the result
        # until they leave.
        for index, seat in enumerate(self.seats):
            if seat.kind == "bot" and seat.bot_here:
                seat.bot_here, seat.gone_at = False, now
                self._seat_changed(index, now)
        self.linger_until = now + self.timing.finished_linger
        self._remove_if_idle()

    # ----- ending the match together (解散, `server.table.vote`) -----

    def _propose_end(self, member: M, now: float) -> None:
        index = self._seated(member, "propose_end")
        if index is None:
            return
        if self.state != "playing":
            self._error(member, codes.NOT_PLAYING, "the match is not being played", "propose_end")
            return
        refusal = self.vote.propose(index, self.seats[index].player, now)
        if refusal is not None:
            self._error(member, *refusal, "propose_end")

    def _vote_end(self, member: M, agree: bool, now: float) -> None:
        index = self._seated(member, "vote_end")
        if index is None:
            return
        refusal = self.vote.answer(index, agree, now) if self.state == "playing" else None
        if self.state != "playing" or refusal is not None:
            code, message = refusal or (codes.NO_VOTE, "no vote to end the match is open")
            self._error(member, code, message, "vote_end")

    def _settle_vote(self) -> None:
        """After every input: who must agree now; the match ends if the vote passed; everyone
        at the table is told when the vote changed."""
        if self.state == "playing" and not self.frozen and not self.idle.paused:
            if self.vote.update(self.seats, self._now) == "passed":
                self._end_match("vote", self._now)
        ballot = self.vote.changed(self._now)
        if ballot is not None and self.members:
            frame = ballot.frame(self.id, self.seq, self._now)
            self.outbox.paced([Send(tuple(self.members), frame)], event=False)

    # ----- prompts and the clock -----

    def _prompted(self) -> Iterator[int]:
        """The seats asked to move now whose prompt has gone (or is going) out."""
        r = self.round
        if r is None or r.phase is Phase.OVER or self.state != "playing":
            return
        for index in self._asked():
            if self.seats[index].clock.prompted_seq == self.decision_seq:
                yield index

    def _seat_deadlines(self, index: int) -> tuple[float | None, float | None]:
        """(when the seat's clock runs out, when a server bot in it moves)."""
        r = self.round
        return self.seats[index].deadlines(
            turn=self.s.turn_seconds if self.s.timed else None,
            grace=self.timing.disconnect_grace,
            bot_delay=self.bot_delay,
            claim_answer_at=self.window.middle() if self.window.timed() else None,
            in_window=r is not None and r.phase in WINDOW_PHASES,
        )

    def _send_prompts(self, now: float, *, resend: int | None = None) -> None:
        """Prompt every awaited seat not yet prompted at this `seq` (and `resend` again, its
        clock running on from the first prompt). A prompt's clock starts when it goes out (a
        server bot's prompt has no frame but goes out all the same)."""
        r = self.round
        assert r is not None
        for index in self._asked():
            if self._plays_at_once(index):
                continue  # the server answers for it (in a held window: at its middle)
            seat = self.seats[index]
            fresh = seat.clock.prompt(self.decision_seq)
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
                item = PromptItem.of(self.id, self.decision_seq, r, index, left, seat.clock.bank)
                frame = view_for(item, index)
                if frame is not None:
                    sends.append(Send((seat.member,), frame))
            self._paced(sends, event=False, stamp=(index, self.decision_seq) if fresh else None)

    # ----- output -----

    def _begin(self, now: float, wall: float | None) -> None:
        """Start an input: frames whose time has come go first."""
        self._now = now
        self._wall = now if wall is None else wall
        for stamp in self.outbox.begin(now):
            self._stamp(stamp, now)

    def _stamp(self, stamp: Stamp, now: float) -> None:
        """A prompt went out: its seat's clock starts (if it still waits on that decision)."""
        index, seq = stamp
        if index == WINDOW:
            if seq == self.decision_seq and self.window.pending:
                self.window.opened(now)
            return
        self.seats[index].clock.started(seq, now)

    def _done(self) -> list[Effect]:
        self._settle_vote()
        anyone = bool(self.members) or self.state != "playing" or self.frozen
        self.idle.update(anyone=anyone, now=self._now)
        self._wait_changed()
        return self.outbox.take()

    def _snapshot(self) -> SnapshotItem:
        return SnapshotItem(
            self.id, self.seq, self.info(), self.round, self.round_no, self.book.commitment
        )

    def _table_changed(self, now: float, exclude: M | None = None) -> None:
        event = self._logged(frames.table_update(self.id, self.seq + 1, self.info()))
        self._commit([event], [], now, round_no=0, exclude=exclude)

    def _seat_changed(self, index: int, now: float) -> None:
        seat = self.seats[index]
        event = self._logged(
            frames.seat_status(self.id, self.seq + 1, index, seat.connected, seat.auto)
        )
        self._commit([event], [], now, round_no=self.round_no)

    def _commit(
        self,
        events: list[dict[str, Any]],
        records: list[Record],
        now: float,
        *,
        round_no: int,
        exclude: M | None = None,
    ) -> None:
        """Log the events, write them (with `ops`), then send each member its view (paced:
        after a claim-hold event the next event waits `claim_min_ms`)."""
        self.events.keep(events)
        logged: list[Record] = [EventLogged(self.id, round_no, e, self._wall) for e in events]
        self.outbox.emit(Write(records + logged))
        r = self.round
        for event in events:
            claim = event["type"] in CLAIM_HOLD_TYPES
            window = (
                claim
                and self.s.holds_claims
                and r is not None
                and r.phase in WINDOW_PHASES
                and event["seq"] == self.decision_seq
            )
            if window:
                self.window.announced()
            self.outbox.broadcast(
                event,
                self.members,
                exclude=exclude,
                claim=claim,
                stamp=(WINDOW, event["seq"]) if window else None,
            )

    def _paced(
        self, sends: list[Send[M]], *, event: bool, claim: bool = False, stamp: Stamp | None = None
    ) -> None:
        """Frames in order (`Outbox.paced`); a prompt's clock starts if it goes at once."""
        if self.outbox.paced(sends, event=event, claim=claim, stamp=stamp) and stamp:
            self._stamp(stamp, self._now)

    def _error(self, member: M, code: str, message: str, ref: str | None) -> None:
        viewer = self.members.get(member)
        self.outbox.view(member, viewer, ErrorItem(code, message, ref, self.id, self.seq))
