"""A table's core rebuilt from the store after a restart (`restore_core`).

A match a previous run left unfinished comes back at its last stored event: its settings are
checked again, its finished rounds give the running scores and the deal passing, and the round
being played is dealt again from its seed and replayed through the rules engine
(`server.resume.rebuild_round`), which must give the very events stored. What cannot be rebuilt
raises `Unrestorable`, carrying the core as far as it got: the shell freezes that table alone.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from protocol.events import LoggedEntry
from protocol.messages import ROUND_EVENT_TYPES
from rules.options import make_options
from rules.round import Phase
from server.credentials import new_salt, new_token
from server.resume import RebuildError, rebuild_round
from server.storage.stored import StoredTable
from server.table.core import TableCore
from server.table.settings import Settings, Timing


class Unrestorable(Exception):
    """`restore_core` could not rebuild the match: the core as far as it got (to be frozen)
    and why."""

    def __init__(self, core: TableCore[Any], err: BaseException) -> None:
        super().__init__(str(err))
        self.core = core
        self.err = err


def restore_core(
    stored: StoredTable,
    settings: Settings,
    *,
    timing: Timing,
    now: float,
    wall: float | None = None,
    problem: str | None = None,
    tokens: Callable[[], str] = new_token,
    salts: Callable[[], str] = new_salt,
) -> TableCore[Any]:
    """A match a previous run left unfinished, at its last stored event: the same hands,
    wall and turn, its seats waiting for their players (their tokens still good; the server's
    bots come back on `TableCore.resumed`). The round is rebuilt through the engine from its
    stored deal and actions and must give the stored events; if it cannot be (or there is a
    `problem` already), `Unrestorable` carries the core as far as it got, to be frozen.

    A match that had just ended comes back as it ended, for what is left of
    `finished_linger`: a player who dropped just before the end still sees it. The tokens
    to register with the server are the seats' `token_key`s."""
    row = stored.row
    core: TableCore[Any] = TableCore(
        stored.id,
        settings,
        seed=row.get("seed") or f"restored:{stored.id}",
        timing=timing,
        tokens=tokens,
        salts=salts,
    )
    core.state = "playing"
    core.events.seq = stored.seq
    # A private entry is parsed once, here: every view of it is projected from its event.
    core.events.keep([LoggedEntry.read(e) for e in stored.log])
    rows, keys = row.get("seats") or [], row.get("tokens") or []
    core.seats.restore(rows, keys, now=now, bank=settings.bank_seconds, seq=stored.seq)
    if row["state"] != "playing":
        # A match ended by vote is a finished one for its table (its result up, a rematch).
        core.state = "finished" if row["state"] == "voted" else row["state"]
        core.match.round_no = int(row.get("rounds_played") or 0)
        core.match.scores = list(row.get("scores") or [0, 0, 0, 0])
        ended = (row.get("ended_at") or 0) - (now if wall is None else wall)  # ago, < 0
        core.linger_until = now + ended + timing.finished_linger
        return core
    problem = stored.error or problem
    try:
        if problem is not None:
            raise RebuildError(problem)
        _rebuild(core, stored)
    except Exception as err:  # whatever it is, this table alone stops
        _stored_standings(core, row)
        raise Unrestorable(core, err) from err
    return core


def _stored_standings(core: TableCore[Any], row: dict[str, Any]) -> None:
    """A match that cannot be rebuilt keeps its stored standings: its freeze records the end
    alone, and its players are told the stored scores (not the part of them summed so far)."""
    core.keep_stored_standings = True
    scores = row.get("scores")
    m = core.match
    if isinstance(scores, list) and len(scores) == 4 and all(type(x) is int for x in scores):
        m.scores = list(scores)
    else:
        m.scores = [0, 0, 0, 0]


def _rebuild(core: TableCore[Any], stored: StoredTable) -> None:
    """The match and its current round from the stored rounds and actions."""
    m = core.match
    rounds = stored.rounds
    for k, rnd in enumerate(rounds):
        if rnd.round_no != k + 1 or (rnd.dealer, rnd.streak) != (m.dealer, m.streak):
            raise RebuildError(f"round {rnd.round_no} does not follow the one before")
        if rnd.base != core.s.base:
            raise RebuildError(f"round {rnd.round_no} has base {rnd.base}")
        m.round_no = rnd.round_no
        if rnd.result is None:
            if k != len(rounds) - 1:
                raise RebuildError(f"round {rnd.round_no} never ended but others followed")
            r = rebuild_round(core.s.options, rnd, stored.actions, stored.round_events)
            if r.phase is Phase.OVER:
                raise RebuildError(f"round {rnd.round_no} is over but not recorded so")
            core.round = r
            core.book.actions = len(stored.actions)
            core.book.salt, core.book.commitment = rnd.salt, rnd.commitment
        else:
            net = rnd.result["net"]
            for seat in range(4):
                m.scores[seat] += net[seat]
            m.dealer, m.streak = rnd.result["next_dealer"], rnd.result["next_streak"]
            m.history.append({"round": rnd.round_no, "net": net, "outcome": rnd.result["outcome"]})
    stored_scores = stored.row.get("scores")
    if stored_scores is not None and list(stored_scores) != m.scores:
        raise RebuildError(f"the stored scores {stored_scores} are not the rounds' {m.scores}")
    if m.round_no > core.s.rounds:
        raise RebuildError(f"{m.round_no} rounds of {core.s.rounds}")
    round_seqs = [e["seq"] for e in core.events.events if e["type"] in ROUND_EVENT_TYPES]
    core.decision_seq = round_seqs[-1] if round_seqs else core.seq
    # Each seat's 托管 as last announced (a seat coming back takes it off, as ever).
    for event in core.events.events:
        if event["type"] == "seat_status":
            core.seats[event["seat"]].auto = event["auto"]


def settings_from_row(row: dict[str, Any]) -> Settings:
    """A stored table's settings (its options checked again)."""
    options = make_options(row["preset"], dict(row["options"] or {}))
    wait = row.get("next_round_seconds")  # NULL: a table of an older zhuoji
    return Settings(
        name=str(row["name"]),
        preset=row["preset"],
        overrides=dict(row["options"] or {}),
        options=options,
        base=int(row["base"]),
        rounds=int(row["rounds"]),
        turn_seconds=float(row["turn_seconds"]),
        bank_seconds=float(row["bank_seconds"]),
        claim_min_ms=int(row["claim_min_ms"]),
        password_hash=row.get("password_hash"),
        bot_delay=None if row.get("bot_delay") is None else float(row["bot_delay"]),
        next_round_seconds=30.0 if wait is None else float(wait),
    )
