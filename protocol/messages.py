"""Every message of the zhuoji wire protocol, as pydantic v2 models.

One JSON object per websocket text frame; its `type` names the model. Client→server messages form
the `ClientMessage` union, server→client messages the `ServerMessage` union; both are
discriminated on `type`. Every model is frozen, refuses unknown fields (`extra="forbid"`), is
strict (JSON `"1"` is not the integer 1) and bounds every string, number and list, so a hostile
frame is refused at the boundary with a message naming the bad field.

Tiles are written in the notation of RULES.md §1 (`"1m"` … `"9s"`); a tile the viewer may not see
is `null`. Seats are 0–3 in play order.

Every frame about a table carries that table's `seq`. Events are numbered 1, 2, 3, … per table,
and every member gets every event (projected), so a gap means a lost frame. A snapshot or an error
carries the current number. A prompt carries the number of the round event that opened the
decision it asks about; a client's `act` quotes it. Events that do not change the round (a seat's
connection, a spectator arriving) do not make an outstanding prompt stale.

>>> parse_client('{"type": "hello", "version": 1, "name": "阿明"}').name
'阿明'
>>> parse_client('{"type": "act", "seq": 12, "act": "discard", "tile": "9m"}').tile
'9m'
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    StringConstraints,
    TypeAdapter,
    model_validator,
)
from pydantic.json_schema import GetJsonSchemaHandler, JsonSchemaValue
from pydantic_core import CoreSchema

from protocol import names
from protocol.settlement import Bonus, Pattern, RoundResult, Seat, TileName, parse_result

PROTOCOL_VERSION = 3
"""Bumped on any change a client must know about; `hello` must quote it exactly.
2: `round_ended.result` is the typed settlement of protocol/settlement.py (payments' `kind` and
`details` in identifiers, `wins`).
3: one vocabulary, the identifiers of rules/kinds.py: `won.pattern` and `won.bonuses` are
identifiers, `round_ended.result.winners` (the Chinese names) is gone (`wins` says it all)."""

MAX_FRAME_BYTES = 16 * 1024
"""The server closes a connection that sends a bigger frame (close code 1009)."""

Seq = Annotated[int, Field(ge=0, le=2**53)]
TableId = Annotated[str, StringConstraints(pattern=r"^[A-Za-z0-9_-]{1,32}$")]
UNSAFE_CHARS = r"\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069"
"""Characters a name may not hold (a regex class body): C0 controls, DEL, C1 controls (U+0080–
U+009F: U+009B opens an escape sequence on many terminals), the bidi marks, embeddings, overrides
and isolates (U+202A–U+202E, U+2066–U+2069, LRM, RLM, ALM: they make a name read as something else)
and the line and paragraph separators."""

_UNSAFE = re.compile(f"[{UNSAFE_CHARS}]")


def printable(text: str, replacement: str = "\ufffd") -> str:
    r"""`text` with every character of `UNSAFE_CHARS` replaced, for showing text from elsewhere.

    >>> printable("a\x1b[31mb\u202ec") == "a\ufffd[31mb\ufffdc"
    True
    """
    return _UNSAFE.sub(replacement, text)


def _name_schema(max_length: int, *, chosen: bool = False) -> Any:
    """The JSON Schema's view of a name (protocol/names.py): a pattern of what it may not hold in
    the Basic Multilingual Plane, computed when the schema is built. A JSON Schema pattern has no
    portable escape beyond the BMP, so the refused characters there (tag characters, private use,
    unassigned code points: `names.beyond_the_schema`) are refused by the server alone."""

    def extra(schema: dict[str, Any]) -> None:
        schema["pattern"] = f"^(?!\\s*$)[^{names.refused_bmp_class()}]{{1,{max_length}}}$"
        if chosen:
            schema["not"] = {"pattern": names.BOT_LIKE_PATTERN}

    return Field(json_schema_extra=extra)


# Names are what other players see (protocol/names.py): NFC, nothing invisible or misleading.
PlayerName = Annotated[
    str,
    StringConstraints(min_length=1, max_length=24),
    AfterValidator(names.clean_name),
    _name_schema(24),
]
ChosenName = Annotated[
    str,
    StringConstraints(min_length=1, max_length=24),
    AfterValidator(names.chosen_name),
    _name_schema(24, chosen=True),
]
"""The name a player gives in `hello`: a PlayerName that does not pass for a bot's."""
TableName = Annotated[
    str,
    StringConstraints(min_length=1, max_length=32),
    AfterValidator(names.clean_name),
    _name_schema(32),
]
Password = Annotated[str, StringConstraints(min_length=1, max_length=64)]
Token = Annotated[str, StringConstraints(pattern=r"^[A-Za-z0-9_-]{16,64}$")]
PLAYER_KEY = r"^zk1_[A-Za-z0-9_-]{43}$"
_PLAYER_KEY = re.compile(PLAYER_KEY)


