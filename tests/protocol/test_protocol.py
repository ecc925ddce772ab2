"""The protocol models: what they accept, what they refuse, and the committed schema."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, get_args

import pytest
from pydantic import ValidationError

from protocol import frames, settlement
from protocol.messages import (
    PROTOCOL_VERSION,
    SERVER_ADAPTER,
    Act,
    CreateTable,
    Hello,
    Prompt,
    RoundEnded,
    parse_client,
    parse_server,
)
from protocol.schema import SCHEMA_PATH, build_schema, schema_text
from protocol.settlement import (
    ChickenPayment,
    DouPayment,
    HandPayment,
    RobDetails,
    parse_result,
)
from rules.kinds import BonusKind, ChickenKind, DouKind, PatternKind
from rules.script import run_script
from zhuoji.cli import main


def test_committed_schema_matches_the_models() -> None:
    assert SCHEMA_PATH.read_text(encoding="utf-8") == schema_text(), (
        "protocol/schema.json is stale: run `zhuoji schema`"
    )


def test_schema_names_every_message_type() -> None:
    schema = build_schema()
    client = schema["$defs"]["ClientMessage"]["discriminator"]["mapping"]
    server = schema["$defs"]["ServerMessage"]["discriminator"]["mapping"]
    assert {"hello", "act", "create_table", "take_seat", "watch", "leave"} <= set(client)
    assert {"welcome", "error", "prompt", "snapshot", "drew", "round_ended"} <= set(server)
    assert not set(client) & set(server), "a type name must say its direction"


def test_schema_command_writes_and_checks(tmp_path, capsys) -> None:
    out = tmp_path / "schema.json"
    assert main(["schema", "--out", str(out)]) == 0
    assert json.loads(out.read_text())["title"].endswith(str(PROTOCOL_VERSION))
    assert main(["schema", "--out", str(out), "--check"]) == 0
    out.write_text("{}")
    assert main(["schema", "--out", str(out), "--check"]) == 1


@pytest.mark.parametrize(
    ("frame", "cls"),
    [
        ({"type": "hello", "version": 1, "name": "阿明"}, Hello),
        ({"type": "act", "seq": 3, "act": "discard", "tile": "9m"}, Act),
        ({"type": "act", "seq": 3, "act": "pass"}, Act),
        (
            {"type": "create_table", "name": "周五", "options": {"patterns": {"pinghu": 2}}},
            CreateTable,
        ),
    ],
)
def test_valid_client_frames(frame: dict[str, object], cls: type) -> None:
    msg = parse_client(json.dumps(frame))
    assert isinstance(msg, cls)
    assert msg.model_dump(exclude_defaults=False)["type"] == frame["type"]


@pytest.mark.parametrize(
    "frame",
    [
        {"type": "nope"},
        {"version": 1, "name": "x"},
        {"type": "hello", "version": 1, "name": "x", "admin": True},  # extra field
        {"type": "hello", "version": "1", "name": "x"},  # strict: no string numbers
        {"type": "hello", "version": 1, "name": ""},
        {"type": "hello", "version": 1, "name": "x" * 25},
        {"type": "hello", "version": 1, "name": "a\nb"},
        {"type": "hello", "version": 1, "name": "x", "token": "short"},
        {"type": "act", "seq": -1, "act": "pass"},
        {"type": "act", "seq": 1, "act": "chi"},
        {"type": "act", "seq": 1, "act": "discard", "tile": "0m"},
        {"type": "act", "seq": 1, "act": "discard", "tile": "1z"},
        {"type": "act", "seq": True, "act": "pass"},
        {"type": "take_seat", "table": "../etc", "seat": 1},
        {"type": "take_seat", "table": "t1", "seat": 4},
        {"type": "create_table", "name": "x", "base": 0},
        {"type": "create_table", "name": "x", "rounds": 1000},
        {"type": "create_table", "name": "x", "turn_seconds": -1},
        {"type": "create_table", "name": "x", "preset": "tokyo"},
        {"type": "create_table", "name": "x", "options": {f"o{i}": 1 for i in range(65)}},
    ],
)
def test_malformed_client_frames_are_refused(frame: dict[str, object]) -> None:
    with pytest.raises(ValidationError):
        parse_client(json.dumps(frame))


def test_models_are_frozen() -> None:
    msg = parse_client('{"type": "act", "seq": 1, "act": "pass"}')
    with pytest.raises(ValidationError):
        msg.seq = 2  # type: ignore[misc]


def test_server_frames_round_trip() -> None:
    prompt = Prompt(
        table="t1",
        seq=7,
        seat=2,
        actions=[{"act": "hu"}, {"act": "pong"}, {"act": "pass"}],  # type: ignore[list-item]
        default={"act": "pass"},  # type: ignore[arg-type]
        deadline_ms=15000,
        bank_ms=30000,
    )
    again = parse_server(prompt.model_dump_json())
    assert again == prompt
    drew = SERVER_ADAPTER.validate_python(
        {
            "type": "drew",
            "table": "t1",
            "seq": 8,
            "seat": 1,
            "tile": None,
            "replacement": False,
            "wall_left": 50,
        }
    )
    assert drew.type == "drew"


# ---------------------------------------------------------------------------------------------
# The settlement (`round_ended.result`)

SCRIPTS = Path(__file__).parents[1] / "scripts"


def settled(name: str) -> dict[str, Any]:
    """A scripted round's settlement as the server sends it."""
    r = run_script(json.loads((SCRIPTS / name).read_text(encoding="utf-8")))
    assert r.result is not None
    result: dict[str, Any] = json.loads(
        json.dumps({**r.result.to_dict(), **r.revealed().to_dict()})
    )
    return result


