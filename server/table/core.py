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

What each input does is the business of four concerns, each a small class in its own module that
works on the core through the Protocol of exactly what it needs (`seams` has the faces by which
one reaches another, so none imports another): the round's moves and the claim window
(`play.Play`), who is at the table and in which seat (`joining.Joining`), between rounds, the
rematch and the end of the match (`ending.Ending`), and the table's life outside play — restart,
freeze, the host's close and kick, idleness, removal (`oversight.Oversight`). The core keeps the
state they share (the round, the decision, the table's state), starts and ends every input
(`_begin`, `_done`), and numbers, stores and sends events (`commit`).

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

from collections.abc import Callable, Hashable
from typing import Any, Generic, TypeVar

from pydantic import BaseModel

from protocol import codes, frames
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
from rules.actions import Action
from rules.match import Match
from rules.round import Round
from server.credentials import new_salt, new_token
from server.storage.records import (
    EventLogged,
    Record,
)
from server.table.between import Between
from server.table.clock import Idleness
from server.table.effects import (
    Effect,
    RematchSeat,
    Send,
    Write,
)
from server.table.ending import Ending
from server.table.fanout import EARLY, EventLog, Outbox, SpectatorCount, Stamp
from server.table.inputs import TableCommand
from server.table.joining import Joining
from server.table.oversight import Oversight
from server.table.play import Play
from server.table.policies import Policies
from server.table.projection import (
    ErrorItem,
    SnapshotItem,
)
from server.table.rounds import RoundBook
from server.table.seams import FROZEN, WINDOW_PHASES
from server.table.seating import Members, Seats
from server.table.settings import Settings, Timing
from server.table.tally import Tally
from server.table.vote import EndVote
from server.table.window import ClaimWindow

CLAIM_HOLD_TYPES = frozenset({"discarded", "add_gang_declared"})
WINDOW = -1  # the stamp's "seat" of a claim window's opening event

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
        self.new_token = tokens
        self.new_salt = salts
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
        # The concerns coordinated here (`seams`): each works on this core through the
        # protocol of what it needs.
        self.play: Play[M] = Play(self)
        self.joining: Joining[M] = Joining(self)
        self.ending: Ending[M] = Ending(self)
        self.oversight: Oversight[M] = Oversight(self)
        self.now = 0.0  # the time of the input being handled (deadlines)
        self.wall = 0.0  # the same on the wall clock (what the records say)

    # ----- inputs: membership (`joining`) -----

    def create(
        self, member: M, name: str | None, now: float, *, wall: float | None = None
    ) -> list[Effect]:
        """The table row is stored, then the creator takes seat 0."""
        self._begin(now, wall)
        self.creator = member
        self.outbox.emit(Write([self.s.created(self.id, self.seed, self.wall)]))
        self.joining.join(
            member, name, TakeSeat(table=self.id, seat=0), now, creator=True, busy=False
        )
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
        if not self.refused_frozen(member, msg.type):
            self.joining.join(
                member, name, msg, now, creator=False, busy=busy, password_ok=password_ok
            )
        return self._done()

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
        self.joining.resume(member, key, token, last_seq, now)
        return self._done()

    def gone(self, member: M, now: float, *, left: bool, wall: float | None = None) -> list[Effect]:
        """A connection closed (`left` False) or asked to leave the table."""
        self._begin(now, wall)
        self.joining.gone(member, now, left=left)
        return self._done()

    # ----- inputs: commands from members -----

    def command(
        self, member: M, msg: TableCommand, now: float, *, wall: float | None = None
    ) -> list[Effect]:
        """A table command from a member (`add_bot`, `remove_bot`, `start`, `act`, `auto`,
        `sync`, `hand_seat`, `next_round`, `rematch`)."""
        self._begin(now, wall)
        if self.refused_frozen(member, msg.type):
            return self._done()
        if member not in self.members:
            self.error(member, codes.NOT_AT_TABLE, "you are not at this table", msg.type)
            return self._done()
        match msg:
            case Act():
                self.play.act(member, msg, now)
            case Auto():
                self.play.auto(member, msg, now)
            case AddBot():
                self.joining.add_bot(member, msg, now)
            case RemoveBot():
                self.joining.remove_bot(member, msg, now)
            case HandSeat():
                self.joining.hand_seat(member, msg, now)
            case NextRound():
                self.ending.ready(member, msg.type)
            case Rematch():
                self.ending.rematch_vote(member)
            case ProposeEnd():
                self.ending.propose_end(member, now)
            case VoteEnd():
                self.ending.vote_end(member, msg.agree, now)
            case Start():
                self.play.start(member, now)
            case Sync():
                self.joining.sync(member)
        return self._done()

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
            self.oversight.remove_if_idle(force=True)
            return self._done()
        if self.frozen or self.oversight.stands_idle(now):
            return self._done()
        for index in self.seats.arrived(now):
            self.joining.came_back(index, now)
        due = self.spectator_count.due
        if due is not None and due <= now + EARLY:
            self.joining.send_spectators(now)
        if self.state == "playing" and self.between.due(self.seats, now):
            self.between.end()
            self.play.start_round(now)
        self.play.moves_due(now)
        return self._done()

    def storage_waited(self, seconds: float) -> None:
        """The table waited `seconds` for a write (a storage fault): nobody's clock ran
        meanwhile, so the prompts and disconnection grace standing are pushed back by as much."""
        self.seats.shift(seconds, arrivals=False)

    # ----- inputs: after a restart, after a fault, from the host (`oversight`) -----

    def rematch(
        self,
        seats: list[RematchSeat[M]],
        now: float,
        *,
        wall: float | None = None,
        watchers: tuple[tuple[M, str | None], ...] = (),
    ) -> list[Effect]:
        """A new table for a rematch (`StartRematch`): its seats taken as they were, the old
        table's spectators watching, and the match started (`Ending.rematch`)."""
        self._begin(now, wall)
        self.ending.rematch(seats, now, watchers=watchers)
        return self._done()

    def resumed(self, now: float, *, wall: float | None = None) -> list[Effect]:
        """Go on after a restart (`server.table.restore` rebuilt it; `Oversight.resumed`)."""
        self._begin(now, wall)
        self.oversight.resumed(now)
        return self._done()

    def freeze(self, now: float, *, wall: float | None = None) -> list[Effect]:
        """After a broken invariant or a refused write: stop the match, keep its log, tell
        everyone (`Oversight.freeze`). The frames still waiting are dropped, not sent: they may
        be of the write that failed."""
        if not self.frozen:
            self.pacer.clear()
        self._begin(now, wall)
        if not self.frozen:
            self.oversight.freeze(now)
        return self._done()

    def close_by_host(self, now: float, *, wall: float | None = None) -> list[Effect]:
        """`zhuoji admin close`: the match ends as abandoned, and the table is removed."""
        self._begin(now, wall)
        self.oversight.close_by_host(now)
        return self._done()

    def kick(self, index: int, now: float, *, wall: float | None = None) -> list[Effect]:
        """`zhuoji admin kick`: the player in seat `index` is sent away (`Oversight.kick`)."""
        self._begin(now, wall)
        self.oversight.kick(index, now)
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
        times = [t for t in (self.pacer.due(self.now), self.linger_until) if t is not None]
        if self.frozen:
            return min(times, default=None)
        if self.state == "playing":
            times += self.idle.wakeups()
            if self.idle.paused:
                return min(times, default=None)
            times += self.between.wakeups(self.seats, self.now)
            times += self.vote.wakeups(self.seats, self.now)
        times += self.seats.arrivals()
        for index in self.play.prompted():
            times += [t for t in self.play.seat_deadlines(index) if t is not None]
        if self.spectator_count.due is not None:
            times.append(self.spectator_count.due)
        r = self.round
        if r is not None and self.state == "playing" and r.phase in WINDOW_PHASES:
            machine = any(self.play.plays_at_once(s) for s in self.play.asked())
            times += self.window.wakeups(machine_waits=machine)
        return min(times, default=None)

    def idle_seconds(self, now: float) -> float | None:
        """How long nobody has been connected to this playing table (None: someone is)."""
        return self.idle.seconds(now)

    @property
    def paused(self) -> bool:
        return self.idle.paused

    # ----- what the concerns share: an input's start and end, numbered events, frames -----

    def _begin(self, now: float, wall: float | None) -> None:
        """Start an input: frames whose time has come go first."""
        self.now = now
        self.wall = now if wall is None else wall
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
        self.ending.settle_vote()
        anyone = bool(self.members) or self.state != "playing" or self.frozen
        self.idle.update(anyone=anyone, now=self.now)
        self.ending.wait_changed()
        return self.outbox.take()

    def seated(self, member: M, ref: str) -> int | None:
        index = self.members.get(member)
        if index is None or self.seats[index].member != member:
            self.error(member, codes.NOT_SEATED, "only a seated player may do that", ref)
            return None
        return index

    def refused_frozen(self, member: M, ref: str) -> bool:
        if self.frozen:
            self.error(member, codes.TABLE_FROZEN, FROZEN, ref)
        return self.frozen

    def event(self, d: dict[str, Any]) -> dict[str, Any]:
        return self.events.number(d)

    def logged(self, frame: BaseModel) -> dict[str, Any]:
        """A table event made by its builder (`protocol.frames`, numbered `seq + 1`), as the
        log keeps it."""
        return self.event(frames.logged(frame))

    def snapshot(self) -> SnapshotItem:
        return SnapshotItem(
            self.id, self.seq, self.info(), self.round, self.round_no, self.book.commitment
        )

    def table_changed(self, now: float, exclude: M | None = None) -> None:
        event = self.logged(frames.table_update(self.id, self.seq + 1, self.info()))
        self.commit([event], [], now, round_no=0, exclude=exclude)

    def seat_changed(self, index: int, now: float) -> None:
        seat = self.seats[index]
        event = self.logged(
            frames.seat_status(self.id, self.seq + 1, index, seat.connected, seat.auto)
        )
        self.commit([event], [], now, round_no=self.round_no)

    def commit(
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
        logged: list[Record] = [EventLogged(self.id, round_no, e, self.wall) for e in events]
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

    def paced(
        self, sends: list[Send[M]], *, event: bool, claim: bool = False, stamp: Stamp | None = None
    ) -> None:
        """Frames in order (`Outbox.paced`); a prompt's clock starts if it goes at once."""
        if self.outbox.paced(sends, event=event, claim=claim, stamp=stamp) and stamp:
            self._stamp(stamp, self.now)

    def error(self, member: M, code: str, message: str, ref: str | None) -> None:
        viewer = self.members.get(member)
        self.outbox.view(member, viewer, ErrorItem(code, message, ref, self.id, self.seq))