def _player_key(text: str) -> str:
    if _PLAYER_KEY.match(text) is None:
        raise ValueError(
            "not a player key: one is zk1_ and 43 letters, digits, - or _ (zhuoji keeps it in"
            " player.key in its config directory)"
        )
    return text


PlayerKey = Annotated[
    str,
    StringConstraints(max_length=64),
    AfterValidator(_player_key),
    Field(json_schema_extra={"pattern": PLAYER_KEY}),
]
"""A player key: `zk1_` and 32 random bytes in URL-safe base64 (43 characters, no padding), made
once by the client (`client_tui.player_key`). It is a secret: the server keeps only its SHA-256."""
PlayerId = Annotated[str, StringConstraints(pattern=r"^(p-[0-9a-f]{12}|bot-(easy|normal|strong))$")]
"""A player's public id: `p-` and 12 hex digits for a person, `bot-<level>` for a server bot."""
Period = Literal["tonight", "month", "all"]
Text = Annotated[str, StringConstraints(max_length=500)]
ErrorCode = Annotated[str, StringConstraints(pattern=r"^[a-z][a-z0-9_]{0,39}$")]
Preset = Literal["guiyang", "chuan", "anshun"]
ActKind = Literal["discard", "hu", "pong", "gang", "pass", "ready"]
OptionValue = bool | int | str | None | dict[str, int | None]
Money = Annotated[int, Field(ge=-(2**53), le=2**53)]
Digest = Annotated[str, StringConstraints(pattern=r"^[0-9a-f]{64}$")]
SaltHex = Annotated[str, StringConstraints(pattern=r"^[0-9a-f]{2,128}$")]
Weekday = Annotated[int, Field(ge=1, le=7)]
"""The day a round was dealt, 1 Monday … 7 Sunday: it makes the 星期鸡 (RULES.md §13.12)."""
BotLevel = Literal["easy", "normal", "strong"]
"""A server bot's level (`rules.players.levels.policy_for`)."""
BOT_DELAYS: tuple[float, ...] = (0.0, 0.5, 1.0, 1.5)
"""The `bot_delay` a table may choose: instant, or a human pace."""


def _bot_delay_choice(seconds: float) -> float:
    if seconds not in BOT_DELAYS:
        raise ValueError(f"bot_delay must be one of 0, 0.5, 1 or 1.5 seconds (got {seconds})")
    return float(seconds)


BotDelay = Annotated[
    float,
    AfterValidator(_bot_delay_choice),
    Field(json_schema_extra={"enum": list(BOT_DELAYS)}),
]


def _type_required(schema: dict[str, Any]) -> None:
    """Every message names its model: `type` is required in the schema as the server needs it
    (its default only serves Python code that builds a model)."""
    if "type" in schema.get("properties", {}):
        required = schema.setdefault("required", [])
        if "type" not in required:
            required.insert(0, "type")


