"""The table core on a fake clock: every time limit is a deadline the test reaches by moving
`now`, never by waiting. The core is driven as the asyncio shell drives it — an input, then
`tick`s at `next_wakeup()` — and the effects are collected as a shell would perform them.
"""

from __future__ import annotations

import ast
import itertools
from collections import defaultdict
from pathlib import Path
from typing import Any, TypeVar

import pytest

from protocol import frames
from protocol.messages import Act, AddBot, Auto, TakeSeat, Watch, parse_client
from rules.options import make_options
from rules.players.levels import policy_for
from rules.round import Phase
from rules.tiles import tile_name
from server.credentials import token_key
from server.storage.dbfile import open_database as connect
from server.storage.record_sql import ops_of
from server.storage.records import ActionPlayed, EventLogged, Record, TableCreated
from server.storage.writer import Store
from server.table.core import TableCore
from server.table.effects import (
    Accepted,
    Bind,
    Close,
    DropToken,
    Effect,
    IssueToken,
    Remove,
    Send,
    StartRematch,
    Unbind,
    Write,
)
from server.table.projection import Frame
from server.table.restore import restore_core
from server.table.settings import AUTO_LEVEL, Settings, Timing

ROOT = Path(__file__).resolve().parents[2]
R = TypeVar("R")


def settings(**fields: Any) -> Settings:
    base: dict[str, Any] = {
        # Seat 0 deals first: the tests follow the deal from the host's seat.
        "name": "测试",
        "preset": "guiyang",
        "overrides": {"first_dealer": "seat0"},
        "base": 1,
        "rounds": 1,
        "turn_seconds": 0.0,
        "bank_seconds": 0.0,
        "claim_min_ms": 0,
    }
    base.update(fields)
    return Settings(options=make_options(base["preset"], base["overrides"]), **base)


def fields(frame: Frame) -> dict[str, Any]:
    """A frame's JSON fields, whether a projected event (a dict) or a model."""
    return frame if isinstance(frame, dict) else frames.logged(frame)


class Shell:
    """A fake shell: a fake clock, the frames each member got, the statements written, the
    server's token registry, and whether the table asked to be removed."""

    def __init__(
        self, timing: Timing | None = None, *, db: Path | None = None, **fields: Any
    ) -> None:
        self.now = 1000.0
        self.db = None if db is None else connect(db)  # a real SQLite file, when given
        counter = itertools.count(1)
        self.core: TableCore[str] = TableCore(
            "7",
            settings(**fields),
            seed="core-test",
            timing=timing or Timing(),
            tokens=lambda: f"token-{next(counter):012d}",  # a valid token (the frames check)
            salts=lambda: "5a" * 16,
        )
        self.frames: dict[str, list[dict[str, Any]]] = defaultdict(list)
        self.sent: list[tuple[float, str, dict[str, Any]]] = []  # (when, to, frame)
        self.records: list[Record] = []  # what the core asked to store, in order
        self.tokens: set[str] = set()
        self.bound: dict[str, int | None] = {}
        self.closed: list[str] = []
        self.accepted = 0
        self.removed = False

    def perform(self, effects: list[Effect]) -> list[Effect]:
        for e in effects:
            if isinstance(e, Send):
                frame = fields(e.frame)
                for member in e.to:
                    self.frames[member].append(frame)
                    self.sent.append((self.now, member, frame))
            elif isinstance(e, Write):
                self.records += e.records
                if self.db is not None:
                    with self.db:
                        self.db.execute("BEGIN")
                        for sql, params in ops_of(e.records):
                            self.db.execute(sql, params)
            elif isinstance(e, IssueToken):
                self.tokens.add(e.key)
            elif isinstance(e, DropToken):
                self.tokens.discard(e.key)
            elif isinstance(e, Bind):
                self.bound[e.member] = e.seat
            elif isinstance(e, Unbind):
                self.bound.pop(e.member, None)
            elif isinstance(e, Close):
                self.closed.append(e.member)
            elif isinstance(e, Accepted):
                self.accepted += 1
            elif isinstance(e, Remove):
                self.removed = True
        return effects

    # ----- inputs -----

    def input(self, effects: list[Effect]) -> list[Effect]:
        """Perform an input's effects, then the ticks due at once (its events' frames, which
        wait for its writes), as the shell does."""
        self.perform(effects)
        self.settle()
        return effects

    def create(self, member: str = "host") -> None:
        self.input(self.core.create(member, member, self.now))

    def sit(self, member: str, seat: int | None = None) -> None:
        msg = TakeSeat(table="7", seat=seat)
        self.input(self.core.join(member, member, msg, self.now, busy=False))

    def command(self, member: str, frame: dict[str, Any]) -> list[Effect]:
        return self.input(self.core.command(member, parse_client_frame(frame), self.now))

    def run_until(self, when: float) -> None:
        """Let time pass to `when`, ticking at each deadline on the way, as the shell's timer
        would."""
        while (at := self.core.next_wakeup()) is not None and at <= when:
            self.now = max(self.now, at)
            self.perform(self.core.tick(self.now))
        self.now = when

    def tick_until(self, done: Any, limit: float = 600.0) -> None:
        """Tick at each deadline until `done()` holds (within `limit` seconds of fake time)."""
        end = self.now + limit
        while not done():
            at = self.core.next_wakeup()
            assert at is not None and at <= end, "nothing more happens"
            self.now = max(self.now, at)
            self.perform(self.core.tick(self.now))

    def settle(self) -> None:
        """Everything due now (bots with no delay, frames not held) is done."""
        self.run_until(self.now)

    # ----- reading -----

    def of(self, member: str, kind: str) -> list[dict[str, Any]]:
        return [f for f in self.frames[member] if f["type"] == kind]

    def last_prompt(self, member: str) -> dict[str, Any]:
        return self.of(member, "prompt")[-1]

    def stored_events(self) -> list[str]:
        return [r.event["type"] for r in self.stored(EventLogged)]

    def stored(self, kind: type[R]) -> list[R]:
        """The records of one kind the core asked to store, in order."""
        return [r for r in self.records if isinstance(r, kind)]


