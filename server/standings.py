"""Standings, ratings and match lists, read from the derived records (`server.records`) and the
matches' final scores: what `get_records` and `zhuoji stats` answer.

**Periods.** `tonight` is since 06:00 local time today (before 06:00: since 06:00 yesterday, so
an evening that runs past midnight stays one evening); `month` since the 1st of this month at
00:00 local time; `all` everything. A match counts in a period when its last round ended in it.

**Placements** come from a finished match's final scores; a tie shares the better place. An
abandoned match (or one still being played) counts its rounds but has no placement.

**A match ended by vote** (解散, stored as `voted`) counts its rounds and nets (each round in its
records was played out; the round cut short by the vote counts nothing), and is counted apart
(`voted`), with no placement and no rating change. Why not place it by the scores so far: a vote
passes without the players away past the grace, so three friends could lock in a placement (and
take rating) from a fourth who dropped, and a leader could settle a 1st early with friends who
only want to go home. Its nets are facts; its order is not a result of the match agreed on.

**The rating** is a 4-player Elo among humans, pairwise by placement, over every finished match
in the order they ended (all presets): each pair of rated players at a table is one game, won by
the better placed (a tie is a draw), with the expected score E = 1 / (1 + 10^((Rb − Ra) / 2400))
and a change of K/(n − 1) × Σ(S − E) with K = 32 and n the rated players at the table, so one
match moves a rating by at most 32. Everyone starts at 1500.

Why the 2400 divisor and not chess's 400: a mahjong match is mostly luck. With 400, players 200
points apart would be expected to place above one another 76 % of the time, which no mahjong
skill gap gives; ratings would then stay squeezed within a few dozen points and follow the last
few evenings' luck. With 2400 (as open_mahjong_unity rates its 4-player matches) 200 points mean
55 %, about what a real gap between friends is worth, and the same K moves a rating as before.

Why bots are not rated and do not count as anchors: a table is filled with bots when friends are
short, and the bots never change. Counting games against them would let a rating grow by playing
bots alone, and mix "beats the bots" into "beats the group". So only human-human pairs count; a
match with fewer than two keyed humans changes no rating. Bots still have records and standings.

>>> places([10, -5, 10, -15])
[1, 3, 1, 4]
>>> [round(d, 2) for d in elo_changes([1500.0, 1500.0], [1, 2])]
[16.0, -16.0]
"""

from __future__ import annotations

import json
import math
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from server.records import COLUMNS, is_bot, seat_players
from server.storage import standings_reads as reads
from server.storage.standings_reads import Connection

K = 32.0
DIVISOR = 2400.0
START = 1500.0
STANDINGS_PAGE = 12
MATCHES_PAGE = 8
RECENT = 50
PERIODS = ("tonight", "month", "all")


def period_start(period: str, now: float | None = None) -> float | None:
    """The start of `period` (epoch seconds, local time), None for `all`."""
    now = time.time() if now is None else now
    t = time.localtime(now)
    if period == "all":
        return None
    if period == "month":
        return time.mktime((t.tm_year, t.tm_mon, 1, 0, 0, 0, 0, 0, -1))
    if period == "tonight":
        six = time.mktime((t.tm_year, t.tm_mon, t.tm_mday, 6, 0, 0, 0, 0, -1))
        return six if now >= six else six - 86400
    raise ValueError(f"unknown period {period!r} (tonight, month or all)")


def places(scores: Sequence[int]) -> list[int]:
    """Each seat's place by final score (1 best); a tie shares the better place."""
    return [1 + sum(1 for o in scores if o > s) for s in scores]


def elo_changes(ratings: Sequence[float], placed: Sequence[int]) -> list[float]:
    """The rating change of each rated player at one table (see the module docstring)."""
    n = len(ratings)
    if n < 2:
        return [0.0] * n
    out = []
    for i in range(n):
        total = 0.0
        for j in range(n):
            if i == j:
                continue
            s = 1.0 if placed[i] < placed[j] else 0.5 if placed[i] == placed[j] else 0.0
            e = 1.0 / (1.0 + 10 ** ((ratings[j] - ratings[i]) / DIVISOR))
            total += s - e
        out.append(K / (n - 1) * total)
    return out


