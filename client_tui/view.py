"""What the terminal client shows: immutable values that `client_tui.reducer.reduce` builds from
server messages, and that the widgets only render.

Everything here is a frozen dataclass holding tuples, so a view can be compared, kept as history
and handed to any widget without a copy. Tiles are in notation (`"5p"`); seats are 0–3 in play
order; `None` for a tile means "not visible to this viewer" (an opponent's 暗杠).

The round itself is not copied here: `View.round` is the rules core's `rules.view.SeatView`
(tiles as kinds 0–26, hands as counts), moved by `rules.view.reduce`; the strings a person reads
are made where they are drawn (`client_tui.render`, `client_tui.board`).

>>> View().status
'idle'
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from rules.record import DiscardRecord
from rules.view import SeatView

ConnStatus = Literal["idle", "connecting", "connected", "reconnecting", "closed"]
EMPTY4: tuple[int, int, int, int] = (0, 0, 0, 0)


def _tile_key(tile: str) -> tuple[int, int]:
    """Sort order of RULES.md §1: suit (m, p, s), then rank."""
    return ("mps".index(tile[1]), int(tile[0]))


@dataclass(frozen=True, slots=True)
class SeatV:
    """Who sits at a seat (`kind` empty/human/bot), whether connected, whether 托管 (`auto`),
    and a bot's `level` (easy/normal/strong)."""

    name: str | None = None
    kind: str = "empty"
    connected: bool = False
    auto: bool = False
    level: str | None = None


@dataclass(frozen=True, slots=True)
class TableV:
    """A table's header, as the lobby lists it and the table screen shows it."""

    id: str
    name: str
    preset: str = "guiyang"
    options: tuple[tuple[str, Any], ...] = ()
    base: int = 1
    rounds: int = 8
    turn_seconds: float = 15.0
    bank_seconds: float = 30.0
    bot_delay: float = 0.0
    has_password: bool = False
    seats: tuple[SeatV, ...] = (SeatV(), SeatV(), SeatV(), SeatV())
    spectators: int = 0
    state: str = "waiting"
    round_no: int = 0
    scores: tuple[int, ...] = EMPTY4

    @property
    def seated(self) -> int:
        """How many seats are taken."""
        return sum(1 for s in self.seats if s.kind != "empty")

    @property
    def options_dict(self) -> dict[str, Any]:
        return dict(self.options)


@dataclass(frozen=True, slots=True)
class MeldV:
    """A 碰 (`pong`), 明杠 (`ming`), 暗杠 (`an`, tile None to others) or 补杠 (`bu`)."""

    kind: str
    tile: str | None
    from_seat: int | None = None
    dou: str | None = None


@dataclass(frozen=True, slots=True)
class LastAction:
    """The latest move at the table, for the status line: `kind` is a round event type
    (`discarded`, `claimed`, `concealed_gang`, `add_gang_declared`, `added_gang`, `drew`) or
    `auto_played`; `tile` is a tile kind (0–26), as the rules core counts them."""

    kind: str
    seat: int
    tile: int | None = None
    act: str | None = None


@dataclass(frozen=True, slots=True)
class Choice:
    """One legal action of a prompt (`act`, and `tile` where it names one)."""

    act: str
    tile: str | None = None


@dataclass(frozen=True, slots=True)
class PromptV:
    """The server asks this seat to move. `deadline_at` is on the clock the caller passes to
    `reduce` (`at`): when the default move will be played (None: no clock)."""

    seq: int
    actions: tuple[Choice, ...]
    default: Choice
    deadline_at: float | None = None
    bank_ms: int | None = None
    answered: bool = False

    def offers(self, act: str, tile: str | None = None) -> bool:
        return any(c.act == act and (tile is None or c.tile == tile) for c in self.actions)

    def tiles_for(self, act: str) -> tuple[str, ...]:
        """The tiles offered with `act` (discard, gang, ready), in the order offered."""
        return tuple(c.tile for c in self.actions if c.act == act and c.tile is not None)

    @property
    def is_claim(self) -> bool:
        """A claim window (answer a discard or a 补杠), not one's own turn."""
        return not any(c.act in ("discard", "ready") for c in self.actions)