def parse_client_frame(frame: dict[str, Any]) -> Any:
    import json

    return parse_client(json.dumps(frame))


def host_and_bots(shell: Shell, *, auto: bool = False) -> None:
    """The host at seat 0, three server bots arrived, the match started."""
    shell.create()
    for _ in range(3):
        shell.command("host", {"type": "add_bot"})
    shell.settle()  # the bots take their seats
    if auto:
        shell.command("host", {"type": "auto", "on": True})
    shell.command("host", {"type": "start"})
    shell.settle()


def test_a_bot_takes_its_seat_at_the_next_tick_as_a_client_did() -> None:
    shell = Shell()
    shell.create()
    assert shell.bound == {"host": 0} and len(shell.tokens) == 1
    joined = shell.of("host", "joined")[0]
    assert token_key(joined["token"]) in shell.tokens
    effects = shell.perform(shell.core.command("host", AddBot(type="add_bot"), shell.now))
    assert [type(e) for e in effects] == [Write], "the event's frames wait for its write"
    assert shell.core.next_wakeup() == shell.now
    shell.settle()
    table = shell.of("host", "table")[-1]
    assert table["info"]["seats"][1] == {
        "name": "Bot-2",
        "kind": "bot",
        "connected": False,
        "auto": False,
        "level": "normal",
        "away": False,
    }
    assert shell.of("host", "seat_status") == [
        {
            "type": "seat_status",
            "seat": 1,
            "connected": True,
            "auto": False,
            "table": "7",
            "seq": table["seq"] + 1,
        }
    ]
    assert len(shell.tokens) == 1, "a server bot needs no token: it never connects"


def test_a_prompt_not_answered_in_time_plays_the_policy_and_sets_tuoguan() -> None:
    shell = Shell(turn_seconds=5, bank_seconds=10)
    host_and_bots(shell)
    r = shell.core.round
    assert r is not None and r.awaiting() == [0]  # seat 0 deals: its turn first
    prompt = shell.last_prompt("host")
    assert prompt["deadline_ms"] == 15_000 and prompt["bank_ms"] == 10_000
    # The move is the best bot level's (the seat's own policy, seeded by table and seat).
    default = policy_for(AUTO_LEVEL, "7:0:auto").choose(r.clone(), 0)
    started = shell.now
    assert shell.core.next_wakeup() == started + 15
    shell.run_until(started + 14.9)
    assert not shell.of("host", "auto_played") and r.awaiting() == [0]
    shell.run_until(started + 15)
    auto = shell.of("host", "auto_played")[0]
    assert auto == {**auto, "seat": 0, "act": default.act, "reason": "timeout"}
    status = [f for f in shell.of("host", "seat_status") if f["seat"] == 0]
    assert status[-1]["auto"] is True and status[-1]["connected"] is True
    assert shell.core.seats[0].auto
    assert default.act == "discard" and default.tile is not None
    discarded = next(f for f in shell.of("host", "discarded") if f["seat"] == 0)
    assert discarded["tile"] == tile_name(default.tile)
    first = shell.stored(ActionPlayed)[0]
    # Stored as the server's move.
    assert (first.seat, first.act, first.tile, first.phase, first.auto) == (
        0,
        "discard",
        tile_name(default.tile),
        "turn",
        True,
    )


