"""The client's one transition: `reduce(view, message) -> view`.

Pure: no I/O, no clock (the arrival time `at` is passed in), no Textual. Server frames are the
protocol models (`protocol.messages`); the client's own happenings are `client_tui.local`. Table
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

from client_tui.local import Acted, Connecting, ConnectionClosed, ConnectionLost, LocalMessage, Say
from client_tui.view import (
    Choice,
    ConnStatus,
    DiscardV,
    LastAction,
    MatchEndV,
    MeldV,
    Notice,
    PromptV,
    ResultV,
    RoundV,
    SeatV,
    TableV,
    View,
    WinV,
)
from protocol.fairdeal import check_deal
from protocol.messages import (
    ROUND_EVENT_TYPES,
    AddedGang,
    AddGangDeclared,
    AutoPlayed,
    Claimed,
    ConcealedGang,
    Discarded,
    Drew,
    Error,
    Exhausted,
    Flipped,
    Joined,
    Left,
    MatchEnded,
    MatchStarted,
    Prompt,
    RoundEnded,
    RoundStarted,
    RoundView,
    SeatStatus,
    ServerMessage,
    Snapshot,
    TableInfo,
    Tables,
    TableUpdate,
    Welcome,
    Won,
)
from rules.tiles import parse_tile

Message = ServerMessage | LocalMessage

# Frames that are table events: numbered, applied once, in order.
TABLE_EVENT_TYPES = ROUND_EVENT_TYPES | {
    "table", "match_started", "match_ended", "seat_status", "auto_played",
}  # fmt: skip


def reduce(view: View, message: Message, *, at: float = 0.0) -> View:
    """The view after `message`. `at` is when it arrived, on the clock the caller uses for
    deadlines (only a prompt's deadline reads it)."""
    if isinstance(message, Connecting | ConnectionLost | ConnectionClosed | Acted | Say):
        return _local(view, message)
    kind = message.type
    if kind in TABLE_EVENT_TYPES:
        return _table_event(view, message)
    if isinstance(message, Welcome):
        return replace(view, status="connected", status_detail="", attempt=0,
                       server=message.server, my_name=message.name)  # fmt: skip
    if isinstance(message, Tables):
        return replace(view, tables=tuple(table_v(t) for t in message.tables))
    if isinstance(message, Joined):
        return _joined(view, message)
    if isinstance(message, Left):
        if message.table != view.table_id:
            return view
        return _left_table(view)
    if isinstance(message, Snapshot):
        return _snapshot(view, message)
    if isinstance(message, Prompt):
        return _prompt(view, message, at)
    if isinstance(message, Error):
        return _error(view, message)
    return view


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
        return replace(view, status="closed", status_detail=m.reason, prompt=None,
                       notice=_notice(view, m.reason, "closed"))  # fmt: skip
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
        has_password=info.has_password,
        seats=tuple(SeatV(s.name, s.kind, s.connected, s.auto) for s in info.seats),
        spectators=info.spectators,
        state=info.state,
        round_no=info.round_no,
        scores=tuple(info.scores),
    )


def _left_table(view: View) -> View:
    return replace(view, table_id=None, table=None, seat=None, token=None, seq=0, round_seq=0,
                   names=("", "", "", ""), round=None, prompt=None, result=None, history=(),
                   scores=(0, 0, 0, 0), match_end=None)  # fmt: skip


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
    rnd = round_v(m.round, m.seat) if m.round is not None else None
    # The snapshot does not say which event the round last moved on: the next prompt decides.
    return replace(view, table=info, seat=m.seat, seq=m.seq, round_seq=0, round=rnd, prompt=None,
                   scores=info.scores, dealt=None,
                   names=tuple(s.name or "" for s in info.seats))  # fmt: skip


