"""The protocol models: what they accept, what they refuse, and the committed schema."""

from __future__ import annotations

import json

import pytest
from pydantic import ValidationError

from protocol.messages import (
    PROTOCOL_VERSION,
    SERVER_ADAPTER,
    Act,
    CreateTable,
    Hello,
    Prompt,
    parse_client,
    parse_server,
)
from protocol.schema import SCHEMA_PATH, build_schema, schema_text
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
        {"type": "drew", "table": "t1", "seq": 8, "seat": 1, "tile": None, "replacement": False,
         "wall_left": 50}
    )  # fmt: skip
    assert drew.type == "drew"