def _whole_numbers(value: Any) -> Any:
    """A JSON number with no fraction (`1.0`, `-0.0`) is the whole number JSON Schema says it is:
    read it as an int, so that the schema's `integer` and the server agree."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, dict):
        return {key: _whole_numbers(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_whole_numbers(item) for item in value]
    return value


class _Message(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
        frozen=True,
        strict=True,
        json_schema_extra=_type_required,
        defer_build=True,  # built on first use, not at import (issue 26: commands start at once)
    )


class _Request(_Message):
    """A client → server message."""

    @model_validator(mode="before")
    @classmethod
    def _integral_floats(cls, data: Any) -> Any:
        return _whole_numbers(data)


# ---------------------------------------------------------------------------------------------
# Client → server


class Hello(_Request):
    """The first frame of every connection. With `token` (from `joined`), it takes back that
    seat; `last_seq` is the last table `seq` the client saw, so the server can send only what it
    missed (or a snapshot)."""

    type: Literal["hello"] = "hello"
    version: int = Field(ge=0, le=1_000_000)
    name: ChosenName
    token: Token | None = None
    last_seq: Seq | None = None
    player_key: PlayerKey | None = Field(
        default=None,
        description="who you are across names and machines (docs/PROTOCOL.md, Players);"
        " without it the seats you take count in nobody's records",
    )


class ListTables(_Request):
    """Ask for the lobby: the server answers `tables`, page `page` of the listing (each page
    as many rows as fit in one frame; `tables.pages` says how many there are)."""

    type: Literal["list_tables"] = "list_tables"
    page: int = Field(default=0, ge=0, le=10_000)


class CreateTable(_Request):
    """Open a table and sit down at seat 0 (the answer is `joined`).

    `options` overrides fields of the preset (RULES.md §10, `rules.options.RuleOptions`); unknown
    names and bad values are refused with `bad_options`. `turn_seconds` is the time per action and
    `bank_seconds` a reserve per round that overtime draws on; 0 for both means no clock.
    `claim_min_ms` is the least time between a discard and what follows it, whether or not anyone
    could claim, so the pace of play does not tell who holds what. `bot_delay` is how long the
    server's bots at this table wait before each move (0, 0.5, 1 or 1.5 s); null (or absent)
    takes the server's default (`zhuoji serve --bot-delay`).
    `next_round_seconds` is the longest the settlement sheet stays up between rounds: the next
    round starts when every player has sent `next_round`, or after this long; 0 waits for
    everyone (see `BetweenRounds`).
    """

    type: Literal["create_table"] = "create_table"
    name: TableName
    preset: Preset = "guiyang"
    options: dict[Annotated[str, StringConstraints(max_length=40)], OptionValue] = Field(
        default_factory=dict, max_length=64
    )
    base: int = Field(default=1, ge=1, le=1000)
    rounds: int = Field(default=8, ge=1, le=64)
    turn_seconds: float = Field(default=15.0, ge=0, le=600)
    bank_seconds: float = Field(default=30.0, ge=0, le=3600)
    claim_min_ms: int = Field(default=500, ge=0, le=5000)
    next_round_seconds: float = Field(default=30.0, ge=0, le=3600)
    password: Password | None = None
    bot_delay: BotDelay | None = None


class TakeSeat(_Request):
    """Sit at a table that has not started; `seat` None takes the first free one.

    On a match being played it takes back your own away seat (the seat's name is your `hello`
    name; `seat` picks one if several are), with the table's password. A table without a
    password refuses that (`need_token`): its seats come back only with their token, or when
    the table's creator hands them (`hand_seat`)."""

    type: Literal["take_seat"] = "take_seat"
    table: TableId
    seat: Seat | None = None
    password: Password | None = None


class Watch(_Request):
    """Watch a table as a spectator: public information only."""

    type: Literal["watch"] = "watch"
    table: TableId
    password: Password | None = None


class AddBot(_Request):
    """Seat a bot (played by the server) at the table you sit at; `seat` None takes the first
    free one. `level` is how well it plays: `easy`, `normal` (the default) or `strong`."""

    type: Literal["add_bot"] = "add_bot"
    seat: Seat | None = None
    level: BotLevel = "normal"


class RemoveBot(_Request):
    """Remove a bot from a seat of your table before the match starts."""

    type: Literal["remove_bot"] = "remove_bot"
    seat: Seat


class Start(_Request):
    """Start the match at your table; all four seats must be taken."""

    type: Literal["start"] = "start"


class Leave(_Request):
    """Leave your table. Before the start this frees the seat; during a match the seat is played
    automatically (托管) and your token still takes it back."""

    type: Literal["leave"] = "leave"


class Act(_Request):
    """A move in the round, picked from the latest `prompt`, quoting its `seq`."""

    type: Literal["act"] = "act"
    seq: Seq
    act: ActKind
    tile: TileName | None = None


class Auto(_Request):
    """Turn 托管 (the server plays for you at once, by the bot policy) on or off."""

    type: Literal["auto"] = "auto"
    on: bool


class HandSeat(_Request):
    """The table's creator (the player in seat 0) hands an away seat of the match to the
    spectator of the table called `to`: it sits there at once (a new token), under that name."""

    type: Literal["hand_seat"] = "hand_seat"
    seat: Seat
    to: PlayerName


class NextRound(_Request):
    """Between rounds: you have read the settlement sheet, the next round may start. Outside
    the wait it is ignored (a late one does no harm)."""

    type: Literal["next_round"] = "next_round"


class Rematch(_Request):
    """After the match: play again with the same seats and settings. Once every player at the
    table has asked, each gets `joined` for a new table (the same seats, new tokens) and its
    match starts; the server's bots come along."""

    type: Literal["rematch"] = "rematch"