def test_the_bank_pays_for_the_time_past_the_turn() -> None:
    shell = Shell(turn_seconds=2, bank_seconds=10, rounds=2)
    host_and_bots(shell)
    prompt = shell.last_prompt("host")
    r = shell.core.round
    assert r is not None
    shell.now += 5.5  # 3.5 s of the bank spent
    action = r.default_action(0)
    assert action.tile is not None
    shell.command(
        "host",
        {"type": "act", "seq": prompt["seq"], "act": action.act, "tile": tile_name(action.tile)},
    )
    assert shell.accepted == 1
    assert shell.core.seats[0].clock.bank == pytest.approx(6.5)
    shell.settle()  # the bots play (no delay) until the host is asked again
    assert r.phase is not Phase.OVER and 0 in r.awaiting()
    later = shell.last_prompt("host")
    assert later["seq"] > prompt["seq"]
    assert later["bank_ms"] == 6500 and later["deadline_ms"] == 8500


def test_the_claim_window_minimum_holds_the_next_event_not_the_write() -> None:
    shell = Shell(claim_min_ms=400, timing=Timing(bot_delay=0.0))
    host_and_bots(shell, auto=True)  # the server plays every seat; only the pace limits it
    t0 = shell.now
    first = [t for t, m, f in shell.sent if f["type"] == "discarded"]
    assert first == [t0], "the first discard goes out at once"
    written = len(shell.stored_events())
    # The window stays open 0.4 s, whether or not anyone may claim: what follows is decided
    # when it closes, and nothing is sent before.
    assert shell.core.seq == next(f["seq"] for f in shell.of("host", "discarded"))
    assert shell.core.round is not None and shell.core.round.phase is Phase.CLAIM
    assert t0 < shell.core.next_wakeup() <= t0 + 0.4  # type: ignore[operator]
    shell.run_until(t0 + 0.399)
    assert [f["type"] for t, m, f in shell.sent if t > t0] == []
    assert len(shell.stored_events()) == written
    shell.run_until(t0 + 10)
    assert len(shell.stored_events()) > written
    stamps = [(t, f) for t, m, f in shell.sent if m == "host"]
    gaps = [
        later[0] - t
        for (t, f), later in itertools.pairwise(stamps)
        if f["type"] == "discarded" and later[1]["type"] != "prompt"
    ]
    assert len(gaps) >= 10 and min(gaps) >= 0.4 - 1e-9, gaps
    seqs = [f["seq"] for t, f in stamps if "seq" in f and f["type"] != "prompt"]
    assert seqs == sorted(seqs), "frames go out in order"


def test_a_prompt_held_behind_the_claim_minimum_starts_its_clock_when_it_goes_out() -> None:
    shell = Shell(claim_min_ms=1000, turn_seconds=3, timing=Timing(bot_delay=0.5))
    host_and_bots(shell)
    r = shell.core.round
    assert r is not None
    prompt = shell.last_prompt("host")
    tile = next(t for t in range(27) if r.hands[0][t])
    shell.command(
        "host", {"type": "act", "seq": prompt["seq"], "act": "discard", "tile": tile_name(tile)}
    )
    t0 = shell.now
    # The bots play on (0.5 s each, frames 1 s after each discard) until the host is asked.
    shell.tick_until(lambda: 0 in r.awaiting() and shell.of("host", "prompt")[-1] is not prompt)
    sent_at, again = next(
        (t, f) for t, m, f in reversed(shell.sent) if m == "host" and f["type"] == "prompt"
    )
    assert sent_at >= t0 + 1.0 - 1e-9
    assert again["deadline_ms"] == 3000, "the clock starts when the prompt is sent"


def test_a_disconnected_seat_is_played_after_the_grace_and_its_player_comes_back() -> None:
    shell = Shell(timing=Timing(disconnect_grace=20.0))
    host_and_bots(shell)
    shell.input(shell.core.join("watcher", "看客", Watch(table="7"), shell.now, busy=False))
    token = shell.of("host", "joined")[0]["token"]
    gone_at = shell.now
    shell.input(shell.core.gone("host", shell.now, left=False))
    assert shell.bound == {"watcher": None}
    status = shell.of("watcher", "seat_status")[-1]
    assert status == {**status, "seat": 0, "connected": False, "auto": False}
    assert shell.core.next_wakeup() == gone_at + 20
    shell.run_until(gone_at + 19.9)
    assert shell.core.round is not None and shell.core.round.awaiting() == [0]
    shell.run_until(gone_at + 20)
    played = [r.event["type"] for r in shell.stored(EventLogged)]
    reasons = [f["reason"] for f in shell.of("watcher", "auto_played")]
    assert reasons[0] == "disconnected" and set(reasons[1:]) <= {"auto"}  # then 托管
    assert "auto_played" in played, "stored before it was sent"
    assert shell.core.seats[0].auto
    # Back with the token: 托管 ends (it was not asked for), the seat is told, a prompt comes
    # when it is asked to move.
    key = token_key(token)
    shell.input(shell.core.resume("back", key, token, None, shell.now))
    assert shell.bound == {"watcher": None, "back": 0}
    assert shell.of("back", "joined")[0]["resume"] == "snapshot"
    assert not shell.core.seats[0].auto
    assert shell.of("back", "seat_status")[-1] == {
        **shell.of("back", "seat_status")[-1],
        "seat": 0,
        "connected": True,
        "auto": False,
    }


