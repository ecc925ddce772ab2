"""The schema and the server agree: what protocol/schema.json allows a client to send, the server
parses, and what the schema refuses, the server refuses too (issue: "the doc and the schema are the
server"). Messages are generated from the committed schema itself (hypothesis-jsonschema), so a
client written from the schema alone cannot be refused for something the schema allows."""

from __future__ import annotations

import json
from typing import Any

import jsonschema
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from hypothesis_jsonschema import from_schema
from pydantic import ValidationError

from protocol import names
from protocol.messages import parse_client
from protocol.schema import SCHEMA_PATH

SCHEMA: dict[str, Any] = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
CLIENT = SCHEMA["$defs"]["ClientMessage"]
CLIENT_MODELS = sorted(
    {ref.rsplit("/", 1)[1] for ref in CLIENT["discriminator"]["mapping"].values()}
)


def _schema_of(model: str) -> dict[str, Any]:
    return {"$defs": SCHEMA["$defs"], **SCHEMA["$defs"][model]}


VALIDATOR = jsonschema.Draft202012Validator({"$defs": SCHEMA["$defs"], **CLIENT})


@pytest.mark.parametrize("model", CLIENT_MODELS)
def test_every_client_message_the_schema_allows_is_parsed_by_the_server(model: str) -> None:
    @settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
    @given(from_schema(_schema_of(model)))
    def agree(message: dict[str, Any]) -> None:
        raw = json.dumps(message)
        # The one documented gap: refused characters beyond the BMP (protocol/names.py).
        assume(not names.beyond_the_schema(json.dumps(message, ensure_ascii=False)))
        try:
            parse_client(raw)
        except ValidationError as err:  # pragma: no cover - the failure message is the point
            pytest.fail(f"the schema allows {raw} but the server refuses it: {err}")

    agree()


@pytest.mark.parametrize("model", CLIENT_MODELS)
def test_every_client_message_requires_its_type(model: str) -> None:
    assert "type" in SCHEMA["$defs"][model]["required"]


@given(st.sampled_from(CLIENT_MODELS))
def test_a_message_without_type_is_refused_by_both(model: str) -> None:
    message = {"version": 2, "name": "阿明", "table": "t1"}
    assert not VALIDATOR.is_valid(message)
    with pytest.raises(ValidationError):
        parse_client(json.dumps(message))


@pytest.mark.parametrize("seat", [-0.0, 1.0, 3.0])
def test_a_whole_number_written_with_a_point_is_an_integer_for_both(seat: float) -> None:
    message = {"type": "take_seat", "table": "t1", "seat": seat}
    assert VALIDATOR.is_valid(message)
    assert parse_client(json.dumps(message)).seat == int(seat)  # type: ignore[union-attr]


@pytest.mark.parametrize("seat", [1.5, 4.0, -1.0])
def test_a_seat_out_of_range_or_with_a_fraction_is_refused_by_both(seat: float) -> None:
    message = {"type": "take_seat", "table": "t1", "seat": seat}
    assert not VALIDATOR.is_valid(message)
    with pytest.raises(ValidationError):
        parse_client(json.dumps(message))


@pytest.mark.parametrize("name", ["Bot-2", " ", "\u200badmin", "\ufeffadmin", "a\u3164"])
def test_names_the_server_refuses_are_refused_by_the_schema(name: str) -> None:
    message = {"type": "hello", "version": 2, "name": name}
    assert not VALIDATOR.is_valid(message)
    with pytest.raises(ValidationError):
        parse_client(json.dumps(message))
