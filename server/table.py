"""One table: four seats, spectators, a match of rounds. One asyncio task owns all of it.

Connection handlers only put messages into `Table.inbox`; the table's task takes them one at a
time, checks them against the table's state, steps the rules engine, numbers the resulting events
(`seq`), writes them to SQLite, and only then sends each member its projection
(`server.projection.view_for`). Nothing else reads or writes a table's state, and the state is
never changed across an `await`, so there are no races to reason about.

The clock: each prompt has `turn_seconds` plus what is left of the seat's `bank_seconds` for the
round; at the deadline the server plays the seat's default move (`Round.default_action`: discard
the drawn tile, pass claims) and puts it in 托管, announcing both. A disconnected seat keeps its
seat and clock, with at most `disconnect_grace` seconds per move. 托管 ends when the player comes
back or sends `auto` off.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import json
import logging
import os
import secrets
import time
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from protocol import codes
from protocol.codes import Close
from protocol.messages import ROUND_EVENT_TYPES, Act, AddBot, Auto, RemoveBot, TakeSeat, Watch
from rules.actions import Action, IllegalAction
from rules.fairdeal import commitment
from rules.match import Match
from rules.options import OptionsError, RuleOptions, make_options
from rules.round import Phase, Round, legal_actions
from rules.tiles import parse_tile, tile_name
from server import store as st
from server.conn import Conn, send_many
from server.projection import (
    ErrorItem,
    Item,
    PromptItem,
    SnapshotItem,
    Viewer,
    view_for,
    view_key,
)
from server.resume import RebuildError, rebuild_round

if TYPE_CHECKING:
    from server.app import Server

log = logging.getLogger("zhuoji.table")

LOG_KEEP = 4096  # events kept in memory for reconnect catch-up; older gaps get a snapshot
CLAIM_HOLD_TYPES = frozenset({"discarded", "add_gang_declared"})
STORAGE_WAIT = 0.5  # a write that took longer was held up by a storage fault: clocks stop


_encoder = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))


def dumps(frame: dict[str, Any]) -> str:
    return _encoder.encode(frame)


@dataclass
class SeatState:
    name: str | None = None
    kind: str = "empty"  # empty | human | bot
    token_key: str | None = None  # the SHA-256 digest of the seat's token (`token_key`)
    conn: Conn | None = None
    auto: bool = False
    auto_requested: bool = False
    gone_at: float | None = None  # loop time the connection dropped
    bank: float = 0.0
    prompted_seq: int = -1  # the decision (its seq) this seat was last prompted for
    prompt_at: float = 0.0
    answered_seq: int = -1  # the decision (its seq) this seat last answered
    # After a restart: the last seq stored. A client of the run before may have seen later
    # events that never reached the disk (a power loss with `synchronous=NORMAL`), so its first
    # resume quoting a later seq gets a snapshot, not events that reuse those numbers.
    restored_seq: int | None = None
    # The connection dropped during the match (it did not `leave`): the player has not seen
    # the end yet, so a finished table waits for them (up to `finished_linger`).
    away: bool = False


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


class Table:
    def __init__(
        self, server: Server, table_id: str, settings: Settings, *, seed: str | None = None
    ) -> None:
        self.server = server
        self.id = table_id
        self.s = settings
        self.seed = seed if seed is not None else server.match_seed(table_id)
        self.seats = [SeatState() for _ in range(4)]
        self.spectators: set[Conn] = set()
        self.state = "waiting"
        self.seq = 0
        # The seq of the last round event: the decision the round waits on. A prompt quotes it,
        # and stays good while other events (a seat's connection, a spectator) come and go.
        self.decision_seq = 0
        self.log: deque[dict[str, Any]] = deque(maxlen=LOG_KEEP)
        self.round: Round | None = None
        # Rounds, running scores and the deal passing (§8.3) are the rules core's `Match`.
        self.match = Match(settings.options, settings.rounds, seed=self.seed, base=settings.base)
        # Fair deal: the current round's secret salt and its published commitment.
        self.salt: str | None = None
        self.commitment: str | None = None
        self.action_idx = 0
        self.round_done = False
        self.hold_until = 0.0
        self.inbox: asyncio.Queue[tuple[Any, ...]] = asyncio.Queue()
        self.loop = asyncio.get_running_loop()
        self._timer: asyncio.TimerHandle | None = None
        self._linger: asyncio.TimerHandle | None = None
        self.frozen = False
        self.task = asyncio.create_task(self._run(), name=f"table-{table_id}")

    # ----- after a restart -----

    @classmethod
    def restore(cls, server: Server, stored: st.StoredTable) -> Table:
        """A match a previous run left unfinished, at its last stored event: the same hands,
        wall and turn, its seats waiting for their players (their tokens still good; the
        server's bots come back by themselves). The round is rebuilt through the engine from
        its stored deal and actions and must give the stored events; if it cannot be rebuilt
        the table is frozen (its record kept, its players told) and the server goes on.

        A match that had just ended comes back as it ended, for what is left of
        `finished_linger`: a player who dropped just before the end still sees it."""
        row = stored.row
        problem = stored.error
        try:
            settings = _settings_from_row(row)
        except (OptionsError, KeyError, TypeError, ValueError) as err:
            problem = problem or f"bad settings: {err}"
            settings = _settings_from_row({**row, "preset": "guiyang", "options": {}})
        table = cls(server, stored.id, settings, seed=row.get("seed") or f"restored:{stored.id}")
        table.state = "playing"
        table.seq = stored.seq
        table.log.extend(stored.log)
        seats = row.get("seats") or []
        keys = row.get("tokens") or []
        for i, seat in enumerate(table.seats):
            info = seats[i] if i < len(seats) and isinstance(seats[i], dict) else {}
            seat.name, seat.kind = info.get("name"), info.get("kind", "human")
            seat.token_key = keys[i] if i < len(keys) and seat.kind == "human" else None
            seat.gone_at = table.loop.time()
            seat.away = seat.kind == "human"
            seat.bank = settings.bank_seconds
            seat.restored_seq = stored.seq
            if seat.token_key is not None:
                server.tokens[seat.token_key] = table
        if row["state"] != "playing":
            table.state = row["state"]
            table.match.round_no = int(row.get("rounds_played") or 0)
            table.match.scores = list(row.get("scores") or [0, 0, 0, 0])
            left = (row.get("ended_at") or 0) + server.finished_linger - time.time()
            table._linger = table.loop.call_later(max(0.0, left), table.post, "linger")
            return table
        try:
            if problem is not None:
                raise RebuildError(problem)
            table._rebuild(stored)
        except Exception as err:  # whatever it is, this table alone stops
            log.error(
                "table %s: cannot resume its match: %s; the table is frozen, its log kept",
                stored.id, err,
            )  # fmt: skip
            table.post("freeze", err)
            return table
        table.post("resumed")
        return table

    def _rebuild(self, stored: st.StoredTable) -> None:
        """The match and its current round from the stored rounds and actions."""
        m = self.match
        rounds = stored.rounds
        for k, rnd in enumerate(rounds):
            if rnd.round_no != k + 1 or (rnd.dealer, rnd.streak) != (m.dealer, m.streak):
                raise RebuildError(f"round {rnd.round_no} does not follow the one before")
            if rnd.base != self.s.base:
                raise RebuildError(f"round {rnd.round_no} has base {rnd.base}")
            m.round_no = rnd.round_no
            if rnd.result is None:
                if k != len(rounds) - 1:
                    raise RebuildError(f"round {rnd.round_no} never ended but others followed")
                r = rebuild_round(self.s.options, rnd, stored.actions, stored.round_events)
                if r.phase is Phase.OVER:
                    raise RebuildError(f"round {rnd.round_no} is over but not recorded so")
                self.round = r
                self.action_idx = len(stored.actions)
                self.salt, self.commitment = rnd.salt, rnd.commitment
            else:
                net = rnd.result["net"]
                for seat in range(4):
                    m.scores[seat] += net[seat]
                m.dealer, m.streak = rnd.result["next_dealer"], rnd.result["next_streak"]
                m.history.append(
                    {"round": rnd.round_no, "net": net, "outcome": rnd.result["outcome"]}
                )
        stored_scores = stored.row.get("scores")
        if stored_scores is not None and list(stored_scores) != m.scores:
            raise RebuildError(f"the stored scores {stored_scores} are not the rounds' {m.scores}")
        if m.round_no > self.s.rounds:
            raise RebuildError(f"{m.round_no} rounds of {self.s.rounds}")
        round_seqs = [e["seq"] for e in self.log if e["type"] in ROUND_EVENT_TYPES]
        self.decision_seq = round_seqs[-1] if round_seqs else self.seq
        # Each seat's 托管 as last announced (a seat coming back takes it off, as ever).
        for event in self.log:
            if event["type"] == "seat_status":
                self.seats[event["seat"]].auto = event["auto"]

    async def _resumed(self) -> None:
        """Go on after a restart: the server's bots get new tokens and come back, everyone is
        told the seats wait, and the match continues where it stood."""
        bots: list[tuple[int, str]] = []
        for index, seat in enumerate(self.seats):
            if seat.kind == "bot":
                token = self.server.new_token(self)
                seat.token_key = token_key(token)
                seat.restored_seq = None
                bots.append((index, token))
        keys = [s.token_key for s in self.seats]
        event = self._event({"type": "table", "info": self.info()})
        await self._commit_and_send([event], [st.op_set_tokens(self.id, keys)], round_no=0)
        for index, token in bots:
            name = self.seats[index].name or f"Bot-{index + 1}"
            self.server.spawn_bot(name, token, seed=f"{self.id}:{index}:{self.seq}")
        log.info("table %s: resumed at seq %d (round %d)", self.id, self.seq, self.round_no)
        if self.round is not None:
            await self._advance()
        elif self.match.over:
            await self._end_match("finished")
        elif self.round_no == 0:
            await self._start_round()
        else:
            self.loop.call_later(self.server.round_pause, self.post, "next_round")

    # ----- the task -----

    def post(self, *item: Any) -> None:
        """Called by handlers (synchronously): queue a message for the table's task."""
        self.inbox.put_nowait(item)

    async def _run(self) -> None:
        while True:
            item = await self.inbox.get()
            kind = item[0]
            if kind == "stop":
                self._cancel_timer()
                if self._linger is not None:
                    self._linger.cancel()
                return
            try:
                await self._dispatch(item)
            except asyncio.CancelledError:
                raise
            except Exception as err:
                # A broken invariant or a failed write: freeze the table, keep its log.
                log.exception("table %s: %s failed", self.id, kind)
                conn = item[1] if len(item) > 1 else None
                if isinstance(conn, Conn) and conn.joining is self:
                    conn.joining = None
                await self._freeze(err)

    async def _dispatch(self, item: tuple[Any, ...]) -> None:
        kind = item[0]
        if self.frozen and kind not in ("gone", "leave"):
            conn = item[1] if len(item) > 1 else None
            if isinstance(conn, Conn):
                if conn.joining is self:
                    conn.joining = None
                self._error(conn, "table_frozen", "this table stopped after a server fault", kind)
            return
        if kind == "join":
            await self._join(item[1], item[2])
        elif kind == "create":
            await self._create(item[1])
        elif kind == "resume":
            await self._resume(item[1], item[2], item[3], item[4])
        elif kind == "resumed":
            await self._resumed()
        elif kind == "freeze":
            await self._freeze(item[1])
        elif kind == "gone":
            await self._gone(item[1], left=False)
        elif kind == "leave":
            await self._gone(item[1], left=True)
        elif kind == "msg":
            await self._command(item[1], item[2])
        elif kind == "tick":
            await self._tick()
        elif kind == "next_round":
            if self.state == "playing":
                await self._start_round()
        elif kind == "linger":
            self._remove_if_idle(force=True)
        elif kind == "abandon":
            if self.state == "playing":
                await self._end_match("abandoned")
        else:  # pragma: no cover - programming error
            raise ValueError(f"unknown table item {kind!r}")

    @property
    def round_no(self) -> int:
        return self.match.round_no

    @property
    def scores(self) -> list[int]:
        return self.match.scores

    # ----- membership -----

    def members(self) -> Iterator[tuple[Viewer, Conn]]:
        for i, seat in enumerate(self.seats):
            if seat.conn is not None and not seat.conn.closed:
                yield i, seat.conn
        for conn in self.spectators:
            if not conn.closed:
                yield None, conn

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
                    "connected": seat.conn is not None,
                    "auto": seat.auto,
                }
                for seat in self.seats
            ],
            "spectators": len(self.spectators),
            "state": "finished" if self.state in ("finished", "abandoned") else self.state,
            "round_no": self.round_no,
            "scores": list(self.scores),
        }

    def _password_ok(self, given: str | None) -> bool:
        want = self.s.password_hash
        if want is None:
            return True
        return given is not None and password_matches(given, want)

    async def _create(self, conn: Conn) -> None:
        """The creator's seat 0, once the table row is stored."""
        await self.server.store.write([st.op_insert_table(self._row())])
        await self._join(conn, TakeSeat(table=self.id, seat=0), creator=True)

    def _row(self) -> dict[str, Any]:
        return {
            "id": self.id, "name": self.s.name, "preset": self.s.preset,
            "options": self.s.overrides, "base": self.s.base, "rounds": self.s.rounds,
            "turn_seconds": self.s.turn_seconds, "bank_seconds": self.s.bank_seconds,
            "claim_min_ms": self.s.claim_min_ms,
            "has_password": self.s.password_hash is not None,
            "password_hash": self.s.password_hash, "seed": self.seed, "created_at": time.time(),
        }  # fmt: skip

    async def _join(self, conn: Conn, msg: TakeSeat | Watch, *, creator: bool = False) -> None:
        if conn.joining is self:
            conn.joining = None
        if conn.closed:
            return
        if conn.table is not None:
            self._error(conn, codes.ALREADY_AT_TABLE, "leave your table first", msg.type)
            return
        if not creator and not self._password_ok(msg.password):
            self._error(conn, codes.BAD_PASSWORD, "wrong password for this table", msg.type)
            return
        if isinstance(msg, Watch):
            self.spectators.add(conn)
            conn.table, conn.seat = self, None
            await self._table_changed(exclude=conn)
            self._welcome_member(conn, None, None)
            return
        if self.state != "waiting":
            self._error(
                conn, codes.ALREADY_STARTED, "the match has started: watch it instead", msg.type
            )
            return
        index = self._free_seat(conn, msg.seat, msg.type)
        if index is None:
            return
        seat = self.seats[index]
        seat.name, seat.kind, seat.conn = conn.name, "human", conn
        token = self.server.new_token(self)
        seat.token_key = token_key(token)
        conn.table, conn.seat = self, index
        await self._table_changed(exclude=conn)
        self._welcome_member(conn, index, token)

    def _free_seat(self, conn: Conn, wanted: int | None, ref: str) -> int | None:
        """The seat asked for, or the first free one; None (and an error) if there is none."""
        if wanted is not None:
            if self.seats[wanted].kind == "empty":
                return wanted
            self._error(conn, codes.SEAT_TAKEN, f"seat {wanted} is taken", ref)
            return None
        free = [i for i, seat in enumerate(self.seats) if seat.kind == "empty"]
        if free:
            return free[0]
        self._error(conn, codes.TABLE_FULL, "all four seats are taken", ref)
        return None

    def _welcome_member(self, conn: Conn, seat: int | None, token: str | None) -> None:
        self._send(
            conn,
            {
                "type": "joined", "table": self.id, "seq": self.seq, "seat": seat,
                "token": token, "resume": "snapshot",
            },
        )  # fmt: skip
        self._send_item(conn, seat, self._snapshot())

    async def _resume(self, conn: Conn, key: str, token: str, last_seq: int | None) -> None:
        """A seat's token came back (a reconnect, or a server bot's first connection)."""
        if conn.joining is self:
            conn.joining = None
        index = next((i for i, s in enumerate(self.seats) if s.token_key == key), None)
        if index is None or conn.closed:
            if not conn.closed:
                self._error(conn, codes.BAD_TOKEN, "that seat is no longer yours", "hello")
            return
        seat = self.seats[index]
        old = seat.conn
        if old is not None and old is not conn:
            old.table = None
            old.close(Close.REPLACED, "this seat connected again elsewhere")
        seat.conn, seat.gone_at, seat.away = conn, None, False
        conn.table, conn.seat = self, index
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
        self._send(
            conn,
            {
                "type": "joined", "table": self.id, "seq": self.seq, "seat": index,
                "token": token, "resume": "events" if catch_up else "snapshot",
            },
        )  # fmt: skip
        if catch_up:
            assert last_seq is not None
            for event in self.log:
                if event["seq"] > last_seq:
                    self._send_item(conn, index, event)
        else:
            self._send_item(conn, index, self._snapshot())
        if seat.auto and not seat.auto_requested:
            seat.auto = False
        await self._seat_changed(index)
        if self.round is not None and index in self.round.awaiting():
            self._send_prompts(resend=index)  # the clock goes on as it stood

    async def _gone(self, conn: Conn, *, left: bool) -> None:
        """A connection closed (`left` False) or asked to leave the table."""
        if conn.joining is self:
            conn.joining = None
        if conn in self.spectators:
            self.spectators.discard(conn)
            conn.table = None
            if left:
                self._send(conn, {"type": "left", "table": self.id})
            await self._table_changed()
        elif conn.table is self and conn.seat is not None:
            index = conn.seat
            seat = self.seats[index]
            conn.table, conn.seat = None, None
            if seat.conn is not conn:
                return
            seat.conn = None
            if left:
                self._send(conn, {"type": "left", "table": self.id})
            if self.state == "waiting":
                # Before the start a seat is only a reservation: free it.
                self.server.drop_token(seat.token_key)
                self.seats[index] = SeatState()
                await self._table_changed()
            else:
                seat.gone_at = self.loop.time()
                seat.away = not left and self.state == "playing"
                if left:
                    seat.auto = True  # coming back with the token ends it
                await self._seat_changed(index)
                self._arm_timer()
                if left:
                    await self._advance()
        self._remove_if_idle()

    def _remove_if_idle(self, *, force: bool = False) -> None:
        """A table that is not playing and has nobody at it (no human, no spectator, no player
        whose connection dropped during the match and who has not seen its end) goes away; a
        finished one goes anyway after `finished_linger` (`force`)."""
        if self.state == "playing":
            return
        people = any(s.kind == "human" and (s.conn is not None or s.away) for s in self.seats)
        if force or not (people or self.spectators):
            self.server.remove_table(self)

    # ----- commands from members -----

    async def _command(self, conn: Conn, msg: Any) -> None:
        if conn.table is not self:
            self._error(conn, codes.NOT_AT_TABLE, "you are not at this table", msg.type)
            return
        if isinstance(msg, Act):
            await self._act(conn, msg)
        elif isinstance(msg, Auto):
            await self._auto(conn, msg)
        elif isinstance(msg, AddBot):
            await self._add_bot(conn, msg)
        elif isinstance(msg, RemoveBot):
            await self._remove_bot(conn, msg)
        elif msg.type == "start":
            await self._start(conn)
        elif msg.type == "sync":
            viewer = (
                conn.seat if conn.seat is not None and self.seats[conn.seat].conn is conn else None
            )
            self._send_item(conn, viewer, self._snapshot())
        else:  # pragma: no cover - the server routes only the above here
            raise ValueError(f"unexpected message {msg.type!r}")

    def _seated(self, conn: Conn, ref: str) -> int | None:
        if conn.seat is None or self.seats[conn.seat].conn is not conn:
            self._error(conn, codes.NOT_SEATED, "only a seated player may do that", ref)
            return None
        return conn.seat

    async def _add_bot(self, conn: Conn, msg: AddBot) -> None:
        if self._seated(conn, msg.type) is None:
            return
        if self.state != "waiting":
            self._error(conn, codes.ALREADY_STARTED, "the match has started", msg.type)
            return
        index = self._free_seat(conn, msg.seat, msg.type)
        if index is None:
            return
        seat = self.seats[index]
        seat.kind, seat.name = "bot", f"Bot-{index + 1}"
        token = self.server.new_token(self)
        seat.token_key = token_key(token)
        await self._table_changed()
        # The bot connects like any client and takes the seat with its token.
        self.server.spawn_bot(seat.name, token, seed=f"{self.id}:{index}")

    async def _remove_bot(self, conn: Conn, msg: RemoveBot) -> None:
        if self._seated(conn, msg.type) is None:
            return
        if self.state != "waiting":
            self._error(conn, codes.ALREADY_STARTED, "the match has started", msg.type)
            return
        seat = self.seats[msg.seat]
        if seat.kind != "bot":
            self._error(conn, codes.NOT_A_BOT, f"seat {msg.seat} is not a bot", msg.type)
            return
        self.server.drop_token(seat.token_key)
        if seat.conn is not None:
            seat.conn.table = seat.conn.seat = None
            seat.conn.close(Close.NORMAL, "removed")
        self.seats[msg.seat] = SeatState()
        await self._table_changed()

    async def _start(self, conn: Conn) -> None:
        if self._seated(conn, "start") is None:
            return
        if self.state != "waiting":
            self._error(conn, codes.ALREADY_STARTED, "the match has already started", "start")
            return
        if any(seat.kind == "empty" for seat in self.seats):
            self._error(conn, codes.NOT_ENOUGH_PLAYERS, "four seats must be taken", "start")
            return
        self.state = "playing"
        names = [seat.name or "" for seat in self.seats]
        event = self._event({"type": "match_started", "rounds": self.s.rounds, "names": names})
        seats = [{"name": s.name, "kind": s.kind} for s in self.seats]
        keys = [s.token_key for s in self.seats]
        await self._commit_and_send(
            [event], [st.op_start_table(self.id, seats, keys, time.time())], round_no=0
        )
        await self._start_round()

    async def _auto(self, conn: Conn, msg: Auto) -> None:
        index = self._seated(conn, msg.type)
        if index is None:
            return
        seat = self.seats[index]
        if seat.auto == msg.on:
            return
        seat.auto = seat.auto_requested = msg.on
        await self._seat_changed(index)
        if msg.on:
            await self._advance()
        elif self.round is not None and index in self.round.awaiting():
            self._send_prompts(resend=index)

    async def _act(self, conn: Conn, msg: Act) -> None:
        index = self._seated(conn, msg.type)
        if index is None:
            return
        r = self.round
        if self.state != "playing" or r is None or r.phase is Phase.OVER:
            self._error(conn, codes.NOT_PLAYING, "no round is being played", msg.type)
            return
        seat = self.seats[index]
        if msg.seq == seat.answered_seq:
            self._error(conn, codes.DUPLICATE, f"you already answered {msg.seq}", msg.type)
            return
        if msg.seq != self.decision_seq:
            self._error(
                conn,
                codes.STALE,
                f"that answers {msg.seq}; the move asked now is {self.decision_seq}",
                msg.type,
            )
            return
        if index not in r.awaiting():
            self._error(conn, codes.NOTHING_TO_DO, "nothing is asked of you now", msg.type)
            return
        action = Action(index, msg.act, None if msg.tile is None else parse_tile(msg.tile))
        answered, phase = self.decision_seq, r.phase.value
        try:
            new = r.apply(action)  # refused: the round is unchanged
        except IllegalAction as err:
            self._error(conn, err.code, err.message, msg.type)
            return
        if conn.rate is not None:
            # A move the table accepted answers a prompt the server sent: it does not count
            # against the rate limit, so a quick bot at a quick table is never cut off.
            conn.rate.refund()
        elapsed = self.loop.time() - seat.prompt_at
        if seat.prompted_seq == answered and elapsed > self.s.turn_seconds:
            seat.bank = max(0.0, seat.bank - (elapsed - self.s.turn_seconds))
        await self._record(action, new, answered, phase, reason=None)
        await self._advance()

    # ----- the round -----

    async def _start_round(self) -> None:
        r = self.match.next_round()
        seed = str(self.match.round_seed(self.round_no))
        self.round = r
        self.round_done = False
        self.action_idx = 0
        for seat in self.seats:
            seat.bank = self.s.bank_seconds
            seat.answered_seq = seat.prompted_seq = -1
        # Fair deal: commit to the whole deal order with a secret salt, revealed at the end.
        self.salt = os.urandom(16).hex()
        self.commitment = commitment(r.deal_order, self.salt)
        events = [self._engine_event(e.to_dict()) for e in r.events]
        hands = events[0]["hands"]
        op = st.op_insert_round(
            self.id, self.round_no, seed, r.dealer, r.streak, r.base, hands,
            [tile_name(k) for k in r.wall], time.time(), self.salt, self.commitment,
        )  # fmt: skip
        await self._commit_and_send(events, [op], round_no=self.round_no)
        await self._advance()

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

    async def _play_default(self, index: int, reason: str) -> None:
        """Play the default move for a seat (timeout, disconnection, 托管) and announce it."""
        r = self.round
        assert r is not None
        answered, phase = self.decision_seq, r.phase.value
        action = r.default_action(index)
        new = r.apply(action)  # IllegalAction here is a broken invariant: the table freezes
        await self._record(action, new, answered, phase, reason=reason)

    async def _record(
        self, action: Action, new: list[Any], answered: int, phase: str, *, reason: str | None
    ) -> None:
        """Number, store and send what an applied action caused."""
        r = self.round
        assert r is not None
        pre: list[dict[str, Any]] = []
        if reason is not None:
            pre.append(
                self._event(
                    {"type": "auto_played", "seat": action.seat, "act": action.act,
                     "reason": reason}
                )
            )  # fmt: skip
        self.seats[action.seat].answered_seq = answered
        now = time.time()
        ops: list[st.Op] = [
            st.op_insert_action(
                self.id, self.round_no, self.action_idx, action.seat, action.act,
                None if action.tile is None or phase != "turn" else tile_name(action.tile),
                phase, reason is not None, now,
            )
        ]  # fmt: skip
        self.action_idx += 1
        if r.phase is Phase.OVER:
            self.match.record(r)
        events = pre + [self._engine_event(e.to_dict()) for e in new]
        if r.phase is Phase.OVER:
            result = events[-1]["result"]
            ops += st.op_end_round(self.id, self.round_no, result, result["net"], self.scores, now)
        await self._commit_and_send(events, ops, round_no=self.round_no)

    async def _advance(self) -> None:
        """Play 托管 seats at once; then prompt the others, or finish the round."""
        while self.round is not None and self.round.phase is not Phase.OVER:
            auto = [s for s in self.round.awaiting() if self.seats[s].auto]
            if not auto:
                break
            await self._play_default(auto[0], "auto")
        if self.round is None:
            return
        if self.round.phase is Phase.OVER:
            if not self.round_done:
                self.round_done = True
                await self._round_over()
            return
        self._send_prompts()

    async def _round_over(self) -> None:
        r = self.round
        assert r is not None and r.result is not None
        self._cancel_timer()
        if self.match.over:
            await self._end_match("finished")
        else:
            self.loop.call_later(self.server.round_pause, self.post, "next_round")

    async def _end_match(self, reason: str) -> None:
        self.state = "finished" if reason == "finished" else "abandoned"
        self._cancel_timer()
        event = self._event(
            {"type": "match_ended", "scores": list(self.scores), "rounds_played": self.round_no,
             "reason": reason}
        )  # fmt: skip
        op = st.op_end_table(self.id, self.state, self.scores, self.round_no, time.time())
        await self._commit_and_send([event], [op], round_no=0)
        # The server's bots are done; humans may look at the result until they leave.
        for seat in self.seats:
            if seat.kind == "bot" and seat.conn is not None:
                seat.conn.close(Close.NORMAL, "match over")
        self._linger = self.loop.call_later(self.server.finished_linger, self.post, "linger")
        self._remove_if_idle()

    async def _freeze(self, err: Exception) -> None:
        """After a broken invariant: stop the match, keep its log, tell everyone."""
        if self.frozen:
            return
        self.frozen = True
        self._cancel_timer()
        self.state = "abandoned"
        # The end is stored before anyone is told (the write waits out a storage fault), so
        # the record and the players agree.
        event: dict[str, Any] | None = self._event(
            {"type": "match_ended", "scores": list(self.scores),
             "rounds_played": self.round_no, "reason": "abandoned"}
        )  # fmt: skip
        try:
            await self.server.store.write(
                [st.op_end_table(self.id, "abandoned", self.scores, self.round_no, time.time())]
            )
        except Exception:
            log.exception("table %s: could not record the freeze", self.id)
            event = None
        for viewer, conn in list(self.members()):
            self._send_item(
                conn, viewer,
                ErrorItem("table_frozen", "this table stopped after a server fault", None,
                          self.id, self.seq),
            )  # fmt: skip
        if event is not None:
            self._broadcast(event)
        self._linger = self.loop.call_later(self.server.finished_linger, self.post, "linger")

    # ----- prompts and the clock -----

    def _deadline(self, seat: SeatState) -> float | None:
        deadline: float | None = None
        if self.s.turn_seconds > 0 or self.s.bank_seconds > 0:
            deadline = seat.prompt_at + self.s.turn_seconds + seat.bank
        if seat.conn is None:
            since = max(seat.prompt_at, seat.gone_at or seat.prompt_at)
            grace = since + self.server.disconnect_grace
            deadline = grace if deadline is None else min(deadline, grace)
        return deadline

    def _send_prompts(self, *, resend: int | None = None) -> None:
        """Prompt every awaited seat not yet prompted at this `seq` (and `resend` again, its
        clock running on from the first prompt)."""
        r = self.round
        assert r is not None
        now = self.loop.time()
        for index in r.awaiting():
            seat = self.seats[index]
            if seat.prompted_seq != self.decision_seq:
                seat.prompted_seq, seat.prompt_at = self.decision_seq, now
            elif index != resend:
                continue
            if seat.conn is None:
                continue
            deadline = self._deadline(seat)
            actions = [_choice(a) for a in legal_actions(r, index)]
            item = PromptItem(
                self.id, self.decision_seq, index, actions, _choice(r.default_action(index)),
                None if deadline is None else max(0, int((deadline - now) * 1000)),
                None if deadline is None else int(seat.bank * 1000),
            )  # fmt: skip
            self._send_item(seat.conn, index, item)
        self._arm_timer()

    def _arm_timer(self) -> None:
        self._cancel_timer()
        r = self.round
        if r is None or r.phase is Phase.OVER or self.state != "playing":
            return
        deadlines = [
            d
            for i in r.awaiting()
            if self.seats[i].prompted_seq == self.decision_seq
            and (d := self._deadline(self.seats[i])) is not None
        ]
        if deadlines:
            self._timer = self.loop.call_at(min(deadlines), self.post, "tick")

    def _cancel_timer(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    async def _tick(self) -> None:
        r = self.round
        if r is None or r.phase is Phase.OVER or self.state != "playing":
            return
        now = self.loop.time()
        for index in list(r.awaiting()):
            if self.round is not r or r.phase is Phase.OVER or index not in r.awaiting():
                continue
            seat = self.seats[index]
            if seat.prompted_seq != self.decision_seq:
                continue
            deadline = self._deadline(seat)
            if deadline is None or deadline > now + 0.001:
                continue
            reason = "disconnected" if seat.conn is None else "timeout"
            if not seat.auto:
                seat.auto = True
                await self._seat_changed(index)
            await self._play_default(index, reason)
        await self._advance()
        self._arm_timer()

    # ----- sending -----

    def _snapshot(self) -> SnapshotItem:
        return SnapshotItem(
            self.id, self.seq, self.info(), self.round, self.round_no, self.commitment
        )

    async def _table_changed(self, exclude: Conn | None = None) -> None:
        event = self._event({"type": "table", "info": self.info()})
        await self._commit_and_send([event], [], round_no=0, exclude=exclude)

    async def _seat_changed(self, index: int) -> None:
        seat = self.seats[index]
        event = self._event(
            {"type": "seat_status", "seat": index, "connected": seat.conn is not None,
             "auto": seat.auto}
        )  # fmt: skip
        await self._commit_and_send([event], [], round_no=self.round_no)

    async def _commit_and_send(
        self,
        events: list[dict[str, Any]],
        ops: list[st.Op],
        *,
        round_no: int,
        exclude: Conn | None = None,
    ) -> None:
        """Log the events, write them (with `ops`) to disk, then send each member its view.

        After a discard (or a 补杠 declaration) whatever follows waits until `claim_min_ms` has
        passed, whether or not anyone could claim, so the pace does not give hands away."""
        now = time.time()
        for event in events:
            self.log.append(event)
        ops = ops + [st.op_insert_event(self.id, round_no, e, now) for e in events]
        began = self.loop.time()
        await self.server.store.write(ops)  # during a storage fault: until it is stored
        waited = self.loop.time() - began
        if waited > STORAGE_WAIT:
            self.storage_waited(waited)
        for event in events:
            if self.hold_until:
                wait = self.hold_until - self.loop.time()
                self.hold_until = 0.0
                if wait > 0:
                    await asyncio.sleep(wait)
            self._broadcast(event, exclude=exclude)
            if event["type"] in CLAIM_HOLD_TYPES and self.s.claim_min_ms:
                self.hold_until = self.loop.time() + self.s.claim_min_ms / 1000

    def storage_waited(self, seconds: float) -> None:
        """The table waited `seconds` for a write (a storage fault): nobody's clock ran
        meanwhile, so the prompts and disconnection grace standing are pushed back by as much."""
        for seat in self.seats:
            seat.prompt_at += seconds
            if seat.gone_at is not None:
                seat.gone_at += seconds
        self._arm_timer()

    def _broadcast(self, item: Item, exclude: Conn | None = None) -> None:
        """Send every member its view of `item`; each distinct view is encoded once."""
        groups: dict[object, tuple[Viewer, list[Conn]]] = {}
        for viewer, conn in self.members():
            if conn is not exclude:
                key = view_key(item, viewer)
                if key in groups:
                    groups[key][1].append(conn)
                else:
                    groups[key] = (viewer, [conn])
        for viewer, conns in groups.values():
            frame = view_for(item, viewer)
            if frame is not None:
                send_many(conns, dumps(frame))

    def _send_item(self, conn: Conn, viewer: Viewer, item: Item) -> None:
        frame = view_for(item, viewer)
        if frame is not None:
            conn.send(dumps(frame))

    def _send(self, conn: Conn, frame: dict[str, Any]) -> None:
        """A frame that concerns only this connection's own membership (joined, left)."""
        conn.send(dumps(frame))

    def _error(self, conn: Conn, code: str, message: str, ref: str | None) -> None:
        viewer = conn.seat if conn.table is self else None
        self._send_item(conn, viewer, ErrorItem(code, message, ref, self.id, self.seq))


def _choice(action: Action) -> dict[str, Any]:
    d: dict[str, Any] = {"act": action.act}
    if action.tile is not None:
        d["tile"] = tile_name(action.tile)
    return d


def _settings_from_row(row: dict[str, Any]) -> Settings:
    """A stored table's settings (its options checked again)."""
    options = make_options(row["preset"], dict(row["options"] or {}))
    return Settings(
        name=str(row["name"]), preset=row["preset"], overrides=dict(row["options"] or {}),
        options=options, base=int(row["base"]), rounds=int(row["rounds"]),
        turn_seconds=float(row["turn_seconds"]), bank_seconds=float(row["bank_seconds"]),
        claim_min_ms=int(row["claim_min_ms"]), password_hash=row.get("password_hash"),
    )  # fmt: skip


def new_token() -> str:
    return secrets.token_urlsafe(18)


def token_key(token: str) -> str:
    """What the server keeps of a seat token: its SHA-256 digest (hex). A token is a bearer
    secret; the database holds only this."""
    return hashlib.sha256(token.encode()).hexdigest()


PBKDF2_ROUNDS = 10_000


def hash_password(password: str) -> str:
    """A table password as stored: `pbkdf2_sha256$ROUNDS$SALT$DIGEST` (hex)."""
    salt = os.urandom(16)
    digest = hashlib.pbkdf2_hmac("sha256", password.encode(), salt, PBKDF2_ROUNDS)
    return f"pbkdf2_sha256${PBKDF2_ROUNDS}${salt.hex()}${digest.hex()}"


def password_matches(password: str, stored: str) -> bool:
    """Whether `password` is the one `stored` (from `hash_password`) was made from.

    >>> password_matches("芝麻", hash_password("芝麻")), password_matches("x", hash_password("y"))
    (True, False)
    """
    try:
        scheme, rounds, salt, digest = stored.split("$")
        if scheme != "pbkdf2_sha256":
            return False
        got = hashlib.pbkdf2_hmac("sha256", password.encode(), bytes.fromhex(salt), int(rounds))
    except ValueError:
        return False
    return hmac.compare_digest(got.hex(), digest)