def test_a_second_connection_with_the_token_replaces_the_first() -> None:
    shell = Shell()
    host_and_bots(shell)
    token = shell.of("host", "joined")[0]["token"]
    shell.input(shell.core.resume("again", token_key(token), token, None, shell.now))
    assert shell.closed == ["host"] and shell.bound == {"again": 0}
    assert shell.core.seats[0].member == "again"
    wrong = shell.input(shell.core.resume("thief", "nope", "nope", None, shell.now))
    assert any(isinstance(e, Send) and fields(e.frame)["code"] == "bad_token" for e in wrong)


def test_a_bot_moves_at_its_prompt_plus_the_bot_delay_on_its_turn_only() -> None:
    """The table's pace is for turns: a bot's claim answer does not wait for it (the window
    would last longer whenever a bot could claim)."""
    shell = Shell(timing=Timing(bot_delay=2.0))
    host_and_bots(shell)
    r = shell.core.round
    assert r is not None
    prompt = shell.last_prompt("host")
    tile = next(t for t in range(27) if r.hands[0][t])
    shell.command(
        "host", {"type": "act", "seq": prompt["seq"], "act": "discard", "tile": tile_name(tile)}
    )
    moved_at = shell.now
    waiting = r.awaiting()
    assert waiting and 0 not in waiting
    assert shell.core.next_wakeup() == pytest.approx(moved_at + 2.0)
    events = len(r.events)
    shell.run_until(moved_at + 1.99)
    assert len(r.events) == events, "no bot moves before its delay"
    shell.run_until(moved_at + 2.0)
    assert len(r.events) > events
    assert not any(m.startswith("Bot") for m in shell.frames), "bots get no frames"
    played = shell.stored(ActionPlayed)[1:]
    assert played[0].seat in waiting and played[0].phase == "turn" and not played[0].auto
    # This deal: another bot claims that discard, at once (the window is not held).
    claims = [a for a in played if a.phase == "claim"]
    assert claims and all(a.at == moved_at + 2.0 and not a.auto for a in claims)


def test_a_table_nobody_reads_plays_on_and_a_finished_table_lingers() -> None:
    shell = Shell(rounds=2, timing=Timing(finished_linger=60.0))
    host_and_bots(shell, auto=True)
    # Bots and a 托管 seat hold nothing up between rounds: the match plays out at once.
    assert len(shell.of("host", "round_ended")) == 2
    waits = shell.of("host", "between_rounds")
    assert [(w["round_no"], w["ready"]) for w in waits] == [(2, [True] * 4)]
    end = shell.of("host", "match_ended")[-1]
    assert end["reason"] == "finished" and end["rounds_played"] == 2 and sum(end["scores"]) == 0
    # The bots leave after the end, as their connections did; the human may still look.
    after = shell.frames["host"][shell.frames["host"].index(end) + 1 :]
    assert [(f["seat"], f["connected"]) for f in after if f["type"] == "seat_status"] == [
        (1, False),
        (2, False),
        (3, False),
    ]
    finished_at = shell.now
    assert not shell.removed and shell.core.next_wakeup() == finished_at + 60
    shell.run_until(finished_at + 60)
    assert shell.removed


def test_leaving_a_waiting_table_frees_the_seat_and_the_last_one_out_removes_it() -> None:
    shell = Shell()
    shell.create()
    shell.sit("guest")
    assert shell.bound == {"host": 0, "guest": 1} and len(shell.tokens) == 2
    shell.input(shell.core.gone("guest", shell.now, left=True))
    assert shell.of("guest", "left") == [{"type": "left", "table": "7"}]
    assert shell.core.seats[1].kind == "empty" and len(shell.tokens) == 1
    assert not shell.removed
    shell.input(shell.core.gone("host", shell.now, left=True))
    assert shell.removed and not shell.tokens


def test_refusals_change_nothing_and_say_why() -> None:
    shell = Shell()
    host_and_bots(shell)
    prompt = shell.last_prompt("host")
    before = (shell.core.seq, len(shell.records))
    cases = [
        ({"type": "act", "seq": prompt["seq"] - 1, "act": "pass"}, "stale"),
        ({"type": "act", "seq": prompt["seq"], "act": "pong"}, "bad_action"),
        ({"type": "add_bot"}, "already_started"),
    ]
    for frame, code in cases:
        effects = shell.command("host", frame)
        errors = [fields(e.frame) for e in effects if isinstance(e, Send)]
        assert [(f["type"], f["code"]) for f in errors] == [("error", code)], frame
        assert (shell.core.seq, len(shell.records)) == before
    outsider = shell.input(shell.core.command("nobody", Auto(type="auto", on=True), shell.now))
    assert [fields(e.frame)["code"] for e in outsider if isinstance(e, Send)] == ["not_at_table"]


