"""One table as a state machine without I/O: seats, spectators, the match, and its clocks.

`TableCore` holds everything about a table: its four seats and spectators, the rules core's
`Match` and the round being played, the numbered event log, the server's own bots, and every
time limit as a deadline. It never reads a clock, never waits, never writes or sends: it is told
what happened and what time it is, and answers with what must be done. `server.table.Table` is
the thin asyncio shell that feeds it and performs its answers (as websockets' `protocol.py` is
driven by its connection classes).

Inputs. Each is a method that takes `now` (seconds on a steady clock: the shell passes the event
loop's `loop.time()`, a test a fake clock; every deadline is on it) and optionally `wall` (the
same moment on the wall clock, `time.time()`, for the records' timestamps; `now` if not given),
and returns the effects it caused, in order. A *member* is whatever the shell uses
for a connection (hashable; the core only compares it and hands it back in effects).

    create(member, name, now)                     the creator takes seat 0 (the row is stored)
    join(member, name, msg, now, busy=...)        `take_seat` / `watch`
    resume(member, key, token, last_seq, now)     a seat's token came back (a reconnect)
    gone(member, now, left=...)                   a connection closed, or asked to `leave`
    command(member, msg, now)                     add_bot, remove_bot, start, act, auto, sync
    tick(now)                                     time passed (see `next_wakeup`)
    resumed(now)                                  go on after a restart (`table_restore`)
    freeze(now)                                   a broken invariant or a failed write: stop

Outputs. The effects (`Effect`), to be performed in order: `Write` (store these; nothing after
it may be performed unless it succeeded), `Send` (one frame, already projected for its
viewers by `server.projection`, to some members), `Bind`/`Unbind` (a member's place at this
table, which the shell keeps for routing), `Close`, `IssueToken`/`DropToken` (the server's
token registry), `Accepted` (a move answered a prompt: it costs no rate-limit token) and
`Remove` (the table is done). After every input `next_wakeup()` is the time of the next
deadline, or None: the shell arms one timer for it and calls `tick` then. A tick that comes
early or late is harmless: what is due is done, the rest waits.

An event's frames are not in the effects of the input that made it but of the next tick (due
at once): the shell gives that tick only after performing the input's writes, so what a player
sees is on disk and an event's time out is when it really went (`server.table_pace`).

The deadlines:
- a prompt's clock: `turn_seconds` plus what is left of the seat's `bank_seconds` for the
  round; at the deadline the core plays the seat's default move (`Round.default_action`) and
  puts it in 托管, announcing both. A disconnected seat has at most `disconnect_grace` per move.
- the claim window's minimum: after a discard (or a 补杠 declaration) the next event goes out
  no sooner than `claim_min_ms` later, whether or not anyone could claim, so the pace gives no
  hands away. Frames are paced, not moves: what comes later is decided and stored at once and
  its frames wait in order (`Pacer`); a prompt's clock starts when it goes out.
- the server's own bots decide with the rules policy (`rules.bot.Bot`) on the round itself, at
  their prompt's time plus `bot_delay`; they arrive at their seat one tick after being added.
- the pause between rounds (`round_pause`), and how long a finished table stays
  (`finished_linger`).
"""

from __future__ import annotations

import math
from collections import Counter, deque
from collections.abc import Callable, Hashable, Iterator
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Generic, TypeVar

from protocol import codes
from protocol.codes import Close as CloseCode
from protocol.messages import Act, AddBot, Auto, RemoveBot, TakeSeat, Watch
from rules.actions import Action, IllegalAction
from rules.bot import Bot
from rules.fairdeal import commitment
from rules.match import Match
from rules.options import RuleOptions
from rules.round import Phase, Round, legal_actions
from rules.tiles import parse_tile, tile_name
from server import store as st
from server.credentials import new_salt, new_token, password_matches, token_key
from server.projection import (
    ErrorItem,
    Item,
    PromptItem,
    SnapshotItem,
    Viewer,
    view_for,
    view_key,
)
from server.table_pace import EARLY, Pacer, Stamp

LOG_KEEP = 4096  # events kept in memory for reconnect catch-up; older gaps get a snapshot
CLAIM_HOLD_TYPES = frozenset({"discarded", "add_gang_declared"})

M = TypeVar("M", bound=Hashable)


def weekday_of(wall: float) -> int:
    """Monday 1 … Sunday 7 of the server's local date at `wall` (epoch seconds): the deal's
    weekday for 星期鸡 (RULES.md §13.12)."""
    return datetime.fromtimestamp(wall).isoweekday()


# ----- effects -----


@dataclass(frozen=True, slots=True)
class Write:
    """Store these statements in one transaction before performing any later effect."""

    ops: list[st.Op]


@dataclass(frozen=True, slots=True)
class Send(Generic[M]):
    """One frame (a projected dict, the same for each of them) to these members."""

    to: tuple[M, ...]
    frame: dict[str, Any]