def round_ended(result: dict[str, Any]) -> str:
    return json.dumps(
        {"type": "round_ended", "table": "t1", "seq": 40, "result": result, "scores": [0] * 4}
    )


def test_a_settlement_parses_to_typed_payments() -> None:
    result = settled("guiyang_38_zerenji_wuguji_gold_diandou.json")
    frame = parse_server(round_ended(result))
    assert isinstance(frame, RoundEnded) and frame.result == result
    typed = parse_result(frame.result)
    assert [type(p) for p in typed.payments] == [
        HandPayment,
        DouPayment,
        ChickenPayment,
        ChickenPayment,
        ChickenPayment,
        ChickenPayment,
    ]
    dou, zeren = typed.payments[1], typed.payments[5]
    assert isinstance(dou, DouPayment) and dou.details.dou.kind is DouKind.DIANDOU
    assert (dou.payer, dou.payee, dou.details.dou.fed_by) == (0, 2, 0)
    assert isinstance(zeren, ChickenPayment) and zeren.kind == "zeren"
    assert [(c.kind, c.tile, c.each, c.gold) for c in zeren.details.chickens] == [
        (ChickenKind.ZEREN, "8p", 8, True)
    ]
    assert typed.wins[0].pattern is PatternKind.PINGHU and typed.wins[0].from_seat == 3
    # Dumped by alias, the model is the very JSON it came from.
    assert typed.model_dump(mode="json", exclude_unset=True) == result


def test_a_rob_pays_three_typed_shares() -> None:
    typed = parse_result(settled("guiyang_16_qianggang_quanshao.json"))
    hand = typed.payments[0]
    assert isinstance(hand, HandPayment) and isinstance(hand.details, RobDetails)
    assert [(s.for_seat, s.units, s.dealer, s.streak) for s in hand.details.shares] == [
        (0, 4, 1, 1),
        (1, 2, 0, 0),
        (2, 2, 0, 0),
    ]
    assert typed.wins[0].bonuses == [BonusKind.QIANGGANG, BonusKind.ZIMO]


def _set(obj: Any, path: str, value: Any) -> None:
    *head, last = path.split(".")
    for key in head:
        obj = obj[int(key)] if key.isdigit() else obj[key]
    obj[int(last) if last.isdigit() else last] = value


@pytest.mark.parametrize(
    ("path", "value", "where"),
    [
        ("payments.1.details.dou.kind", "bogus", "details.dou.kind"),
        ("payments.0.details.pattern", "平胡", "hand.details.hand.pattern"),  # an id, not a name
        ("payments.0.kind", "tip", "payments.0"),
        ("payments.0.item", "dou", "payments.0.hand.item"),  # the item goes with the kind
        ("payments.2.details.chickens.0.count", 5, "chickens.0.count"),
        ("payments.2.details.secret", 1, "details.secret"),  # extra field
        ("payments.0.amount", 0, "payments.0.hand.amount"),
        ("payments.0.from", 4, "payments.0.hand.from"),
        ("wins.0.how", "magic", "wins.0.how"),
        ("net", [0, 0, 0], "net"),
        ("dou.0.why", "because", "dou.0.why"),
        ("hands.0", ["1m"] * 15, "hands.0"),
        ("payments.0.detail", "x" * 501, "payments.0.hand.detail"),
    ],
)
def test_a_bad_settlement_is_refused_naming_the_field(path: str, value: Any, where: str) -> None:
    result = settled("guiyang_38_zerenji_wuguji_gold_diandou.json")
    _set(result, path, value)
    with pytest.raises(ValidationError) as err:
        parse_server(round_ended(result))
    assert where in str(err.value), str(err.value)


def test_the_protocol_tile_names_are_the_rules_tiles_in_their_order() -> None:
    from rules.tiles import NUM_KINDS, tile_name

    assert get_args(settlement.TileName) == tuple(tile_name(k) for k in range(NUM_KINDS))


# ---------------------------------------------------------------------------------------------
# Server frames built from the models (protocol/frames.py)


INFO: dict[str, Any] = {
    "id": "t1",
    "name": "周五",
    "preset": "guiyang",
    "options": {},
    "base": 1,
    "rounds": 8,
    "turn_seconds": 15.0,
    "bank_seconds": 30.0,
    "claim_min_ms": 500,
    "has_password": False,
    "seats": [{"name": None, "kind": "empty", "connected": False, "auto": False}] * 4,
    "spectators": 0,
    "state": "waiting",
    "round_no": 0,
    "scores": [0, 0, 0, 0],
}