def test_a_frozen_table_tells_everyone_records_its_end_and_refuses_the_rest() -> None:
    shell = Shell()
    host_and_bots(shell)
    effects = shell.perform(shell.core.freeze(shell.now))
    # The end is stored before anyone is told of it: the record and the players agree.
    kinds = [type(e) for e in effects]
    assert kinds[0] is Write and Write not in kinds[1:] and Send in kinds
    assert shell.of("host", "error")[-1]["code"] == "table_frozen"
    assert shell.of("host", "match_ended")[-1]["reason"] == "abandoned"
    refused = shell.command("host", {"type": "sync"})
    assert [fields(e.frame)["code"] for e in refused if isinstance(e, Send)] == ["table_frozen"]
    act = Act(type="act", seq=shell.core.decision_seq, act="pass")
    assert [
        fields(e.frame)["code"]
        for e in shell.core.command("host", act, shell.now)
        if isinstance(e, Send)
    ] == ["table_frozen"]
    assert shell.core.next_wakeup() is not None  # only to go away after the linger


def test_the_core_does_no_io_and_the_server_imports_no_clients() -> None:
    # Every part of the table but its asyncio shell is sans-I/O.
    for path in (ROOT / "server" / "table").glob("*.py"):
        if path.name == "shell.py":
            continue
        core = ast.parse(path.read_text())
        imported = {
            alias.name.split(".")[0]
            for node in ast.walk(core)
            if isinstance(node, ast.Import)
            for alias in node.names
        } | {
            node.module.split(".")[0]
            for node in ast.walk(core)
            if isinstance(node, ast.ImportFrom) and node.module
        }
        banned = {"asyncio", "time", "socket", "sqlite3", "websockets", "os"}
        assert not imported & banned, (path.name, imported)
    for path in (ROOT / "server").glob("**/*.py"):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            names = (
                [a.name for a in node.names]
                if isinstance(node, ast.Import)
                else [node.module or ""]
                if isinstance(node, ast.ImportFrom)
                else []
            )
            assert not any(n.split(".")[0] in ("clients", "client_tui", "zhuoji") for n in names), (
                path.name,
                names,
            )


def test_a_bot_whose_policy_fails_plays_its_default_and_the_table_goes_on() -> None:
    shell = Shell(timing=Timing(bot_delay=1.0))
    host_and_bots(shell)

    def broken(*args: Any) -> Any:
        raise RuntimeError("a policy bug")

    shell.core.policies.bots[1].choose = broken  # type: ignore[method-assign,assignment]
    r = shell.core.round
    assert r is not None
    prompt = shell.last_prompt("host")
    tile = next(t for t in range(27) if r.hands[0][t])
    shell.command(
        "host", {"type": "act", "seq": prompt["seq"], "act": "discard", "tile": tile_name(tile)}
    )
    shell.tick_until(lambda: shell.core.policies.fallbacks > 0, limit=30)
    assert not shell.core.frozen and shell.core.state == "playing"
    assert 1 in [a.seat for a in shell.stored(ActionPlayed)]


def test_frames_waiting_for_a_write_that_failed_are_never_sent() -> None:
    shell = Shell()
    host_and_bots(shell)
    r = shell.core.round
    assert r is not None
    prompt = shell.last_prompt("host")
    tile = next(t for t in range(27) if r.hands[0][t])
    move = parse_client_frame(
        {"type": "act", "seq": prompt["seq"], "act": "discard", "tile": tile_name(tile)}
    )
    effects = shell.core.command("host", move, shell.now)
    assert any(isinstance(e, Write) for e in effects)
    assert not any(isinstance(e, Send) for e in effects), "the discard waits for its write"
    # The shell's write fails: it performs nothing more and freezes the table.
    sent = len(shell.sent)
    shell.input(shell.core.freeze(shell.now))
    new = [f for t, m, f in shell.sent[sent:]]
    assert [f["type"] for f in new] == ["error", "match_ended"]
    assert not any(f["type"] == "discarded" for f in new)


def test_a_match_stored_by_the_core_is_restored_and_plays_on(tmp_path: Path) -> None:
    db = tmp_path / "z.db"
    shell = Shell(db=db, rounds=2, timing=Timing(disconnect_grace=5.0))
    host_and_bots(shell)
    for _ in range(3):  # a few moves by the host, then the server stops
        r = shell.core.round
        assert r is not None and 0 in r.awaiting()
        action = r.default_action(0)
        frame = {"type": "act", "seq": shell.last_prompt("host")["seq"], "act": action.act}
        if action.tile is not None and r.phase is Phase.TURN:
            frame["tile"] = tile_name(action.tile)
        shell.command("host", frame)
    before = shell.core
    assert before.round is not None
    store = Store(db)
    try:
        (stored,) = store.unfinished()
    finally:
        store.close()
    now = shell.now + 100
    core: TableCore[str] = restore_core(
        stored, before.s, timing=Timing(disconnect_grace=5), now=now
    )
    assert core.seq == before.seq and core.decision_seq == before.decision_seq
    assert core.round is not None
    assert [list(h) for h in core.round.hands] == [list(h) for h in before.round.hands]
    assert core.seats[0].token_key == before.seats[0].token_key
    assert [s.kind for s in core.seats] == ["human", "bot", "bot", "bot"]
    # On: one `table` event with the seats waiting, then the bots are back at the next tick.
    again = Shell(timing=Timing(disconnect_grace=5.0))
    again.core, again.now = core, now
    effects = again.perform(core.resumed(now))
    assert core.seq == before.seq + 1 and [type(e) for e in effects] == [Write]
    again.settle()
    ended = len(core.round.events)
    again.run_until(now + 4.9)
    assert len(core.round.events) == ended, "the host's seat waits for its player"
    again.run_until(now + 3600)
    assert core.state == "finished" and core.round_no == 2


