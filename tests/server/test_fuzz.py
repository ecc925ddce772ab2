"""Fuzzing: hostile frames against the message parser and a live server.

Hypothesis makes the frames: valid shapes with bad values (every client message type with its
own field names, each value drawn from boundary cases and from any JSON at all, fields dropped,
fields added), random JSON, random text and bytes, truncated frames, huge and deeply nested
values, and valid frames with odd values (tables with any options, joins of live tables).

- The parser (`protocol.parse_client`, and `parse_server` that clients use) accepts a frame or
  refuses it with a `ValidationError`, never anything else; what it accepts survives a round
  trip, and the error frame the server would send for a refusal is itself a valid frame.
- A live server on loopback (on its own thread, one event loop as in production) answers every
  bad frame with exactly one `error` frame whose code an independent oracle predicts (a frame
  Python cannot decode is `bad_json`; a hello is `already_hello`; a table command from a
  connection at no table is `not_at_table`; …), then a marker proves nothing else came; or it
  closes with the documented code (4000 for a bad first frame, 4001 for another version, 1009
  over 16 KiB, 1007 for text that is not UTF-8). A seated player's fuzzed table commands are
  refused in order with documented codes while its table plays on; a table in progress keeps
  playing throughout; a fresh client is served at the end; no table is frozen.
- A flood on one connection (and a flood that reconnects at once, again and again) is closed
  with 1008 after at most the rate limit's burst of frames, while a table next to it plays on
  with no move waiting long (its latency with and without the flood is printed).

The numbers of frames fuzzed are printed (`pytest -s`).
"""

from __future__ import annotations

import asyncio
import json
import re
import statistics
import subprocess
import sys
import threading
import typing
import unicodedata
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import ValidationError
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection, connect

from clients.bot_player import BotPlayer
from clients.client import Client
from protocol import codes, names
from protocol.codes import Close
from protocol.messages import (
    MAX_FRAME_BYTES,
    PROTOCOL_VERSION,
    TABLE_EVENT_TYPES,
    ClientMessage,
    parse_client,
    parse_server,
)
from rules.options import OptionsError, RuleOptions, make_options
from server.app import Server, _validation_message
from server.table.projection import ErrorItem, view_for
from server.table.shell import dumps
from server.testkit import running_server
from tests.support import volume

FUZZED: Counter[str] = Counter()  # frames fuzzed, by target
ROOT = Path(__file__).resolve().parents[2]

MODELS = {
    m.model_fields["type"].default: m for m in typing.get_args(typing.get_args(ClientMessage)[0])
}
TABLE_COMMANDS = ("add_bot", "remove_bot", "start", "act", "auto", "sync", "next_round", "rematch")
# Table commands not fuzzed at the seated table (a lone player's proposal ends its match at once),
# but refused like the others at no table.
VOTES = ("propose_end", "vote_end")


def documented_error_codes() -> set[str]:
    """The error codes docs/PROTOCOL.md lists, and the rules' refusal codes it passes through."""
    doc = (ROOT / "docs" / "PROTOCOL.md").read_text(encoding="utf-8")
    table = doc[doc.index("| code | meaning |") : doc.index("### Close codes")]
    codes = set(re.findall(r"^\| `([a-z_]+)`(?:, `([a-z_]+)`)?", table, re.M))
    found = {c for pair in codes for c in pair if c}
    rules = (ROOT / "rules" / "round.py").read_text(encoding="utf-8")
    found |= set(re.findall(r'return "([a-z_]+)", ', rules))
    return found


DOCUMENTED = documented_error_codes()


# ---------------------------------------------------------------------------------------------
# Strategies


def _is_utf8(text: str) -> bool:
    try:
        text.encode()
    except UnicodeEncodeError:
        return False
    return True


surrogates = st.text(st.characters(categories=["Cs"]), min_size=1, max_size=3)
strings = st.one_of(
    st.text(max_size=30),
    st.sampled_from(["", "1m", "9s", "0m", "10p", "1z", "东", "\x00", "\u202e", "a\nb", " ", "1"]),
    st.integers(0, 70).map(lambda n: "x" * n),
    surrogates,  # written as \\udXXX escapes: not valid JSON text for the server
)
numbers = st.one_of(
    st.integers(-5, 70),
    st.integers(),
    st.sampled_from([2**53, 2**53 + 1, -(2**53) - 1, 2**63, 10**400]),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([0.5, 1.0, -0.0, 1e308]),
)
scalars = st.one_of(st.none(), st.booleans(), numbers, strings)
json_values = st.recursive(
    scalars,
    lambda kids: st.lists(kids, max_size=4) | st.dictionaries(strings, kids, max_size=4),
    max_leaves=12,
)

