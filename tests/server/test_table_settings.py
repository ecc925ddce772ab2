"""A table's settings (`server.table.settings`): what its header, its record and its checks
say, made without the core."""

from __future__ import annotations

from rules.options import make_options
from server.credentials import hash_password
from server.storage.records import TableCreated
from server.table.settings import Settings, Timing


def _settings(**kw: object) -> Settings:
    base: dict[str, object] = {
        "name": "t",
        "preset": "guiyang",
        "overrides": {"patterns.dilong": 10},
        "options": make_options("guiyang", {}),
        "base": 2,
        "rounds": 4,
        "turn_seconds": 0.0,
        "bank_seconds": 0.0,
        "claim_min_ms": 0,
    }
    return Settings(**{**base, **kw})


def test_the_bots_pace_is_the_tables_choice_else_the_servers() -> None:
    timing = Timing(bot_delay=0.7)
    assert _settings().pace(timing) == 0.7
    assert _settings(bot_delay=0.0).pace(timing) == 0.0  # a choice of no wait is a choice
    assert _settings(bot_delay=2.0).header(timing)["bot_delay"] == 2.0


def test_clocks_and_claim_holds_are_on_only_when_the_table_set_them() -> None:
    assert not _settings().timed and not _settings().holds_claims
    assert _settings(bank_seconds=5.0).timed and _settings(turn_seconds=5.0).timed
    assert _settings(claim_min_ms=600).holds_claims


def test_a_password_is_checked_against_its_hash_and_a_table_without_one_is_open() -> None:
    assert _settings().password_ok(None) and _settings().password_ok("anything")
    locked = _settings(password_hash=hash_password("sesame"))
    assert locked.password_ok("sesame")
    assert not locked.password_ok("Sesame") and not locked.password_ok(None)
    assert locked.header(Timing())["has_password"] is True
    assert "sesame" not in repr(locked)  # nor its hash: the header says only that there is one


def test_the_created_record_holds_what_create_table_fixed_and_the_seed() -> None:
    s = _settings(turn_seconds=15.0, bank_seconds=30.0, next_round_seconds=0.0)
    assert s.created("9", "seed-9", wall=1234.5) == TableCreated(
        id="9",
        name="t",
        preset="guiyang",
        options={"patterns.dilong": 10},
        base=2,
        rounds=4,
        turn_seconds=15.0,
        bank_seconds=30.0,
        claim_min_ms=0,
        bot_delay=None,  # the server's pace: not fixed by the table
        next_round_seconds=0.0,
        password_hash=None,
        seed="seed-9",
        created_at=1234.5,
    )