@dataclass
class Match:
    """A started match that ended (finished or abandoned), as the lobby lists it."""

    table: str
    name: str
    preset: str
    state: str
    ended_at: float
    rounds_played: int
    seats_json: str  # the stored seats, decoded only for the lines shown (`names`)
    players: list[str | None]
    scores: list[int]
    places: list[int] | None  # finished matches only
    rating_changes: list[float | None] = field(default_factory=lambda: [None] * 4)

    @property
    def names(self) -> list[str | None]:
        seats = json.loads(self.seats_json)
        names = [(s.get("name") if isinstance(s, dict) else None) for s in seats[:4]]
        return names + [None] * (4 - len(names))

    def line(self) -> dict[str, Any]:
        return {
            "table": self.table,
            "name": self.name,
            "preset": self.preset,
            "ended_at": self.ended_at,
            "state": self.state,
            "rounds_played": self.rounds_played,
            "names": self.names,
            "players": self.players,
            "scores": self.scores,
            "rating_changes": [None if c is None else round(c, 1) for c in self.rating_changes],
        }


Placed = dict[str, tuple[list[int], list[float], list[int]]]
"""Per player: placements (1st–4th), the rating change, and the matches ended by vote (no
placement), over the matches counted."""


@dataclass
class Book:
    """Every ended match in the order they ended, with the ratings they made."""

    matches: list[Match]
    ratings: dict[str, float]
    names: dict[str, str]
    kinds: dict[str, str]
    placed: dict[tuple[float | None, str | None], Placed] = field(default_factory=dict)

    def match(self, table: str) -> Match | None:
        return next((m for m in self.matches if m.table == table), None)


_BOOKS: dict[str, tuple[tuple[Any, ...], Book]] = {}
"""The last book read from each database file, with the state it was read at (`_state`)."""
_BOOKS_LOCK = threading.Lock()


def _state(conn: Connection) -> tuple[int, float | None]:
    """What the book depends on: how many matches have ended, and the latest end. An ended
    match changes no more (its rounds and records are final), so a new end only adds to the
    book, and a prune (fewer ended matches) has it read again."""
    return reads.ended_state(conn)


def read_book(conn: Connection) -> Book:
    """The ended matches and the ratings (one pass over the matches, oldest first), kept per
    database file: when matches have ended since, only they are read and rated (they ended
    last); the players' names are read every time."""
    names: dict[str, str] = {}
    kinds: dict[str, str] = {}
    for pid, name, kind in reads.players(conn):
        names[pid], kinds[pid] = name, kind
    where = reads.file_of(conn)
    state = _state(conn)
    with _BOOKS_LOCK:
        kept = _BOOKS.get(where) if where else None
    if kept is not None and kept[0] == state:
        same = kept[1]
        same.names, same.kinds = names, kinds
        return same
    book: Book | None = None
    if kept is not None and state[0] > kept[0][0] and kept[0][1] is not None:
        old = kept[1]
        ratings = dict(old.ratings)
        known = {m.table for m in old.matches}
        added = _read_matches(conn, ratings, since=kept[0][1], skip=known)
        if len(old.matches) + len(added) == state[0]:  # only new ends: add them
            book = Book(old.matches + added, ratings, names, kinds)
    if book is None:
        ratings = {}
        book = Book(_read_matches(conn, ratings), ratings, names, kinds)
    if where:
        with _BOOKS_LOCK:
            _BOOKS[where] = (state, book)
    return book


def _read_matches(
    conn: Connection,
    ratings: dict[str, float],
    *,
    since: float | None = None,
    skip: frozenset[str] | set[str] = frozenset(),
) -> list[Match]:
    """The ended matches (that ended at or after `since`, but those in `skip`) in the order
    they ended, rated on `ratings` (updated)."""
    matches: list[Match] = []
    # Who sat where, from the derived table (its `player_id` is the stored seat's player, as
    # `seat_players` reads it): decoding every match's seats would cost more than the rest.
    seated: dict[str, list[str | None]] = {}
    for tid, seat, pid in reads.ended_seats(conn, since):
        seated.setdefault(tid, [None, None, None, None])[seat] = pid
    for tid, name, preset, state, ended, played, seats_json, scores_json in reads.ended_matches(
        conn, since
    ):
        if tid in skip:
            continue
        scores = json.loads(scores_json) if scores_json else [0, 0, 0, 0]
        players = seated.get(tid)
        if players is None:  # no round ended: nobody's record, but the line shows the seats
            players = seat_players(json.loads(seats_json))
        m = Match(
            table=tid,
            name=name,
            preset=preset,
            state=state,
            ended_at=float(ended or 0.0),
            rounds_played=int(played or 0),
            seats_json=seats_json,
            players=players,
            scores=[int(x) for x in scores],
            places=places(scores) if state == "finished" else None,
        )
        if m.places is not None:
            rated = [s for s, p in enumerate(players) if p is not None and not is_bot(p)]
            before = [ratings.get(players[s] or "", START) for s in rated]
            changes = elo_changes(before, [m.places[s] for s in rated])
            for s, r, c in zip(rated, before, changes, strict=True):
                ratings[players[s] or ""] = r + c
                m.rating_changes[s] = c
        matches.append(m)
    return matches