@dataclass(frozen=True, slots=True)
class Bind(Generic[M]):
    """The member is now at this table, in `seat` (None: watching)."""

    member: M
    seat: int | None


@dataclass(frozen=True, slots=True)
class Unbind(Generic[M]):
    """The member is no longer at this table."""

    member: M


@dataclass(frozen=True, slots=True)
class Close(Generic[M]):
    member: M
    code: int
    reason: str


@dataclass(frozen=True, slots=True)
class IssueToken:
    """A seat token (its `token_key`) now leads to this table."""

    key: str


@dataclass(frozen=True, slots=True)
class DropToken:
    key: str


@dataclass(frozen=True, slots=True)
class Accepted(Generic[M]):
    """The member's move answered its prompt (it does not count against its rate limit)."""

    member: M


@dataclass(frozen=True, slots=True)
class Remove:
    """The table is done: the server forgets it (its record stays in the database)."""


Effect = (
    Write
    | Send[Any]
    | Bind[Any]
    | Unbind[Any]
    | Close[Any]
    | IssueToken
    | DropToken
    | Accepted[Any]
    | Remove
)


# ----- what the core holds -----


@dataclass
class Timing:
    """The server's time limits (seconds)."""

    disconnect_grace: float = 20.0
    round_pause: float = 3.0
    finished_linger: float = 600.0
    bot_delay: float = 0.0


@dataclass
class Settings:
    """What `create_table` fixed."""

    name: str
    preset: str
    overrides: dict[str, Any]
    options: RuleOptions
    base: int
    rounds: int
    turn_seconds: float
    bank_seconds: float
    claim_min_ms: int
    password_hash: str | None = field(default=None, repr=False)  # `hash_password`