class ProposeEnd(_Request):
    """Propose to end the match now, with the scores so far (解散; seated players, while the
    match is played). Every connected player must agree within 30 s (`vote_end`); one refusal
    ends the vote; one proposal per player every 5 minutes. Everyone at the table follows it in
    `end_vote` frames; if it passes, `match_ended` with `reason` `vote` follows (protocol 3)."""

    type: Literal["propose_end"] = "propose_end"


class VoteEnd(_Request):
    """Answer the open vote to end the match: `agree` true to end it, false to refuse (which
    ends the vote; the proposer may withdraw so). Protocol 3."""

    type: Literal["vote_end"] = "vote_end"
    agree: bool


class Sync(_Request):
    """Ask for a `snapshot` of your table as you may see it now (to check or rebuild a view)."""

    type: Literal["sync"] = "sync"


class GetRounds(_Request):
    """Ask for the rounds of a finished (or abandoned) match you played, to browse them: the
    server answers `rounds`, each round as your seat saw it (the public events and your own
    hand; every hand is revealed at each round's end). Seated at that table, nothing more is
    needed; from the lobby, send the seat's token (kept by the client after the match)."""

    type: Literal["get_rounds"] = "get_rounds"
    table: TableId
    token: Token | None = None


class GetRecords(_Message):
    """Ask for the group's records: the server answers `records` (docs/PROTOCOL.md, Records).

    `period` (`tonight`: since 06:00 local time, `month`: since the 1st, `all`) and `preset`
    (null: every preset) choose the matches counted. The answer always holds the standings
    (page `page` of them) and the recent matches (page `page` of them); with `player` (an id, or
    your own when null and you said hello with a player key) also that player's record and their
    net and placement over their latest matches; with `table`, each player's rating change in
    that match (the match summary). An unknown player gets an empty record, not an error."""

    type: Literal["get_records"] = "get_records"
    period: Period = "all"
    preset: Preset | None = None
    player: PlayerId | None = None
    table: TableId | None = None
    page: int = Field(default=0, ge=0, le=10_000)


ClientMessage = Annotated[
    Hello
    | ListTables
    | CreateTable
    | TakeSeat
    | Watch
    | AddBot
    | RemoveBot
    | Start
    | Leave
    | Act
    | Auto
    | Sync
    | GetRounds
    | HandSeat
    | NextRound
    | Rematch
    | ProposeEnd
    | VoteEnd
    | GetRecords,
    Field(discriminator="type"),
]

# ---------------------------------------------------------------------------------------------
# Shared pieces of server messages


class SeatInfo(_Message):
    """Who sits at a seat: `kind` empty, human or bot; `auto` while the server plays it (托管);
    `level` a bot's level (null for a human or an empty seat). `away`: a player's seat of a
    started match with nobody at it (its connection dropped, or it left): the server plays it,
    and `name` is whose it is."""

    name: PlayerName | None
    kind: Literal["empty", "human", "bot"]
    connected: bool
    auto: bool
    level: BotLevel | None = None
    away: bool = False


class TableInfo(_Message):
    """A lobby row and a table's header: the preset and every override of it."""

    id: TableId
    name: TableName
    preset: Preset
    options: dict[str, Any]
    base: int
    rounds: int
    turn_seconds: float
    bank_seconds: float
    claim_min_ms: int
    bot_delay: float = Field(
        default=0.0, ge=0, le=3600, description="seconds the table's bots wait before each move"
    )
    next_round_seconds: float = 30.0
    has_password: bool
    seats: list[SeatInfo] = Field(min_length=4, max_length=4)
    spectators: int = Field(ge=0)
    state: Literal["waiting", "playing", "finished"]
    round_no: int = Field(ge=0, description="rounds begun so far (0 before the first)")
    scores: list[Money] = Field(min_length=4, max_length=4)


class Choice(_Message):
    """One legal action offered by a prompt; send it back in an `act`."""

    act: ActKind
    tile: TileName | None = None


class MeldView(_Message):
    """A meld: `pong`, `ming` (明杠), `an` (暗杠: its tile is null to others until the round
    ends) or `bu` (补杠). `dou` is the 豆 kind where one applies."""

    kind: Literal["pong", "ming", "an", "bu"]
    tile: TileName | None
    from_seat: Seat | None = None
    dou: str | None = None