option_names = sorted(RuleOptions.model_fields)
FIELD_VALUES: dict[str, st.SearchStrategy[Any]] = {
    "version": st.sampled_from([0, 1, 2, -1, 10**6, 10**7, True, "1", 1.0, None]),
    "name": st.one_of(strings, st.sampled_from(["阿明", "x" * 24, "x" * 25, "Bot-1"])),
    "token": st.one_of(strings, st.text("abcXYZ019_-", min_size=14, max_size=66)),
    "last_seq": numbers,
    "seq": numbers,
    "table": st.one_of(strings, st.sampled_from(["x1", "nope", "a" * 32, "a" * 33, "-_"])),
    "seat": st.sampled_from([-1, 0, 3, 4, None, True, 1.5, "0"]),
    "act": st.sampled_from(["discard", "hu", "pong", "gang", "pass", "ready", "chi", "", 1]),
    "tile": st.one_of(st.sampled_from(["1m", "5p", "9s", "0m", "10s", "1z", "", None, 5]), strings),
    "on": st.sampled_from([True, False, 0, 1, "true", None]),
    "preset": st.sampled_from(["guiyang", "chuan", "anshun", "tianjin", "", None, 1]),
    "options": st.one_of(
        st.dictionaries(
            st.one_of(st.sampled_from(option_names), strings),
            st.one_of(scalars, st.dictionaries(strings, numbers | st.none(), max_size=3)),
            max_size=4,
        ),
        json_values,
    ),
    "base": numbers,
    "rounds": numbers,
    "turn_seconds": numbers,
    "bank_seconds": numbers,
    "claim_min_ms": numbers,
    "password": strings,
}


@st.composite
def shaped(draw: st.DrawFn, kinds: tuple[str, ...] | None = None) -> dict[str, Any]:
    """A client message's shape with values good and bad; fields dropped and added."""
    kind = draw(st.sampled_from(kinds or sorted(MODELS)))
    frame: dict[str, Any] = {"type": kind}
    for name in MODELS[kind].model_fields:
        if name == "type" or draw(st.integers(0, 9)) == 0:
            continue  # sometimes a field (required or not) is left out
        pick = FIELD_VALUES.get(name, json_values)
        frame[name] = draw(st.one_of(pick, pick, json_values))
    if draw(st.integers(0, 9)) == 0:
        frame[draw(strings)] = draw(json_values)  # an extra field
    if draw(st.integers(0, 19)) == 0:
        frame["type"] = draw(st.one_of(strings, st.sampled_from(["welcome", "error"]), numbers))
    return frame


def encode(frame: Any) -> str:
    return json.dumps(frame, ensure_ascii=draw_ascii(frame))


def draw_ascii(frame: Any) -> bool:
    # Lone surrogates can only be written as \\u escapes; other text is sent as UTF-8.
    text = json.dumps(frame, ensure_ascii=False)
    try:
        text.encode()
    except UnicodeEncodeError:
        return True
    return False


# Valid frames with odd values: tables made with any options, joins of live table numbers.
seating = st.one_of(
    st.fixed_dictionaries(
        {"type": st.just("create_table"), "name": st.sampled_from(["一", "x" * 32, "桌 2"])},
        optional={
            "preset": st.sampled_from(["guiyang", "chuan", "anshun"]),
            "options": FIELD_VALUES["options"],
            "base": st.integers(1, 1000),
            "rounds": st.integers(1, 64),
            "turn_seconds": st.floats(0, 600),
            "bank_seconds": st.floats(0, 3600),
            "claim_min_ms": st.integers(0, 5000),
            "password": st.text(min_size=1, max_size=64).filter(_is_utf8),
        },
    ),
    st.fixed_dictionaries(
        {"type": st.sampled_from(["take_seat", "watch"]), "table": st.sampled_from("1234")},
        optional={"seat": st.integers(0, 3), "password": st.just("x")},
    ),
).map(encode)
nested = st.one_of(
    st.integers(1, 5000).map(lambda n: "[" * n + "]" * n),
    st.integers(1, 3000).map(lambda n: '{"a":' * n + "1" + "}" * n),
    st.integers(1, 3000).map(lambda n: '{"type": "act", "seq": ' + "[" * n + "]" * n + "}"),
)
huge = st.one_of(
    st.integers(0, 20_000).map(
        lambda n: json.dumps({"type": "hello", "version": 1, "name": "x" * n})
    ),
    st.integers(1, 6000).map(lambda n: '{"type": "act", "seq": ' + "9" * n + ', "act": "pass"}'),
    st.integers(0, 3000).map(
        lambda n: json.dumps({"type": "list_tables", **{f"k{i}": i for i in range(n)}})
    ),
    st.integers(0, 4000).map(
        lambda n: json.dumps({"type": "act", "seq": 1, "act": "pass", "tile": "1m" * n})
    ),
)
truncated = st.tuples(shaped(), st.floats(0, 1)).map(
    lambda t: (s := encode(t[0]))[: int(len(s) * t[1])]
)
text_frames = st.one_of(
    shaped().map(encode),
    shaped().map(encode),
    json_values.map(encode),
    st.text(max_size=200),
    nested,
    huge,
    truncated,
)
any_frames = st.one_of(text_frames, st.binary(max_size=200))


