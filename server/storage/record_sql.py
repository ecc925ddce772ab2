"""The SQL each record becomes: the one place that maps `server.storage.records` to the
store's statements (`server.store`'s `op_*`, whose SQL text lives in the store)."""

from __future__ import annotations

from collections.abc import Iterable

from server import store as st
from server.records import round_record_ops
from server.storage.records import (
    ActionPlayed,
    EventLogged,
    MatchStarted,
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


def ops_of(records: Iterable[Record]) -> list[st.Op]:
    """The statements that store `records`, in order (one transaction)."""
    ops: list[st.Op] = []
    for record in records:
        ops += _ops(record)
    return ops


def _ops(record: Record) -> list[st.Op]:
    match record:
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
            return [st.op_insert_table(row)]
        case MatchStarted(table_id, seats, tokens, at):
            return [st.op_start_table(table_id, seats, tokens, at)]
        case SeatsChanged(table_id, seats, tokens):
            return [st.op_set_seats(table_id, seats, tokens)]
        case TokensChanged(table_id, tokens):
            return [st.op_set_tokens(table_id, tokens)]
        case TableEnded(table_id, state, scores, rounds_played, at):
            return [st.op_end_table(table_id, state, scores, rounds_played, at)]
        case TableAbandoned(table_id, at):
            return [st.op_abandon_table(table_id, at)]
        case RoundDealt():
            r = record
            return [
                st.op_insert_round(
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
            return st.op_end_round(table_id, round_no, result, net, scores, at)
        case RoundTallied(table_id, dealer, streak, declared, result, seats, at):
            return round_record_ops(table_id, dealer, streak, declared, result, seats, at)
        case ActionPlayed():
            a = record
            return [
                st.op_insert_action(
                    a.table_id, a.round_no, a.idx, a.seat, a.act, a.tile, a.phase, a.auto, a.at
                )
            ]
        case EventLogged(table_id, round_no, event, at):
            return [st.op_insert_event(table_id, round_no, event, at)]
