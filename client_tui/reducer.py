"""The client's one transition: `reduce(view, message) -> view`.

Pure: no I/O, no clock (the arrival time `at` is passed in), no Textual. Server frames are the
protocol models (`protocol.messages`); the client's own happenings are `client_tui.local`. The
round itself is the rules core's `rules.view.SeatView`, moved by `rules.view.reduce` (each frame
read back as a rules event by `protocol.events.seen_event`), and kept nowhere else. Table
events are applied once each: a frame whose `seq` the view already has is a duplicate (a replay
after a reconnect) and changes nothing.

>>> from protocol.messages import Welcome
>>> reduce(View(), Welcome(version=1, server="zhuoji", name="阿明")).status
'connected'
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from client_tui.analysis import options_for
from client_tui.local import Acted, Connecting, ConnectionClosed, ConnectionLost, LocalMessage, Say
from client_tui.view import (
    Choice,
    ConnStatus,
    LastAction,
    MatchEndV,
    Notice,
    PromptV,
    ResultV,
    SeatV,
    TableV,
    View,
    VoteV,
    WaitV,
)
from protocol.events import seen_event, snapshot_view
from protocol.fairdeal import check_deal
from protocol.messages import (
    ROUND_EVENT_TYPES,
    AddedGang,
    AddGangDeclared,
    AutoPlayed,
    BetweenRounds,
    Claimed,
    ConcealedGang,
    Discarded,
    EndVote,
    Error,
    Joined,
    Left,
    MatchEnded,
    MatchStarted,
    Prompt,
    RoundEnded,
    RoundStarted,
    SeatStatus,
    ServerMessage,
    Snapshot,
    Spectators,
    TableInfo,
    Tables,
    TableUpdate,
    Welcome,
)
from rules.options import RuleOptions
from rules.tiles import parse_tile
from rules.view import Leak, start
from rules.view import reduce as reduce_view

Message = ServerMessage | LocalMessage

# Frames that are table events: numbered, applied once, in order.
TABLE_EVENT_TYPES = ROUND_EVENT_TYPES | {
    "table",
    "match_started",
    "match_ended",
    "seat_status",
    "auto_played",
}


def reduce(view: View, message: Message, *, at: float = 0.0) -> View:
    """The view after `message`. `at` is when it arrived, on the clock the caller uses for
    deadlines (only a prompt's deadline reads it)."""
    if isinstance(message, Connecting | ConnectionLost | ConnectionClosed | Acted | Say):
        return _local(view, message)
    kind = message.type
    if kind in TABLE_EVENT_TYPES:
        return _table_event(view, message)
    if isinstance(message, Welcome):
        return replace(
            view,
            status="connected",
            status_detail="",
            attempt=0,
            server=message.server,
            my_name=message.name,
        )
    if isinstance(message, Tables):
        return replace(
            view,
            tables=tuple(table_v(t) for t in message.tables),
            tables_page=message.page,
            tables_pages=message.pages,
        )
    if isinstance(message, Joined):
        return _joined(view, message)
    if isinstance(message, Left):
        if message.table != view.table_id:
            return view
        return _left_table(view)
    if isinstance(message, Snapshot):
        return _snapshot(view, message)
    if isinstance(message, Spectators):
        if message.table != view.table_id or view.table is None:
            return view
        return replace(view, table=replace(view.table, spectators=message.count))
    if isinstance(message, Prompt):
        return _prompt(view, message, at)
    if isinstance(message, BetweenRounds):
        if message.table != view.table_id:
            return view
        deadline = None if message.deadline_ms is None else at + message.deadline_ms / 1000
        wait = WaitV(message.round_no, tuple(message.ready), deadline, message.rematch)
        return replace(view, wait=wait)
    if isinstance(message, EndVote):
        return _end_vote(view, message, at)
    if isinstance(message, Error):
        return _error(view, message)
    return view


def _end_vote(view: View, m: EndVote, at: float) -> View:
    """A vote to end the match: shown while open; when it ends, a notice (`code` `vote_<outcome>`,
    `text` the name of the seat that refused, or of the proposer: the app words it)."""
    if m.table != view.table_id:
        return view
    if m.outcome == "open":
        deadline = None if m.deadline_ms is None else at + m.deadline_ms / 1000
        vote = VoteV(m.proposer, tuple(m.voters), tuple(m.agreed), deadline)
        return replace(view, end_vote=vote)
    who = m.refused_by if m.refused_by is not None else m.proposer
    name = view.names[who] if who < len(view.names) else ""
    if view.table is not None and not name:
        name = view.table.seats[who].name or ""
    notice = _notice(view, name or f"#{who + 1}", f"vote_{m.outcome}", error=False)
    return replace(view, end_vote=None, notice=notice)


# ----- connection and lobby -----


def _notice(view: View, text: str, code: str = "", error: bool = True) -> Notice:
    n = view.notice.n + 1 if view.notice is not None else 1
    return Notice(n, text, code, error)


def _local(view: View, m: LocalMessage) -> View:
    if isinstance(m, Connecting):
        again = m.attempt > 0 or view.status == "reconnecting"
        status: ConnStatus = "reconnecting" if again else "connecting"
        return replace(view, status=status, url=m.url, attempt=m.attempt)
    if isinstance(m, ConnectionLost):
        # The prompt cannot be answered any more; the server sends it again after the resume.
        return replace(view, status="reconnecting", status_detail=m.reason, prompt=None)
    if isinstance(m, ConnectionClosed):
        return replace(
            view,
            status="closed",
            status_detail=m.reason,
            prompt=None,
            notice=_notice(view, m.reason, "closed"),
        )
    if isinstance(m, Acted):
        if view.prompt is None:
            return view
        return replace(view, prompt=replace(view.prompt, answered=True))
    return replace(view, notice=_notice(view, m.text, "", m.error))


def table_v(info: TableInfo) -> TableV:
    """The protocol's table header as a view value."""
    return TableV(
        id=info.id,
        name=info.name,
        preset=info.preset,
        options=tuple(sorted(info.options.items())),
        base=info.base,
        rounds=info.rounds,
        turn_seconds=info.turn_seconds,
        bank_seconds=info.bank_seconds,
        bot_delay=info.bot_delay,
        has_password=info.has_password,
        seats=tuple(SeatV(s.name, s.kind, s.connected, s.auto, s.level) for s in info.seats),
        spectators=info.spectators,
        state=info.state,
        round_no=info.round_no,
        scores=tuple(info.scores),
    )


def _left_table(view: View) -> View:
    return replace(
        view,
        table_id=None,
        table=None,
        seat=None,
        token=None,
        seq=0,
        round_seq=0,
        names=("", "", "", ""),
        round=None,
        last=None,
        commitment=None,
        prompt=None,
        result=None,
        history=(),
        scores=(0, 0, 0, 0),
        match_end=None,
        wait=None,
        end_vote=None,
    )


def _joined(view: View, m: Joined) -> View:
    if m.table != view.table_id:
        # A new table: nothing of the old one carries over. Its snapshot follows.
        view = _left_table(view)
    token = m.token if m.token is not None else (view.token if m.seat == view.seat else None)
    return replace(view, table_id=m.table, seat=m.seat, token=token)


def _snapshot(view: View, m: Snapshot) -> View:
    if m.table != view.table_id:
        return view
    info = table_v(m.info)
    rv = m.round
    rnd = snapshot_view(rv, m.seat, _rules(info)) if rv is not None else None
    # The snapshot does not say which event the round last moved on: the next prompt decides.
    return replace(
        view,
        table=info,
        seat=m.seat,
        seq=m.seq,
        round_seq=0,
        round=rnd,
        round_no=rv.round_no if rv is not None else view.round_no,
        round_base=rv.base if rv is not None else view.round_base,
        commitment=rv.commitment if rv is not None else None,
        last=None,
        prompt=None,
        end_vote=None,  # an open vote's `end_vote` follows the snapshot
        scores=info.scores,
        dealt=None,
        names=tuple(s.name or "" for s in info.seats),
        wait=None,  # a wait still on follows the snapshot
    )


def _rules(table: TableV | None) -> RuleOptions:
    """The table's rules, which the round's seat view is started with (and which the client then
    reads from that view: `client_tui.analysis.rules_for`)."""
    return options_for(table)


def _prompt(view: View, m: Prompt, at: float) -> View:
    # A prompt quotes the round event it asks about; one older than the latest round event is
    # stale (seat and table changes since do not matter: they number events but ask nothing).
    if m.table != view.table_id or m.seat != view.seat or m.seq < view.round_seq:
        return view
    prompt = PromptV(
        seq=m.seq,
        actions=tuple(Choice(c.act, c.tile) for c in m.actions),
        default=Choice(m.default.act, m.default.tile),
        deadline_at=None if m.deadline_ms is None else at + m.deadline_ms / 1000,
        bank_ms=m.bank_ms,
    )
    return replace(view, prompt=prompt)


def _error(view: View, m: Error) -> View:
    view = replace(view, notice=_notice(view, m.message, m.code))
    if m.ref == "act" and view.prompt is not None:
        # Refused: nothing changed at the table, so the prompt stands; let the player answer again.
        view = replace(view, prompt=replace(view.prompt, answered=False))
    if m.code == "bad_token":
        # Our seat is gone (the match ended while we were away): back to the lobby.
        view = _left_table(view)
    return view


# ----- table events -----


def _table_event(view: View, m: Any) -> View:
    if m.table != view.table_id or m.seq <= view.seq:
        return view  # another table's, or one we already have (a replay after a reconnect)
    view = replace(view, seq=m.seq)
    if isinstance(m, TableUpdate):
        info = table_v(m.info)
        return replace(view, table=info, scores=info.scores)
    if isinstance(m, SeatStatus):
        if view.table is None:
            return view
        seats = list(view.table.seats)
        seats[m.seat] = replace(seats[m.seat], connected=m.connected, auto=m.auto)
        return replace(view, table=replace(view.table, seats=tuple(seats)))
    if isinstance(m, MatchStarted):
        table = view.table
        if table is not None:
            table = replace(table, state="playing", rounds=m.rounds)
        return replace(
            view,
            names=tuple(m.names),
            table=table,
            history=(),
            match_end=None,
            result=None,
            scores=(0, 0, 0, 0),
            wait=None,
            end_vote=None,
        )
    if isinstance(m, MatchEnded):
        table = view.table
        if table is not None:
            table = replace(table, state="finished", scores=tuple(m.scores))
        end = MatchEndV(tuple(m.scores), m.rounds_played, m.reason)
        return replace(
            view, match_end=end, scores=tuple(m.scores), table=table, prompt=None, end_vote=None
        )
    if isinstance(m, AutoPlayed):
        prompt = None if m.seat == view.seat else view.prompt
        if view.round is None:
            return replace(view, prompt=prompt)
        return replace(view, prompt=prompt, last=LastAction("auto_played", m.seat, None, m.reason))
    # A round event: the state moved on, so any prompt is answered or void (a new one follows).
    view = replace(view, prompt=None, round_seq=m.seq)
    if isinstance(m, RoundStarted):
        table = view.table
        if table is not None:
            table = replace(table, round_no=m.round_no, state="playing")
        deal = seen_event(m)
        assert deal is not None
        try:
            sv = start(_rules(view.table), view.seat, deal)
        except Leak:
            return view  # a deal showing a spectator a hand: not ours to keep
        dealt = tuple(m.hand) if m.hand is not None and view.seat is not None else None
        return replace(
            view,
            round=sv,
            round_no=m.round_no,
            round_base=m.base,
            commitment=m.commitment,
            last=None,
            table=table,
            dealt=dealt,
            wait=None,
        )
    r = view.round
    if r is None:
        return view
    event = seen_event(m)
    if event is None:
        return view
    try:
        sv = reduce_view(r, event)
    except (Leak, ValueError, StopIteration):
        if not isinstance(m, RoundEnded):
            return view  # a frame that does not fit the round as we have it changes nothing
        sv = r  # the round's result is kept all the same
    view = replace(view, round=sv, last=_last(view.last, m, view.seat))
    if isinstance(m, RoundEnded):
        fair = None
        if view.commitment is not None:  # the fair deal: does the reveal open the commitment?
            reveal = m.deal.model_dump() if m.deal is not None else None
            fair = not check_deal(
                view.commitment, reveal, dealer=r.dealer, seat=view.seat, hand=view.dealt
            )
        res = ResultV(
            view.round_no, m.result, tuple(m.scores), r.dealer, r.discards, fair, r.weekday
        )
        table = view.table
        if table is not None:
            table = replace(table, scores=tuple(m.scores))
        return replace(
            view, result=res, history=view.history + (res,), scores=tuple(m.scores), table=table
        )
    return view


def _last(last: LastAction | None, m: Any, me: int | None) -> LastAction | None:
    """The move the status line names (tiles as kinds)."""
    if isinstance(m, Discarded):
        return LastAction("discarded", m.seat, parse_tile(m.tile))
    if isinstance(m, Claimed):
        return LastAction("claimed", m.seat, parse_tile(m.tile), m.act)
    if isinstance(m, ConcealedGang):
        tile = parse_tile(m.tile) if m.seat == me and m.tile is not None else None
        return LastAction("concealed_gang", m.seat, tile)
    if isinstance(m, AddGangDeclared):
        return LastAction("add_gang_declared", m.seat, parse_tile(m.tile))
    if isinstance(m, AddedGang):
        return LastAction("added_gang", m.seat, parse_tile(m.tile))
    return last


# ----- tuple helpers -----


def sort_tiles(tiles: Sequence[str]) -> tuple[str, ...]:
    """Tiles in the order of RULES.md §1 (m, p, s, then rank).

    >>> sort_tiles(["1s", "9m", "5p", "1m"])
    ('1m', '9m', '5p', '1s')
    """
    return tuple(sorted(tiles, key=parse_tile))
