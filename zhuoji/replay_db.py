"""A server database read for the replay browser: its matches, and one match's rounds as tapes
(`client_tui.replay.RoundTape`), each rebuilt from its stored deal script."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from client_tui.replay import RoundTape, tape_from_script
from client_tui.replay_app import MatchEntry
from rules.script import ScriptError
from server.storage.reads import load_round_script, stored_matches, stored_round_numbers, table_row


def _names(seats: Any) -> tuple[str, ...]:
    names = [
        str(s.get("name") or f"#{i + 1}") if isinstance(s, dict) else f"#{i + 1}"
        for i, s in enumerate(seats or [])
    ]
    return tuple((names + [f"#{i + 1}" for i in range(4)])[:4])


def matches(db: Path) -> list[MatchEntry]:
    """The database's matches, newest first."""
    return [
        MatchEntry(
            table=str(m["id"]),
            name=str(m["name"]),
            preset=str(m["preset"]),
            state=str(m["state"]),
            rounds=int(m["rounds"]),
            players=_names(m["seats"]),
        )
        for m in stored_matches(db)
    ]


def tapes(db: Path, table: str) -> list[RoundTape]:
    """One match's stored rounds, in order, with the scores before each. A round that cannot be
    replayed (a database from an older engine) ends the list there."""
    row = table_row(db, table)
    if row is None:
        return []
    names = _names(row.get("seats"))
    numbers = stored_round_numbers(db, table)
    out: list[RoundTape] = []
    scores: tuple[int, ...] = (0, 0, 0, 0)
    for n in numbers:
        try:
            tape = tape_from_script(
                load_round_script(db, table, n),
                round_no=n,
                rounds=int(row.get("rounds") or len(numbers)),
                names=names,
                scores_before=scores,
                table=str(table),
                table_name=str(row.get("name") or table),
            )
        except ScriptError:
            break
        out.append(tape)
        if tape.net is not None:
            scores = tuple(a + b for a, b in zip(scores, tape.net, strict=True))
    return out