def test_add_bot_seats_a_bot_of_the_level_asked_and_the_header_says_it() -> None:
    from rules.players.bot import Bot
    from rules.players.bot_strong import StrongBot
    from rules.players.levels import EasyBot

    shell = Shell()
    shell.create()
    for level in ("strong", "easy"):
        shell.command("host", {"type": "add_bot", "level": level})
    shell.command("host", {"type": "add_bot"})
    seats = shell.of("host", "table")[-1]["info"]["seats"]
    assert [s.get("level") for s in seats] == [None, "strong", "easy", "normal"]
    bots = shell.core.policies.bots
    assert [type(bots[i]) for i in (1, 2, 3)] == [StrongBot, EasyBot, Bot]
    shell.command("host", {"type": "remove_bot", "seat": 1})
    assert "level" not in shell.of("host", "table")[-1]["info"]["seats"][1]
    shell.command("host", {"type": "add_bot", "seat": 1, "level": "normal"})
    assert type(shell.core.policies.bots[1]) is Bot


def _bot_move_after_host(shell: Shell) -> tuple[float, float]:
    """The host discards; (when, when the next round event was made): a bot's move."""
    r = shell.core.round
    assert r is not None
    prompt = shell.last_prompt("host")
    tile = next(t for t in range(27) if r.hands[0][t])
    move = {"type": "act", "seq": prompt["seq"], "act": "discard", "tile": tile_name(tile)}
    shell.perform(shell.core.command("host", parse_client_frame(move), shell.now))
    moved_at, events = shell.now, len(r.events)  # the discard's events: bots move on ticks
    assert 0 not in r.awaiting()
    shell.tick_until(lambda: len(r.events) > events, limit=30)
    return moved_at, shell.now


@pytest.mark.parametrize("delay", [0.0, 0.5, 1.0, 1.5])
def test_the_tables_bot_delay_wins_over_the_servers(delay: float) -> None:
    shell = Shell(timing=Timing(bot_delay=4.0), bot_delay=delay)
    host_and_bots(shell)
    assert shell.of("host", "table")[-1]["info"]["bot_delay"] == delay
    moved_at, bot_moved = _bot_move_after_host(shell)
    assert bot_moved == pytest.approx(moved_at + delay)


def test_without_a_table_bot_delay_the_servers_is_the_default() -> None:
    shell = Shell(timing=Timing(bot_delay=2.5))
    host_and_bots(shell)
    assert shell.of("host", "table")[-1]["info"]["bot_delay"] == 2.5
    moved_at, bot_moved = _bot_move_after_host(shell)
    assert bot_moved == pytest.approx(moved_at + 2.5)


def test_bot_levels_and_the_bot_delay_survive_a_restart(tmp_path: Path) -> None:
    from rules.players.bot_strong import StrongBot
    from rules.players.levels import EasyBot
    from server.table.restore import settings_from_row

    db = tmp_path / "z.db"
    Store(db).close()  # the schema
    shell = Shell(db=db, rounds=1, bot_delay=1.5, timing=Timing(bot_delay=0.0))
    shell.create()
    for level in ("strong", "easy", "strong"):
        shell.command("host", {"type": "add_bot", "level": level})
    shell.settle()
    shell.command("host", {"type": "start"})
    shell.settle()
    store = Store(db)
    try:
        (stored,) = store.unfinished()
    finally:
        store.close()
    again = settings_from_row(stored.row)
    assert again.bot_delay == 1.5
    now = shell.now + 100
    core: TableCore[str] = restore_core(stored, again, timing=Timing(bot_delay=0.0), now=now)
    core.resumed(now)
    assert [s.level for s in core.seats] == [None, "strong", "easy", "strong"]
    assert [type(core.policies.bots[i]) for i in (1, 2, 3)] == [StrongBot, EasyBot, StrongBot]
    assert core.info()["bot_delay"] == 1.5
    assert [s.get("level") for s in core.info()["seats"]] == [None, "strong", "easy", "strong"]


# ----- between rounds -----


