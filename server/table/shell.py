"""One table's asyncio shell: it feeds the table's state machine and does what it says.

The table itself — seats, the match, the clock — is `server.table.core.TableCore`, which does no
I/O. `Table` owns one core and one asyncio task. Connection handlers only put messages into
`Table.inbox` (`post`); the task takes them one at a time, hands each to the core with the time
(the loop's steady clock for deadlines, the wall clock for records), and performs the effects
it returns in order: store writes (awaited: nothing
after a write is done until it is on disk), frames to send, memberships, the server's token
registry. Then it arms one timer for the core's `next_wakeup`, which posts a `tick`; or, when
the input left frames that may go at once (its events, now stored, with no claim hold on them),
it ticks at once instead. When an input is done its frames are handed to the sockets
(`frames_out`), not at the end of the loop's next turn: a move's event leaves in the turn its
write completes. Nothing else reads or writes a table's state, and the core is never entered
across an `await`, so there are no races to reason about.

A step that raises (a broken invariant, a failed write) freezes the table: its log is kept,
its members are told, and the server goes on.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import deque
from typing import Any, NamedTuple

from pydantic import BaseModel

from protocol import frames
from protocol.messages import Error
from rules.options import OptionsError
from rules.round import Round
from server.conn import Conn, send_many
from server.lobby import changes_row
from server.quota import CpuShare
from server.storage.records import Record
from server.storage.stored import StoredTable
from server.table.core import TableCore
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
from server.table.fanout import EARLY
from server.table.host import TableHost
from server.table.inputs import (
    Command,
    Create,
    Freeze,
    Gone,
    HostClose,
    HostKick,
    Input,
    Join,
    Leave,
    OpenRematch,
    Resume,
    Resumed,
    Stop,
    Tick,
)
from server.table.meter import EventCost
from server.table.restore import Unrestorable, restore_core, settings_from_row
from server.table.seating import SeatState
from server.table.settings import Settings

__all__ = ["Table", "dumps"]

log = logging.getLogger("zhuoji.table")

STORAGE_WAIT = 0.5  # a write that took longer was held up by a storage fault: clocks stop


class _Move(NamedTuple):
    """A player's accepted move whose first event has not gone out yet (for its latency)."""

    entry: int  # the pacer item of its first event (`Pacer.added` numbering)
    received: float  # when its frame arrived (loop time)
    stored: float  # when its write was done, so its first event could go


def dumps(frame: BaseModel | dict[str, Any]) -> str:
    """One frame's JSON (`protocol.frames.encode`: a model as built by its builder, a logged
    dict as it is, validated against its model where `ZHUOJI_CHECK_FRAMES` is set: the tests)."""
    return frames.encode(frame)