def _placed(counted: list[Match]) -> Placed:
    out: Placed = {}
    for m in counted:
        if m.places is None:
            if m.state == "voted":  # once per match (two bots of one level are one player)
                for p in set(m.players):
                    if p is not None:
                        out.setdefault(p, ([0, 0, 0, 0], [0.0], [0]))[2][0] += 1
            continue
        for s, p in enumerate(m.players):
            if p is not None:
                places, change, _ = out.setdefault(p, ([0, 0, 0, 0], [0.0], [0]))
                places[m.places[s] - 1] += 1
                change[0] += m.rating_changes[s] or 0.0
    return out


def _record(book: Book, pid: str, sums: dict[str, int], placed: Placed) -> dict[str, Any]:
    placements, changes, voted = placed.get(pid, ([0, 0, 0, 0], [0.0], [0]))
    change = changes[0]
    rounds = sums.get("rounds", 0)

    def rate(n: int) -> float | None:
        return None if rounds == 0 else round(n / rounds, 4)

    bot = is_bot(pid)
    return {
        "player": pid,
        "name": book.names.get(pid, pid)[:24] or pid,
        "bot": bot,
        "matches": sum(placements),
        "rounds": rounds,
        "placements": placements,
        "voted": voted[0],
        "net": sums.get("net", 0),
        "net_per_round": None if rounds == 0 else round(sums.get("net", 0) / rounds, 2),
        "win_rate": rate(sums.get("wins", 0)),
        "zimo_rate": rate(sums.get("zimo", 0)),
        "dealin_rate": rate(sums.get("dealins", 0)),
        **{c: sums.get(c, 0) for c in COLUMNS if c not in ("rounds", "net")},
        "rating": None if bot else round(book.ratings.get(pid, START), 1),
        "rating_change": None if bot else round(change, 1),
    }


def _counted(book: Book, since: float | None, preset: str | None) -> list[Match]:
    return [
        m
        for m in book.matches
        if (since is None or m.ended_at >= since) and (preset is None or m.preset == preset)
    ]


def standings(
    conn: Connection,
    book: Book,
    since: float | None,
    preset: str | None,
    player: str | None = None,
) -> list[dict[str, Any]]:
    """Every player's record over the matches counted (`player`: that one only, [] if they
    have none), best net first."""
    rows = reads.sums(conn, since, preset, player)
    placed = book.placed.get((since, preset))
    if placed is None:
        placed = book.placed[(since, preset)] = _placed(_counted(book, since, preset))
    out = [
        _record(book, r[0], {c: int(v or 0) for c, v in zip(COLUMNS, r[1:], strict=True)}, placed)
        for r in rows
    ]
    out.sort(key=lambda rec: (-rec["net"], rec["name"]))
    return out


def empty_record(book: Book, pid: str) -> dict[str, Any]:
    return _record(book, pid, {}, {})


def recent(
    conn: Connection, book: Book, pid: str, since: float | None, preset: str | None
) -> tuple[list[int], list[int]]:
    """A player's net and place (0: no place) in their latest `RECENT` matches, oldest first."""
    rows = reads.latest(conn, pid, since, preset, RECENT)[::-1]
    by_table = {m.table: m for m in book.matches}
    nets, placed = [], []
    for tid, seat, net in rows:
        m = by_table.get(tid)
        nets.append(int(net))
        placed.append(m.places[seat] if m is not None and m.places is not None else 0)
    return nets, placed


def answer(
    conn: Connection,
    *,
    period: str = "all",
    preset: str | None = None,
    player: str | None = None,
    table: str | None = None,
    page: int = 0,
    now: float | None = None,
) -> dict[str, Any]:
    """The `records` frame for a `get_records`."""
    since = period_start(period, now)
    book = read_book(conn)
    table_rows = standings(conn, book, since, preset)
    ended = _counted(book, since, preset)[::-1]
    pages = max(
        1, math.ceil(len(table_rows) / STANDINGS_PAGE), math.ceil(len(ended) / MATCHES_PAGE)
    )
    frame: dict[str, Any] = {
        "type": "records",
        "period": period,
        "preset": preset,
        "page": page,
        "pages": pages,
        "standings": table_rows[page * STANDINGS_PAGE : (page + 1) * STANDINGS_PAGE],
        "matches": [m.line() for m in ended[page * MATCHES_PAGE : (page + 1) * MATCHES_PAGE]],
    }
    if player is not None:
        mine = [r for r in table_rows if r["player"] == player]
        frame["me"] = mine[0] if mine else empty_record(book, player)
        frame["recent_net"], frame["recent_places"] = recent(conn, book, player, since, preset)
    if table is not None:
        m = book.match(table)
        frame["match"] = None if m is None else m.line()
    return frame
