"""A table's four seats: who sits in each, their tokens, and which seat is free.

A seat holds nobody (`empty`), a player (`human`: its connection while connected, and the
SHA-256 digest of its token, which takes it back after a reconnect), or one of the server's
bots. The seats know nothing of the match; the core decides who may sit where.

>>> seats: Seats[str] = Seats()
>>> seats.free(None), seats.free(2)
(0, 2)
>>> seats[0].kind, seats[0].token_key = "human", "k" * 64
>>> seats.free(0), seats.refusal(0)
(None, ('seat_taken', 'seat 0 is taken'))
>>> seats.holding("k" * 64), seats.rows()[0], seats.token_keys()[1]
(0, {'name': None, 'kind': 'human'}, None)
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass, field
from typing import Any, Generic, Literal, NamedTuple, TypeVar

from protocol import codes
from rules.players.levels import LEVELS
from server.table.clock import EARLY, SeatClock
from server.table.effects import RematchSeat

M = TypeVar("M", bound=Hashable)
SEATS = 4
# Why the server played a seat's move (`auto_played`; a counter of the metrics).
AutoReason = Literal["timeout", "disconnected", "auto"]


@dataclass
class SeatState(Generic[M]):
    name: str | None = None
    kind: str = "empty"  # empty | human | bot
    level: str | None = None  # a bot's level: easy | normal | strong
    token_key: str | None = None  # the SHA-256 digest of the seat's token (`token_key`)
    player: str | None = None  # a human's public player id (`hello`'s player key; server.players)
    member: M | None = None  # a human's connection
    bot_here: bool = False  # a server bot has taken the seat
    bot_arrives: float | None = None  # when a server bot takes the seat
    auto: bool = False
    auto_requested: bool = False
    gone_at: float | None = None  # when the connection dropped
    clock: SeatClock = field(default_factory=SeatClock)  # its move clock (`server.table.clock`)
    # After a restart: the last seq stored. A client of the run before may have seen later
    # events that never reached the disk (a power loss with `synchronous=NORMAL`), so its first
    # resume quoting a later seq gets a snapshot, not events that reuse those numbers.
    restored_seq: int | None = None
    # The connection dropped during the match (it did not `leave`): the player has not seen
    # the end yet, so a finished table waits for them (up to `finished_linger`).
    away: bool = False
    # A claim window timed out: the seat's later claims are answered by the policy at once
    # until it moves again. Not announced (nor 托管): that would tell who could claim.
    quiet_auto: bool = False

    @property
    def connected(self) -> bool:
        return self.member is not None or self.bot_here

    @property
    def dropped(self) -> bool:
        """A player's seat with nobody at it during the match: their connection dropped, or
        they have not come back since a restart (`restored_seq`). Its claim windows close
        like everyone's (the server answers within the minimum, `claims_for_itself`): a
        window that waited for its player would tell that the seat could claim."""
        return self.kind == "human" and not self.connected

    @property
    def awaits_return(self) -> bool:
        """A player's seat not yet taken back since the server restarted."""
        return self.dropped and self.restored_seq is not None

    @property
    def claims_for_itself(self) -> bool:
        """In a claim window the server answers for the seat with only what its player is
        owed: a win if it has one, else a pass (`Play._answer_at_once`). So it is for a
        player's seat with nobody at it (their connection dropped, or they are not back since
        a restart) that is not in 托管: the server melds for nobody who did not hand it their
        hand, and a dropped connection must not cost a win. 托管, and the quiet 托管 after a
        claim timeout, play the policy instead."""
        return self.dropped and not (self.auto or self.quiet_auto)

    def away_in(self, started: bool) -> bool:
        """A player's seat of a `started` match with nobody at it (the server plays it)."""
        return self.kind == "human" and self.member is None and started

    def info(self, started: bool) -> dict[str, Any]:
        """The seat in the table header (protocol `SeatInfo`); a bot's says its level."""
        d: dict[str, Any] = {
            "name": self.name,
            "kind": self.kind,
            "connected": self.connected,
            "auto": self.auto,
            "away": self.away_in(started),
        }
        if self.kind == "bot":
            d["level"] = self.level or "normal"
        return d

    def plays_at_once(self, in_window: bool) -> bool:
        """The server answers for the seat without prompting it: 托管 (or, in a claim
        window, the unannounced 托管 after a claim timeout, and an away player's seat: its
        window closes like everyone's, never stalling for the disconnect grace, which would
        tell that it could claim)."""
        return self.auto or (in_window and (self.quiet_auto or self.dropped))

    def reason_at_once(self) -> AutoReason:
        """Why the server answers for a seat it does not prompt (`plays_at_once`)."""
        quiet = self.auto or self.quiet_auto
        return "disconnected" if self.dropped and not quiet else "auto"

    def public_by(self) -> str:
        """Who played the seat's claim, as far as the table already shows: a bot, a seat in
        托管 or away, or its player (a claim timeout's quiet 托管 is not shown)."""
        if self.kind == "bot":
            return "bot"
        if self.auto:
            return "auto"
        return "player" if self.connected else "disconnected"

    def deadlines(
        self,
        *,
        turn: float | None,
        grace: float,
        bot_delay: float,
        claim_answer_at: float | None,
        in_window: bool,
    ) -> tuple[float | None, float | None]:
        """(when the seat's clock runs out, when a server bot in it moves); neither while its
        prompt waits to go out. `turn` is the table's turn time (None: moves are untimed);
        `grace` a dropped player's most per move; in a claim window (`in_window`) a bot
        answers at `claim_answer_at` (the window's middle), or at once in a window not held
        (None), not at the table's pace: the window lasts the same whoever could claim."""
        clock = self.clock
        if clock.waiting:
            return None, None
        deadline = None if turn is None else clock.deadline(turn)
        if not self.connected:
            since = max(clock.prompt_at, self.gone_at or clock.prompt_at)
            deadline = since + grace if deadline is None else min(deadline, since + grace)
        bot_at = None
        if self.kind == "bot" and self.bot_here and not self.auto:
            bot_at = clock.prompt_at + bot_delay
            if in_window:
                bot_at = clock.prompt_at if claim_answer_at is None else claim_answer_at
        return deadline, bot_at

    def sit(self, member: M, player: str | None = None) -> None:
        """A member takes the seat (again): it is connected, no longer away."""
        self.member, self.gone_at, self.away = member, None, False
        self.player = player or self.player

    def came_back(self) -> None:
        """The seat is taken again: 托管 ends unless its player asked for it, and a claim
        timeout's quiet 托管 ends too."""
        if self.auto and not self.auto_requested:
            self.auto = False
        self.quiet_auto = False

    def left(self, now: float, *, asked: bool, playing: bool) -> None:
        """Its connection closed (`asked`: it sent `leave`) during a started match: an
        asked leave is 托管 until the seat comes back; a drop while playing is away."""
        self.gone_at = now
        self.away = not asked and playing
        if asked:
            self.auto = True

    def kicked(self, now: float) -> None:
        """The server's host sent the player away during the match: its token no longer
        takes the seat, which the server plays (托管)."""
        self.token_key, self.away, self.gone_at = None, False, now
        self.auto = True

    def hand_over(self) -> RematchSeat[M]:
        """Every player asked for a rematch: the seat as it comes along to the new table (a
        player's connection moves with it); nobody is at it here any more."""
        mover = self.member if self.kind == "human" else None
        self.member, self.away = None, False
        return RematchSeat(self.name, self.kind, mover, self.level)

    def take_over(self, was: RematchSeat[M], now: float) -> None:
        """The seat of a rematch's new table as it was at the old one: the same bot, seated
        at once; its player, connected; or, its player gone meanwhile, 托管 until they come
        back (its token is the core's to issue)."""
        self.name, self.kind = was.name, was.kind
        if was.kind == "bot":
            self.bot_here, self.level = True, was.level or "normal"
        elif was.member is None:
            self.gone_at, self.auto = now, True
        else:
            self.member, self.player = was.member, getattr(was.member, "player", None)

    def restore(
        self, row: dict[str, Any], key: str | None, *, now: float, bank: float, seq: int
    ) -> None:
        """The seat as a restart finds it in the store (`row`: its stored seat; `key`: its
        token's digest): a player's seat away from `now` (waited for as ever), a server bot
        of its stored level (`normal` if stored before levels), each with a full bank; its
        first resume quoting events after `seq` gets a snapshot (`fresh_since`)."""
        self.name, self.kind = row.get("name"), row.get("kind", "human")
        if self.kind == "bot":
            level = row.get("level")
            self.level = level if level in LEVELS else "normal"
        elif isinstance(row.get("player"), str):
            self.player = row["player"]
        self.token_key = key if self.kind == "human" else None
        self.gone_at = now
        self.away = self.kind == "human"
        self.clock.bank = bank
        self.restored_seq = seq

    def shift(self, seconds: float, *, arrival: bool) -> None:
        """Nobody's clock ran for `seconds`: its prompt, its drop's grace (and a bot's
        `arrival`) move on by as much."""
        self.clock.shift(seconds)
        if self.gone_at is not None:
            self.gone_at += seconds
        if arrival and self.bot_arrives is not None:
            self.bot_arrives += seconds

    def fresh_since(self, last_seq: int | None) -> bool:
        """Whether a resume quoting `last_seq` may be caught up from the log: not if it quotes
        events later than the restart's last stored one (they may never have reached the
        disk). Asked once: the seat trusts its log from then on."""
        unknown = (
            self.restored_seq is not None and last_seq is not None and last_seq > self.restored_seq
        )
        self.restored_seq = None
        return last_seq is not None and not unknown