@dataclass
class SeatState(Generic[M]):
    name: str | None = None
    kind: str = "empty"  # empty | human | bot
    token_key: str | None = None  # the SHA-256 digest of the seat's token (`token_key`)
    member: M | None = None  # a human's connection
    bot_here: bool = False  # a server bot has taken the seat
    bot_arrives: float | None = None  # when a server bot takes the seat
    auto: bool = False
    auto_requested: bool = False
    gone_at: float | None = None  # when the connection dropped
    bank: float = 0.0
    prompted_seq: int = -1  # the decision (its seq) this seat was last prompted for
    prompt_at: float = 0.0  # when that prompt went out (inf: it waits to go out)
    answered_seq: int = -1  # the decision (its seq) this seat last answered
    # After a restart: the last seq stored. A client of the run before may have seen later
    # events that never reached the disk (a power loss with `synchronous=NORMAL`), so its first
    # resume quoting a later seq gets a snapshot, not events that reuse those numbers.
    restored_seq: int | None = None
    # The connection dropped during the match (it did not `leave`): the player has not seen
    # the end yet, so a finished table waits for them (up to `finished_linger`).
    away: bool = False

    @property
    def connected(self) -> bool:
        return self.member is not None or self.bot_here


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
        self.seats: list[SeatState[M]] = [SeatState() for _ in range(4)]
        self.members: dict[M, int | None] = {}  # who is at the table: seat, or None (watching)
        self.state = "waiting"  # waiting | playing | finished | abandoned
        self.seq = 0
        # The seq of the last round event: the decision the round waits on. A prompt quotes it,
        # and stays good while other events (a seat's connection, a spectator) come and go.
        self.decision_seq = 0
        self.log: deque[dict[str, Any]] = deque(maxlen=LOG_KEEP)
        self.round: Round | None = None
        # Rounds, running scores and the deal passing (§8.3) are the rules core's `Match`.
        self.match = Match(settings.options, settings.rounds, seed=seed, base=settings.base)
        # Fair deal: the current round's secret salt and its published commitment.
        self.salt: str | None = None
        self.commitment: str | None = None
        self.action_idx = 0
        self.round_done = False
        self.frozen = False
        self.bots: dict[int, Bot] = {}  # the server's bots, by seat
        self.bot_fallbacks = 0  # bot moves where the policy failed and the default was played
        # What happened, counted for the server's metrics (the shell takes and clears it after
        # each input): "action:<by>" (player, bot, auto, timeout, disconnected), "round" (a
        # round ended), "resume:<how>" (events, snapshot, refused).
        self.tally: Counter[str] = Counter()
        self.next_round_at: float | None = None
        self.linger_until: float | None = None
        self.pacer: Pacer[Send[M]] = Pacer(settings.claim_min_ms / 1000)
        self._out: list[Effect] = []
        self._now = 0.0  # the time of the input being handled (deadlines)
        self._wall = 0.0  # the same on the wall clock (what the records say)

    # ----- after a restart (`server.table_restore` rebuilt it) -----

    def resumed(self, now: float, *, wall: float | None = None) -> list[Effect]:
        """Go on after a restart: everyone is told the seats wait, the server's bots come back
        at the next tick, and the match continues where it stood."""
        self._begin(now, wall)
        event = self._event({"type": "table", "info": self.info()})
        self._commit([event], [], now, round_no=0)
        for index, seat in enumerate(self.seats):
            if seat.kind == "bot":
                seat.restored_seq = None
                seat.bot_arrives = now
                self.bots[index] = Bot(f"{self.id}:{index}:{self.seq}")
        if self.round is not None:
            self._advance(now)
        elif self.match.over:
            self._end_match("finished", now)
        elif self.round_no == 0:
            self._start_round(now)
        else:
            self.next_round_at = now + self.timing.round_pause
        return self._done()

    # ----- reading -----

    @property
    def round_no(self) -> int:
        return self.match.round_no

    @property
    def scores(self) -> list[int]:
        return self.match.scores

    @property
    def spectators(self) -> list[M]:
        return [m for m, seat in self.members.items() if seat is None]

    def info(self) -> dict[str, Any]:
        """The table header (protocol `TableInfo`)."""
        return {
            "id": self.id,
            "name": self.s.name,
            "preset": self.s.preset,
            "options": self.s.overrides,
            "base": self.s.base,
            "rounds": self.s.rounds,
            "turn_seconds": self.s.turn_seconds,
            "bank_seconds": self.s.bank_seconds,
            "claim_min_ms": self.s.claim_min_ms,
            "has_password": self.s.password_hash is not None,
            "seats": [
                {
                    "name": seat.name,
                    "kind": seat.kind,
                    "connected": seat.connected,
                    "auto": seat.auto,
                }
                for seat in self.seats
            ],
            "spectators": len(self.spectators),
            "state": "finished" if self.state in ("finished", "abandoned") else self.state,
            "round_no": self.round_no,
            "scores": list(self.scores),
        }

    def row(self, now: float) -> dict[str, Any]:
        """The table's database row as created."""
        return {
            "id": self.id,
            "name": self.s.name,
            "preset": self.s.preset,
            "options": self.s.overrides,
            "base": self.s.base,
            "rounds": self.s.rounds,
            "turn_seconds": self.s.turn_seconds,
            "bank_seconds": self.s.bank_seconds,
            "claim_min_ms": self.s.claim_min_ms,
            "has_password": self.s.password_hash is not None,
            "password_hash": self.s.password_hash,
            "seed": self.seed,
            "created_at": now,
        }

    def next_wakeup(self) -> float | None:
        """When the core next has something to do by itself (call `tick` then), or None."""
        times: list[float] = []
        due = self.pacer.due(self._now)
        if due is not None:
            times.append(due)
        if self.linger_until is not None:
            times.append(self.linger_until)
        if self.frozen:
            return min(times, default=None)
        if self.next_round_at is not None and self.state == "playing":
            times.append(self.next_round_at)
        for seat in self.seats:
            if seat.kind == "bot" and not seat.bot_here and seat.bot_arrives is not None:
                times.append(seat.bot_arrives)
        for index in self._prompted():
            times += [t for t in self._seat_deadlines(index) if t is not None]
        return min(times, default=None)

    # ----- inputs: membership -----

    def create(
        self, member: M, name: str | None, now: float, *, wall: float | None = None
    ) -> list[Effect]:
        """The table row is stored, then the creator takes seat 0."""
        self._begin(now, wall)
        self._emit(Write([st.op_insert_table(self.row(self._wall))]))
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
    ) -> list[Effect]:
        """`take_seat` or `watch`; `busy`: the member is at a table already."""
        self._begin(now, wall)
        if not self._refused_frozen(member, msg.type):
            self._join(member, name, msg, now, creator=False, busy=busy)
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
    ) -> None:
        if busy or member in self.members:
            self._error(member, codes.ALREADY_AT_TABLE, "leave your table first", msg.type)
            return
        if not creator and not self._password_ok(msg.password):
            self._error(member, codes.BAD_PASSWORD, "wrong password for this table", msg.type)
            return
        if isinstance(msg, Watch):
            self.members[member] = None
            self._emit(Bind(member, None))
            self._table_changed(now, exclude=member)
            self._welcome(member, None, None)
            return
        if self.state != "waiting":
            self._error(
                member, codes.ALREADY_STARTED, "the match has started: watch it instead", msg.type
            )
            return
        index = self._free_seat(member, msg.seat, msg.type)
        if index is None:
            return
        seat = self.seats[index]
        seat.name, seat.kind, seat.member = name, "human", member
        token = self._issue_token(seat)
        self.members[member] = index
        self._emit(Bind(member, index))
        self._table_changed(now, exclude=member)
        self._welcome(member, index, token)

    def _password_ok(self, given: str | None) -> bool:
        want = self.s.password_hash
        if want is None:
            return True
        return given is not None and password_matches(given, want)

    def _free_seat(self, member: M, wanted: int | None, ref: str) -> int | None:
        """The seat asked for, or the first free one; None (and an error) if there is none."""
        if wanted is not None:
            if self.seats[wanted].kind == "empty":
                return wanted
            self._error(member, codes.SEAT_TAKEN, f"seat {wanted} is taken", ref)
            return None
        free = [i for i, seat in enumerate(self.seats) if seat.kind == "empty"]
        if free:
            return free[0]
        self._error(member, codes.TABLE_FULL, "all four seats are taken", ref)
        return None

    def _issue_token(self, seat: SeatState[M]) -> str:
        token = self._new_token()
        seat.token_key = token_key(token)
        self._emit(IssueToken(seat.token_key))
        return token

    def _welcome(self, member: M, seat: int | None, token: str | None) -> None:
        self._frame(
            member,
            {
                "type": "joined",
                "table": self.id,
                "seq": self.seq,
                "seat": seat,
                "token": token,
                "resume": "snapshot",
            },
        )
        self._send(member, seat, self._snapshot())

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
            self.tally["resume:refused"] += 1
            return self._done()
        index = next((i for i, s in enumerate(self.seats) if s.token_key == key), None)
        if index is None or self.seats[index].kind != "human":
            self.tally["resume:refused"] += 1
            self._error(member, codes.BAD_TOKEN, "that seat is no longer yours", "hello")
            return self._done()
        seat = self.seats[index]
        old = seat.member
        if old is not None and old != member:
            self.members.pop(old, None)
            self._emit(Unbind(old))
            self._emit(Close(old, CloseCode.REPLACED, "this seat connected again elsewhere"))
        if self.members.get(member, index) != index:  # it watched, or sat elsewhere here
            self._leave_place(member)
        seat.member, seat.gone_at, seat.away = member, None, False
        self.members[member] = index
        self._emit(Bind(member, index))
        unknown = (
            seat.restored_seq is not None
            and last_seq is not None
            and (last_seq > seat.restored_seq)
        )
        seat.restored_seq = None
        catch_up = (
            last_seq is not None
            and not unknown
            and (
                last_seq == self.seq
                or (bool(self.log) and self.log[0]["seq"] - 1 <= last_seq < self.seq)
            )
        )
        self.tally["resume:events" if catch_up else "resume:snapshot"] += 1
        self._frame(
            member,
            {
                "type": "joined",
                "table": self.id,
                "seq": self.seq,
                "seat": index,
                "token": token,
                "resume": "events" if catch_up else "snapshot",
            },
        )
        if catch_up:
            assert last_seq is not None
            for event in self.log:
                if event["seq"] > last_seq:
                    self._send(member, index, event)
        else:
            self._send(member, index, self._snapshot())
        self._came_back(index, now)
        return self._done()

    def _came_back(self, index: int, now: float) -> None:
        """A seat is taken again (its player, or a server bot): 托管 ends unless asked for, and
        a seat asked to move is prompted again, its clock going on as it stood."""
        seat = self.seats[index]
        if seat.auto and not seat.auto_requested:
            seat.auto = False
        self._seat_changed(index, now)
        if self.round is not None and index in self.round.awaiting():
            self._send_prompts(now, resend=index)

    def _leave_place(self, member: M) -> None:
        """Forget where a member was (before it takes another place here)."""
        place = self.members.pop(member, None)
        if place is not None and self.seats[place].member == member:
            self.seats[place].member = None

    def gone(self, member: M, now: float, *, left: bool, wall: float | None = None) -> list[Effect]:
        """A connection closed (`left` False) or asked to leave the table."""
        self._begin(now, wall)
        if member not in self.members:
            return self._done()
        index = self.members.pop(member)
        self._emit(Unbind(member))
        if index is None:
            if left:
                self._frame(member, {"type": "left", "table": self.id})
            if not self.frozen:
                self._table_changed(now)
        else:
            seat = self.seats[index]
            if seat.member != member:
                return self._done()
            seat.member = None
            if left:
                self._frame(member, {"type": "left", "table": self.id})
            if self.frozen:
                pass
            elif self.state == "waiting":
                # Before the start a seat is only a reservation: free it.
                self._drop_token(seat)
                self.seats[index] = SeatState()
                self._table_changed(now)
            else:
                seat.gone_at = now
                seat.away = not left and self.state == "playing"
                if left:
                    seat.auto = True  # coming back with the token ends it
                self._seat_changed(index, now)
                if left:
                    self._advance(now)
        self._remove_if_idle()
        return self._done()

    def _drop_token(self, seat: SeatState[M]) -> None:
        if seat.token_key is not None:
            self._emit(DropToken(seat.token_key))

    def _remove_if_idle(self, *, force: bool = False) -> None:
        """A table that is not playing and has nobody at it (no human, no spectator, no player
        whose connection dropped during the match and who has not seen its end) goes away; a
        finished one goes anyway after `finished_linger` (`force`)."""
        if self.state == "playing" and not force:
            return
        people = any(s.kind == "human" and (s.member is not None or s.away) for s in self.seats)
        if force or not (people or self.spectators):
            self.linger_until = None
            self._emit(Remove())

    # ----- inputs: commands from members -----

    def command(
        self, member: M, msg: Any, now: float, *, wall: float | None = None
    ) -> list[Effect]:
        """A table command from a member (`add_bot`, `remove_bot`, `start`, `act`, `auto`,
        `sync`)."""
        self._begin(now, wall)
        if self._refused_frozen(member, msg.type):
            return self._done()
        if member not in self.members:
            self._error(member, codes.NOT_AT_TABLE, "you are not at this table", msg.type)
        elif isinstance(msg, Act):
            self._act(member, msg, now)
        elif isinstance(msg, Auto):
            self._auto(member, msg, now)
        elif isinstance(msg, AddBot):
            self._add_bot(member, msg, now)
        elif isinstance(msg, RemoveBot):
            self._remove_bot(member, msg, now)
        elif msg.type == "start":
            self._start(member, now)
        elif msg.type == "sync":
            index = self.members[member]
            viewer = index if index is not None and self.seats[index].member == member else None
            self._send(member, viewer, self._snapshot())
        else:  # pragma: no cover - the server routes only the above here
            raise ValueError(f"unexpected message {msg.type!r}")
        return self._done()

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
        seat.kind, seat.name = "bot", f"Bot-{index + 1}"
        seat.bot_arrives = now  # it takes the seat at the next tick, as a client would
        self.bots[index] = Bot(f"{self.id}:{index}")
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
        self._drop_token(seat)
        self.bots.pop(msg.seat, None)
        self.seats[msg.seat] = SeatState()
        self._table_changed(now)

    def _start(self, member: M, now: float) -> None:
        if self._seated(member, "start") is None:
            return
        if self.state != "waiting":
            self._error(member, codes.ALREADY_STARTED, "the match has already started", "start")
            return
        if any(seat.kind == "empty" for seat in self.seats):
            self._error(member, codes.NOT_ENOUGH_PLAYERS, "four seats must be taken", "start")
            return
        self.state = "playing"
        names = [seat.name or "" for seat in self.seats]
        event = self._event({"type": "match_started", "rounds": self.s.rounds, "names": names})
        seats = [{"name": s.name, "kind": s.kind} for s in self.seats]
        keys = [s.token_key for s in self.seats]
        self._commit(
            [event], [st.op_start_table(self.id, seats, keys, self._wall)], now, round_no=0
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
        if msg.on:
            self._advance(now)
        elif self.round is not None and index in self.round.awaiting():
            self._send_prompts(now, resend=index)

    def _act(self, member: M, msg: Act, now: float) -> None:
        index = self._seated(member, msg.type)
        if index is None:
            return
        r = self.round
        if self.state != "playing" or r is None or r.phase is Phase.OVER:
            self._error(member, codes.NOT_PLAYING, "no round is being played", msg.type)
            return
        seat = self.seats[index]
        if msg.seq == seat.answered_seq:
            self._error(member, codes.DUPLICATE, f"you already answered {msg.seq}", msg.type)
            return
        if msg.seq != self.decision_seq:
            self._error(
                member,
                codes.STALE,
                f"that answers {msg.seq}; the move asked now is {self.decision_seq}",
                msg.type,
            )
            return
        if index not in r.awaiting():
            self._error(member, codes.NOTHING_TO_DO, "nothing is asked of you now", msg.type)
            return
        action = Action(index, msg.act, None if msg.tile is None else parse_tile(msg.tile))
        answered, phase = self.decision_seq, r.phase.value
        try:
            new = r.apply(action)  # refused: the round is unchanged
        except IllegalAction as err:
            self._error(member, err.code, err.message, msg.type)
            return
        # A move the table accepted answers a prompt the server sent: it does not count
        # against the rate limit, so a quick bot at a quick table is never cut off.
        self._emit(Accepted(member))
        self._spend_bank(seat, answered, now)
        self._record(action, new, answered, phase, now, reason=None)
        self._advance(now)

    def _spend_bank(self, seat: SeatState[M], answered: int, now: float) -> None:
        elapsed = now - seat.prompt_at
        if seat.prompted_seq == answered and elapsed > self.s.turn_seconds:
            seat.bank = max(0.0, seat.bank - (elapsed - self.s.turn_seconds))

    # ----- inputs: time -----

    def tick(self, now: float, *, wall: float | None = None) -> list[Effect]:
        """Do what is due by `now`: paced frames, bots arriving and moving, prompts timing out,
        the next round, a finished table going away."""
        self._begin(now, wall)
        if self.linger_until is not None and self.linger_until <= now + EARLY:
            self._remove_if_idle(force=True)
            return self._done()
        if self.frozen:
            return self._done()
        for index, seat in enumerate(self.seats):
            arrives = seat.bot_arrives
            if seat.kind == "bot" and arrives is not None and arrives <= now + EARLY:
                seat.bot_arrives, seat.bot_here = None, True
                self._came_back(index, now)
        if self.state == "playing" and self.next_round_at is not None:
            if self.next_round_at <= now + EARLY:
                self.next_round_at = None
                self._start_round(now)
        self._moves_due(now)
        return self._done()

    def _moves_due(self, now: float) -> None:
        """Seats whose clock ran out get their default move (and 托管); bots whose time came
        play their move."""
        r = self.round
        if r is None or r.phase is Phase.OVER or self.state != "playing":
            return
        moved = False
        for index in list(r.awaiting()):
            if self.round is not r or r.phase is Phase.OVER or index not in r.awaiting():
                continue
            seat = self.seats[index]
            if seat.prompted_seq != self.decision_seq:
                continue
            deadline, bot_at = self._seat_deadlines(index)
            if deadline is not None and deadline <= now + EARLY:
                reason = "disconnected" if not seat.connected else "timeout"
                if not seat.auto:
                    seat.auto = True
                    self._seat_changed(index, now)
                self._play_default(index, reason, now)
                moved = True
            elif bot_at is not None and bot_at <= now + EARLY:
                self._play_bot(index, now)
                moved = True
        if moved:
            self._advance(now)

    def _play_bot(self, index: int, now: float) -> None:
        """A server bot's move, chosen by the rules policy; its default if the policy fails."""
        r = self.round
        assert r is not None
        answered, phase = self.decision_seq, r.phase.value
        try:
            action: Action | None = self.bots[index].choose(r, index)
        except Exception:  # a policy bug costs the bot its move, not the table
            action = None
        new: list[Any] | None = None
        if action is not None:
            try:
                new = r.apply(action)  # refused: the round is unchanged
            except IllegalAction:
                pass
        if action is None or new is None:
            self.bot_fallbacks += 1
            action = r.default_action(index)
            new = r.apply(action)  # IllegalAction here is a broken invariant: it freezes
        self._spend_bank(self.seats[index], answered, now)
        self._record(action, new, answered, phase, now, reason=None)

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
        self.next_round_at = None
        self._emit(
            Write([st.op_end_table(self.id, "abandoned", self.scores, self.round_no, self._wall)])
        )
        for member, viewer in list(self.members.items()):
            self._send(
                member,
                viewer,
                ErrorItem(
                    "table_frozen",
                    "this table stopped after a server fault",
                    None,
                    self.id,
                    self.seq,
                ),
            )
        event = self._event(
            {
                "type": "match_ended",
                "scores": list(self.scores),
                "rounds_played": self.round_no,
                "reason": "abandoned",
            }
        )
        self._broadcast(event, stored=False)  # not logged: it goes with the errors
        self.linger_until = now + self.timing.finished_linger
        return self._done()

    def storage_waited(self, seconds: float) -> None:
        """The table waited `seconds` for a write (a storage fault): nobody's clock ran
        meanwhile, so the prompts and disconnection grace standing are pushed back by as much."""
        for seat in self.seats:
            if not math.isinf(seat.prompt_at):
                seat.prompt_at += seconds
            if seat.gone_at is not None:
                seat.gone_at += seconds

    def _refused_frozen(self, member: M, ref: str) -> bool:
        if self.frozen:
            self._error(member, "table_frozen", "this table stopped after a server fault", ref)
        return self.frozen

    # ----- the round -----

    def _start_round(self, now: float) -> None:
        r = self.match.next_round(weekday=weekday_of(self._wall))  # 星期鸡 (§13.12)
        seed = str(self.match.round_seed(self.round_no))
        self.round = r
        self.round_done = False
        self.action_idx = 0
        for seat in self.seats:
            seat.bank = self.s.bank_seconds
            seat.answered_seq = seat.prompted_seq = -1
        # Fair deal: commit to the whole deal order with a secret salt, revealed at the end.
        self.salt = self._new_salt()
        self.commitment = commitment(r.deal_order, self.salt)
        events = [self._engine_event(e.to_dict()) for e in r.events]
        hands = events[0]["hands"]
        op = st.op_insert_round(
            self.id,
            self.round_no,
            seed,
            r.dealer,
            r.streak,
            r.base,
            hands,
            [tile_name(k) for k in r.wall],
            self._wall,
            self.salt,
            self.commitment,
        )
        self._commit(events, [op], now, round_no=self.round_no)
        self._advance(now)

    def _engine_event(self, d: dict[str, Any]) -> dict[str, Any]:
        """Number an engine event and add the table's context to it; it opens a decision."""
        if d["type"] == "round_started":
            d["round_no"] = self.round_no
            d["base"] = self.s.base
            d["commitment"] = self.commitment
        elif d["type"] == "round_ended":
            d["scores"] = list(self.scores)  # the round is recorded in the match by now
            r = self.round
            if r is not None and self.salt is not None:
                d["deal"] = {"order": [tile_name(k) for k in r.deal_order], "salt": self.salt}
        event = self._event(d)
        self.decision_seq = self.seq
        return event

    def _event(self, d: dict[str, Any]) -> dict[str, Any]:
        self.seq += 1
        d["table"] = self.id
        d["seq"] = self.seq
        return d

    def _play_default(self, index: int, reason: str, now: float) -> None:
        """Play the default move for a seat (timeout, disconnection, 托管) and announce it."""
        r = self.round
        assert r is not None
        answered, phase = self.decision_seq, r.phase.value
        action = r.default_action(index)
        new = r.apply(action)  # IllegalAction here is a broken invariant: the table freezes
        self._record(action, new, answered, phase, now, reason=reason)

    def _record(
        self,
        action: Action,
        new: list[Any],
        answered: int,
        phase: str,
        now: float,
        *,
        reason: str | None,
    ) -> None:
        """Number, store and send what an applied action caused."""
        r = self.round
        assert r is not None
        pre: list[dict[str, Any]] = []
        if reason is not None:
            pre.append(
                self._event(
                    {
                        "type": "auto_played",
                        "seat": action.seat,
                        "act": action.act,
                        "reason": reason,
                    }
                )
            )
        self.seats[action.seat].answered_seq = answered
        by = reason or ("bot" if self.seats[action.seat].kind == "bot" else "player")
        self.tally["action:" + by] += 1
        ops: list[st.Op] = [
            st.op_insert_action(
                self.id,
                self.round_no,
                self.action_idx,
                action.seat,
                action.act,
                None if action.tile is None or phase != "turn" else tile_name(action.tile),
                phase,
                reason is not None,
                self._wall,
            )
        ]
        self.action_idx += 1
        if r.phase is Phase.OVER:
            self.match.record(r)
            self.tally["round"] += 1
        events = pre + [self._engine_event(e.to_dict()) for e in new]
        if r.phase is Phase.OVER:
            result = events[-1]["result"]
            ops += st.op_end_round(
                self.id, self.round_no, result, result["net"], self.scores, self._wall
            )
        self._commit(events, ops, now, round_no=self.round_no)

    def _advance(self, now: float) -> None:
        """Play 托管 seats at once; then prompt the others, or finish the round."""
        while self.round is not None and self.round.phase is not Phase.OVER:
            auto = [s for s in self.round.awaiting() if self.seats[s].auto]
            if not auto:
                break
            self._play_default(auto[0], "auto", now)
        if self.round is None:
            return
        if self.round.phase is Phase.OVER:
            if not self.round_done:
                self.round_done = True
                self._round_over(now)
            return
        self._send_prompts(now)

    def _round_over(self, now: float) -> None:
        if self.match.over:
            self._end_match("finished", now)
        else:
            self.next_round_at = now + self.timing.round_pause

    def _end_match(self, reason: str, now: float) -> None:
        self.state = "finished" if reason == "finished" else "abandoned"
        self.next_round_at = None
        event = self._event(
            {
                "type": "match_ended",
                "scores": list(self.scores),
                "rounds_played": self.round_no,
                "reason": reason,
            }
        )
        op = st.op_end_table(self.id, self.state, self.scores, self.round_no, self._wall)
        self._commit([event], [op], now, round_no=0)
        # The server's bots are done and leave their seats; humans may look at the result
        # until they leave.
        for index, seat in enumerate(self.seats):
            if seat.kind == "bot" and seat.bot_here:
                seat.bot_here, seat.gone_at = False, now
                self._seat_changed(index, now)
        self.linger_until = now + self.timing.finished_linger
        self._remove_if_idle()

    # ----- prompts and the clock -----

    def _prompted(self) -> Iterator[int]:
        """The seats asked to move now whose prompt has gone (or is going) out."""
        r = self.round
        if r is None or r.phase is Phase.OVER or self.state != "playing":
            return
        for index in r.awaiting():
            if self.seats[index].prompted_seq == self.decision_seq:
                yield index

    def _seat_deadlines(self, index: int) -> tuple[float | None, float | None]:
        """(when the seat's clock runs out, when a server bot in it moves); neither while its
        prompt waits to go out."""
        seat = self.seats[index]
        if math.isinf(seat.prompt_at):
            return None, None
        deadline: float | None = None
        if self.s.turn_seconds > 0 or self.s.bank_seconds > 0:
            deadline = seat.prompt_at + self.s.turn_seconds + seat.bank
        if not seat.connected:
            since = max(seat.prompt_at, seat.gone_at or seat.prompt_at)
            grace = since + self.timing.disconnect_grace
            deadline = grace if deadline is None else min(deadline, grace)
        bot_at = None
        if seat.kind == "bot" and seat.bot_here and not seat.auto:
            bot_at = seat.prompt_at + self.timing.bot_delay
        return deadline, bot_at

    def _send_prompts(self, now: float, *, resend: int | None = None) -> None:
        """Prompt every awaited seat not yet prompted at this `seq` (and `resend` again, its
        clock running on from the first prompt). A prompt's clock starts when it goes out (a
        server bot's prompt has no frame but goes out all the same)."""
        r = self.round
        assert r is not None
        for index in r.awaiting():
            seat = self.seats[index]
            fresh = seat.prompted_seq != self.decision_seq
            if fresh:
                seat.prompted_seq, seat.prompt_at = self.decision_seq, math.inf
            elif index != resend:
                continue
            sends: list[Send[M]] = []
            if seat.member is not None:
                start = now if math.isinf(seat.prompt_at) else seat.prompt_at
                clock = self.s.turn_seconds > 0 or self.s.bank_seconds > 0
                deadline = start + self.s.turn_seconds + seat.bank if clock else None
                item = PromptItem(
                    self.id,
                    self.decision_seq,
                    index,
                    actions_of(r, index),
                    _choice(r.default_action(index)),
                    None if deadline is None else max(0, int((deadline - now) * 1000)),
                    None if deadline is None else int(seat.bank * 1000),
                )
                frame = view_for(item, index)
                if frame is not None:
                    sends.append(Send((seat.member,), frame))
            self._paced(sends, event=False, stamp=(index, self.decision_seq) if fresh else None)

    # ----- output -----

    def _begin(self, now: float, wall: float | None) -> None:
        """Start an input: frames whose time has come go first."""
        self._now = now
        self._wall = now if wall is None else wall
        self._out = []
        sends, stamps = self.pacer.release(now)
        self._out.extend(sends)
        for stamp in stamps:
            self._stamp(stamp, now)

    def _stamp(self, stamp: Stamp, now: float) -> None:
        """A prompt went out: its seat's clock starts (if it still waits on that decision)."""
        index, seq = stamp
        if self.seats[index].prompted_seq == seq:
            self.seats[index].prompt_at = now

    def _done(self) -> list[Effect]:
        out, self._out = self._out, []
        return out

    def _emit(self, effect: Effect) -> None:
        self._out.append(effect)

    def _snapshot(self) -> SnapshotItem:
        return SnapshotItem(
            self.id, self.seq, self.info(), self.round, self.round_no, self.commitment
        )

    def _table_changed(self, now: float, exclude: M | None = None) -> None:
        event = self._event({"type": "table", "info": self.info()})
        self._commit([event], [], now, round_no=0, exclude=exclude)

    def _seat_changed(self, index: int, now: float) -> None:
        seat = self.seats[index]
        event = self._event(
            {"type": "seat_status", "seat": index, "connected": seat.connected, "auto": seat.auto}
        )
        self._commit([event], [], now, round_no=self.round_no)

    def _commit(
        self,
        events: list[dict[str, Any]],
        ops: list[st.Op],
        now: float,
        *,
        round_no: int,
        exclude: M | None = None,
    ) -> None:
        """Log the events, write them (with `ops`), then send each member its view (paced:
        after a claim-hold event the next event waits `claim_min_ms`)."""
        self.log.extend(events)
        ops = ops + [st.op_insert_event(self.id, round_no, e, self._wall) for e in events]
        self._emit(Write(ops))
        for event in events:
            self._broadcast(event, exclude=exclude, claim=event["type"] in CLAIM_HOLD_TYPES)

    def _broadcast(
        self, item: Item, *, exclude: M | None = None, claim: bool = False, stored: bool = True
    ) -> None:
        """Every member its view of an event; each distinct view is made once. A `stored`
        event's frames wait for its write (the next tick) and for any claim hold."""
        groups: dict[object, tuple[Viewer, list[M]]] = {}
        for member, viewer in self.members.items():
            if member != exclude:
                key = view_key(item, viewer)
                if key in groups:
                    groups[key][1].append(member)
                else:
                    groups[key] = (viewer, [member])
        sends = []
        for viewer, members in groups.values():
            frame = view_for(item, viewer)
            if frame is not None:
                sends.append(Send(tuple(members), frame))
        self._paced(sends, event=stored, claim=claim)

    def _send(self, member: M, viewer: Viewer, item: Item) -> None:
        frame = view_for(item, viewer)
        if frame is not None:
            self._frame(member, frame)

    def _frame(self, member: M, frame: dict[str, Any]) -> None:
        """A frame for one member (a reply): in order behind the others."""
        self._paced([Send((member,), frame)], event=False)

    def _paced(
        self, sends: list[Send[M]], *, event: bool, claim: bool = False, stamp: Stamp | None = None
    ) -> None:
        if self.pacer.add(sends, event=event, claim=claim, stamp=stamp):
            self._out.extend(sends)
            if stamp is not None:
                self._stamp(stamp, self._now)

    def _error(self, member: M, code: str, message: str, ref: str | None) -> None:
        viewer = self.members.get(member)
        self._send(member, viewer, ErrorItem(code, message, ref, self.id, self.seq))


def actions_of(r: Round, seat: int) -> list[dict[str, Any]]:
    return [_choice(a) for a in legal_actions(r, seat)]


def _choice(action: Action) -> dict[str, Any]:
    d: dict[str, Any] = {"act": action.act}
    if action.tile is not None:
        d["tile"] = tile_name(action.tile)
    return d