def play_round(shell: Shell, member: str = "host", seat: int = 0) -> None:
    """The host answers each prompt with its default at once; the bots play; until the round
    is over."""
    r = shell.core.round
    assert r is not None
    while r.phase is not Phase.OVER:
        if (
            seat in r.awaiting()
            and shell.core.seats[seat].clock.prompted_seq == shell.core.decision_seq
        ):
            action = r.default_action(seat)
            frame = {"type": "act", "seq": shell.last_prompt(member)["seq"], "act": action.act}
            if action.tile is not None and r.phase is Phase.TURN:
                frame["tile"] = tile_name(action.tile)
            shell.command(member, frame)
        else:
            at = shell.core.next_wakeup()
            assert at is not None
            shell.run_until(max(shell.now, at))


def test_between_rounds_no_clock_runs_and_the_round_starts_when_the_player_is_ready() -> None:
    shell = Shell(rounds=2, turn_seconds=5, bank_seconds=10, next_round_seconds=30)
    host_and_bots(shell)
    play_round(shell)
    over_at = shell.now
    (wait,) = shell.of("host", "between_rounds")
    assert wait == {
        "type": "between_rounds",
        "table": "7",
        "seq": shell.core.seq,
        "round_no": 2,
        "ready": [False, True, True, True],
        "deadline_ms": 30_000,
        "rematch": False,
    }
    assert shell.core.next_wakeup() == over_at + 30
    shell.run_until(over_at + 29.9)  # far beyond the 15 s a move: the sheet is being read
    assert len(shell.of("host", "round_started")) == 1
    assert not shell.of("host", "auto_played") and not shell.core.seats[0].auto
    shell.now += 0.05
    shell.command("host", {"type": "next_round"})
    assert len(shell.of("host", "round_started")) == 2, "ready: the round starts at once"
    assert shell.of("host", "between_rounds")[-1]["ready"] == [True] * 4
    prompt = shell.last_prompt("host")
    assert prompt["deadline_ms"] == 15_000, "the move's clock starts with the round"
    late = len(shell.frames["host"])
    shell.command("host", {"type": "next_round"})  # a late one is ignored
    assert shell.frames["host"][late:] == []


def test_the_next_round_starts_anyway_after_next_round_seconds() -> None:
    shell = Shell(rounds=2, next_round_seconds=12)
    host_and_bots(shell)
    play_round(shell)
    over_at = shell.now
    shell.run_until(over_at + 11.99)
    assert len(shell.of("host", "round_started")) == 1
    shell.run_until(over_at + 12)
    assert len(shell.of("host", "round_started")) == 2


def test_zero_seconds_waits_for_everyone_and_an_absent_player_for_the_grace() -> None:
    shell = Shell(rounds=3, next_round_seconds=0, timing=Timing(disconnect_grace=5.0))
    host_and_bots(shell)
    play_round(shell)
    over_at = shell.now
    assert shell.core.next_wakeup() is None, "nothing is due: the table waits for the host"
    assert shell.of("host", "between_rounds")[-1]["deadline_ms"] is None
    shell.run_until(over_at + 3600)
    assert len(shell.of("host", "round_started")) == 1
    shell.command("host", {"type": "next_round"})
    assert len(shell.of("host", "round_started")) == 2
    play_round(shell)
    # The host's connection drops during the wait: the table waits for it `disconnect_grace`.
    gone_at = shell.now
    shell.input(shell.core.gone("host", gone_at, left=False))
    assert shell.core.next_wakeup() == gone_at + 5
    shell.run_until(gone_at + 4.9)
    assert shell.core.between.active and shell.core.round_no == 2
    shell.run_until(gone_at + 5)
    assert shell.core.round_no == 3 and not shell.core.between.active


def test_a_restart_during_the_wait_resumes_the_wait(tmp_path: Path) -> None:
    db = tmp_path / "z.db"
    shell = Shell(db=db, rounds=2, next_round_seconds=30, timing=Timing(disconnect_grace=5.0))
    host_and_bots(shell)
    play_round(shell)
    assert shell.core.between.active
    token = shell.of("host", "joined")[0]["token"]
    store = Store(db)
    try:
        (stored,) = store.unfinished()
    finally:
        store.close()
    assert stored.row["next_round_seconds"] == 30
    now = shell.now + 100
    core: TableCore[str] = restore_core(
        stored, shell.core.s, timing=Timing(disconnect_grace=5.0), now=now
    )
    again = Shell(timing=Timing(disconnect_grace=5.0))
    again.core, again.now = core, now
    again.input(core.resumed(now))
    assert core.between.active and core.round is None and core.round_no == 1
    assert core.next_wakeup() == now + 5, "the player away is waited for, as ever"
    again.now = now + 2
    again.input(core.resume("host", token_key(token), token, None, again.now))
    assert [f["type"] for f in again.frames["host"][:3]] == ["joined", "snapshot", "between_rounds"]
    wait = again.of("host", "between_rounds")[-1]
    assert wait["round_no"] == 2 and wait["ready"] == [False, True, True, True]
    assert wait["deadline_ms"] == 28_000
    again.run_until(now + 29.9)
    assert core.round is None, "the wait goes on: nobody's clock runs"
    again.command("host", {"type": "next_round"})
    assert core.round is not None and core.round_no == 2