class Table:
    def __init__(
        self,
        server: TableHost[Table],
        table_id: str,
        settings: Settings,
        *,
        seed: str | None = None,
        core: TableCore[Conn] | None = None,
    ) -> None:
        self.server = server
        self.id = table_id
        if core is None:
            seed = seed if seed is not None else server.match_seed(table_id)
            core = TableCore(table_id, settings, seed=seed, timing=server.timing)
        self.core = core
        self.inbox: asyncio.Queue[Input[Conn]] = asyncio.Queue()
        self.loop = asyncio.get_running_loop()
        self._timer: asyncio.TimerHandle | None = None
        self._moves: deque[_Move] = deque()  # moves whose frames wait to go out (metrics)
        self._gone: list[tuple[float, float]] = []  # (received, held): moves whose frames went
        self.changes = 0  # writes that may have changed the lobby row (`lobby_key`)
        self._listed: tuple[int, str, int] | None = None  # `lobby_key` the lobby was told of
        # CPU the loop's thread spent on others while this step awaited the store (not its own)
        self._write_wait = 0.0
        self._committed = 0.0  # its writes' part of the store's commits' time (its cost)
        self.deferred = 0  # wakeups put off for the bot tables' CPU share (`unattended`)
        self.meter = EventCost()  # what its events cost, charged to that share
        self.task = asyncio.create_task(self._run(), name=f"table-{table_id}")

    # ----- what the server and the tests read -----

    @property
    def state(self) -> str:
        return self.core.state

    @property
    def seq(self) -> int:
        return self.core.seq

    @property
    def decision_seq(self) -> int:
        return self.core.decision_seq

    @property
    def round(self) -> Round | None:
        return self.core.round

    @property
    def seats(self) -> list[SeatState[Conn]]:
        return self.core.seats

    @property
    def action_idx(self) -> int:
        return self.core.book.actions

    @property
    def frozen(self) -> bool:
        return self.core.frozen

    def members(self) -> list[Conn]:
        return list(self.core.members)

    def forget_members(self) -> list[Conn]:
        """The table is being removed: nobody is at it any more (the members it had)."""
        members = self.members()
        self.core.members.clear()
        return members

    def info(self) -> dict[str, Any]:
        return self.core.info()

    def unattended(self) -> bool:
        """Playing with no player connected (only bots, 托管 and away seats play): such
        tables share the server's `bot_budget`, a share of one core (`server.quota.CpuShare`);
        a player coming back ends it."""
        core = self.core
        if core.state != "playing" or core.frozen:
            return False
        return not any(s.kind == "human" and s.member is not None for s in core.seats)

    def lobby_key(self) -> tuple[int, str, int]:
        """Changes whenever `info()` may have (`server.lobby`): every change to the header is
        a stored event other than a round's play, or a spectator coming or going."""
        core = self.core
        return (self.changes, core.state, len(core.spectators))

    def _lobby_check(self) -> None:
        """Tell the server when the lobby row may have changed (`server.lobby`)."""
        key = self.lobby_key()
        if key != self._listed:
            self._listed = key
            self.server.lobby_changed(self)

    # ----- after a restart -----

    @classmethod
    def restore(cls, server: TableHost[Table], stored: StoredTable) -> Table:
        """A match a previous run left unfinished (`restore_core`); one that cannot be
        rebuilt is frozen (its record kept, its players told) and the server goes on."""
        row = stored.row
        problem = None
        try:
            settings = settings_from_row(row)
        except (OptionsError, KeyError, TypeError, ValueError) as err:
            problem = f"bad settings: {err}"
            settings = settings_from_row({**row, "preset": "guiyang", "options": {}})
        frozen: BaseException | None = None
        try:
            core: TableCore[Conn] = restore_core(
                stored,
                settings,
                timing=server.timing,
                now=asyncio.get_running_loop().time(),
                wall=time.time(),
                problem=problem,
            )
        except Unrestorable as err:
            core, frozen = err.core, err.err
        table = cls(server, stored.id, settings, core=core)
        for seat in core.seats:
            if seat.token_key is not None:
                server.seat_token(seat.token_key, table)
        if frozen is not None:
            log.error(
                "table %s: cannot resume its match: %s; the table is frozen, its log kept",
                stored.id,
                frozen,
                extra={"event": "table_error", "table": stored.id},
            )
            table.post(Freeze())
        elif core.state == "playing":
            table.post(Resumed())
        else:
            table.post(Tick())  # a finished match: it stays for what is left of the linger
        return table

    # ----- the task -----

    def post(self, item: Input[Conn]) -> None:
        """Called by handlers (synchronously): queue an input for the table's task."""
        self.inbox.put_nowait(item)
        self.server.posted()

    async def ask(self, what: str, *args: Any) -> None:
        """The server's host (`server.admin`): `close` the table or `kick` a seat, through the
        task like any message; returns once it is done (or the table has stopped)."""
        done: asyncio.Future[None] = self.loop.create_future()

        def finished() -> None:
            if not done.done():
                done.set_result(None)

        self.post(HostClose(finished) if what == "close" else HostKick(args[0], finished))
        await asyncio.wait([done, self.task], return_when=asyncio.FIRST_COMPLETED)

    async def _run(self) -> None:
        while True:
            item = await self.inbox.get()
            if isinstance(item, Stop):
                self._cancel_timer()
                if self.server.bot_budget is not None:
                    self.server.bot_budget.leave(self.id)
                return
            if await self._input(item, release=True):
                # What the step stored goes out now, not after a timer's turn and a queued
                # `Tick` (two more turns of a busy loop for every move).
                await self._input(Tick(), release=False)
            self.server.frames_out()
            if self._gone:
                self._delivered()

    def _due_now(self) -> bool:
        """Whether frames wait that may go at once: an event of this step, now stored, with
        no claim hold on it. Only the pacer is asked (what is public: the events' order and
        the hold), never what the core would do for a seat."""
        now = self.loop.time()
        due = self.core.pacer.due(now)
        return due is not None and due <= now + EARLY

    async def _input(self, item: Input[Conn], *, release: bool) -> bool:
        """One input through the core, its effects done, its cost and metrics counted, the
        timer armed for what comes next; or, with `release`, True instead of a timer if
        frames wait that may go at once (`_due_now`): the caller ticks at once."""
        budget = self.server.bot_budget
        metered = budget is not None and self.unattended()
        if budget is not None and metered and isinstance(item, Tick):
            now = self.loop.time()
            if budget.ready_at(self.id, now) > now:  # over its share: it waits its turn
                self._arm_timer()
                return False
        # The loop thread's CPU time, not the wall clock's: on a loaded machine a step
        # preempted by other processes would be charged their time.
        began, self._write_wait, self._committed = time.thread_time(), 0.0, 0.0
        state, hold = self.core.state, self.core.pacer.hold_until
        effects: list[Effect] = []
        try:
            effects = await self._step(item)
        except asyncio.CancelledError:
            raise
        except Exception:
            # A broken invariant or a failed write: freeze the table, keep its log.
            log.exception(
                "table %s: %s failed",
                self.id,
                type(item).__name__,
                extra={"event": "table_error", "table": self.id},
            )
            conn = getattr(item, "member", None)
            if isinstance(conn, Conn) and conn.joining is self:
                conn.joining = None
            await self._freeze()
        try:
            self._account(item, effects, state, hold)
        except Exception:  # the metrics and the log never stop a table
            log.exception("table %s: accounting failed", self.id)
        self._lobby_check()
        if budget is not None:
            self._charge(budget, metered, time.thread_time() - began, effects)
        if release and self._due_now():
            return True
        if budget is not None:
            armed = time.thread_time()
            self._arm_timer()
            # Its next wakeup's reckoning is its cost too: into the round's, for the next
            # round's rate (charged now, it would tell what the step decided).
            reckoned = time.thread_time() - armed
            self.meter.round_cost += reckoned
            self.meter.spent += reckoned
            budget.measured(reckoned, attended=not self.unattended())
        else:
            self._arm_timer()
        return False

    def _charge(self, budget: CpuShare, metered: bool, took: float, effects: list[Effect]) -> None:
        """Charge a step to the share of the tables nobody is at, if this is one (or was when
        the step began): its CPU time on the loop's thread less what the loop ran while it
        awaited the store, plus its writes' part of the store's commits, charged by the events it made (`EventCost`), never by
        what it took to decide."""
        meter = self.meter
        if not meter.learned and budget.price is not None:
            meter.per_event = budget.price  # the server's price until a round of its own ends
        rounds, priced = meter.rounds, meter.priced
        cost = max(0.0, took - self._write_wait) + self._committed
        charge = meter.step(cost, effects)
        if meter.rounds > rounds:
            budget.learn(meter.per_event)  # a round ended: public, and the server's price
        now, unattended = self.loop.time(), self.unattended()
        # Every table's steps against the loop's CPU: what no step measured (the overhead).
        budget.measured(cost, attended=not (metered or unattended))
        budget.observe(now, time.thread_time())
        if metered or unattended:
            budget.join(self.id, now)
            budget.spend(self.id, charge, now, priced=meter.priced - priced)
        if not unattended:
            budget.leave(self.id)

    async def _step(self, item: Input[Conn]) -> list[Effect]:
        """One input for the core, and what it says to do (done: the effects)."""
        now, wall, core = self.loop.time(), time.time(), self.core
        conn = getattr(item, "member", None)
        if isinstance(conn, Conn):
            if conn.joining is self:
                conn.joining = None
            if isinstance(item, Create | Join | Resume) and conn.closed:
                return []  # gone before its turn came
        effects: list[Effect]
        match item:
            case Tick():
                effects = core.tick(now, wall=wall)
            case Command(member, msg, received):
                entry = core.pacer.added + 1  # the first frames the move makes, if accepted
                effects = core.command(member, msg, now, wall=wall)
                # Timed: a move accepted that made frames (one held for later makes none).
                made = core.pacer.added >= entry
                shown = any(isinstance(e, Accepted) and e.shown for e in effects)
                if msg.type == "act" and made and shown:
                    await self._perform(effects)
                    self._moves.append(_Move(entry, received, self.loop.time()))
                    return effects
            case Join(member, msg, password_ok):
                busy = member.table is not None
                effects = core.join(
                    member, member.name, msg, now, busy=busy, wall=wall, password_ok=password_ok
                )
            case Create(member):
                effects = core.create(member, member.name, now, wall=wall)
            case Resume(member, key, token, last_seq):
                effects = core.resume(member, key, token, last_seq, now, wall=wall)
            case Gone(member):
                effects = core.gone(member, now, left=False, wall=wall)
            case Leave(member):
                effects = core.gone(member, now, left=True, wall=wall)
            case OpenRematch(seats, watchers):
                # A player whose connection closed meanwhile comes back with 托管 (no token).
                kept = [
                    RematchSeat(s.name, s.kind, None, s.level)
                    if s.member is not None and s.member.closed
                    else s
                    for s in seats
                ]
                for s in seats:
                    if s.member is not None and s.member.joining is self:
                        s.member.joining = None
                here = tuple((m, n) for m, n in watchers if not m.closed and m.joining is self)
                for m, _ in here:
                    m.joining = None
                effects = core.rematch(kept, now, wall=wall, watchers=here)
            case Resumed():
                log.info(
                    "table %s: match resumed at seq %d (round %d of %d)",
                    self.id,
                    core.seq,
                    core.round_no,
                    core.s.rounds,
                    extra={"event": "match_resumed", "table": self.id, "round": core.round_no},
                )
                effects = core.resumed(now, wall=wall)
            case Freeze():
                await self._freeze()
                return []
            case HostClose(done) | HostKick(_, done):
                try:
                    if isinstance(item, HostKick):
                        effects = core.kick(item.seat, now, wall=wall)
                    else:
                        effects = core.close_by_host(now, wall=wall)
                    await self._perform(effects)
                finally:
                    done()
                return effects
            case Stop():  # pragma: no cover - `_run` stops before
                return []
        await self._perform(effects)
        return effects

    async def _freeze(self) -> None:
        """After a broken invariant: the core stops the match; its end is recorded if the
        store lets us."""
        self._moves.clear()  # their frames are dropped, not sent
        try:
            await self._perform(self.core.freeze(self.loop.time(), wall=time.time()))
        except Exception:
            log.exception("table %s: could not record the freeze", self.id)

    async def _perform(self, effects: list[Effect]) -> None:
        for effect in effects:
            if isinstance(effect, Send):
                if isinstance(effect.frame, Error):
                    for member in effect.to:
                        self.server.refused(member, effect.frame.code, effect.frame.ref, self.id)
                if len(effect.to) == 1:
                    effect.to[0].send(dumps(effect.frame))
                elif effect.to:
                    send_many(effect.to, dumps(effect.frame))
            elif isinstance(effect, Write):
                if changes_row(effect.records):
                    self.changes += 1  # told before the wait: the core has changed already
                    self._lobby_check()
                await self._write(effect.records)
            elif isinstance(effect, Bind):
                effect.member.table, effect.member.seat = self, effect.seat
                if effect.seat is not None:
                    self.server.seated(effect.member)
            elif isinstance(effect, Unbind):
                if effect.member.table is self:
                    effect.member.table = effect.member.seat = None
                    effect.member.freed_at = time.monotonic()  # back in the lobby from now
            elif isinstance(effect, Close):
                effect.member.close(effect.code, effect.reason)
            elif isinstance(effect, IssueToken):
                self.server.seat_token(effect.key, self)
            elif isinstance(effect, DropToken):
                self.server.drop_token(effect.key)
            elif isinstance(effect, Accepted):
                if effect.member.rate is not None:
                    effect.member.rate.refund()
            elif isinstance(effect, Remove):
                self.server.remove_table(self)
            elif isinstance(effect, StartRematch):
                self.server.rematch(self, effect.settings, effect.seats, effect.watchers)

    async def _write(self, records: list[Record]) -> None:
        """The one way the table reaches the store; raises if the write was refused. During a
        storage fault it waits until the ops are stored (the store retries), and the clocks
        standing are pushed back by the wait."""
        began, cpu = self.loop.time(), time.thread_time()
        self._committed += await self.server.write(records)
        self._write_wait += time.thread_time() - cpu  # the loop ran the others meanwhile
        waited = self.loop.time() - began
        if waited > STORAGE_WAIT:
            self.core.storage_waited(waited)

    # ----- what happened: the metrics and the log -----

    def _account(self, item: Input[Conn], effects: list[Effect], state: str, hold: float) -> None:
        """After a step: count what the core tallied, log what changed (`state` and the
        pacer's `hold` are from before the step), and time the moves whose frames went out."""
        core, metrics = self.core, self.server.metrics
        tally = core.tally.take()
        if tally:
            metrics.tally(tally)
        if isinstance(item, Create) and state == "waiting":
            creator = next((e.member for e in effects if isinstance(e, Bind)), None)
            if creator is not None:
                metrics.tables_created.inc()
                s = core.s
                log.info(
                    "table %s created by %s (%s, %d rounds%s)",
                    self.id,
                    creator.name,
                    s.preset,
                    s.rounds,
                    ", with a password" if s.password_hash is not None else "",
                    extra={"event": "table_created", "table": self.id, "conn": creator.id},
                )
        elif isinstance(item, Resume):
            bound = next((e for e in effects if isinstance(e, Bind)), None)
            how = next((k.partition(":")[2] for k in tally if k.startswith("resume:")), None)
            if bound is not None and how is not None:
                log.info(
                    "table %s: seat %s resumed (%s)",
                    self.id,
                    bound.seat,
                    how,
                    extra={
                        "event": "seat_resumed",
                        "table": self.id,
                        "seat": bound.seat,
                        "how": how,
                        "conn": bound.member.id,
                    },
                )
        if tally.get("round"):
            history = core.match.history[-1]
            log.debug(
                "table %s: round %d of %d ended (%s)",
                self.id,
                history["round"],
                core.s.rounds,
                history["outcome"],
                extra={"event": "round_ended", "table": self.id, "round": history["round"]},
            )
        if core.state != state:
            self._state_changed(state)
        self._timed(hold)

    def _state_changed(self, was: str) -> None:
        core, metrics = self.core, self.server.metrics
        if core.state == "playing" and was == "waiting":
            metrics.matches_started.inc()
            kinds = [seat.kind for seat in core.seats]
            log.info(
                "table %s: match started (%d players, %d bots)",
                self.id,
                kinds.count("human"),
                kinds.count("bot"),
                extra={"event": "match_started", "table": self.id},
            )
        elif core.state in ("finished", "abandoned") and core.round_no == 0:
            pass  # made and left before its start: no match ended (the server logs the close)
        elif core.state in ("finished", "abandoned"):
            ending = "voted" if core.ended_as == "voted" else core.state
            metrics.matches_ended.labels(reason=ending).inc()
            log.log(
                logging.INFO if core.state == "finished" else logging.WARNING,
                "table %s: match %s after %d of %d rounds, scores %s",
                self.id,
                ending,
                core.rounds_played,
                core.s.rounds,
                core.scores,
                extra={"event": "match_ended", "table": self.id, "reason": ending},
            )

    def _timed(self, hold: float) -> None:
        """The moves whose first frames went out in this step: their latency, less the time
        the claim window's minimum (`hold`, the pacer's from before the step) held them after
        they were stored. Observed once the frames are handed to the sockets (`_delivered`,
        after the input's `frames_out`)."""
        gone = self.core.pacer.gone
        while self._moves and self._moves[0].entry <= gone:
            move = self._moves.popleft()
            self._gone.append((move.received, max(0.0, hold - move.stored)))

    def _delivered(self) -> None:
        """The moves timed by `_timed`, now that their frames are with the sockets."""
        now = self.loop.time()
        for received, held in self._gone:
            self.server.metrics.delivered(max(0.0, now - received - held))
        self._gone.clear()

    # ----- the timer -----

    def _arm_timer(self) -> None:
        """One timer for the core's next wakeup. Most steps leave it where it was (a turn's
        clock, a bot's move): the timer armed for that time is kept, not made again."""
        at = self._wakeup_at()
        timer = self._timer
        if timer is not None:
            if at is not None and timer.when() == at:
                return
            timer.cancel()
            self._timer = None
        if at is not None:
            self._timer = self.loop.call_at(at, self._wake)

    def _wakeup_at(self) -> float | None:
        """The core's next wakeup; later for a table left to its bots that is over its share
        of the CPU (`server.bot_budget`): it waits its turn."""
        at = self.core.next_wakeup()
        budget = self.server.bot_budget
        if at is not None and budget is not None and self.unattended():
            ready = budget.ready_at(self.id, self.loop.time())
            if ready > at:
                budget.deferred += 1
                self.deferred += 1
                return ready
        return at

    def _wake(self) -> None:
        self._timer = None  # fired: the next step arms the next one
        self.post(Tick())

    def _cancel_timer(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