class DiscardView(_Message):
    """A discard in a seat's river; `claimed` when someone took it, `declared` for 报听/天听."""

    tile: TileName
    claimed: bool
    declared: bool


class RoundView(_Message):
    """The round as the viewer may see it. `hand` is the viewer's own concealed hand (sorted,
    the drawn tile included) and `drawn` the tile just drawn; both null for others."""

    round_no: int = Field(ge=1)
    dealer: Seat
    streak: int = Field(ge=0)
    base: int
    phase: Literal["turn", "claim", "rob", "over"]
    turn: Seat
    wall_left: int = Field(ge=0, le=108)
    hand: list[TileName] | None = Field(max_length=14)
    drawn: TileName | None
    hand_sizes: list[int] = Field(min_length=4, max_length=4)
    melds: list[list[MeldView]] = Field(min_length=4, max_length=4)
    discards: list[list[DiscardView]] = Field(min_length=4, max_length=4)
    declared: list[bool] = Field(min_length=4, max_length=4)
    claim_tile: TileName | None
    claim_from: Seat | None
    commitment: Digest | None = None
    weekday: Weekday | None = None


class DealReveal(_Message):
    """The fair deal opened at the end of a round: every tile in dealing order (the dealer's
    hand, the others' in play order, then the live wall front to back) and the secret salt.
    SHA-256 of the salt's bytes, `:` and the tiles joined by `,` is the round's `commitment`."""

    order: list[TileName] = Field(min_length=108, max_length=108)
    salt: SaltHex


class _TableFrame(_Message):
    table: TableId
    seq: Seq


# ---------------------------------------------------------------------------------------------
# Server → client: connection and lobby


class Welcome(_Message):
    """The answer to `hello`."""

    type: Literal["welcome"] = "welcome"
    version: int
    server: str
    name: PlayerName
    player: PlayerId | None = Field(
        default=None, description="your public player id (null: no player key was sent)"
    )


class Error(_Message):
    """A refusal; nothing changed. `ref` is the `type` of the message refused; `seq` the table's
    current number when the error concerns a table (a stale `act` gets the live one)."""

    type: Literal["error"] = "error"
    code: ErrorCode
    message: Text
    ref: str | None = None
    table: TableId | None = None
    seq: Seq | None = None


class Tables(_Message):
    """The lobby, one page of it: the rows of page `page` of `pages` (as many as fit in one
    frame, ≤ 16 KiB), `total` the rows of every page together. A page past the last is empty."""

    type: Literal["tables"] = "tables"
    tables: list[TableInfo]
    page: int = Field(default=0, ge=0)
    pages: int = Field(default=1, ge=1)
    total: int | None = Field(default=None, ge=0)


class Joined(_Message):
    """You sit at (`seat`) or watch (`seat` null) a table. `token` (seated only) takes the seat
    back after a dropped connection. `resume` says what follows: `events` (the frames you
    missed, in order) or `snapshot` (one `snapshot` frame)."""

    type: Literal["joined"] = "joined"
    table: TableId
    seq: Seq
    seat: Seat | None
    token: Token | None
    resume: Literal["events", "snapshot"]


class Left(_Message):
    """You left the table."""

    type: Literal["left"] = "left"
    table: TableId


class Shutdown(_Message):
    """The server is stopping: the connection closes next (1012 when `restart`, else 1001).
    Unfinished matches are kept and resume when the server is back; reconnect with your token."""

    type: Literal["shutdown"] = "shutdown"
    restart: bool
    message: Text


# ---------------------------------------------------------------------------------------------
# Server → client: table frames (all carry `table` and `seq`)


class TableUpdate(_TableFrame):
    """The table's header changed: a seat taken or freed, a bot added, a spectator came, …"""

    type: Literal["table"] = "table"
    info: TableInfo


class Snapshot(_TableFrame):
    """The whole table as the viewer may see it; `round` is null between rounds."""

    type: Literal["snapshot"] = "snapshot"
    info: TableInfo
    seat: Seat | None
    round: RoundView | None


class Prompt(_TableFrame):
    """Your move: pick one of `actions` and send it in an `act` quoting this `seq` (the round
    event that opened this decision; it may be lower than the table's latest `seq`).

    `deadline_ms` is the time left for this move including the bank (null: no clock); after it
    the server plays `default` for you and sets 托管."""

    type: Literal["prompt"] = "prompt"
    seat: Seat
    actions: list[Choice] = Field(min_length=1, max_length=64)
    default: Choice
    deadline_ms: int | None = Field(ge=0)
    bank_ms: int | None = Field(ge=0)


