"""Who is at the table: taking a seat or watching, a token coming back (a reconnect), leaving
or dropping, a seat handed on, a bot added or removed, the spectator count.

`Joining` works on the table through `JoiningTable`, the part of `TableCore` it needs.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Generic, Literal, Protocol, TypeVar

from protocol import codes, frames
from protocol.codes import Close as CloseCode
from protocol.messages import AddBot, HandSeat, RemoveBot, TakeSeat, Watch
from server.credentials import token_key
from server.storage.records import SeatsChanged
from server.table.effects import Bind, Close, DropToken, IssueToken, Send, Unbind, Write
from server.table.fanout import EventLog, Outbox, SpectatorCount
from server.table.policies import Policies
from server.table.projection import SnapshotItem
from server.table.seams import EndingFace, OversightFace, PlayFace
from server.table.seating import Members, Seats, SeatState
from server.table.settings import Timing
from server.table.tally import Tally
from server.table.vote import EndVote

M = TypeVar("M", bound=Hashable)


class JoiningTable(Protocol[M]):
    """What `Joining` reads and does of the table (`TableCore` is one)."""

    # The table's parts it holds (taken once, at its making).
    @property
    def events(self) -> EventLog: ...
    @property
    def id(self) -> str: ...
    @property
    def members(self) -> Members[M]: ...
    @property
    def new_token(self) -> Callable[[], str]: ...
    @property
    def outbox(self) -> Outbox[M]: ...
    @property
    def policies(self) -> Policies: ...
    @property
    def seats(self) -> Seats[M]: ...
    @property
    def spectator_count(self) -> SpectatorCount: ...
    @property
    def tally(self) -> Tally: ...
    @property
    def timing(self) -> Timing: ...
    @property
    def vote(self) -> EndVote: ...

    # What it reads of the table's state.
    @property
    def creator(self) -> M | None: ...
    @property
    def frozen(self) -> bool: ...
    @property
    def now(self) -> float: ...
    @property
    def seq(self) -> int: ...
    @property
    def spectators(self) -> list[M]: ...
    @property
    def state(self) -> str: ...

    # What it asks of the core (its numbered events, frames and errors).
    def error(self, member: M, code: str, message: str, ref: str | None) -> None: ...
    def refused_frozen(self, member: M, ref: str) -> bool: ...
    def seat_changed(self, index: int, now: float) -> None: ...
    def seated(self, member: M, ref: str) -> int | None: ...
    def snapshot(self) -> SnapshotItem: ...
    def table_changed(self, now: float, exclude: M | None = None) -> None: ...

    # The other concerns it reaches (`seams`).
    @property
    def ending(self) -> EndingFace[M]: ...
    @property
    def oversight(self) -> OversightFace: ...
    @property
    def play(self) -> PlayFace: ...


class Joining(Generic[M]):
    """Who is at one table, and in which seat."""

    def __init__(self, core: JoiningTable[M]) -> None:
        self.core = core
        self.events = core.events
        self.id = core.id
        self.members = core.members
        self.new_token = core.new_token
        self.outbox = core.outbox
        self.policies = core.policies
        self.seats = core.seats
        self.spectator_count = core.spectator_count
        self.tally = core.tally
        self.timing = core.timing
        self.vote = core.vote

    def join(
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
            self.core.error(member, codes.ALREADY_AT_TABLE, "leave your table first", msg.type)
            return
        if not creator and not password_ok:
            self.core.error(member, codes.BAD_PASSWORD, "wrong password for this table", msg.type)
            return
        if isinstance(msg, Watch):
            self._watch(member, name, now)
        elif self.core.state != "waiting":
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
            and len(self.core.spectators) >= cap
            and (
                not self.seats.returning(getattr(member, "player", None), name)
                or bool(self.members.named(name))
            )
        ):
            self.core.error(
                member,
                codes.SPECTATORS_FULL,
                f"this table has {cap} spectators already (the server's limit): try later",
                "watch",
            )
            return
        self.core.oversight.wake(now)
        self.members.watch(member, name)
        self.outbox.emit(Bind(member, None))
        self.spectators_changed(now)
        self.welcome(member, None, None)

    def _reserve(self, member: M, name: str | None, msg: TakeSeat, now: float) -> None:
        """`take_seat` before the start: the seat asked for (or the first free one) is the
        member's, with a new token."""
        index = self._free_seat(member, msg.seat, msg.type)
        if index is None:
            return
        seat = self.seats[index]
        seat.name, seat.kind, seat.member = name, "human", member
        seat.player = getattr(member, "player", None)
        token = self.issue_token(seat)
        self.members[member] = index
        self.outbox.emit(Bind(member, index))
        self.core.table_changed(now, exclude=member)
        self.welcome(member, index, token)

    def _take_back(self, member: M, name: str | None, msg: TakeSeat, now: float) -> None:
        """`take_seat` on a started match: a seat belongs to its player. Their player key
        (`hello`'s) takes back their away seat; a name and the table's password (which any
        spectator may know) take nothing — they let one watch. Otherwise the seat comes back
        with its token (`hello`), or the table's creator hands it on (`hand_seat`)."""
        if self.core.state != "playing":
            self.core.error(member, codes.ALREADY_STARTED, "the match is over: watch it", msg.type)
            return
        player = getattr(member, "player", None)
        claim = self.seats.claim(player, name, msg.seat)
        if claim.seat is None:
            self.core.error(member, claim.code, claim.message, msg.type)
            return
        self._seat_member(member, claim.seat, now)

    def _seat_member(self, member: M, index: int, now: float) -> None:
        """Put a member in a seat of the started match, with a new token (the old one no
        longer takes it): it gets the snapshot and the seat is its own again at once."""
        seat = self.seats[index]
        self.leave_place(member)
        self.drop_token(seat)
        token = self.issue_token(seat)
        seat.sit(member, getattr(member, "player", None))
        self.members[member] = index
        self.outbox.emit(Bind(member, index))
        self.outbox.emit(Write([self._seats_record()]))
        self.welcome(member, index, token)
        self.came_back(index, now)

    def _seats_record(self) -> SeatsChanged:
        """The seats' names and token digests as stored (what a restarted server knows)."""
        return SeatsChanged(self.id, self.seats.rows(), self.seats.token_keys())

    def hand_seat(self, member: M, msg: HandSeat, now: float) -> None:
        """The table's creator (the player in seat 0) hands an away seat to a spectator."""
        index = self.core.seated(member, msg.type)
        if index is None:
            return
        named = self.members.named(msg.to)
        playing = self.core.state == "playing"
        refused = self.seats.hand_refusal(index, msg.seat, msg.to, len(named), playing=playing)
        if refused is not None:
            self.core.error(member, *refused, msg.type)
            return
        newcomer = named[0]
        # The seat is the newcomer's now: the old key, like the old token, takes nothing back.
        seat = self.seats[msg.seat]
        seat.name, seat.player = msg.to, getattr(newcomer, "player", None)
        self.vote.reseated(msg.seat)
        self._seat_member(newcomer, msg.seat, now)
        self.spectators_changed(now)
        self.core.table_changed(now)

    def _free_seat(self, member: M, wanted: int | None, ref: str) -> int | None:
        """The seat asked for, or the first free one; None (and an error) if there is none."""
        index = self.seats.free(wanted)
        if index is None:
            code, message = self.seats.refusal(wanted)
            self.core.error(member, code, message, ref)
        return index

    def issue_token(self, seat: SeatState[M]) -> str:
        token = self.new_token()
        seat.token_key = token_key(token)
        self.outbox.emit(IssueToken(seat.token_key))
        return token

    def welcome(self, member: M, seat: int | None, token: str | None) -> None:
        self.outbox.to(member, frames.joined(self.id, self.core.seq, seat, token, "snapshot"))
        self.outbox.view(member, seat, self.core.snapshot())
        self.core.ending.send_wait((member,))

    def resume(
        self,
        member: M,
        key: str,
        token: str,
        last_seq: int | None,
        now: float,
    ) -> None:
        """A seat's token came back (a reconnect): the missed events, or a snapshot."""
        if self.core.refused_frozen(member, "resume"):
            self.tally.resumed("refused")
            return
        index = self.seats.holding(key)
        if index is None or self.seats[index].kind != "human":
            self.tally.resumed("refused")
            self.core.error(member, codes.BAD_TOKEN, "that seat is no longer yours", "hello")
            return
        self.core.oversight.wake(now)
        self._reseat(member, index)
        self._catch_up(member, index, token, last_seq)
        self.came_back(index, now)
        self.core.ending.maybe_rematch()  # the last one who had asked is back

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
            self.leave_place(member)
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
        self.outbox.to(member, frames.joined(self.id, self.core.seq, index, token, how))
        for item in [self.core.snapshot()] if missed is None else missed:
            self.outbox.view(member, index, item)
        self.core.ending.send_wait((member,))

    def came_back(self, index: int, now: float) -> None:
        """A seat is taken again (its player, or a server bot): 托管 ends unless asked for, and
        a seat asked to move is prompted again, its clock going on as it stood."""
        self.seats[index].came_back()
        self.core.seat_changed(index, now)
        if index in self.core.play.asked():
            self.core.play.send_prompts(now, resend=index)

    def leave_place(self, member: M) -> None:
        """Forget where a member was (before it takes another place here)."""
        if member in self.members and self.members[member] is None:
            self.spectators_changed(self.core.now)
        place = self.members.leave(member)
        if place is not None and self.seats[place].member == member:
            self.seats[place].member = None

    def gone(self, member: M, now: float, *, left: bool) -> None:
        """A connection closed (`left` False) or asked to leave the table."""
        if member not in self.members:
            return
        index = self.members.leave(member)
        self.outbox.emit(Unbind(member))
        if index is None:
            if left:
                self.outbox.to(member, frames.left(self.id))
            if not self.core.frozen:
                self.spectators_changed(now)
        else:
            seat = self.seats[index]
            if seat.member != member:
                return
            seat.member = None
            if left:
                self.outbox.to(member, frames.left(self.id))
            if self.core.frozen:
                pass
            elif self.core.state == "waiting" and member == self.core.creator:
                self.core.oversight.close_waiting(
                    now, "the table's creator left: the table is closed"
                )
            elif self.core.state == "waiting":
                self.free_reservation(index, now)
            else:
                seat.left(now, asked=left, playing=self.core.state == "playing")
                self.core.seat_changed(index, now)
                # 托管 (it left), or an away seat's claim answered at once (`Play.plays_at_once`).
                self.core.play.advance(now)
        self.core.oversight.remove_if_idle()

    def free_reservation(self, index: int, now: float) -> None:
        """Before the start a seat is only a reservation: its token goes and it is free."""
        self.drop_token(self.seats[index])
        self.seats.vacate(index)
        self.core.table_changed(now)

    def drop_token(self, seat: SeatState[M]) -> None:
        if seat.token_key is not None:
            self.outbox.emit(DropToken(seat.token_key))

    def sync(self, member: M) -> None:
        """`sync`: the snapshot as this member sees it (its seat's, if it sits there), and
        the wait between rounds."""
        index = self.members[member]
        seated = index is not None and self.seats[index].member == member
        self.outbox.view(member, index if seated else None, self.core.snapshot())
        self.core.ending.send_wait((member,))

    def add_bot(self, member: M, msg: AddBot, now: float) -> None:
        if self.core.seated(member, msg.type) is None:
            return
        if self.core.state != "waiting":
            self.core.error(member, codes.ALREADY_STARTED, "the match has started", msg.type)
            return
        index = self._free_seat(member, msg.seat, msg.type)
        if index is None:
            return
        seat = self.seats[index]
        seat.kind, seat.name, seat.level = "bot", f"Bot-{index + 1}", msg.level
        seat.bot_arrives = now  # it takes the seat at the next tick, as a client would
        self.policies.seat_bot(index, msg.level)
        self.core.table_changed(now)

    def remove_bot(self, member: M, msg: RemoveBot, now: float) -> None:
        if self.core.seated(member, msg.type) is None:
            return
        if self.core.state != "waiting":
            self.core.error(member, codes.ALREADY_STARTED, "the match has started", msg.type)
            return
        seat = self.seats[msg.seat]
        if seat.kind != "bot":
            self.core.error(member, codes.NOT_A_BOT, f"seat {msg.seat} is not a bot", msg.type)
            return
        self.policies.remove_bot(msg.seat)
        self.free_reservation(msg.seat, now)

    def spectators_changed(self, now: float) -> None:
        """A spectator came or went: the count goes out once the last one is old enough."""
        self.spectator_count.changed(now)

    def send_spectators(self, now: float) -> None:
        """The spectator count to every member, unstored and unnumbered (it carries the
        table's current `seq`, as a snapshot does), if it changed since the last one."""
        if self.core.frozen:
            self.spectator_count.due = None
            return
        count = len(self.core.spectators)
        if not self.spectator_count.take(now, count):
            return
        frame = frames.spectators(self.id, self.core.seq, count)
        if self.members:
            self.outbox.paced([Send(tuple(self.members), frame)], event=False)
