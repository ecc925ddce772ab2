"""Matches played by the real table core on a fake clock into a real SQLite file: the records'
tests and benchmarks/records.py fill databases with them.

Every seat is a keyed human in 托管 (the policy plays it), a server bot, or a human who said hello
without a player key; the options are a random mix of a preset's; some matches are cut short
(closed by the host: abandoned)."""

from __future__ import annotations

import itertools
import random
import sqlite3
import typing
from pathlib import Path
from typing import Any

from protocol.messages import AddBot, Auto, Start, TakeSeat
from rules.options import PRESETS, RuleOptions, make_options, overrides_of
from server.storage.dbfile import open_database
from server.storage.record_sql import ops_of
from server.table.core import TableCore
from server.table.effects import Write
from server.table.settings import Settings, Timing

PLAYERS = [f"p-{i:012x}" for i in range(1, 9)]
BOTS = ("easy", "normal")  # the strong bot thinks for 60 ms a move: too slow to fill databases


class Member(str):
    """A connection as the core sees it: hashable, with the player id of its hello."""

    player: str | None = None


def member(name: str, player: str | None) -> Member:
    m = Member(name)
    m.player = player
    return m


def _choices() -> dict[str, list[Any]]:
    out: dict[str, list[Any]] = {"hand_cap": [None, 5, 25], "zeren_extra": [0, 2, 4]}
    for name, field in RuleOptions.model_fields.items():
        if field.annotation is bool:
            out[name] = [False, True]
        elif typing.get_origin(field.annotation) is typing.Literal:
            out[name] = list(typing.get_args(field.annotation))
    return out


CHOICES = _choices()


def random_options(rng: random.Random) -> tuple[str, RuleOptions]:
    preset = rng.choice(sorted(PRESETS))
    overrides = {k: rng.choice(v) for k, v in CHOICES.items() if rng.random() < 0.3}
    try:
        return preset, make_options(preset, overrides)
    except ValueError:  # a mix the options refuse together: the preset as it is
        return preset, make_options(preset, {})


def plain_settings(rounds: int, preset: str = "guiyang") -> Settings:
    """A table with no clock and no wait between rounds."""
    options = make_options(preset, {})
    return Settings(
        name="t",
        preset=preset,
        overrides={},
        options=options,
        base=1,
        rounds=rounds,
        turn_seconds=0.0,
        bank_seconds=0.0,
        claim_min_ms=0,
        next_round_seconds=0.0,
    )


def apply(db: sqlite3.Connection, effects: list[Any]) -> None:
    for e in effects:
        if isinstance(e, Write):
            db.execute("BEGIN")
            for sql, params in ops_of(e.records):
                db.execute(sql, params)
            db.execute("COMMIT")


def play_match(
    db: sqlite3.Connection,
    table_id: str,
    rng: random.Random,
    *,
    rounds: int,
    now: float,
    cut: bool = False,
) -> float:
    """Play one match at table `table_id` (its rows written to `db`); returns the clock after."""
    preset, options = random_options(rng)
    settings = Settings(
        name=f"t{table_id}",
        preset=preset,
        overrides=overrides_of(options, preset),
        options=options,
        base=rng.choice([1, 2]),
        rounds=rounds,
        turn_seconds=0.0,
        bank_seconds=0.0,
        claim_min_ms=0,
        next_round_seconds=0.0,
    )
    counter = itertools.count(1)
    core: TableCore[Member] = TableCore(
        table_id,
        settings,
        seed=f"records-{table_id}",
        timing=Timing(auto_level="easy"),
        tokens=lambda: f"token-{table_id}-{next(counter):012d}",
        salts=lambda: "5a" * 16,
    )
    who = rng.sample(PLAYERS, 4)
    kinds = ["human"] + [rng.choice(["human", "human", "bot", "anon"]) for _ in range(3)]
    host = member(f"h{table_id}-0", who[0])
    apply(db, core.create(host, "host", now))
    humans = [host]
    for seat in range(1, 4):
        if kinds[seat] == "bot":
            cmd = AddBot(seat=seat, level=rng.choice(BOTS))
            apply(db, core.command(host, cmd, now))
        else:
            m = member(f"h{table_id}-{seat}", who[seat] if kinds[seat] == "human" else None)
            humans.append(m)
            msg = TakeSeat(table=table_id, seat=seat)
            apply(db, core.join(m, f"n{seat}", msg, now, busy=False))
    now = _settle(db, core, now)
    for m in humans:
        apply(db, core.command(m, Auto(on=True), now))
    apply(db, core.command(host, Start(), now))
    stop_after = rng.randint(1, rounds) if cut else None
    limit = now + 100_000
    while core.state == "playing":
        if stop_after is not None and core.round_no > stop_after:
            apply(db, core.close_by_host(now))
            break
        at = core.next_wakeup()
        assert at is not None and at < limit, "the match stalled"
        now = max(now, at)
        apply(db, core.tick(now))
    return now + 1


def _settle(db: sqlite3.Connection, core: TableCore[Member], now: float) -> float:
    while (at := core.next_wakeup()) is not None and at <= now + 5:
        now = max(now, at)
        apply(db, core.tick(now))
    return now


def fill(
    path: Path, matches: int, *, seed: int = 1, rounds: tuple[int, int] = (1, 4), now: float = 1e9
) -> sqlite3.Connection:
    """A database at `path` with `matches` matches played (about one in six cut short)."""
    rng = random.Random(seed)
    db = open_database(path)
    for i in range(1, matches + 1):
        now = play_match(
            db, str(i), rng, rounds=rng.randint(*rounds), now=now, cut=rng.random() < 0.17
        )
    return db
