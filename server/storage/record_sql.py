"""The SQL each record becomes: the one place that maps `server.storage.records` to statements,
and the statements themselves (`op_*`, one per kind of change). The writer
(`server.storage.writer`) commits them; nothing else in the server writes SQL.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import Any

from server.storage.records import (
    ActionPlayed,
    EventLogged,
    MatchStarted,
    PlayerJoined,
    PlayerRenamed,
    Record,
    RoundDealt,
    RoundEnded,
    RoundTallied,
    SeatsChanged,
    TableAbandoned,
    TableCreated,
    TableEnded,
    TokensChanged,
)
from server.storage.tallies import round_record_ops

Op = tuple[str, Sequence[Any]]
"""One SQL statement and its parameters."""


def ops_of(records: Iterable[Record]) -> list[Op]:
    """The statements that store `records`, in order (one transaction)."""
    ops: list[Op] = []
    for record in records:
        ops += _ops(record)
    return ops


def _ops(record: Record) -> list[Op]:
    # The records of every move first (a `match` tries its cases in order).
    match record:
        case EventLogged(table_id, round_no, event, at):
            return [op_insert_event(table_id, round_no, event, at)]
        case ActionPlayed():
            a = record
            return [
                op_insert_action(
                    a.table_id, a.round_no, a.idx, a.seat, a.act, a.tile, a.phase, a.auto, a.at
                )
            ]
        case TableCreated():
            row = {
                "id": record.id,
                "name": record.name,
                "preset": record.preset,
                "options": record.options,
                "base": record.base,
                "rounds": record.rounds,
                "turn_seconds": record.turn_seconds,
                "bank_seconds": record.bank_seconds,
                "claim_min_ms": record.claim_min_ms,
                "bot_delay": record.bot_delay,
                "next_round_seconds": record.next_round_seconds,
                "has_password": record.password_hash is not None,
                "password_hash": record.password_hash,
                "seed": record.seed,
                "created_at": record.created_at,
            }
            return [op_insert_table(row)]
        case MatchStarted(table_id, seats, tokens, at):
            return [op_start_table(table_id, seats, tokens, at)]
        case SeatsChanged(table_id, seats, tokens):
            return [op_set_seats(table_id, seats, tokens)]
        case TokensChanged(table_id, tokens):
            return [op_set_tokens(table_id, tokens)]
        case TableEnded(table_id, state, scores, rounds_played, at):
            return [op_end_table(table_id, state, scores, rounds_played, at)]
        case TableAbandoned(table_id, at):
            return [op_abandon_table(table_id, at)]
        case RoundDealt():
            r = record
            return [
                op_insert_round(
                    r.table_id,
                    r.round_no,
                    r.seed,
                    r.dealer,
                    r.streak,
                    r.base,
                    r.hands,
                    r.wall,
                    r.at,
                    r.salt,
                    r.commitment,
                    r.weekday,
                )
            ]
        case RoundEnded(table_id, round_no, result, net, scores, at):
            return op_end_round(table_id, round_no, result, net, scores, at)
        case RoundTallied(table_id, dealer, streak, declared, result, seats, at):
            return round_record_ops(table_id, dealer, streak, declared, result, seats, at)
        case PlayerJoined(pid, digest, name, at):
            return [op_insert_player(pid, digest, name, at)]
        case PlayerRenamed(pid, name, at):
            return [op_rename_player(pid, name, at)]


# ----- the statements -----


def op_insert_table(row: dict[str, Any]) -> Op:
    return (
        "INSERT INTO tables (id, name, preset, options, base, rounds, turn_seconds, bank_seconds,"
        " claim_min_ms, has_password, created_at, state, seed, password_hash, bot_delay,"
        " next_round_seconds)"
        " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
        (
            row["id"],
            row["name"],
            row["preset"],
            json.dumps(row["options"]),
            row["base"],
            row["rounds"],
            row["turn_seconds"],
            row["bank_seconds"],
            row["claim_min_ms"],
            int(row["has_password"]),
            row["created_at"],
            "waiting",
            row.get("seed"),
            row.get("password_hash"),
            row.get("bot_delay"),
            row.get("next_round_seconds", 30.0),
        ),
    )


def op_start_table(
    table_id: str, seats: list[dict[str, Any]], tokens: list[str | None], now: float
) -> Op:
    """The match starts: the seats, and the digests of their tokens (so a restarted server
    knows them again; the tokens themselves are never stored)."""
    return (
        "UPDATE tables SET state='playing', started_at=?, seats=?, scores='[0,0,0,0]', tokens=?"
        " WHERE id=?",
        (now, json.dumps(seats, ensure_ascii=False), json.dumps(tokens), table_id),
    )


def op_set_tokens(table_id: str, tokens: list[str | None]) -> Op:
    """New token digests (a restarted server gives its own bots new tokens)."""
    return ("UPDATE tables SET tokens=? WHERE id=?", (json.dumps(tokens), table_id))


def op_set_seats(table_id: str, seats: list[dict[str, Any]], tokens: list[str | None]) -> Op:
    """A started match's seats changed hands (a seat taken back or handed on): their names
    and token digests, as `op_start_table` stored them."""
    return (
        "UPDATE tables SET seats=?, tokens=? WHERE id=?",
        (json.dumps(seats, ensure_ascii=False), json.dumps(tokens), table_id),
    )


def op_end_table(
    table_id: str, state: str, scores: list[int], rounds_played: int, now: float
) -> Op:
    return (
        "UPDATE tables SET state=?, ended_at=?, scores=?, rounds_played=? WHERE id=?",
        (state, now, json.dumps(scores), rounds_played, table_id),
    )


def op_abandon_table(table_id: str, now: float) -> Op:
    """A match ends as abandoned with its stored standings (scores, rounds played) kept as
    they are: the freeze of a table that could not be restored, whose core never summed them."""
    return (
        "UPDATE tables SET state='abandoned', ended_at=? WHERE id=?",
        (now, table_id),
    )


def op_insert_round(
    table_id: str,
    round_no: int,
    seed: str,
    dealer: int,
    streak: int,
    base: int,
    hands: list[list[str]],
    wall: list[str],
    now: float,
    salt: str | None = None,
    commitment: str | None = None,
    weekday: int | None = None,
) -> Op:
    return (
        "INSERT INTO rounds (table_id, round_no, seed, dealer, streak, base, hands, wall,"
        " started_at, salt, commitment, weekday) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
        (
            table_id,
            round_no,
            seed,
            dealer,
            streak,
            base,
            json.dumps(hands),
            json.dumps(wall),
            now,
            salt,
            commitment,
            weekday,
        ),
    )


def op_end_round(
    table_id: str,
    round_no: int,
    result: dict[str, Any],
    net: list[int],
    scores: list[int],
    now: float,
) -> list[Op]:
    return [
        (
            "UPDATE rounds SET ended_at=?, result=?, net=? WHERE table_id=? AND round_no=?",
            (now, json.dumps(result, ensure_ascii=False), json.dumps(net), table_id, round_no),
        ),
        (
            "UPDATE tables SET scores=?, rounds_played=? WHERE id=?",
            (json.dumps(scores), round_no, table_id),
        ),
    ]


def op_insert_action(
    table_id: str,
    round_no: int,
    idx: int,
    seat: int,
    act: str,
    tile: str | None,
    phase: str,
    auto: bool,
    now: float,
) -> Op:
    return (
        "INSERT INTO actions (table_id, round_no, idx, seat, act, tile, phase, auto, at)"
        " VALUES (?,?,?,?,?,?,?,?,?)",
        (table_id, round_no, idx, seat, act, tile, phase, int(auto), now),
    )


def op_insert_event(table_id: str, round_no: int, event: dict[str, Any], now: float) -> Op:
    return (
        "INSERT INTO events (table_id, seq, round_no, type, data, at) VALUES (?,?,?,?,?,?)",
        (
            table_id,
            event["seq"],
            round_no,
            event["type"],
            json.dumps(event, ensure_ascii=False, separators=(",", ":")),
            now,
        ),
    )


def op_insert_player(player_id: str, key_digest: str, name: str, now: float) -> Op:
    return (
        "INSERT INTO players (id, key_digest, name, kind, created_at, seen_at)"
        " VALUES (?, ?, ?, 'human', ?, ?)",
        (player_id, key_digest, name, now, now),
    )


def op_rename_player(player_id: str, name: str, now: float) -> Op:
    return ("UPDATE players SET name = ?, seen_at = ? WHERE id = ?", (name, now, player_id))