class Claim(NamedTuple):
    """What `take_seat` on a started match gets: a seat, or why not."""

    seat: int | None
    code: str = ""
    message: str = ""


class Seats(list[SeatState[M]]):
    """The four seats, in order (a list: `seats[i]`)."""

    def __init__(self) -> None:
        super().__init__(SeatState() for _ in range(SEATS))

    def free(self, wanted: int | None) -> int | None:
        """The seat asked for if it is free, else (none asked for) the first free one."""
        if wanted is not None:
            return wanted if self[wanted].kind == "empty" else None
        return next((i for i, seat in enumerate(self) if seat.kind == "empty"), None)

    def refusal(self, wanted: int | None) -> tuple[str, str]:
        """Why `free(wanted)` found no seat: an error code and its message."""
        if wanted is not None:
            return codes.SEAT_TAKEN, f"seat {wanted} is taken"
        return codes.TABLE_FULL, "all four seats are taken"

    def vacate(self, index: int) -> None:
        """The seat is empty again (before the match: a reservation given up)."""
        self[index] = SeatState()

    def claim(self, player: str | None, name: str | None, wanted: int | None) -> Claim:
        """The away seat of a started match that `take_seat` takes back: one played under the
        asker's player key (`hello`'s; `wanted` picks one if given). A seat belongs to its
        player: a name and a table password, which any spectator may know, take nothing (the
        seat comes back with its key or its token, or by the creator's `hand_seat`).

        >>> seats: Seats[str] = Seats()
        >>> seats[1].kind, seats[1].name, seats[1].player = "human", "阿明", "p-1"
        >>> seats.claim("p-1", "Ming", None).seat
        1
        >>> seats.claim("p-2", "阿明", None).code, seats.claim(None, "阿明", 1).code
        ('need_token', 'need_token')
        >>> seats[1].member = "conn"
        >>> seats.claim("p-1", "阿明", None).code, seats.claim(None, "nobody", None).code
        ('seat_taken', 'already_started')
        """
        asked = [i for i, s in enumerate(self) if s.kind == "human" and wanted in (None, i)]
        mine = [i for i in asked if player is not None and self[i].player == player]
        named = mine or [i for i in asked if self[i].name == name or wanted is not None]
        if not named:
            return Claim(
                None,
                codes.ALREADY_STARTED,
                "the match has started and no seat here is yours: watch it instead",
            )
        away = [i for i in named if self[i].member is None]
        if not away:
            return Claim(
                None, codes.SEAT_TAKEN, f"seat {named[0]} is played from another connection now"
            )
        if not mine:
            return Claim(
                None,
                codes.NEED_TOKEN,
                f"seat {away[0]} comes back only to its own player: with their player key or"
                " the seat's token (zhuoji join keeps it), or the table's creator hands it on"
                " (hand_seat); a name and the password let you watch",
            )
        return Claim(away[0])

    def returning(self, player: str | None, name: str | None) -> bool:
        """Whether someone who asks to watch may be a seat's own player, come back to wait
        for the creator's `hand_seat` (on a new machine: no key, no token): its player key
        played a seat here, or it is called as an away seat's player is. The spectators' cap
        lets such a one in (`TableCore._watch`: one per name, so at most one per seat).

        >>> seats: Seats[str] = Seats()
        >>> seats[1].kind, seats[1].name, seats[1].player = "human", "阿明", "p-1"
        >>> seats.returning(None, "阿明"), seats.returning("p-1", "x"), seats.returning(None, "x")
        (True, True, False)
        >>> seats[1].member = "conn"                      # the seat is played from elsewhere
        >>> seats.returning(None, "阿明"), seats.returning("p-1", "x")
        (False, True)
        """
        for seat in self:
            if seat.kind != "human":
                continue
            if player is not None and seat.player == player:
                return True
            if seat.member is None and name is not None and seat.name == name:
                return True
        return False

    def hand_refusal(
        self, by: int, index: int, to: str, found: int, *, playing: bool
    ) -> tuple[str, str] | None:
        """Why seat `by` may not hand seat `index` to the spectator called `to` (`found`: how
        many spectators are called so; `playing`: the match is being played): an error code
        and its message, or None. Only the creator (seat 0) hands on, and only an away
        player's seat, to one spectator known by that name."""
        if by != 0:
            return codes.NOT_CREATOR, "only the table's creator (seat 0) may do that"
        if not playing:
            return codes.NOT_PLAYING, "the match is not being played"
        if self[index].kind != "human" or self[index].member is not None:
            return codes.SEAT_NOT_AWAY, f"seat {index} is not an away player's"
        if found != 1:
            why = "no spectator" if not found else f"{found} spectators"
            message = f"{why} of this table is called {to!r}: they watch it first"
            return codes.NO_SUCH_SPECTATOR, message
        return None

    def holding(self, key: str) -> int | None:
        """The seat whose token has this digest (None: no seat)."""
        return next((i for i, s in enumerate(self) if s.token_key == key), None)

    def rows(self) -> list[dict[str, Any]]:
        """The seats as stored: name and kind, and a bot's level (a restart brings it back)."""
        rows: list[dict[str, Any]] = []
        for s in self:
            row: dict[str, Any] = {"name": s.name, "kind": s.kind}
            if s.kind == "bot":
                row["level"] = s.level or "normal"
            elif s.player is not None:
                row["player"] = s.player
            rows.append(row)
        return rows

    def token_keys(self) -> list[str | None]:
        return [s.token_key for s in self]

    def arrivals(self) -> list[float]:
        """When the server's bots added and not yet seated take their seats."""
        return [
            s.bot_arrives
            for s in self
            if s.kind == "bot" and not s.bot_here and s.bot_arrives is not None
        ]

    def arrived(self, now: float) -> list[int]:
        """The bots whose time to take their seat has come, seated now."""
        seated = []
        for index, seat in enumerate(self):
            arrives = seat.bot_arrives
            if seat.kind == "bot" and arrives is not None and arrives <= now + EARLY:
                seat.bot_arrives, seat.bot_here = None, True
                seated.append(index)
        return seated

    def restore(
        self, rows: list[Any], keys: list[str | None], *, now: float, bank: float, seq: int
    ) -> None:
        """Every seat as a restart finds it in the store (`tables.seats` and `tokens`; a
        missing or malformed row is a player's seat without a name)."""
        for i, seat in enumerate(self):
            row = rows[i] if i < len(rows) and isinstance(rows[i], dict) else {}
            seat.restore(row, keys[i] if i < len(keys) else None, now=now, bank=bank, seq=seq)

    def hand_over(self) -> tuple[RematchSeat[M], ...]:
        """The seats as they come along to a rematch (`SeatState.hand_over`)."""
        return tuple(seat.hand_over() for seat in self)

    def shift(self, seconds: float, *, arrivals: bool) -> None:
        """Every seat's deadlines move `seconds` later (see `SeatState.shift`)."""
        for seat in self:
            seat.shift(seconds, arrival=arrivals)


class Members(dict[M, int | None]):
    """Who is at the table: each member's seat, or None for a spectator (a dict), and the
    names the spectators gave (the creator hands an away seat to one by name).

    >>> at: Members[str] = Members()
    >>> at["c0"] = 0
    >>> at.watch("w1", "阿明"); at.watch("w2", None)
    >>> at.spectators, at.named("阿明")
    (['w1', 'w2'], ['w1'])
    >>> at.leave("w1"), at.leave("c0"), at.leave("nobody"), at.spectators
    (None, 0, None, ['w2'])
    """

    def __init__(self) -> None:
        super().__init__()
        self.names: dict[M, str | None] = {}  # the spectators' names

    @property
    def spectators(self) -> list[M]:
        return [m for m, seat in self.items() if seat is None]

    def watch(self, member: M, name: str | None) -> None:
        self[member] = None
        self.names[member] = name

    def named(self, name: str | None) -> list[M]:
        """The spectators called `name`."""
        return [m for m, n in self.names.items() if n == name and self.get(m, 0) is None]

    def leave(self, member: M) -> int | None:
        """The member is no longer at the table: the seat it had (None: it watched, or was
        not here)."""
        self.names.pop(member, None)
        return self.pop(member, None)
