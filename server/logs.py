"""The server's log: one line per event that matters, plain or JSON.

The server logs through the standard `logging` module, under `zhuoji.*` (`zhuoji.server`,
`zhuoji.table`, `zhuoji.store`). A line that marks an event carries its name and its fields in
`extra` (`event`, `table`, `seat`, `code`, ...); the JSON form puts them beside the message, the
plain form has only the message:

    2026-12-01T11:35:11.042Z INFO zhuoji.table: table 3 created by 阿明 (guiyang, 8 rounds)
    {"time": "2026-12-01T11:35:11.042Z", "level": "info", "logger": "zhuoji.table",
     "event": "table_created", "table": "3", "msg": "table 3 created by ..."}

What is never logged: a tile nobody has been shown, a seat token (or its digest), a password (or
its hash), a match seed or a deal's salt. The call sites log codes, numbers and public names
only, never an error frame's text (a refusal's message may name a tile of the player's hand).
The websockets library logs every frame at DEBUG (tokens and hands included), so its loggers are
held at WARNING whatever the level asked for.

    configure(level="info", fmt="json")
"""

from __future__ import annotations

import json
import logging
import sys
import time
from typing import IO, Any

LEVELS = ("debug", "info", "warning", "error")
FORMATS = ("plain", "json")
QUIET = ("websockets",)  # libraries whose debug output would show frames

# The attributes every LogRecord has; the others were given in `extra`.
_STANDARD = frozenset(
    vars(logging.LogRecord("x", logging.INFO, "x", 0, "x", None, None)).keys()
) | {"message", "asctime", "taskName"}


def _timestamp(record: logging.LogRecord) -> str:
    """ISO 8601 in UTC with milliseconds."""
    seconds = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created))
    return f"{seconds}.{int(record.msecs):03d}Z"


def fields_of(record: logging.LogRecord) -> dict[str, Any]:
    """What the call gave in `extra`."""
    return {k: v for k, v in vars(record).items() if k not in _STANDARD and not k.startswith("_")}


class PlainFormatter(logging.Formatter):
    """`TIME LEVEL LOGGER: message` (a traceback follows on the lines after, as usual)."""

    def format(self, record: logging.LogRecord) -> str:
        line = f"{_timestamp(record)} {record.levelname} {record.name}: {record.getMessage()}"
        if record.exc_info:
            line += "\n" + self.formatException(record.exc_info)
        return line


class JsonFormatter(logging.Formatter):
    """One JSON object per line: time, level, logger, event, the extra fields, msg (and exc,
    a traceback as one string)."""

    def format(self, record: logging.LogRecord) -> str:
        out: dict[str, Any] = {
            "time": _timestamp(record),
            "level": record.levelname.lower(),
            "logger": record.name,
            "event": None,
        }
        out.update(fields_of(record))
        # Every line names an event: a line logged without one is a plain `message` (or an
        # `error` with a traceback), never `null`.
        if out.get("event") is None:
            out["event"] = "error" if record.exc_info else "message"
        out["msg"] = record.getMessage()
        if record.exc_info:
            out["exc"] = self.formatException(record.exc_info)
        return json.dumps(out, ensure_ascii=False, default=str)


def configure(level: str = "info", fmt: str = "plain", stream: IO[str] | None = None) -> None:
    """Send the process's log to `stream` (stderr) at `level` in `fmt` (plain or json). Called
    once by `zhuoji serve`; replaces the root logger's handlers."""
    if level not in LEVELS:
        raise ValueError(f"log level must be one of {', '.join(LEVELS)}, not {level!r}")
    if fmt not in FORMATS:
        raise ValueError(f"log format must be one of {', '.join(FORMATS)}, not {fmt!r}")
    handler = logging.StreamHandler(stream if stream is not None else sys.stderr)
    handler.setFormatter(JsonFormatter() if fmt == "json" else PlainFormatter())
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(handler)
    number = getattr(logging, level.upper())
    root.setLevel(number)
    for name in QUIET:
        logging.getLogger(name).setLevel(max(number, logging.WARNING))