def test_a_rematch_moves_the_seats_to_a_new_table_and_starts_its_match() -> None:
    shell = Shell(rounds=1)
    host_and_bots(shell)
    play_round(shell)
    assert shell.core.state == "finished"
    effects = shell.command("host", {"type": "rematch"})
    (rematch,) = [e for e in effects if isinstance(e, StartRematch)]
    assert [(s.name, s.kind, s.member) for s in rematch.seats] == [
        ("host", "human", "host"),
        ("Bot-2", "bot", None),
        ("Bot-3", "bot", None),
        ("Bot-4", "bot", None),
    ]
    assert "host" not in shell.bound and shell.removed, "nobody is left at the old table"
    new = Shell()
    new.core = TableCore("8", rematch.settings, seed="again", timing=Timing())
    new.input(new.core.rematch(list(rematch.seats), new.now))
    joined = new.of("host", "joined")[0]
    assert joined["table"] == "8" and joined["seat"] == 0 and joined["token"]
    assert new.bound == {"host": 0} and len(new.tokens) == 1
    assert [s.kind for s in new.core.seats] == ["human", "bot", "bot", "bot"]
    assert new.core.state == "playing" and new.core.round_no == 1
    assert new.of("host", "match_started")[0]["names"] == ["host", "Bot-2", "Bot-3", "Bot-4"]
    created = new.records[0]
    assert isinstance(created, TableCreated) and created.id == "8" and created.seed == "again"


def test_a_rematch_waits_for_every_player_and_is_refused_before_the_end() -> None:
    shell = Shell(rounds=1)
    shell.create()
    shell.sit("guest")
    for _ in range(2):
        shell.command("host", {"type": "add_bot"})
    shell.settle()
    shell.command("host", {"type": "start"})
    shell.settle()
    shell.command("guest", {"type": "rematch"})
    assert shell.of("guest", "error")[-1]["code"] == "not_finished"
    shell.command("guest", {"type": "auto", "on": True})
    play_round(shell)
    assert shell.core.state == "finished"
    effects = shell.command("guest", {"type": "rematch"})
    assert not any(isinstance(e, StartRematch) for e in effects)
    wait = shell.of("host", "between_rounds")[-1]
    assert wait["rematch"] and wait["ready"] == [False, True, True, True]
    effects = shell.command("host", {"type": "rematch"})
    assert any(isinstance(e, StartRematch) for e in effects)


def test_a_rematch_waits_for_a_player_who_asked_and_dropped_until_they_are_back() -> None:
    shell = Shell(rounds=1)
    shell.create()
    shell.sit("guest")
    for _ in range(2):
        shell.command("host", {"type": "add_bot"})
    shell.settle()
    shell.command("host", {"type": "start"})
    shell.settle()
    shell.command("guest", {"type": "auto", "on": True})
    play_round(shell)
    token = shell.of("guest", "joined")[0]["token"]
    shell.command("guest", {"type": "rematch"})
    shell.input(shell.core.gone("guest", shell.now, left=False))
    effects = shell.command("host", {"type": "rematch"})
    assert not any(isinstance(e, StartRematch) for e in effects), "the guest is not here"
    assert shell.of("host", "between_rounds")[-1]["ready"] == [True, False, True, True]
    effects = shell.input(shell.core.resume("guest2", token_key(token), token, None, shell.now))
    (rematch,) = [e for e in effects if isinstance(e, StartRematch)]
    assert [s.member for s in rematch.seats] == ["host", "guest2", None, None]


def test_the_weekday_of_a_deal_is_stored_and_a_restored_round_and_the_replay_keep_it(
    tmp_path: Path,
) -> None:
    """星期鸡 (RULES.md §13.12): the day a round was dealt is part of its deal. A round resumed
    after a restart (perhaps on another day) and `zhuoji replay --db` deal it with that day, not
    today's and not none."""
    from rules.script import parse_script
    from server.storage.reads import load_round_script

    db = tmp_path / "z.db"
    shell = Shell(db=db, overrides={"first_dealer": "seat0", "xingqiji": True})
    host_and_bots(shell)
    dealt = shell.core.round
    assert dealt is not None and dealt.weekday is not None and 1 <= dealt.weekday <= 7
    store = Store(db)
    try:
        (stored,) = store.unfinished()
    finally:
        store.close()
    assert stored.rounds[-1].weekday == dealt.weekday
    core: TableCore[str] = restore_core(
        stored, shell.core.s, timing=Timing(), now=shell.now + 100, wall=86400.0 * 365
    )
    assert core.round is not None and core.round.weekday == dealt.weekday
    script = load_round_script(db, "7", 1)
    assert script["weekday"] == dealt.weekday
    assert parse_script(script).weekday == dealt.weekday
