"""A finished match's rounds for one of its players (`get_rounds` → `rounds`): every stored round
event, masked for that seat by the rules core (`protocol.events.project_entry`, exactly as the
seat's frames were made at the table), read from the database without touching the live store.
"""

from __future__ import annotations

import hmac
import json
from pathlib import Path
from typing import Any

from protocol.events import project_entry
from protocol.messages import ROUND_EVENT_TYPES
from server.storage.reads import rounds_logged, table_row


class NotYours(Exception):
    """The asker holds no seat of that match."""


class NotOver(Exception):
    """The match is still waiting or playing."""


def seat_of(digests: list[Any] | None, key: str) -> int | None:
    """The seat whose stored token digest is `key` (`server.credentials.token_key`), if any."""
    for seat, digest in enumerate(digests or []):
        if isinstance(digest, str) and hmac.compare_digest(digest, key):
            return seat
    return None


def rounds_for(db: Path, table: str, *, seat: int | None, token_key: str | None) -> dict[str, Any]:
    """The `rounds` frame of `table` for `seat` (seated there now) or the holder of the token
    whose digest is `token_key`. Raises NotYours or NotOver."""
    row = table_row(db, table)
    if row is None:
        raise NotYours(table)
    if seat is None and token_key is not None:
        seat = seat_of(json.loads(row["tokens"]) if row["tokens"] else None, token_key)
    if seat is None:
        raise NotYours(table)
    if row["state"] not in ("finished", "abandoned", "voted"):
        raise NotOver(table)
    events = rounds_logged(db, table)
    logs: dict[int, list[dict[str, Any]]] = {}
    for round_no, entry in events:
        if entry.get("type") in ROUND_EVENT_TYPES:
            logs.setdefault(round_no, []).append(project_entry(entry, seat))
    seats = row["seats"] or []
    names = [str(s.get("name") or f"#{i + 1}") for i, s in enumerate(seats)][:4]
    names += [f"#{i + 1}" for i in range(len(names), 4)]
    return {
        "type": "rounds",
        "table": str(row["id"]),
        "seat": seat,
        "name": row["name"],
        "preset": row["preset"],
        "options": row["options"],
        "rounds": row["rounds"],
        "state": row["state"],
        "names": names,
        "logs": [{"round_no": n, "events": logs[n]} for n in sorted(logs)],
    }