def round_v(rv: RoundView, viewer: int | None) -> RoundV:
    """A snapshot's round as a view value."""
    return RoundV(
        round_no=rv.round_no,
        dealer=rv.dealer,
        streak=rv.streak,
        base=rv.base,
        phase=rv.phase,
        turn=rv.turn,
        wall_left=rv.wall_left,
        hand=sort_tiles(rv.hand) if rv.hand is not None and viewer is not None else None,
        drawn=rv.drawn,
        hand_sizes=tuple(rv.hand_sizes),
        melds=tuple(
            tuple(MeldV(m.kind, m.tile, m.from_seat, m.dou) for m in row) for row in rv.melds
        ),  # fmt: skip
        discards=tuple(
            tuple(DiscardV(d.tile, d.claimed, d.declared) for d in row) for row in rv.discards
        ),  # fmt: skip
        declared=tuple(rv.declared),
        claim_tile=rv.claim_tile,
        claim_from=rv.claim_from,
        commitment=rv.commitment,
    )


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
        return replace(view, names=tuple(m.names), table=table, history=(), match_end=None,
                       result=None, scores=(0, 0, 0, 0))  # fmt: skip
    if isinstance(m, MatchEnded):
        table = view.table
        if table is not None:
            table = replace(table, state="finished", scores=tuple(m.scores))
        end = MatchEndV(tuple(m.scores), m.rounds_played, m.reason)
        return replace(view, match_end=end, scores=tuple(m.scores), table=table, prompt=None)
    if isinstance(m, AutoPlayed):
        prompt = None if m.seat == view.seat else view.prompt
        rnd = view.round
        if rnd is not None:
            rnd = replace(rnd, last=LastAction("auto_played", m.seat, None, m.reason))
        return replace(view, prompt=prompt, round=rnd)
    # A round event: the state moved on, so any prompt is answered or void (a new one follows).
    view = replace(view, prompt=None, round_seq=m.seq)
    if isinstance(m, RoundStarted):
        table = view.table
        if table is not None:
            table = replace(table, round_no=m.round_no, state="playing")
        rnd = RoundV(
            round_no=m.round_no, dealer=m.dealer, streak=m.streak, base=m.base, phase="turn",
            turn=m.dealer, wall_left=m.wall_left,
            hand=sort_tiles(m.hand) if m.hand is not None and view.seat is not None else None,
            hand_sizes=tuple(m.hand_sizes), commitment=m.commitment,
        )  # fmt: skip
        dealt = tuple(m.hand) if m.hand is not None and view.seat is not None else None
        return replace(view, round=rnd, table=table, dealt=dealt)
    if view.round is None:
        return view
    r = view.round
    if isinstance(m, RoundEnded):
        fair = None
        if r.commitment is not None:  # the fair deal: does the reveal open the commitment?
            deal = m.deal.model_dump() if m.deal is not None else None
            fair = not check_deal(r.commitment, deal, dealer=r.dealer, seat=view.seat,
                                  hand=view.dealt)  # fmt: skip
        res = ResultV(r.round_no, m.result, tuple(m.scores), r.dealer, r.winners, r.discards,
                      fair)  # fmt: skip
        table = view.table
        if table is not None:
            table = replace(table, scores=tuple(m.scores))
        # Everything is shown once the round is over: every hand, and the 暗杠 tiles.
        over = replace(r, phase="over", hands=res.hands)
        if (melds := res.melds) is not None:
            over = replace(over, melds=melds)
        return replace(view, round=over, result=res, history=view.history + (res,),
                       scores=tuple(m.scores), table=table)  # fmt: skip
    return replace(view, round=_round_event(r, m, view.seat))


