"""`server.logs.configure`: the two formats, the levels, and the libraries held quiet."""

from __future__ import annotations

import io
import json
import logging

import pytest

from server.logs import configure


def test_json_lines_carry_the_event_fields_and_a_traceback_in_one_line() -> None:
    out = io.StringIO()
    configure(level="info", fmt="json", stream=out)
    log = logging.getLogger("zhuoji.table")
    log.info("table %s created", "7", extra={"event": "table_created", "table": "7"})
    log.debug("not at info")
    try:
        raise ValueError("broken\ninvariant")
    except ValueError:
        log.exception("table %s: step failed", "7", extra={"event": "table_error"})
    lines = out.getvalue().splitlines()
    assert len(lines) == 2
    first, second = (json.loads(line) for line in lines)
    assert first["event"] == "table_created" and first["table"] == "7"
    assert first["msg"] == "table 7 created" and first["level"] == "info"
    assert first["logger"] == "zhuoji.table" and first["time"].endswith("Z")
    assert second["level"] == "error" and "ValueError: broken" in second["exc"]


def test_plain_lines_and_debug_keeps_the_websockets_frames_out() -> None:
    out = io.StringIO()
    configure(level="debug", fmt="plain", stream=out)
    logging.getLogger("zhuoji.server").debug("conn %d open", 3)
    logging.getLogger("websockets.server").debug("< TEXT '{\"token\": ...}'")
    logging.getLogger("websockets.server").warning("a library warning")
    lines = out.getvalue().splitlines()
    assert len(lines) == 2
    assert lines[0].endswith(" DEBUG zhuoji.server: conn 3 open")
    assert lines[1].endswith(" WARNING websockets.server: a library warning")


def test_a_bad_level_or_format_is_named() -> None:
    with pytest.raises(ValueError, match="'loud'"):
        configure(level="loud")
    with pytest.raises(ValueError, match="'xml'"):
        configure(fmt="xml")
