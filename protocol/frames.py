"""Server frames built from the protocol models: one builder per frame the server makes up, and
`encode`, which turns a frame into the text a socket sends.

The server keeps its table events as dicts (the log it stores, replays and projects: round
events from the engine, and `table`, `match_started`, `seat_status`, … numbered by the table).
Those dicts are made from trusted values (the engine's events, and this module's builders through
`logged`), so `encode` writes them with the standard library's C JSON encoder as they are: no
model is built for them on the hot path (issue 26: validating and dumping each through its model
cost more than the rest of the encoding). Whether they really are valid is checked where it can
be: with `ZHUOJI_CHECK_FRAMES=1` in the environment (the test suite sets it, so every frame every
test server sends is checked) `encode` validates each dict against the frame its `type` names and
raises if it is not one, or if its text says anything the validated model's would not. Frames that
are not logged are built here directly, validated as they are built. A frame is encoded once per
viewer class (`server.table.projection.view_key`), not once per connection.

The text holds exactly the fields that were given (`exclude_unset`): an `error` without `ref`
has no `ref` key, a `drew` with `tile` null keeps it, as before.

>>> encode(welcome("zhuoji", "阿明"))
'{"type":"welcome","version":3,"server":"zhuoji","name":"阿明"}'
>>> encode({"type": "left", "table": "7"})
'{"type":"left","table":"7"}'
>>> encode(error("stale", "that answers 18", ref="act", table="1", seq=19))
'{"type":"error","code":"stale","message":"that answers 18","ref":"act","table":"1","seq":19}'
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from typing import Any, Literal, TypeVar

from pydantic import BaseModel

from protocol.messages import (
    PROTOCOL_VERSION,
    SERVER_ADAPTER,
    AutoPlayed,
    BetweenRounds,
    EndVote,
    Error,
    Joined,
    Left,
    MatchEnded,
    MatchStarted,
    Prompt,
    SeatStatus,
    ServerMessage,
    Shutdown,
    Snapshot,
    Spectators,
    Tables,
    TableUpdate,
    Welcome,
)

Fields = Mapping[str, Any]


_JSON = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False)
# Every dict frame validated as it is encoded: on in the tests (tests/conftest.py), off in a
# server, where the dicts come from the engine and the builders (see the module's docstring).
CHECK = os.environ.get("ZHUOJI_CHECK_FRAMES", "") not in ("", "0")


def encode(frame: BaseModel | Fields) -> str:
    """The text of one server frame: a model (built by a builder here, so validated) as its set
    fields, a dict (a logged event or its projection) as it is. With `CHECK`, a dict is first
    validated as the frame its `type` names (raises `pydantic.ValidationError`, naming the
    field, if it is not one)."""
    if isinstance(frame, BaseModel):
        return frame.model_dump_json(exclude_unset=True)
    text = _JSON.encode(frame)
    if CHECK:
        checked(frame, text)
    return text


def checked(frame: Fields, text: str) -> None:
    """Raise unless `frame` is a valid server frame whose validated model says what `text`
    says (`CHECK`)."""
    model = event(frame)
    if json.loads(model.model_dump_json(exclude_unset=True)) != json.loads(text):
        raise ValueError(f"a {frame.get('type')} frame's text is not its model's: {text[:200]}")


def event(d: Fields) -> ServerMessage:
    """A logged table event (or any frame given as a dict) as its validated model."""
    return SERVER_ADAPTER.validate_python(d)


M = TypeVar("M", bound=BaseModel)


def _make(cls: type[M], **fields: Any) -> M:
    """A frame of model `cls` with exactly these fields and its `type` (so all are "set")."""
    return cls.model_validate({"type": cls.model_fields["type"].default, **fields})


# ----- connection and lobby -----


def welcome(server: str, name: str, player: str | None = None) -> Welcome:
    if player is None:
        return _make(Welcome, version=PROTOCOL_VERSION, server=server, name=name)
    return _make(Welcome, version=PROTOCOL_VERSION, server=server, name=name, player=player)


def error(
    code: str,
    message: str,
    ref: str | None = None,
    table: str | None = None,
    seq: int | None = None,
) -> Error:
    """A refusal; `ref`, and `table` with its `seq`, only when given."""
    fields: dict[str, Any] = {"code": code, "message": message}
    if ref is not None:
        fields["ref"] = ref
    if table is not None:
        fields["table"], fields["seq"] = table, seq
    return _make(Error, **fields)


def tables(infos: Sequence[Fields]) -> Tables:
    """The lobby: one `TableInfo` per table (as `Table.info()` gives it)."""
    return _make(Tables, tables=list(infos))


def joined(
    table: str,
    seq: int,
    seat: int | None,
    token: str | None,
    resume: Literal["events", "snapshot"],
) -> Joined:
    return _make(Joined, table=table, seq=seq, seat=seat, token=token, resume=resume)


def left(table: str) -> Left:
    return _make(Left, table=table)


def shutdown(restart: bool, message: str) -> Shutdown:
    return _make(Shutdown, restart=restart, message=message)


# ----- table frames -----


def prompt(
    table: str,
    seq: int,
    seat: int,
    actions: Sequence[Fields],
    default: Fields,
    deadline_ms: int | None,
    bank_ms: int | None,
) -> Prompt:
    return _make(
        Prompt,
        table=table,
        seq=seq,
        seat=seat,
        actions=list(actions),
        default=default,
        deadline_ms=deadline_ms,
        bank_ms=bank_ms,
    )


def prompt_fields(
    table: str,
    seq: int,
    seat: int,
    actions: list[dict[str, Any]],
    default: dict[str, Any],
    deadline_ms: int | None,
    bank_ms: int | None,
) -> dict[str, Any]:
    """`prompt`'s frame as a dict, for the table's hot path (a prompt for every decision): the
    actions are the engine's legal ones, so the frame is valid as made and is encoded as it is
    (`encode`; checked against `Prompt` under `CHECK`).

    >>> fields = prompt_fields("7", 3, 1, [{"act": "pass"}], {"act": "pass"}, None, None)
    >>> model = prompt("7", 3, 1, [{"act": "pass"}], {"act": "pass"}, None, None)
    >>> json.loads(encode(fields)) == json.loads(encode(model))
    True
    """
    return {
        "type": "prompt",
        "table": table,
        "seq": seq,
        "seat": seat,
        "actions": actions,
        "default": default,
        "deadline_ms": deadline_ms,
        "bank_ms": bank_ms,
    }


def snapshot(
    table: str, seq: int, info: Fields, seat: int | None, round: Fields | None
) -> Snapshot:
    """The table as `seat` may see it; `round` a `RoundView` dict (`projection.round_view`)."""
    return _make(Snapshot, table=table, seq=seq, info=info, seat=seat, round=round)


def table_update(table: str, seq: int, info: Fields) -> TableUpdate:
    return _make(TableUpdate, table=table, seq=seq, info=info)


def match_started(table: str, seq: int, rounds: int, names: Sequence[str]) -> MatchStarted:
    return _make(MatchStarted, table=table, seq=seq, rounds=rounds, names=list(names))


def match_ended(
    table: str,
    seq: int,
    scores: Sequence[int],
    rounds_played: int,
    reason: Literal["finished", "abandoned", "vote"],
) -> MatchEnded:
    return _make(
        MatchEnded,
        table=table,
        seq=seq,
        scores=list(scores),
        rounds_played=rounds_played,
        reason=reason,
    )


def seat_status(table: str, seq: int, seat: int, connected: bool, auto: bool) -> SeatStatus:
    return _make(SeatStatus, table=table, seq=seq, seat=seat, connected=connected, auto=auto)


def auto_played(
    table: str,
    seq: int,
    seat: int,
    act: Literal["discard", "hu", "pong", "gang", "pass", "ready"],
    reason: Literal["timeout", "disconnected", "auto"],
) -> AutoPlayed:
    return _make(AutoPlayed, table=table, seq=seq, seat=seat, act=act, reason=reason)


def spectators(table: str, seq: int, count: int) -> Spectators:
    """The spectator count (unnumbered: `seq` is the table's latest)."""
    return _make(Spectators, table=table, seq=seq, count=count)


def between_rounds(
    table: str,
    seq: int,
    round_no: int,
    ready: Sequence[bool],
    deadline_ms: int | None,
    rematch: bool,
) -> BetweenRounds:
    """The wait between rounds, or for a rematch (unnumbered: `seq` is the table's latest)."""
    return _make(
        BetweenRounds,
        table=table,
        seq=seq,
        round_no=round_no,
        ready=list(ready),
        deadline_ms=deadline_ms,
        rematch=rematch,
    )


def end_vote(
    table: str,
    seq: int,
    proposer: int,
    voters: Sequence[bool],
    agreed: Sequence[bool],
    deadline_ms: int | None,
    outcome: Literal["open", "passed", "refused", "expired"],
    refused_by: int | None = None,
) -> EndVote:
    """A vote to end the match as it stands (unnumbered: `seq` is the table's latest)."""
    extra = {} if refused_by is None else {"refused_by": refused_by}
    return _make(
        EndVote,
        table=table,
        seq=seq,
        proposer=proposer,
        voters=list(voters),
        agreed=list(agreed),
        deadline_ms=deadline_ms,
        outcome=outcome,
        **extra,
    )


def logged(frame: BaseModel) -> dict[str, Any]:
    """A table event built here, as the table's log keeps it (and the store writes it): its
    JSON fields, exactly those that were given."""
    return frame.model_dump(mode="json", exclude_unset=True)
