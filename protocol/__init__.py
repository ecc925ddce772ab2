"""The zhuoji wire protocol: pydantic models of every frame, close and error codes.

See docs/PROTOCOL.md for a walk through a session; `protocol/schema.json` is the JSON Schema
(`zhuoji schema` regenerates it).
"""

from protocol.messages import (
    CLIENT_ADAPTER,
    MAX_FRAME_BYTES,
    PROTOCOL_VERSION,
    SERVER_ADAPTER,
    ClientMessage,
    ServerMessage,
    parse_client,
    parse_server,
)

__all__ = [
    "CLIENT_ADAPTER",
    "MAX_FRAME_BYTES",
    "PROTOCOL_VERSION",
    "SERVER_ADAPTER",
    "ClientMessage",
    "ServerMessage",
    "parse_client",
    "parse_server",
]