@dataclass(frozen=True, slots=True)
class ResultV:
    """A finished round: the settlement dict (`rules.settle.Settlement.to_dict()` with the
    revealed hands and melds), the match scores after it, and the discard rows the
    client saw (a seat's unclaimed discards count among its chickens). `fair` is the fair-deal
    check: the revealed deal opens the commitment and holds this seat's dealt hand (None: not
    checked, no commitment was seen)."""

    round_no: int
    result: dict[str, Any]
    scores: tuple[int, ...]
    dealer: int = 0
    discards: tuple[tuple[DiscardRecord, ...], ...] = ()
    fair: bool | None = None
    weekday: int | None = None  # the day of the deal (the 星期鸡), as `round_started` said

    @property
    def net(self) -> tuple[int, ...]:
        return tuple(int(x) for x in self.result.get("net", EMPTY4))

    @property
    def hands(self) -> tuple[tuple[str, ...], ...] | None:
        """Every seat's concealed hand at the end, as the server reveals it (a discard or 抢杠
        winner's without the winning tile), sorted; None when the result does not carry them.

        >>> ResultV(1, {"hands": [["2m", "1m"], [], [], []]}, EMPTY4).hands
        (('1m', '2m'), (), (), ())
        >>> ResultV(1, {}, EMPTY4).hands is None
        True
        """
        hands = self.result.get("hands")
        if not isinstance(hands, list) or len(hands) != 4:
            return None
        return tuple(tuple(sorted(h, key=_tile_key)) for h in hands)

    @property
    def melds(self) -> tuple[tuple[MeldV, ...], ...] | None:
        """Every seat's melds at the end, 暗杠 tiles included; None when the result lacks them.

        >>> ResultV(1, {"melds": [[{"kind": "an", "tile": "7p", "from": None, "dou": "men"}],
        ...                       [], [], []]}, EMPTY4).melds[0]
        (MeldV(kind='an', tile='7p', from_seat=None, dou='men'),)
        """
        melds = self.result.get("melds")
        if not isinstance(melds, list) or len(melds) != 4:
            return None
        return tuple(
            tuple(MeldV(str(m["kind"]), m.get("tile"), m.get("from"), m.get("dou")) for m in row)
            for row in melds
        )


@dataclass(frozen=True, slots=True)
class WaitV:
    """The table waits between rounds for `round_no` (or, with `rematch`, for everyone to play
    again). `ready[s]`: seat s does not hold it up; `deadline_at` (the `reduce` caller's clock):
    when the round starts anyway (None: it waits for everyone)."""

    round_no: int
    ready: tuple[bool, ...]
    deadline_at: float | None = None
    rematch: bool = False


@dataclass(frozen=True, slots=True)
class VoteV:
    """A vote to end the match (解散) while it is open: who proposed, whose agreement is needed
    (`voters[s]`), who has agreed, and when it runs out (`deadline_at`, the `reduce` caller's
    clock)."""

    proposer: int
    voters: tuple[bool, ...]
    agreed: tuple[bool, ...]
    deadline_at: float | None = None


@dataclass(frozen=True, slots=True)
class MatchEndV:
    scores: tuple[int, ...]
    rounds_played: int
    reason: str


@dataclass(frozen=True, slots=True)
class Notice:
    """A message for the player (an error from the server, a connection event). `n` grows with
    every new notice, so a widget shows each one once."""

    n: int
    text: str
    code: str = ""
    error: bool = True


@dataclass(frozen=True, slots=True)
class View:
    """Everything the client shows."""

    status: ConnStatus = "idle"
    status_detail: str = ""
    attempt: int = 0
    url: str = ""
    server: str = ""
    my_name: str = ""
    tables: tuple[TableV, ...] = ()
    tables_page: int = 0  # the lobby page shown (`tables` comes a page at a time)
    tables_pages: int = 1
    table_id: str | None = None
    table: TableV | None = None
    seat: int | None = None
    token: str | None = None
    seq: int = 0
    round_seq: int = 0
    names: tuple[str, ...] = ("", "", "", "")
    round: SeatView | None = None  # the round in play, as this viewer may see it
    # What the client keeps of the round beside its seat view: its number and 底分 and the
    # fair-deal commitment (from `round_started`), and the latest move, for the status line.
    round_no: int = 0
    round_base: int = 1
    commitment: str | None = None
    last: LastAction | None = None
    dealt: tuple[str, ...] | None = None  # this seat's hand as dealt, for the fair-deal check
    prompt: PromptV | None = None
    result: ResultV | None = None
    history: tuple[ResultV, ...] = ()
    scores: tuple[int, ...] = EMPTY4
    match_end: MatchEndV | None = None
    wait: WaitV | None = None  # between rounds, or for a rematch
    end_vote: VoteV | None = None  # a vote to end the match (解散), while it is open
    notice: Notice | None = None

    @property
    def waiting_on_me(self) -> bool:
        """Between rounds, and the next round waits for this player's `next_round`."""
        w = self.wait
        return w is not None and not w.rematch and self.seat is not None and not w.ready[self.seat]

    @property
    def watching(self) -> bool:
        """At a table as a spectator."""
        return self.table_id is not None and self.seat is None

    def name_of(self, seat: int) -> str:
        """The seat's player name, or `#n` when unknown."""
        if self.table is not None:
            name = self.table.seats[seat].name
            if name:
                return name
        if self.names[seat]:
            return self.names[seat]
        return f"#{seat + 1}"