class BetweenRounds(_TableFrame):
    """The table waits between rounds (`rematch` false: `round_no` is the round to come) or,
    after the match, for a rematch (`rematch` true). Sent to every member when the wait begins
    and whenever `ready` changes, and after a snapshot to one who comes in meanwhile; not a
    numbered event (`seq` is the table's latest). `ready[s]`: seat s does not hold the table up
    (it sent `next_round` / `rematch`, or is a bot, in 托管, or away). `deadline_ms`: the time
    left before the next round starts anyway (null: it waits for everyone). A new round's
    `round_started` (or the rematch's `joined`) ends the wait."""

    type: Literal["between_rounds"] = "between_rounds"
    round_no: int = Field(ge=1)
    ready: list[bool] = Field(min_length=4, max_length=4)
    deadline_ms: int | None = Field(ge=0)
    rematch: bool = False


class MatchStarted(_TableFrame):
    type: Literal["match_started"] = "match_started"
    rounds: int
    names: list[PlayerName] = Field(min_length=4, max_length=4)


class MatchEnded(_TableFrame):
    """The final standings: `scores` per seat (× base), `rounds_played`. `reason`: `finished`
    (every round played), `abandoned` (closed, frozen, left idle) or `vote` (the players ended
    it together: `end_vote`; protocol 3)."""

    type: Literal["match_ended"] = "match_ended"
    scores: list[Money] = Field(min_length=4, max_length=4)
    rounds_played: int
    reason: Literal["finished", "abandoned", "vote"]


class EndVote(_TableFrame):
    """A vote to end the match (`propose_end`), to everyone at the table: when it opens,
    whenever it changes, once when it ends, and after a snapshot to one who comes in while it
    is open. Not a numbered event (`seq` is the table's latest). `voters[s]`: seat s must agree
    (a connected player, or one dropped within the grace; never a bot or a player who left);
    `agreed[s]`: it has (the proposer by proposing). `deadline_ms`: the time left (open only).
    `outcome`: `open`, `passed` (`match_ended` with `reason` `vote` follows), `refused` (by
    `refused_by`) or `expired`. Protocol 3."""

    type: Literal["end_vote"] = "end_vote"
    proposer: Seat
    voters: list[bool] = Field(min_length=4, max_length=4)
    agreed: list[bool] = Field(min_length=4, max_length=4)
    deadline_ms: int | None = Field(ge=0)
    outcome: Literal["open", "passed", "refused", "expired"]
    refused_by: Seat | None = None


class Spectators(_TableFrame):
    """How many watch the table now. Not an event (not numbered, not stored: `seq` is the
    table's current number, as in a snapshot); at most one per table every 0.5 s."""

    type: Literal["spectators"] = "spectators"
    count: int = Field(ge=0)


class SeatStatus(_TableFrame):
    """A seat's connection or 托管 changed."""

    type: Literal["seat_status"] = "seat_status"
    seat: Seat
    connected: bool
    auto: bool


class AutoPlayed(_TableFrame):
    """The server played a move on the seat's own turn for it, by the bot policy (the move's own
    event follows). Never sent for an answer in a claim window: that is nobody else's business."""

    type: Literal["auto_played"] = "auto_played"
    seat: Seat
    act: ActKind
    reason: Literal["timeout", "disconnected", "auto"]


# Round events: the engine's events (rules/events.py), projected for the viewer.


class RoundStarted(_TableFrame):
    """A new deal. `hand` is the viewer's own 13 or 14 tiles (null for a spectator).
    `commitment` is the fair-deal commitment to the deal order, opened by `round_ended.deal`.
    `weekday` is the day of the deal (the 星期鸡 kinds under `xingqiji`); absent if unknown."""

    type: Literal["round_started"] = "round_started"
    round_no: int = Field(ge=1)
    dealer: Seat
    streak: int
    base: int
    hand: list[TileName] | None = Field(max_length=14)
    hand_sizes: list[int] = Field(min_length=4, max_length=4)
    wall_left: int
    commitment: Digest | None = None
    weekday: Weekday | None = None


class Drew(_TableFrame):
    """`seat` drew (from the back when `replacement`); `tile` is null unless it is you."""

    type: Literal["drew"] = "drew"
    seat: Seat
    tile: TileName | None
    replacement: bool
    wall_left: int


class Discarded(_TableFrame):
    type: Literal["discarded"] = "discarded"
    seat: Seat
    tile: TileName
    declared: bool
    hot: bool


