"""A group's records (战绩), computed from the stored events: one truth, a derived table beside it.

The one function that does the arithmetic is `round_tally`: one round's dealer, 连庄 count, who
declared ready (报听/天听) and its settlement (`round_ended.result`, read through its structured
`wins`, `payments[].details`, `chickens`, `dou`, never the display strings) give each seat's
`Tally` for that round. `match_tallies` folds it over a match's stored events (`round_started`,
`discarded`, `round_ended`), so the derived table can always be rebuilt from the events
(`server.storage.tallies.rebuild`, `zhuoji admin rebuild-records`); the server adds each round's
tallies when it stores the round (`tallies.round_record_ops`, in the round's own commit). A test
holds the two equal. This module is the arithmetic; the table's SQL is `server.storage.tallies`.

The derived table `records` has one row per match and seat: the player who held the seat (its
last holder when a seat changed hands), the preset, when its last round ended, and the sums (or
maxima) of the seat's tallies. Placements and ratings are read from the matches' final scores
(`tables.scores`, the sum of the stored rounds' nets) when asked: a match only has a placement
once it is finished.

>>> t = round_tally(0, 2, [False] * 4, {"outcome": "draw", "wins": [], "payments": [],
...     "net": [0, 0, 0, 0], "ready": [True, False, False, False], "chickens": [], "dou": []})
>>> t[0].draws, t[0].ready_at_draw, t[0].streak, t[1].streak
(1, 1, 3, 0)
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, fields
from typing import Any

BOT_LEVELS = ("easy", "normal", "strong")


def bot_player_id(level: str | None) -> str:
    """A server bot's player id: one per level (`bot-normal`)."""
    return f"bot-{level or 'normal'}"


def is_bot(player_id: str) -> bool:
    return player_id.startswith("bot-")


def seat_players(seats: Sequence[Mapping[str, Any]] | None) -> list[str | None]:
    """The player id of each seat, from a match's stored seats (`tables.seats`): a human's
    `player` (None if it said hello without a player key), a bot's id by its level."""
    out: list[str | None] = []
    for row in list(seats or [])[:4]:
        if row.get("kind") == "bot":
            out.append(bot_player_id(row.get("level")))
        else:
            player = row.get("player")
            out.append(player if isinstance(player, str) else None)
    return out + [None] * (4 - len(out))


# ---------------------------------------------------------------------------------------------
# The arithmetic


@dataclass
class Tally:
    """What one seat did: over one round, or summed over a match (`add`). `biggest` (the most
    one won hand brought in) and `streak` (the longest run of deals as dealer) are maxima."""

    rounds: int = 0
    net: int = 0
    wins: int = 0
    zimo: int = 0  # wins by 自摸
    dealins: int = 0  # 点炮: rounds where this seat's discard (or robbed gang) was won on
    draws: int = 0  # 荒庄 rounds
    ready_at_draw: int = 0  # 荒庄 rounds this seat ended ready (听牌)
    declared: int = 0  # rounds this seat declared ready (报听 or 天听)
    declared_won: int = 0  # of those, rounds it won
    chongfeng: int = 0  # 冲锋鸡 made (chicken tiles)
    zeren_paid: int = 0  # 责任鸡 payments paid
    zeren_received: int = 0  # 责任鸡 payments received
    baoji_paid: int = 0  # rounds it paid 包鸡
    dou: int = 0  # 豆 (gangs) made
    biggest: int = 0  # the most one won hand brought in (hand payments received that round)
    streak: int = 0  # the longest run of deals as dealer (1 + 连庄 count)

    MAXED = ("biggest", "streak")

    def add(self, other: Tally) -> None:
        for f in fields(self):
            a, b = getattr(self, f.name), getattr(other, f.name)
            setattr(self, f.name, max(a, b) if f.name in Tally.MAXED else a + b)


COLUMNS: tuple[str, ...] = tuple(f.name for f in fields(Tally))


def round_tally(
    dealer: int, streak: int, declared: Sequence[bool], result: Mapping[str, Any]
) -> list[Tally]:
    """Each seat's tally for one finished round. A settlement stored by an older zhuoji (before
    the structured `wins`, payment `kind`s and chicken `kind`s) counts what it holds: the rounds,
    the nets, the draws; the rest as zero.

    A void win (诈胡, 包牌) is no win and feeds nobody; a discard or 抢杠 win counts one 点炮 for
    the seat it was won from (once per round, however many won on it)."""
    out = [Tally(rounds=1, net=int(result["net"][s])) for s in range(4)]
    out[dealer].streak = streak + 1
    fed: set[int] = set()
    for win in result.get("wins") or []:
        if win.get("void"):
            continue
        seat = win["seat"]
        out[seat].wins += 1
        if win.get("how") == "zimo":
            out[seat].zimo += 1
        elif win.get("from") is not None:
            fed.add(win["from"])
        if declared[seat]:
            out[seat].declared_won += 1
    for seat in fed:
        out[seat].dealins += 1
    for s in range(4):
        out[s].declared = int(bool(declared[s]))
    if result.get("outcome") == "draw":
        ready = result.get("ready") or [False] * 4
        for s in range(4):
            out[s].draws = 1
            out[s].ready_at_draw = int(bool(ready[s]))
    hand_in = [0, 0, 0, 0]
    baoji: set[int] = set()
    for p in result.get("payments") or []:
        kind, payer, payee = p.get("kind"), p["from"], p["to"]
        if kind == "hand":
            hand_in[payee] += p["amount"]
        elif kind == "zeren":
            out[payer].zeren_paid += 1
            out[payee].zeren_received += 1
        elif kind == "baoji":
            baoji.add(payer)
    for s in range(4):
        out[s].biggest = hand_in[s]
    for s in baoji:
        out[s].baoji_paid = 1
    for tally in result.get("chickens") or []:
        for line in tally.get("lines") or []:
            if line.get("kind") == "chongfeng":
                out[tally["seat"]].chongfeng += line.get("count", 1)
    for listing in result.get("dou") or []:
        out[listing["seat"]].dou += 1
    return out


def match_tallies(events: Iterable[Mapping[str, Any]]) -> list[Tally]:
    """Each seat's tally summed over a match's stored events (any order-preserving subset that
    holds every `round_started`, declared `discarded` and `round_ended`). A round without its
    `round_ended` (cut short) counts nothing."""
    total = [Tally() for _ in range(4)]
    dealer, streak = 0, 0
    declared = [False] * 4
    for e in events:
        kind = e.get("type")
        if kind == "round_started":
            dealer, streak, declared = e["dealer"], e["streak"], [False] * 4
        elif kind == "discarded" and e.get("declared"):
            declared[e["seat"]] = True
        elif kind == "round_ended":
            for s, t in enumerate(round_tally(dealer, streak, declared, e["result"])):
                total[s].add(t)
    return total