# ---------------------------------------------------------------------------------------------
# The parser


def refusal_frame(err: ValidationError) -> str:
    """The error frame the server sends for a refused frame; it must itself be valid."""
    code, message = _validation_message(err)
    assert code in ("bad_json", "bad_message")
    frame = view_for(ErrorItem(code, message, None), None)
    assert frame is not None
    text = dumps(frame)
    text.encode()  # sendable
    parse_server(text)
    return code


@pytest.mark.slow
@pytest.mark.timeout(900)
@settings(
    max_examples=volume(600, 2500), deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
@given(raw=any_frames)
def test_the_parser_accepts_or_refuses_cleanly(raw: str | bytes) -> None:
    FUZZED["parser"] += 1
    try:
        msg = parse_client(raw)
    except ValidationError as err:
        code = refusal_frame(err)
        try:
            json.loads(raw)
        except (ValueError, RecursionError):
            assert code == "bad_json", raw
        return
    # Accepted: a real message, bounded, and the same after a round trip.
    assert msg.type in MODELS
    again = parse_client(msg.model_dump_json())
    assert again == msg
    if isinstance(raw, str):
        assert len(raw.encode("utf-8", "surrogatepass")) > 0


@pytest.mark.slow
@pytest.mark.timeout(600)
@settings(
    max_examples=volume(150, 600), deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
@given(
    raw=st.one_of(json_values.map(encode), st.text(max_size=100), st.binary(max_size=100), nested)
)
def test_the_client_side_parser_refuses_cleanly(raw: str | bytes) -> None:
    FUZZED["parser"] += 1
    try:
        parse_server(raw)
    except ValidationError:
        pass


@settings(max_examples=300, deadline=None)
@given(
    seq=st.integers(0, 2**53),
    act=st.sampled_from(["discard", "hu", "pong", "gang", "pass", "ready"]),
    tile=st.none() | st.sampled_from([f"{r}{s}" for s in "mps" for r in range(1, 10)]),
    name=st.text(
        st.characters(blacklist_categories=sorted(names.REFUSED_CATEGORIES)).filter(
            lambda c: ord(c) not in names.FILLERS
        ),
        min_size=1,
        max_size=24,
    ).filter(
        lambda n: (
            unicodedata.normalize("NFC", n) == n and n.strip() and not names.looks_like_a_bot(n)
        )
    ),
    token=st.text("abcdefXYZ0123456789_-", min_size=16, max_size=64),
)
def test_the_parser_accepts_every_valid_frame(
    seq: int, act: str, tile: str | None, name: str, token: str
) -> None:
    """The other side of the coin: the bounds refuse only what they should."""
    frames = [
        {"type": "act", "seq": seq, "act": act, "tile": tile},
        {"type": "hello", "version": 1, "name": name, "token": token, "last_seq": seq},
        {"type": "create_table", "name": name[:24], "rounds": 64, "claim_min_ms": 5000},
    ]
    for frame in frames:
        FUZZED["parser"] += 1
        assert parse_client(json.dumps(frame)).type == frame["type"]


# ---------------------------------------------------------------------------------------------
# A flood


FLOOD_CONNECTIONS = {"one": 1, "again": 5}
RATE_BURST, RATE_PER_SECOND = 40, 10  # the server's defaults, passed explicitly
MAX_WAIT = 3.0  # seconds any move may wait at the victim's table (loaded 2 cores: < 0.5 s)

FLOODER = r"""
import json, select, socket, sys, time
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect
from protocol.messages import PROTOCOL_VERSION

url, connections, mode = sys.argv[1], int(sys.argv[2]), sys.argv[3]
PATIENCE = 30.0  # seconds the server has to act on one flooding connection


def flood_once():
    # A hello and 2,000 requests, made once, then written straight to the socket (again and
    # again) as fast as it takes them, never reading an answer: until the server's close frame
    # comes (`again`), or, ignoring the close, until the server drops the socket (`one`).
    began = time.monotonic()
    ws = connect(url, compression=None, max_queue=None).__enter__()  # closed below
    ws.protocol.send_text(json.dumps({"type": "hello", "version": PROTOCOL_VERSION, "name": "flood"}).encode())
    for _ in range(2000):
        ws.protocol.send_text(b'{"type": "list_tables"}')
    burst = memoryview(b"".join(ws.protocol.data_to_send()))
    sock, offset, written, dropped = ws.socket, 0, 0, False
    end = began + PATIENCE
    try:
        while time.monotonic() < end and (mode == "one" or ws.protocol.close_rcvd is None):
            if select.select([], [sock], [], 0.02)[1]:
                try:
                    n = sock.send(burst[offset:], socket.MSG_DONTWAIT)
                except BlockingIOError:
                    continue
                offset, written = (offset + n) % len(burst), written + n
    except OSError:
        dropped = True  # the server dropped the connection
    # Every frame the server sent is queued once the reading thread has seen the end.
    ws.recv_events_thread.join(PATIENCE)
    answers = []
    while True:
        try:
            frame = json.loads(ws.recv(timeout=0))
        except (ConnectionClosed, TimeoutError):
            break
        answers.append(frame.get("code", frame["type"]))
    close = ws.protocol.close_rcvd
    sock.close()
    return {"code": None if close is None else close.code, "dropped": dropped,
            "ended": not ws.recv_events_thread.is_alive(), "answers": answers,
            "seconds": time.monotonic() - began, "frames": written * 2001 // len(burst)}


print("flooding", flush=True)
print(json.dumps([flood_once() for _ in range(connections)]), flush=True)
"""


async def play_seat(
    client: Client, player: BotPlayer, discards: int, until: asyncio.Task[Any] | None = None
) -> tuple[list[float], list[float]]:
    """Play the seat until it has made `discards` discards and `until` (if given) is done.
    Returns the waits: for each of its discards, the time from sending the move to getting its
    `discarded` event back; and every gap between two frames the table sent it (any seat's
    move, a new round), so a stall anywhere at the table shows."""
    loop = asyncio.get_running_loop()
    latencies: list[float] = []
    gaps: list[float] = []
    sent_at: float | None = None
    last = loop.time()
    while len(latencies) < discards or (until is not None and not until.done()):
        frame = await client.recv(10)
        now = loop.time()
        gaps.append(now - last)
        last = now
        if sent_at is not None and frame["type"] == "discarded" and frame["seat"] == 0:
            latencies.append(now - sent_at)
            sent_at = None
        reply = player.on_frame(frame)
        if reply is not None:
            await client.send(reply)
            if reply.get("act") in ("discard", "ready"):
                sent_at = loop.time()
    return latencies, gaps


def check_flooding_connection(mode: str, conn: dict[str, Any]) -> None:
    """One flooding connection: welcome, one `tables` per request the server handled (no more
    than the burst the rate limit allows, plus what it refilled while the connection lived),
    one `rate_limited` error, then close 1008; with `one`, which ignores the close and writes on,
    the server dropped the socket."""
    answers = conn["answers"]
    assert conn["code"] == Close.POLICY and conn["ended"], conn
    assert answers[0] == "welcome" and answers[-1] == codes.RATE_LIMITED, answers
    assert set(answers[1:-1]) == {"tables"}, answers
    handled = len(answers) - 1  # the hello and the requests answered with `tables`
    assert handled <= RATE_BURST + 1 + RATE_PER_SECOND * conn["seconds"], conn
    assert conn["frames"] > handled + 1, conn  # it did flood
    if mode == "one":
        assert conn["dropped"], ("the server kept the connection that ignored its close", conn)


@pytest.mark.parametrize("mode", ["one", "again"], ids=["one-connection", "reconnecting"])
async def test_a_flood_is_closed_with_1008_and_slows_no_other_table(
    tmp_path: Path, mode: str
) -> None:
    """One connection floods and writes on after the close (`one`), or floods, is closed and
    comes back to flood again at once, five times (`again`): each flooding connection has at
    most the rate limit's burst of frames handled and is closed with 1008, and the table next
    to it keeps playing throughout, no move waiting longer than `MAX_WAIT`. (No rates are
    asserted: on a loaded machine they measure the machine.)"""
    async with running_server(
        tmp_path / "z.db", seed="flood", rate_burst=RATE_BURST, rate_per_second=RATE_PER_SECOND
    ) as (url, _server):
        host = await Client.connect(url, "计时")
        await host.recv_type("welcome")
        await host.send(
            {
                "type": "create_table",
                "name": "受害者",
                "rounds": 64,
                "claim_min_ms": 3,
                "turn_seconds": 0,
                "bank_seconds": 0,
            }
        )
        player = BotPlayer(seed="victim")
        player.on_frame(await host.recv_type("joined"))
        for _ in range(3):
            await host.send({"type": "add_bot"})
        await host.send({"type": "start"})
        await play_seat(host, player, 10)  # warm up
        quiet, _ = await play_seat(host, player, 40)

        flooder = await asyncio.create_subprocess_exec(
            sys.executable,
            "-c",
            FLOODER,
            url,
            str(FLOOD_CONNECTIONS[mode]),
            mode,
            stdout=subprocess.PIPE,
        )
        assert flooder.stdout is not None
        async with asyncio.timeout(30):
            assert (await flooder.stdout.readline()).strip() == b"flooding"
        # The table plays on while the flood goes on, until the flooder reports, and for at
        # least 20 more discards.
        report_line = asyncio.create_task(flooder.stdout.readline())
        flooded, gaps = await play_seat(host, player, 20, until=report_line)
        conns = json.loads(await report_line)
        assert await flooder.wait() == 0
        await host.close()

    FUZZED[f"flood ({mode})"] += sum(c["frames"] for c in conns)

    def ms(xs: list[float], q: float) -> float:
        return 1000 * statistics.quantiles(xs, n=100)[int(q * 100) - 1]

    print(
        f"\n[{mode}] discard latency without flood p50 {ms(quiet, 0.5):.2f} ms p90 "
        f"{ms(quiet, 0.9):.2f} ms; during flood p50 {ms(flooded, 0.5):.2f} ms p90 "
        f"{ms(flooded, 0.9):.2f} ms max {1000 * max(flooded):.1f} ms, longest gap "
        f"{1000 * max(gaps):.1f} ms; flood: {[c['frames'] for c in conns]} frames written, "
        f"{[len(c['answers']) - 1 for c in conns]} handled, closed {[c['code'] for c in conns]}"
    )
    assert len(conns) == FLOOD_CONNECTIONS[mode], conns
    for conn in conns:
        check_flooding_connection(mode, conn)
    assert max(flooded) <= MAX_WAIT and max(gaps) <= MAX_WAIT, (max(flooded), max(gaps))


# ---------------------------------------------------------------------------------------------
# A live server on its own thread


class ServerThread:
    """A `Server` on loopback, run by its own event loop on a thread (hypothesis tests are
    synchronous); the test talks to it with the synchronous websockets client."""

    def __init__(self, db: Path, **options: Any) -> None:
        self.db, self.options = db, options
        self.ready = threading.Event()
        self.url = ""
        self.server: Server | None = None
        self.loop: asyncio.AbstractEventLoop | None = None
        self.stop_event: asyncio.Event | None = None
        self.thread = threading.Thread(target=lambda: asyncio.run(self._main()), daemon=True)

    async def _main(self) -> None:
        self.loop = asyncio.get_running_loop()
        self.stop_event = asyncio.Event()
        async with running_server(self.db, **self.options) as (url, server):
            self.url, self.server = url, server
            self.ready.set()
            await self.stop_event.wait()

    def __enter__(self) -> ServerThread:
        self.thread.start()
        assert self.ready.wait(10), "the server did not start"
        return self

    def __exit__(self, *exc: object) -> None:
        assert self.loop is not None and self.stop_event is not None
        self.loop.call_soon_threadsafe(self.stop_event.set)
        self.thread.join(10)


def recv(ws: ClientConnection, timeout: float = 30) -> dict[str, Any]:
    """The next frame, checked to be a protocol frame; fail after `timeout` seconds (a bound
    for a server that stopped answering, not a speed: a loaded machine takes seconds)."""
    raw = ws.recv(timeout)
    assert isinstance(raw, str)
    parse_server(raw)  # whatever the server sends is a protocol frame
    frame: dict[str, Any] = json.loads(raw)
    return frame


def hello(ws: ClientConnection, name: str = "fuzz") -> None:
    ws.send(json.dumps({"type": "hello", "version": PROTOCOL_VERSION, "name": name}))
    assert recv(ws)["type"] == "welcome"


class Progress:
    """A table in progress: a host in 托管 and three server bots, a long match slowed by the
    claim window; a reader thread counts its events."""

    def __init__(self, url: str) -> None:
        self.ws = open_ws(url)
        hello(self.ws, "host")
        self.ws.send(
            json.dumps(
                {
                    "type": "create_table",
                    "name": "进行中",
                    "rounds": 64,
                    "claim_min_ms": 15,
                    "turn_seconds": 0,
                    "bank_seconds": 0,
                }
            )
        )
        joined = self._until("joined")
        self.table = joined["table"]
        for _ in range(3):
            self.ws.send(json.dumps({"type": "add_bot"}))
        connected: set[int] = set()
        while len(connected) < 3:
            f = recv(self.ws)
            if f["type"] == "seat_status" and f["connected"]:
                connected.add(f["seat"])
        self.ws.send(json.dumps({"type": "auto", "on": True}))
        self.ws.send(json.dumps({"type": "start"}))
        self.seq = 0
        self.errors: list[dict[str, Any]] = []
        self.ended: dict[str, Any] | None = None
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _until(self, kind: str) -> dict[str, Any]:
        while (f := recv(self.ws))["type"] != kind:
            pass
        return f

    def _read(self) -> None:
        with __import__("contextlib").suppress(ConnectionClosed):
            for raw in self.ws:
                f = json.loads(raw)
                self.seq = max(self.seq, f.get("seq") or 0)
                if f["type"] == "error":
                    self.errors.append(f)
                if f["type"] == "match_ended":
                    self.ended = f


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[ServerThread, Progress]]:
    db = tmp_path_factory.mktemp("fuzz") / "z.db"
    with ServerThread(
        db, seed="fuzz", rate_burst=1e9, rate_per_second=1e9, disconnect_grace=0.05, hello_timeout=5
    ) as srv:
        progress = Progress(srv.url)
        yield srv, progress
        # The server still serves a fresh client, and the table in progress played on.
        with connect(srv.url, compression=None, max_size=2**22) as ws:
            hello(ws, "fresh")
            ws.send(json.dumps({"type": "list_tables"}))
            tables = recv(ws)
            assert tables["type"] == "tables"
            row = next(t for t in tables["tables"] if t["id"] == progress.table)
            assert row["state"] == "playing"
            ws.send(json.dumps({"type": "create_table", "name": "之后"}))
            assert recv(ws)["type"] == "joined"
        assert srv.server is not None
        assert not any(t.frozen for t in srv.server.tables.values())
        assert not progress.errors, progress.errors
        progress.ws.close()
        # Only this server's seated player and lobby: under xdist a worker can run the module's
        # tests in two stretches, each with a server of its own, and the first one's player
        # sat at a table this server never had.
        seated = SEATED.pop(srv.url, None)
        if seated is not None:
            table = srv.server.tables.get(seated.table)
            assert table is not None and not table.frozen
            assert seated.seq > 100, (
                "the fuzzed player's table went on",
                table.state,
                table.seq,
                table.round and table.round.awaiting(),
            )
            seated.ws.close()
        lobby = LOBBIES.pop(srv.url, None)
        if lobby is not None:
            lobby.ws.close()
        print(f"\nfuzzed frames: {dict(FUZZED)}, total {sum(FUZZED.values())}")


def expected_reply(raw: str | bytes) -> str | None:
    """What a connection at no table must get for `raw`: an error code, `tables`, or None when
    the frame may seat it. Independent of the server's code."""
    if isinstance(raw, bytes):
        return "bad_message"
    try:
        json.loads(raw)
    except (ValueError, RecursionError):
        return "bad_json"
    try:
        msg = parse_client(raw)
    except ValidationError:
        return "bad_message|bad_json"  # the server's JSON reader is stricter than Python's
    if msg.type == "hello":
        return "already_hello"
    if msg.type == "list_tables":
        return "tables"
    if msg.type == "create_table":
        try:
            make_options(msg.preset, dict(msg.options))  # type: ignore[attr-defined]
        except OptionsError:
            return "bad_options"
        return None
    if msg.type in ("take_seat", "watch"):
        return None if msg.table.isdigit() else "unknown_table"  # type: ignore[union-attr]
    if msg.type == "get_rounds":
        return "not_your_match"  # a fuzzing connection played no match
    assert msg.type in (*TABLE_COMMANDS, *VOTES, "leave")
    return "not_at_table"


def open_ws(url: str) -> ClientConnection:
    # Unbounded queue: frames that arrive between examples never stop the reader thread (a
    # stopped reader could not see the closing handshake either).
    ws = connect(url, compression=None, max_size=2**22, max_queue=None)
    ws.__enter__()  # (entered: the connection is closed by its owner)
    return ws


class Lobby:
    """One connection at no table, reopened when the server closes it as documented."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.ws = self._open()

    def _open(self) -> ClientConnection:
        ws = open_ws(self.url)
        hello(ws)
        return ws

    def reopen(self) -> None:
        self.ws.close()
        self.ws = self._open()

    def closed_with(self, code: int) -> None:
        with pytest.raises(ConnectionClosed):
            while True:
                recv(self.ws)
        assert self.ws.protocol.close_code == code
        self.ws = self._open()


LOBBIES: dict[str, Lobby] = {}


def reply_code(frame: dict[str, Any]) -> str:
    return str(frame["code"] if frame["type"] == "error" else frame["type"])


@pytest.mark.slow
@pytest.mark.timeout(900)
@settings(
    max_examples=volume(300, 1200),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(raw=st.one_of(any_frames, seating))
def test_the_server_answers_every_bad_frame_with_one_error(
    live: tuple[ServerThread, Progress], raw: str | bytes
) -> None:
    srv, progress = live
    lobby = LOBBIES.get(srv.url)
    if lobby is None:  # (not `setdefault`, which would open a connection every time)
        lobby = LOBBIES[srv.url] = Lobby(srv.url)
    expected = expected_reply(raw)
    FUZZED["live"] += 1
    if expected is None:
        FUZZED["live, may seat"] += 1
        # A valid create_table or a join: on a connection of its own, which it may seat.
        with connect(srv.url, compression=None, max_size=2**22) as ws:
            hello(ws)
            ws.send(raw)
            got = reply_code(recv(ws))
            assert got == "joined" or got in DOCUMENTED, (raw, got)
        return
    try:
        lobby.ws.send(raw)
        size = len(raw) if isinstance(raw, bytes) else len(raw.encode())
        if size > MAX_FRAME_BYTES:
            lobby.closed_with(Close.TOO_BIG)
            return
        # Exactly one answer, then the answer to a marker (a second hello): nothing else.
        got = reply_code(recv(lobby.ws))
        assert got in expected.split("|"), (raw, got)
        assert got in DOCUMENTED | {"tables"}
        lobby.ws.send(json.dumps({"type": "hello", "version": PROTOCOL_VERSION, "name": "m"}))
        assert reply_code(recv(lobby.ws)) == "already_hello", raw
    except BaseException:
        lobby.reopen()  # the next example starts in step
        raise


def expected_first(raw: str | bytes) -> tuple[str | None, int | None]:
    """What the first frame of a connection gets: (reply, close code)."""
    size = len(raw) if isinstance(raw, bytes) else len(raw.encode())
    if size > MAX_FRAME_BYTES:
        return None, Close.TOO_BIG
    if isinstance(raw, bytes):
        return "bad_message", Close.BAD_HELLO
    try:
        json.loads(raw)
    except (ValueError, RecursionError):
        return "bad_json", Close.BAD_HELLO
    try:
        msg = parse_client(raw)
    except ValidationError:
        return "bad_message|bad_json", Close.BAD_HELLO
    if msg.type != "hello":
        return "hello_first", Close.BAD_HELLO
    if msg.version != PROTOCOL_VERSION:  # type: ignore[union-attr]
        return "version_mismatch", Close.VERSION
    return "welcome", None


@pytest.mark.slow
@pytest.mark.timeout(600)
@settings(
    max_examples=volume(60, 200),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(raw=st.one_of(any_frames, shaped(kinds=("hello",)).map(encode)))
def test_a_bad_first_frame_gets_an_error_and_the_documented_close(
    live: tuple[ServerThread, Progress], raw: str | bytes
) -> None:
    srv, _ = live
    FUZZED["live"] += 1
    reply, close = expected_first(raw)
    with connect(srv.url, compression=None, max_size=2**22) as ws:
        ws.send(raw)
        if reply is not None:
            first = recv(ws)
            assert reply_code(first) in reply.split("|"), (raw, first)
        if close is not None:
            with pytest.raises(ConnectionClosed):
                recv(ws)
            assert ws.protocol.close_code == close, raw


@pytest.mark.parametrize(
    ("frames", "reply", "close"),
    [
        ([b"\x00\x01"], "bad_message", Close.BAD_HELLO),  # binary before hello
        ([b"\xff\xfe{"], None, Close.INVALID_TEXT),  # a text frame that is not UTF-8
        (["hello", b"\xc3\x28"], None, Close.INVALID_TEXT),
    ],
)
def test_frames_that_are_not_json_text_close_as_documented(
    live: tuple[ServerThread, Progress], frames: list[str | bytes], reply: str | None, close: int
) -> None:
    srv, _ = live
    with connect(srv.url, compression=None) as ws:
        for frame in frames:
            FUZZED["live"] += 1
            if frame == "hello":
                hello(ws)
            elif close == Close.INVALID_TEXT and frame is frames[-1]:
                ws.send(frame, text=True)
            else:
                ws.send(frame)
        if reply is not None:
            assert reply_code(recv(ws)) == reply
        with pytest.raises(ConnectionClosed):
            while True:
                recv(ws)
        assert ws.protocol.close_code == close
    assert str(int(close)) in (ROOT / "docs" / "PROTOCOL.md").read_text(encoding="utf-8")


class Seated:
    """A player at a table in progress (in 托管, a short clock, three server bots) whose
    connection sends fuzzed table commands; a `sync` after each is the marker (table commands
    are answered in order by the table's task)."""

    def __init__(self, url: str) -> None:
        self.ws = open_ws(url)
        hello(self.ws, "seated")
        self.ws.send(
            json.dumps(
                {
                    "type": "create_table",
                    "name": "模糊",
                    "rounds": 64,
                    "claim_min_ms": 5,
                    "turn_seconds": 0.05,
                    "bank_seconds": 0,
                }
            )
        )
        joined = recv(self.ws)
        assert joined["type"] == "joined" and recv(self.ws)["type"] == "snapshot"
        self.table = joined["table"]
        for _ in range(3):
            self.ws.send(json.dumps({"type": "add_bot"}))
        connected: set[int] = set()
        while len(connected) < 3:  # each bot connects as a client and takes its seat
            f = recv(self.ws)
            if f["type"] == "seat_status" and f["connected"]:
                connected.add(f["seat"])
        self.ws.send(json.dumps({"type": "auto", "on": True}))
        self.ws.send(json.dumps({"type": "start"}))
        self.ws.send(json.dumps({"type": "sync"}))
        while recv(self.ws)["type"] != "snapshot":  # in step: the next frames are the fuzz's
            pass
        self.seq = 0


SEATED: dict[str, Seated] = {}


@pytest.mark.slow
@pytest.mark.timeout(900)
@settings(
    max_examples=volume(150, 400),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(frame=shaped(kinds=TABLE_COMMANDS), data=st.data())
def test_a_seated_player_s_fuzzed_commands_are_refused_in_order_and_the_table_goes_on(
    live: tuple[ServerThread, Progress], frame: dict[str, Any], data: st.DataObject
) -> None:
    srv, _ = live
    seated = SEATED.get(srv.url)
    if seated is None:
        seated = SEATED[srv.url] = Seated(srv.url)
    assert srv.server is not None
    table = srv.server.tables[seated.table]
    if frame["type"] == "act" and data.draw(st.booleans()):
        frame["seq"] = table.decision_seq + data.draw(st.integers(-2, 1))  # near the live one
    raw = encode(frame)
    FUZZED["live"] += 1
    try:
        msg = parse_client(raw)
    except ValidationError:
        msg = None
    seated.ws.send(raw)
    seated.ws.send(json.dumps({"type": "sync"}))
    answers: list[dict[str, Any]] = []
    while True:
        f = recv(seated.ws)
        if f["type"] in TABLE_EVENT_TYPES or f["type"] in ("prompt", "between_rounds"):
            seated.seq = max(seated.seq, f["seq"])
            continue
        if f["type"] == "snapshot" and (msg is None or msg.type != "sync" or answers):
            break  # the marker's snapshot
        answers.append(f)
    codes = [reply_code(a) for a in answers]
    if msg is None:
        assert codes in (["bad_message"], ["bad_json"]), (raw, answers)
    elif msg.type in ("add_bot", "remove_bot", "start"):
        assert codes == ["already_started"], (raw, answers)
    elif msg.type == "sync":
        assert codes == ["snapshot"], (raw, answers)
    elif msg.type == "auto":
        assert codes == [], (raw, answers)
    else:
        assert len(codes) <= 1 and set(codes) <= DOCUMENTED, (raw, answers)
    for a in answers:
        if a["type"] == "error" and msg is not None:
            assert a["ref"] == msg.type and a["table"] == seated.table
    assert not table.frozen