class Claimed(_TableFrame):
    """A 碰 (`pong`) or 明杠 (`gang`) of `from_seat`'s discard."""

    type: Literal["claimed"] = "claimed"
    seat: Seat
    act: str
    tile: TileName
    from_seat: Seat


class ConcealedGang(_TableFrame):
    """A 暗杠; `tile` is null unless it is yours."""

    type: Literal["concealed_gang"] = "concealed_gang"
    seat: Seat
    tile: TileName | None
    dou: str


class AddGangDeclared(_TableFrame):
    type: Literal["add_gang_declared"] = "add_gang_declared"
    seat: Seat
    tile: TileName


class AddedGang(_TableFrame):
    type: Literal["added_gang"] = "added_gang"
    seat: Seat
    tile: TileName
    dou: str


class Won(_TableFrame):
    type: Literal["won"] = "won"
    seat: Seat
    how: str
    tile: TileName | None
    from_seat: Seat | None
    pattern: Pattern
    bonuses: list[Bonus] = Field(max_length=16)
    void: bool
    hand: list[TileName]


class Exhausted(_TableFrame):
    type: Literal["exhausted"] = "exhausted"


class Flipped(_TableFrame):
    type: Literal["flipped"] = "flipped"
    tile: TileName


def _valid_result(result: dict[str, Any]) -> dict[str, Any]:
    parse_result(result)
    return result


class _AsRoundResult:
    """Schema metadata: the field's JSON Schema is `RoundResult`'s."""

    @classmethod
    def __get_pydantic_json_schema__(
        cls, _schema: CoreSchema, handler: GetJsonSchemaHandler
    ) -> JsonSchemaValue:
        return handler(RoundResult.__pydantic_core_schema__)


SettlementJSON = Annotated[dict[str, Any], AfterValidator(_valid_result), _AsRoundResult]
"""A settlement, validated against `protocol.settlement.RoundResult` (strict, bounded, no
unknown field) and kept as the decoded JSON object; `parse_result` gives the typed model."""


class RoundEnded(_TableFrame):
    """The settlement (`result`: a `protocol.settlement.RoundResult`, the engine's
    `Settlement.to_dict()` with every hand and meld revealed: each payment's `kind` and `details`
    in identifiers, each seat's net), the match scores after it, and the fair deal opened
    (`deal`)."""

    type: Literal["round_ended"] = "round_ended"
    result: SettlementJSON
    scores: list[Money] = Field(min_length=4, max_length=4)
    deal: DealReveal | None = None


RoundEventFrame = Annotated[
    RoundStarted
    | Drew
    | Discarded
    | Claimed
    | ConcealedGang
    | AddGangDeclared
    | AddedGang
    | Won
    | Exhausted
    | Flipped
    | RoundEnded,
    Field(discriminator="type"),
]


class RoundLog(_Message):
    """One stored round, as one seat saw it: its events in order."""

    round_no: int = Field(ge=1, le=64)
    events: list[RoundEventFrame] = Field(max_length=2000)


class Rounds(_Message):
    """The answer to `get_rounds`: the match's settings, the players, and every stored round as
    the asking `seat` saw it (hidden tiles of the other seats are `null` until each round's
    end)."""

    type: Literal["rounds"] = "rounds"
    table: TableId
    seat: Seat
    name: TableName
    preset: Preset
    options: dict[str, Any]
    rounds: int = Field(ge=1, le=64)
    state: Literal["finished", "abandoned", "voted"]
    names: list[PlayerName] = Field(min_length=4, max_length=4)
    logs: list[RoundLog] = Field(max_length=64)


Count = Annotated[int, Field(ge=0, le=2**53)]
Rate = Annotated[float, Field(ge=0, le=1)]


