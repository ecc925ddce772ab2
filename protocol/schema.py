"""The protocol's JSON Schema, built from the models (`zhuoji schema` writes it to a file)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from protocol.messages import CLIENT_ADAPTER, PROTOCOL_VERSION, SERVER_ADAPTER

SCHEMA_PATH = Path(__file__).with_name("schema.json")


def build_schema() -> dict[str, Any]:
    """One JSON Schema (2020-12) with `ClientMessage` and `ServerMessage` in `$defs`."""
    defs: dict[str, Any] = {}
    tops: dict[str, Any] = {}
    for name, adapter in (("ClientMessage", CLIENT_ADAPTER), ("ServerMessage", SERVER_ADAPTER)):
        schema = adapter.json_schema(ref_template="#/$defs/{model}")
        for key, value in schema.pop("$defs", {}).items():
            if key in defs and defs[key] != value:
                raise ValueError(f"two different protocol models are both named {key!r}")
            defs[key] = value
        tops[name] = schema
    defs.update(tops)
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": f"https://zhuoji.invalid/protocol/v{PROTOCOL_VERSION}/schema.json",
        "title": f"zhuoji protocol version {PROTOCOL_VERSION}",
        "description": (
            "One JSON object per websocket text frame. A frame from a client is a ClientMessage, "
            "a frame from the server a ServerMessage; both are discriminated on `type`. "
            "See docs/PROTOCOL.md."
        ),
        "oneOf": [{"$ref": "#/$defs/ClientMessage"}, {"$ref": "#/$defs/ServerMessage"}],
        "$defs": defs,
    }


def schema_text() -> str:
    """The schema as the committed file holds it (stable key order, trailing newline)."""
    return json.dumps(build_schema(), indent=2, ensure_ascii=False) + "\n"