@pytest.mark.parametrize(
    ("frame", "want"),
    [
        (
            frames.welcome("zhuoji", "阿明"),
            {"type": "welcome", "version": PROTOCOL_VERSION, "server": "zhuoji", "name": "阿明"},
        ),
        (
            frames.error("bad_json", "not valid JSON"),
            {"type": "error", "code": "bad_json", "message": "not valid JSON"},
        ),
        (
            frames.error("stale", "old", ref="act", table="t1", seq=19),
            {
                "type": "error",
                "code": "stale",
                "message": "old",
                "ref": "act",
                "table": "t1",
                "seq": 19,
            },
        ),
        (
            frames.joined("t1", 4, None, None, "snapshot"),
            {
                "type": "joined",
                "table": "t1",
                "seq": 4,
                "seat": None,
                "token": None,
                "resume": "snapshot",
            },
        ),
        (frames.left("t1"), {"type": "left", "table": "t1"}),
        (
            frames.shutdown(True, "back soon"),
            {"type": "shutdown", "restart": True, "message": "back soon"},
        ),
        (frames.tables([INFO]), {"type": "tables", "tables": [INFO]}),
        (
            frames.table_update("t1", 2, INFO),
            {"type": "table", "table": "t1", "seq": 2, "info": INFO},
        ),
        (
            frames.prompt(
                "t1", 9, 0, [{"act": "pass"}, {"act": "pong"}], {"act": "pass"}, None, None
            ),
            {
                "type": "prompt",
                "table": "t1",
                "seq": 9,
                "seat": 0,
                "actions": [{"act": "pass"}, {"act": "pong"}],
                "default": {"act": "pass"},
                "deadline_ms": None,
                "bank_ms": None,
            },
        ),
        (
            frames.match_started("t1", 5, 8, ["a", "b", "c", "d"]),
            {
                "type": "match_started",
                "table": "t1",
                "seq": 5,
                "rounds": 8,
                "names": ["a", "b", "c", "d"],
            },
        ),
        (
            frames.match_ended("t1", 99, [3, -1, -1, -1], 8, "finished"),
            {
                "type": "match_ended",
                "table": "t1",
                "seq": 99,
                "scores": [3, -1, -1, -1],
                "rounds_played": 8,
                "reason": "finished",
            },
        ),
        (
            frames.seat_status("t1", 7, 2, False, True),
            {
                "type": "seat_status",
                "table": "t1",
                "seq": 7,
                "seat": 2,
                "connected": False,
                "auto": True,
            },
        ),
        (
            frames.auto_played("t1", 8, 2, "discard", "timeout"),
            {
                "type": "auto_played",
                "table": "t1",
                "seq": 8,
                "seat": 2,
                "act": "discard",
                "reason": "timeout",
            },
        ),
    ],
)
def test_each_builder_makes_its_frame_with_exactly_the_fields_given(
    frame: Any, want: dict[str, Any]
) -> None:
    text = frames.encode(frame)
    assert json.loads(text) == want
    assert parse_server(text) == frame


def test_a_logged_event_is_encoded_as_it_was_logged_once_validated() -> None:
    drew = {
        "type": "drew",
        "seat": 1,
        "tile": None,
        "replacement": False,
        "wall_left": 50,
        "table": "t1",
        "seq": 9,
    }
    assert json.loads(frames.encode(drew)) == drew
    result = settled("guiyang_16_qianggang_quanshao.json")
    ended = {"type": "round_ended", "result": result, "scores": [0] * 4, "table": "t1", "seq": 60}
    assert json.loads(frames.encode(ended)) == ended
    with pytest.raises(ValidationError, match="tile"):
        frames.encode({**drew, "tile": "0z"})
    with pytest.raises(ValidationError, match="hand"):
        frames.encode({**drew, "hand": ["1m"]})  # a field the frame does not have
    with pytest.raises(ValidationError):
        frames.error("Not A Code", "x")


def test_a_logged_dict_is_validated_as_it_is_encoded_only_where_checked(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A server writes its trusted dicts as they are (issue 26); the tests check every one
    (`ZHUOJI_CHECK_FRAMES`, set by tests/conftest.py, so each test's servers validate every
    frame they send, and so do the `zhuoji` processes they start)."""
    assert frames.CHECK and os.environ["ZHUOJI_CHECK_FRAMES"] == "1"
    drew = {"type": "drew", "seat": 1, "tile": None, "replacement": False, "wall_left": 50}
    leaky = {**drew, "table": "t1", "seq": 9, "hand": ["1m"]}
    with pytest.raises(ValidationError, match="hand"):
        frames.encode(leaky)
    monkeypatch.setattr(frames, "CHECK", False)
    assert json.loads(frames.encode(leaky)) == leaky  # unchecked: written as it is