class PlayerRecord(_Message):
    """One player's record over the matches asked for (`server.records`, docs/PROTOCOL.md).

    Rates are per round played (null before a first round). `placements[i]` counts the finished
    matches ended in place i+1 (a tie shares the better place); `matches` counts those, `voted`
    the matches ended by vote. `rating` is the rating among
    humans after every match so far (null for a bot: bots are not rated); `rating_change` its
    change over the period asked for."""

    player: PlayerId
    name: PlayerName
    bot: bool
    matches: Count
    rounds: Count
    placements: list[Count] = Field(min_length=4, max_length=4)
    voted: Count = Field(
        default=0,
        description="matches ended by vote (解散; protocol 3): their rounds and nets count,"
        " with no placement and no rating change",
    )
    net: Money
    net_per_round: float | None
    wins: Count
    win_rate: Rate | None
    zimo: Count
    zimo_rate: Rate | None
    dealins: Count
    dealin_rate: Rate | None
    draws: Count
    ready_at_draw: Count
    declared: Count = Field(description="rounds declared ready (报听/天听)")
    declared_won: Count
    chongfeng: Count = Field(description="冲锋鸡 made")
    zeren_paid: Count = Field(description="责任鸡 payments paid")
    zeren_received: Count
    baoji_paid: Count = Field(description="rounds that paid 包鸡")
    dou: Count = Field(description="豆 (gangs) made")
    biggest: Money = Field(description="the most one won hand brought in")
    streak: Count = Field(description="the longest run of deals as dealer")
    rating: float | None
    rating_change: float | None


class MatchLine(_Message):
    """A match in the lobby's list of results: when it ended, who sat where, final scores."""

    table: TableId
    name: TableName
    preset: Preset
    ended_at: float = Field(description="seconds since the epoch")
    state: Literal["finished", "abandoned", "voted"] = Field(
        description="voted: ended by vote (解散; protocol 3), no placements"
    )
    rounds_played: Count
    names: list[PlayerName | None] = Field(min_length=4, max_length=4)
    players: list[PlayerId | None] = Field(min_length=4, max_length=4)
    scores: list[Money] = Field(min_length=4, max_length=4)
    rating_changes: list[float | None] = Field(min_length=4, max_length=4)


class Records(_Message):
    """The answer to `get_records`: one page of the standings (`standings`, best net first)
    and of the recent matches (`matches`, newest first), `pages` the number of pages of the
    longer of the two; `me` the record of the player asked for (null: none asked), with their
    net and placement (0 for an unfinished match) over their latest matches, oldest first
    (`recent_net`, `recent_places`). Each answer fits in one frame (≤ 16 KiB)."""

    type: Literal["records"] = "records"
    period: Period
    preset: Preset | None
    page: int = Field(ge=0)
    pages: int = Field(ge=1)
    standings: list[PlayerRecord] = Field(max_length=12)
    matches: list[MatchLine] = Field(max_length=8)
    me: PlayerRecord | None = None
    recent_net: list[Money] = Field(default_factory=list, max_length=50)
    recent_places: list[Annotated[int, Field(ge=0, le=4)]] = Field(
        default_factory=list, max_length=50
    )
    match: MatchLine | None = Field(default=None, description="the `table` asked for")


ServerMessage = Annotated[
    Welcome
    | Error
    | Tables
    | Joined
    | Left
    | Shutdown
    | TableUpdate
    | Snapshot
    | Prompt
    | BetweenRounds
    | MatchStarted
    | MatchEnded
    | EndVote
    | SeatStatus
    | Spectators
    | AutoPlayed
    | RoundStarted
    | Drew
    | Discarded
    | Claimed
    | ConcealedGang
    | AddGangDeclared
    | AddedGang
    | Won
    | Exhausted
    | Flipped
    | RoundEnded
    | Rounds
    | Records,
    Field(discriminator="type"),
]

_DEFERRED = ConfigDict(defer_build=True)
# Built on first use (a command that never parses a frame never pays for them).
CLIENT_ADAPTER: TypeAdapter[ClientMessage] = TypeAdapter(ClientMessage, config=_DEFERRED)
SERVER_ADAPTER: TypeAdapter[ServerMessage] = TypeAdapter(ServerMessage, config=_DEFERRED)

ROUND_EVENT_TYPES: frozenset[str] = frozenset(
    {
        "round_started",
        "drew",
        "discarded",
        "claimed",
        "concealed_gang",
        "add_gang_declared",
        "added_gang",
        "won",
        "exhausted",
        "flipped",
        "round_ended",
    }
)
TABLE_EVENT_TYPES: frozenset[str] = ROUND_EVENT_TYPES | {
    "table",
    "seat_status",
    "auto_played",
    "match_started",
    "match_ended",
}
"""Every numbered table event (`seq`): the round's events and the table's own."""


def parse_client(raw: str | bytes) -> ClientMessage:
    """Validate one client frame; raises `pydantic.ValidationError`."""
    return CLIENT_ADAPTER.validate_json(raw)


def parse_server(raw: str | bytes) -> ServerMessage:
    """Validate one server frame; raises `pydantic.ValidationError`."""
    return SERVER_ADAPTER.validate_json(raw)