def _round_event(r: RoundV, m: Any, me: int | None) -> RoundV:
    if isinstance(m, Drew):
        hand, drawn = r.hand, None
        if m.seat == me and hand is not None and m.tile is not None:
            hand, drawn = add_tile(hand, m.tile), m.tile
        return replace(r, hand=hand, drawn=drawn, phase="turn", turn=m.seat,
                       wall_left=m.wall_left, claim_tile=None, claim_from=None,
                       hand_sizes=_bump(r.hand_sizes, m.seat, 1))  # fmt: skip
    if isinstance(m, Discarded):
        hand = r.hand
        if m.seat == me and hand is not None:
            hand = remove_tile(hand, m.tile)
        declared = _set(r.declared, m.seat, r.declared[m.seat] or m.declared)
        return replace(
            r, hand=hand, drawn=None, phase="claim", turn=m.seat, claim_tile=m.tile,
            claim_from=m.seat, hand_sizes=_bump(r.hand_sizes, m.seat, -1), declared=declared,
            discards=_set(r.discards, m.seat, r.discards[m.seat] + (DiscardV(m.tile, False,
                                                                              m.declared),)),
            last=LastAction("discarded", m.seat, m.tile),
        )  # fmt: skip
    if isinstance(m, Claimed):
        n = 2 if m.act == "pong" else 3
        meld = MeldV("pong", m.tile, m.from_seat) if m.act == "pong" else MeldV(
            "ming", m.tile, m.from_seat, "dian")  # fmt: skip
        hand = r.hand
        if m.seat == me and hand is not None:
            hand = remove_tile(hand, m.tile, n)
        return replace(
            r, hand=hand, drawn=None, phase="turn", turn=m.seat, claim_tile=None,
            claim_from=None, hand_sizes=_bump(r.hand_sizes, m.seat, -n),
            melds=_set(r.melds, m.seat, r.melds[m.seat] + (meld,)),
            discards=_claim_last(r.discards, m.from_seat, m.tile),
            last=LastAction("claimed", m.seat, m.tile, m.act),
        )  # fmt: skip
    if isinstance(m, ConcealedGang):
        hand = r.hand
        if m.seat == me and hand is not None and m.tile is not None:
            hand = remove_tile(hand, m.tile, 4)
        meld = MeldV("an", m.tile, None, m.dou)
        return replace(
            r, hand=hand, drawn=None, phase="turn", turn=m.seat,
            hand_sizes=_bump(r.hand_sizes, m.seat, -4),
            melds=_set(r.melds, m.seat, r.melds[m.seat] + (meld,)),
            last=LastAction("concealed_gang", m.seat, m.tile if m.seat == me else None),
        )  # fmt: skip
    if isinstance(m, AddGangDeclared):
        return replace(r, phase="rob", turn=m.seat, claim_tile=m.tile, claim_from=m.seat,
                       last=LastAction("add_gang_declared", m.seat, m.tile))  # fmt: skip
    if isinstance(m, AddedGang):
        hand = r.hand
        if m.seat == me and hand is not None:
            hand = remove_tile(hand, m.tile)
        row = tuple(
            MeldV("bu", md.tile, md.from_seat, m.dou)
            if md.kind == "pong" and md.tile == m.tile
            else md
            for md in r.melds[m.seat]
        )
        return replace(
            r, hand=hand, drawn=None, phase="turn", turn=m.seat, claim_tile=None,
            claim_from=None, hand_sizes=_bump(r.hand_sizes, m.seat, -1),
            melds=_set(r.melds, m.seat, row), last=LastAction("added_gang", m.seat, m.tile),
        )  # fmt: skip
    if isinstance(m, Won):
        win = WinV(m.seat, m.how, m.tile, m.from_seat, m.pattern, tuple(m.bonuses), m.void,
                   sort_tiles(m.hand))  # fmt: skip
        discards, sizes, hand = r.discards, r.hand_sizes, r.hand
        if m.how == "discard" and m.from_seat is not None and m.tile is not None:
            discards = _claim_last(discards, m.from_seat, m.tile)
        if m.how == "rob" and m.from_seat is not None and m.tile is not None:
            # The robbed tile leaves the 补杠 player's hand (once, however many win on it).
            if not any(w.how == "rob" for w in r.winners):
                sizes = _bump(sizes, m.from_seat, -1)
                if m.from_seat == me and hand is not None:
                    hand = remove_tile(hand, m.tile)
        return replace(r, phase="over", winners=r.winners + (win,), discards=discards,
                       hand_sizes=sizes, hand=hand, claim_tile=None, claim_from=None)  # fmt: skip
    if isinstance(m, Exhausted):
        return replace(r, phase="over", exhausted=True, claim_tile=None, claim_from=None)
    if isinstance(m, Flipped):
        return replace(r, flip=m.tile)
    return r


# ----- tuple helpers -----


def sort_tiles(tiles: Sequence[str]) -> tuple[str, ...]:
    """Tiles in the order of RULES.md §1 (m, p, s, then rank).

    >>> sort_tiles(["1s", "9m", "5p", "1m"])
    ('1m', '9m', '5p', '1s')
    """
    return tuple(sorted(tiles, key=parse_tile))


def add_tile(hand: tuple[str, ...], tile: str) -> tuple[str, ...]:
    return sort_tiles(hand + (tile,))


def remove_tile(hand: tuple[str, ...], tile: str, n: int = 1) -> tuple[str, ...]:
    """`hand` without `n` copies of `tile` (as many as it has, if fewer).

    >>> remove_tile(("1m", "1m", "2m"), "1m")
    ('1m', '2m')
    """
    out = list(hand)
    for _ in range(n):
        if tile in out:
            out.remove(tile)
    return tuple(out)


def _bump(values: tuple[int, ...], seat: int, delta: int) -> tuple[int, ...]:
    return tuple(max(0, v + delta) if i == seat else v for i, v in enumerate(values))


def _set(values: tuple[Any, ...], seat: int, value: Any) -> tuple[Any, ...]:
    return tuple(value if i == seat else v for i, v in enumerate(values))


def _claim_last(
    discards: tuple[tuple[DiscardV, ...], ...], seat: int, tile: str
) -> tuple[tuple[DiscardV, ...], ...]:
    row = discards[seat]
    if not row or row[-1].tile != tile or row[-1].claimed:
        return discards
    return _set(discards, seat, row[:-1] + (replace(row[-1], claimed=True),))
