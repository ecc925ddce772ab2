"""Leak audit: every frame a seat or a spectator is sent, against what that viewer may know.

The oracle is independent of the projection (`server.table.projection`). A `Truth` follows the engine's
full events (every hand, every draw, every 暗杠 tile) and keeps where each tile is: in a seat's
concealed hand, in a seat's 暗杠, in the river, in an open meld, flipped, or still in the live wall
(offline it is checked against the engine's own state at every step; on loopback the stored events
are checked by replaying each round through the engine). From that it says, for a viewer at one
moment, how many copies of each tile kind the viewer may know at each place: its own hand and 暗杠
and the public record while the round is played; once it is won or exhausted, every hand and 暗杠
too, and the wall only as far as the flip; from `round_ended` on, the whole deal (the fair deal is
opened there). The round's fair-deal salt never appears in a frame before that.

Each frame is decoded from the JSON text the viewer would get. Its tile fields are read by frame
type, each saying what the tile claims: "a copy of this kind is in seat 2's hand", "in the river",
"in seat 1's 暗杠", … The copies a frame claims at one place must not outnumber the copies the
viewer may know there. A spectator's `drew.tile` set to a tile seen in public still fails: it
claims a copy in the drawer's hand, and the spectator knows none there. Every tile string in the
text, at any depth, as a value or a key, must be one of those read, or the frame fails as
unaudited. Free text the server writes (error messages, payment details) may name only tile kinds
the viewer knows, a tile it sent itself, or the whole vocabulary (a list of allowed values).

Two drivers:

- offline, the real projection (`view_for`, and `view_key` grouping as the table broadcasts) over
  bot-played rounds of all three presets (120, more than 1,000 in the soak step:
  `tests.support.volume`): every event for four seats and a
  spectator, every prompt, and every fourth step a snapshot for each viewer and a refused move
  (its error frame) from each seat;
- a real server on loopback: seats played by protocol clients that drop and come back (event
  catch-up and snapshots, sometimes replacing a connection still open), ask for snapshots and
  send messages the server refuses, the server's own bots, and a spectator that leaves, drops
  and watches again; every frame each connection got is audited against the stored log.

And the oracle is shown to fail on seven projections broken on purpose.
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import json
import random
import re
from collections import defaultdict
from collections.abc import Collection
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from websockets.exceptions import ConnectionClosed

from clients.bot_player import BotPlayer
from clients.client import Client
from protocol import frames
from protocol.messages import ROUND_EVENT_TYPES, parse_server
from rules.actions import ACT_KINDS, Action, IllegalAction
from rules.fairdeal import commitment
from rules.match import Match
from rules.options import PRESETS
from rules.players.bot import Bot
from rules.round import Phase, Round, legal_actions
from rules.script import run_script
from rules.tiles import NUM_KINDS, parse_tile, tile_name
from server.storage.reads import load_round_script, table_events
from server.table.projection import ErrorItem, PromptItem, SnapshotItem, view_for, view_key
from server.testkit import running_server
from tests.support import volume

TILE = re.compile(r"^[1-9][mps]$")
EXACT = re.compile(r'"[1-9][mps]"')  # a tile string in JSON text, as a value or a key
TOKEN = re.compile(r"(?<![0-9A-Za-z])([1-9][mps])(?![0-9A-Za-z])")
VIEWERS: tuple[int | None, ...] = (0, 1, 2, 3, None)
ZERO = (0,) * NUM_KINDS
FOUR = (4,) * NUM_KINDS
KIND = {tile_name(k): k for k in range(NUM_KINDS)}

Path_ = tuple[str | int, ...]
Counts = list[int]


# ---------------------------------------------------------------------------------------------
# The truth: where every tile is


class Truth:
    """The true places of a round's tiles, followed event by event from the engine's full events
    (private fields included). Knows nothing of the projection."""

    def __init__(self) -> None:
        self.started = False
        self.round_no = 0
        self._reset([[], [], [], []])

    def _reset(self, hands: list[list[str]]) -> None:
        self.hands: list[Counts] = [[0] * NUM_KINDS for _ in range(4)]
        for seat, names in enumerate(hands):
            for name in names:
                self.hands[seat][parse_tile(name)] += 1
        self.an: list[Counts] = [[0] * NUM_KINDS for _ in range(4)]  # copies in 暗杠
        self.melds: Counts = [0] * NUM_KINDS  # copies in 碰, 明杠, 补杠 (shown to all)
        self.river: Counts = [0] * NUM_KINDS  # every discard, claimed or not
        self.out: Counts = [0] * NUM_KINDS  # copies that left the wall (dealt or drawn)
        for h in self.hands:
            for k in range(NUM_KINDS):
                self.out[k] += h[k]
        self.flip: int | None = None
        self.over = False
        self.revealed = False  # the fair deal is opened: every tile of the deal is public
        self.win_tiles: dict[int, int] = {}  # winner → a tile won off a discard or a 补杠
        self.pending_add: tuple[int, int] | None = None  # a declared 补杠: (seat, kind)

    def apply(self, e: dict[str, Any]) -> None:
        kind = e["type"]
        if kind == "round_started":
            self.started = True
            self.round_no = e.get("round_no", 0)
            self._reset(e["hands"])
        elif kind == "drew":
            k = parse_tile(e["tile"])
            self.hands[e["seat"]][k] += 1
            self.out[k] += 1
        elif kind == "discarded":
            k = parse_tile(e["tile"])
            self.hands[e["seat"]][k] -= 1
            self.river[k] += 1
        elif kind == "claimed":
            k = parse_tile(e["tile"])
            n = 2 if e["act"] == "pong" else 3
            self.hands[e["seat"]][k] -= n
            self.melds[k] += n + 1  # the discard joins the meld
        elif kind == "concealed_gang":
            k = parse_tile(e["tile"])
            self.hands[e["seat"]][k] -= 4
            self.an[e["seat"]][k] += 4
        elif kind == "add_gang_declared":
            # Shown to all (others may rob it) while it is still in the hand.
            k = parse_tile(e["tile"])
            self.melds[k] += 1
            self.pending_add = (e["seat"], k)
        elif kind == "added_gang":
            self.hands[e["seat"]][parse_tile(e["tile"])] -= 1
            self.pending_add = None
        elif kind == "won":
            self.over = True
            if e["how"] in ("discard", "rob"):
                self.win_tiles[e["seat"]] = parse_tile(e["tile"])
            if e["how"] == "rob" and self.pending_add is not None:
                robbed, k = self.pending_add
                self.hands[robbed][k] -= 1  # the robbed tile goes to the winner
                self.melds[k] -= 1
                self.pending_add = None
        elif kind == "exhausted":
            self.over = True
        elif kind == "flipped":
            self.flip = parse_tile(e["tile"])
        elif kind == "round_ended":
            self.over = self.revealed = True

    # ----- what the truth says about the engine (cross-checks of this tracker) -----

    def wall_rest(self) -> Counts:
        """Copies of each kind still in the live wall, the flip not counted."""
        rest = [4 - n for n in self.out]
        if self.flip is not None:
            rest[self.flip] -= 1
        return rest

    # ----- what a viewer may know -----

    def cap(self, loc: tuple[Any, ...], viewer: int | None) -> Counts | tuple[int, ...]:
        """How many copies of each kind `viewer` may know at `loc`."""
        place = loc[0]
        if not self.started:
            return ZERO
        if place == "hand":
            seat = viewer if loc[1] == "me" else loc[1]
            if seat is None:
                return ZERO
            if self.over:
                hand = list(self.hands[seat])
                if seat in self.win_tiles:
                    hand[self.win_tiles[seat]] += 1
                return hand
            return self.hands[seat] if seat == viewer else ZERO
        if place == "an":
            seat = loc[1]
            return self.an[seat] if (seat == viewer or self.over) else ZERO
        if place == "river":
            return self.river
        if place == "melds":
            return self.melds
        if place == "public":
            return [a + b for a, b in zip(self.river, self.melds, strict=True)]
        if place == "flip":
            flip = [0] * NUM_KINDS
            if self.flip is not None:
                flip[self.flip] = 1
            return flip
        if place == "known":
            return self.known(viewer)
        if place == "deal":
            return FOUR if self.revealed else ZERO
        raise AssertionError(f"unknown place {loc}")

    def known(self, viewer: int | None) -> Counts:
        """Copies of each kind the viewer may know anywhere."""
        if not self.started:
            return [0] * NUM_KINDS
        if self.revealed:
            return list(FOUR)
        if self.over:
            return [4 - n for n in self.wall_rest()]
        known = [a + b for a, b in zip(self.river, self.melds, strict=True)]
        if viewer is not None:
            for k in range(NUM_KINDS):
                known[k] += self.hands[viewer][k] + self.an[viewer][k]
        return known

    def check_against(self, r: Round) -> None:
        """The tracker agrees with the engine's own state."""
        for seat in range(4):
            assert self.hands[seat] == list(r.hands[seat]), seat
            an = [0] * NUM_KINDS
            for m in r.melds[seat]:
                if m.kind == "an":
                    an[m.tile] += 4
            assert self.an[seat] == an
        melds = [0] * NUM_KINDS
        for row in r.melds:
            for m in row:
                if m.kind != "an":
                    melds[m.tile] += m.size
        if self.pending_add is not None and r.phase is Phase.ROB:
            melds[self.pending_add[1]] += 1
        assert self.melds == melds
        river = [0] * NUM_KINDS
        for discards in r.discards:
            for d in discards:
                river[d.tile] += 1
        assert self.river == river
        rest = [0] * NUM_KINDS
        for k in r.wall[r.front : r.back]:
            rest[k] += 1
        if r.flip is not None:
            rest[r.flip] -= 1
            assert self.flip == r.flip
        assert self.wall_rest() == rest


# ---------------------------------------------------------------------------------------------
# What a frame claims


@dataclass
class Claims:
    """The tiles a frame shows, each with the place it claims a copy at."""

    frame: dict[str, Any]
    counts: dict[tuple[str, tuple[Any, ...], int], int] = field(default_factory=dict)
    texts: list[tuple[Path_, str]] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    tiles: int = 0


def dumps(frame: Any) -> str:
    """A frame's JSON as the projection made it. The server's own `dumps` (with
    `ZHUOJI_CHECK_FRAMES`, as in every test) also validates each frame against its protocol
    model, which refuses some leaks by itself (a `round_started` with every hand); the audit
    judges the projection alone, so it must see them. (Frames other than logged events and
    prompts come from the projection as models, built by their builders.)"""
    if isinstance(frame, dict):
        return json.dumps(frame, ensure_ascii=False, separators=(",", ":"))
    return frames.encode(frame)


def walk(obj: Any) -> list[tuple[Path_, str, str]]:
    """Every string in a frame: its path, the name of the nearest key above it, the string."""
    found: list[tuple[Path_, str, str]] = []
    stack: list[tuple[Any, Path_, str]] = [(obj, (), "")]
    while stack:
        node, path, key = stack.pop()
        if isinstance(node, str):
            found.append((path, key, node))
        elif isinstance(node, dict):
            for k, v in node.items():
                if not isinstance(v, int | float | bool | None):
                    stack.append((v, (*path, k), k))
        elif isinstance(node, list):
            for i, v in enumerate(node):
                if not isinstance(v, int | float | bool | None):
                    stack.append((v, (*path, i), key))
    return found


def claims_of(text: str) -> Claims:
    """What the frame in `text` claims, independent of who gets it ("me" is the receiver).

    The fields are read by frame type; then every tile string anywhere in the text (a value or a
    key, at any depth) must have been one of those read, or the frame fails as unaudited."""
    frame = json.loads(text)
    c = Claims(frame)
    taken = 0

    counts = c.counts

    def take(name: Any, loc: tuple[Any, ...], group: str, n: int = 1) -> None:
        nonlocal taken
        k = KIND.get(name) if isinstance(name, str) else None
        if k is not None:
            taken += 1
            key = (group, loc, k)
            counts[key] = counts.get(key, 0) + n

    kind = frame["type"]
    if kind == "round_started":
        for name in frame.get("hand") or []:
            take(name, ("hand", "me"), "hand")
    elif kind == "drew":
        take(frame["tile"], ("hand", frame["seat"]), "tile")
    elif kind == "discarded":
        take(frame["tile"], ("river",), "tile")
    elif kind in ("claimed", "add_gang_declared", "added_gang"):
        take(frame["tile"], ("melds",), "tile")
    elif kind == "concealed_gang":
        take(frame["tile"], ("an", frame["seat"]), "tile")
    elif kind == "flipped":
        take(frame["tile"], ("flip",), "tile")
    elif kind == "won":
        take(frame["tile"], ("known",), "tile")
        for name in frame["hand"]:
            take(name, ("hand", frame["seat"]), "hand")
    elif kind == "round_ended":
        result = frame["result"]
        take(result.get("flip"), ("flip",), "flip")
        for seat, hand in enumerate(result.get("hands", [])):
            for name in hand:
                take(name, ("hand", seat), f"hand{seat}")
        for seat, row in enumerate(result.get("melds", [])):
            for i, m in enumerate(row):
                loc = ("an", seat) if m["kind"] == "an" else ("melds",)
                take(m["tile"], loc, f"meld{seat}.{i}", 3 if m["kind"] == "pong" else 4)
        for i, chicken in enumerate(result.get("chickens", [])):
            for j, line in enumerate(chicken["lines"]):
                take(line["tile"], ("known",), f"chicken{i}.{j}", line["count"])
        for i, dou in enumerate(result.get("dou", [])):
            take(dou["tile"], ("known",), f"dou{i}")
            c.texts.append((("result", "dou", i, "why"), dou.get("why") or ""))
        for i, payment in enumerate(result.get("payments", [])):
            details = payment.get("details") or {}
            for j, line in enumerate(details.get("chickens", [])):
                take(line["tile"], ("known",), f"pay{i}.{j}", line["count"])
            if "dou" in details:
                take(details["dou"]["tile"], ("known",), f"paydou{i}")
        for i, win in enumerate(result.get("wins", [])):
            take(win["tile"], ("known",), f"win{i}")
        for name in (frame.get("deal") or {}).get("order", []):
            take(name, ("deal",), "deal")  # the fair deal, opened at the end
    elif kind == "snapshot" and frame["round"] is not None:
        rv = frame["round"]
        for name in rv["hand"] or []:
            take(name, ("hand", "me"), "hand")
        take(rv["drawn"], ("hand", "me"), "drawn")
        for row in rv["discards"]:
            for d in row:
                take(d["tile"], ("river",), "river")
        for seat, row in enumerate(rv["melds"]):
            for m in row:
                loc = ("an", seat) if m["kind"] == "an" else ("melds",)
                take(m["tile"], loc, "melds", 3 if m["kind"] == "pong" else 4)
        take(rv["claim_tile"], ("public",), "claim")
    elif kind == "prompt":
        # Each offered tile is one the seat holds.
        for i, a in enumerate(frame["actions"]):
            take(a.get("tile"), ("hand", "me"), f"action{i}")
        take(frame["default"].get("tile"), ("hand", "me"), "default")
    elif kind == "error":
        c.texts.append((("message",), frame["message"]))
    c.tiles = taken
    if len(EXACT.findall(text)) != taken:
        tiles = [(path, s) for path, key, s in walk(frame) if TILE.match(s)]
        c.problems.append(
            f"{len(EXACT.findall(text)) - taken} tiles in fields the audit does not read, "
            f"among {tiles}"
        )
    return c


def check(c: Claims, viewer: int | None, truth: Truth, sent: Collection[str] = ()) -> list[str]:
    """The problems of frame `c` sent to `viewer` at the moment `truth` describes."""
    problems = list(c.problems)
    frame = c.frame
    kind = frame["type"]
    if kind == "prompt" and frame["seat"] != viewer:
        problems.append(f"seat {viewer} got the prompt of seat {frame['seat']}")
    if kind == "snapshot" and frame["seat"] != viewer:
        problems.append(f"seat {viewer} got the snapshot of seat {frame['seat']}")
    if kind in ("round_started", "snapshot"):
        hand = frame["hand"] if kind == "round_started" else (frame["round"] or {}).get("hand")
        if viewer is None and hand is not None:
            problems.append("a spectator was shown a hand")
    for (group, loc, k), n in c.counts.items():
        cap = truth.cap(loc, viewer)[k]
        if n > cap:
            problems.append(
                f"{kind} shows {n} × {tile_name(k)} at {loc} ({group}); viewer {viewer} may "
                f"know {cap} there"
            )
    if c.texts:
        known = truth.known(viewer)
        for path, text in c.texts:
            names = set(TOKEN.findall(text))
            if len(names) == NUM_KINDS:
                continue  # the whole vocabulary: a list of allowed values, not information
            for name in names:
                if not known[parse_tile(name)] and name not in sent:
                    problems.append(f"{kind}.{'.'.join(map(str, path))} names {name}: {text!r}")
    return problems


# ---------------------------------------------------------------------------------------------
# Offline: the real projection over engine rounds


@dataclass
class Tally:
    rounds: int = 0
    frames: int = 0  # frames delivered to a viewer and audited
    tiles: int = 0  # tile strings in them
    snapshots: int = 0
    prompts: int = 0
    errors: int = 0
    by_type: dict[str, int] = field(default_factory=lambda: defaultdict(int))


def choice(a: Action) -> dict[str, Any]:
    d: dict[str, Any] = {"act": a.act}
    if a.tile is not None:
        d["tile"] = tile_name(a.tile)
    return d


class OfflineTable:
    """A match played by the rules bots, its frames made by the real projection for four seats
    and a spectator, every one audited at the moment it would be sent."""

    def __init__(
        self,
        preset: str,
        seed: str,
        rounds: int,
        tally: Tally,
        project: Any = view_for,
        key: Any = view_key,
    ) -> None:
        self.project, self.key = project, key
        self.round: Round | None = None
        self.rng = random.Random(seed)
        self.match = Match(PRESETS[preset], rounds, seed=seed)
        self.bots = [Bot(f"{seed}:{i}") for i in range(4)]
        self.table = seed.replace(":", "-")[:32]
        self.seq = 0
        self.truth = Truth()
        self.tally = tally
        # The header carries no tiles; it is a whole `TableInfo`, since frames are validated.
        seat = {"name": "bot", "kind": "bot", "connected": True, "auto": False}
        self.info = {
            "id": self.table,
            "name": "audit",
            "preset": preset,
            "options": {},
            "base": 1,
            "rounds": rounds,
            "turn_seconds": 0.0,
            "bank_seconds": 0.0,
            "claim_min_ms": 0,
            "has_password": False,
            "seats": [seat] * 4,
            "spectators": 0,
            "state": "playing",
            "round_no": 1,
            "scores": [0, 0, 0, 0],
        }
        self.salt = ""
        self.commitment: str | None = None

    def deliver(
        self,
        viewer: int | None,
        text: str | None,
        sent: Collection[str] = (),
        claims: dict[str, Claims] | None = None,
    ) -> None:
        """Audit one frame as `viewer` would get it now."""
        if text is None:
            return
        cache = {} if claims is None else claims
        c = cache.get(text)
        if c is None:
            c = cache[text] = claims_of(text)
        problems = check(c, viewer, self.truth, sent)
        assert not problems, f"{'; '.join(problems)} [viewer {viewer}: {text[:400]}]"
        if self.salt and not self.truth.revealed:
            assert self.salt not in text, "the fair deal's salt was sent before the end"
        self.tally.frames += 1
        self.tally.tiles += c.tiles
        self.tally.by_type[c.frame["type"]] += 1

    def broadcast(self, event: dict[str, Any]) -> None:
        """As `Table._broadcast`: members grouped by `view_key`, one frame built per group."""
        self.truth.apply(event)
        members = list(VIEWERS)
        self.rng.shuffle(members)
        groups: dict[object, list[int | None]] = {}
        for viewer in members:
            groups.setdefault(self.key(event, viewer), []).append(viewer)
        claims: dict[str, Claims] = {}
        for viewers in groups.values():
            frame = self.project(event, viewers[0])
            text = None if frame is None else dumps(frame)
            for viewer in viewers:
                self.deliver(viewer, text, claims=claims)
        if event["type"] == "round_started":
            assert "hands" in event, "projecting changed the truth"

    def events(self, r: Round, new: list[Any]) -> None:
        for e in new:
            d = e.to_dict()
            self.seq += 1
            d.update(table=self.table, seq=self.seq)
            if d["type"] == "round_started":
                self.salt = self.rng.randbytes(16).hex()
                self.commitment = commitment(r.deal_order, self.salt)
                d.update(round_no=self.match.round_no, base=1, commitment=self.commitment)
            elif d["type"] == "round_ended":
                d.update(
                    scores=[0, 0, 0, 0],
                    deal={"order": [tile_name(k) for k in r.deal_order], "salt": self.salt},
                )
            self.broadcast(d)

    def prompts(self, r: Round) -> None:
        for seat in r.awaiting():
            item = PromptItem(
                self.table,
                self.seq,
                seat,
                [choice(a) for a in legal_actions(r, seat)],
                choice(r.default_action(seat)),
                15000,
                30000,
            )
            for viewer in VIEWERS:
                frame = self.project(item, viewer)
                if frame is not None:  # only the seat asked gets one
                    self.deliver(viewer, dumps(frame))
                    self.tally.prompts += 1

    def snapshots(self, r: Round | None) -> None:
        item = SnapshotItem(
            self.table, self.seq, self.info, r, self.match.round_no, self.commitment
        )
        for viewer in VIEWERS:
            frame = self.project(item, viewer)
            assert frame is not None
            self.deliver(viewer, dumps(frame))
            self.tally.snapshots += 1

    def refusals(self, r: Round) -> None:
        """Each seat sends a move the engine refuses; its error frame is audited."""
        for seat in range(4):
            legal = set(legal_actions(r, seat))
            for _ in range(4):
                act = self.rng.choice(ACT_KINDS)
                tile = self.rng.choice([None, self.rng.randrange(NUM_KINDS)])
                action = Action(seat, act, tile)  # type: ignore[arg-type]
                if action not in legal:
                    break
            else:
                continue
            try:
                r.clone().apply(action)  # a clone: the engine reads some moves leniently
            except IllegalAction as err:
                item = ErrorItem(err.code, err.message, "act", self.table, self.seq)
            else:
                continue  # e.g. `hu` with a tile is read as `hu`
            frame = self.project(item, seat)
            assert frame is not None
            sent = () if tile is None else (tile_name(tile),)
            self.deliver(seat, dumps(frame), sent=sent)
            self.tally.errors += 1

    def play(self, snapshot_every: int) -> None:
        self.snapshots(None)
        while not self.match.over:
            r = self.round = self.match.next_round()
            self.events(r, r.events)
            step = 0
            while r.phase is not Phase.OVER:
                self.truth.check_against(r)
                self.prompts(r)
                if step % snapshot_every == 0:
                    self.snapshots(r)
                    self.refusals(r)
                seat = r.awaiting()[0]
                new = r.apply(self.bots[seat].choose(r, seat))
                self.events(r, new)
                step += 1
            self.truth.check_against(r)
            self.snapshots(r)  # between rounds: the round is over, its hands revealed
            self.match.record(r)
            self.tally.rounds += 1


MATCHES_PER_PRESET = volume(5, 42)  # of 8 rounds each


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_the_projection_leaks_nothing_over_many_bot_rounds() -> None:
    tally = Tally()
    for preset in sorted(PRESETS):
        for m in range(MATCHES_PER_PRESET):
            OfflineTable(preset, f"audit:{preset}:{m}", rounds=8, tally=tally).play(
                snapshot_every=4
            )
    print(
        f"\nleak audit (offline): {tally.rounds} rounds, {tally.frames} frames "
        f"({tally.snapshots} snapshots, {tally.prompts} prompts, {tally.errors} errors), "
        f"{tally.tiles} tiles"
    )
    assert tally.rounds == len(PRESETS) * MATCHES_PER_PRESET * 8
    # per round: more than 50 snapshots, 10 prompts and 10 refused moves
    assert tally.snapshots > 50 * tally.rounds
    assert tally.prompts > 10 * tally.rounds and tally.errors > 10 * tally.rounds
    for kind in (
        "round_started",
        "drew",
        "concealed_gang",
        "added_gang",
        "won",
        "flipped",
        "round_ended",
        "exhausted",
        "add_gang_declared",
        "claimed",
    ):
        assert tally.by_type[kind], f"no {kind} frame was audited"


# ----- the oracle fails on leaks (each a projection broken on purpose) -----


def _leaky_drew(item: Any, viewer: int | None) -> Any:
    if isinstance(item, dict) and item["type"] == "drew":
        return item  # everyone sees the tile drawn
    return view_for(item, viewer)


def _fields(frame: Any) -> Any:
    """A frame's JSON fields (the projection gives a model for all but logged events)."""
    return frame if frame is None or isinstance(frame, dict) else frames.logged(frame)


def _leaky_deal(item: Any, viewer: int | None) -> Any:
    frame = view_for(item, viewer)
    if isinstance(item, dict) and item["type"] == "round_started":
        frame = {**frame, "hands": item["hands"]}  # type: ignore[dict-item]
    return frame


def _leaky_concealed_gang(item: Any, viewer: int | None) -> Any:
    frame = _fields(view_for(item, viewer))
    if isinstance(item, SnapshotItem) and item.round is not None and frame is not None:
        melds = [
            [{**m, "tile": tile_name(t.tile)} for m, t in zip(mine, truth, strict=True)]
            for mine, truth in zip(frame["round"]["melds"], item.round.melds, strict=True)
        ]
        frame = {**frame, "round": {**frame["round"], "melds": melds}}
    return frame


def _leaky_spectator_hand(item: Any, viewer: int | None) -> Any:
    frame = _fields(view_for(item, viewer))
    if isinstance(item, SnapshotItem) and viewer is None and frame and item.round is not None:
        hand = [tile_name(k) for k in range(NUM_KINDS) for _ in range(item.round.hands[0][k])]
        frame = {**frame, "round": {**frame["round"], "hand": hand}}  # seat 0's hand
    return frame


def _leaky_prompts(item: Any, viewer: int | None) -> Any:
    if isinstance(item, PromptItem):
        return view_for(item, item.seat)  # every viewer gets the prompt
    return view_for(item, viewer)


def _everyone_alike(item: Any, viewer: int | None) -> object:
    return "all"  # a grouping bug: one frame built for the first member goes to all


def _leaky_wall(table: OfflineTable) -> Any:
    def project(item: Any, viewer: int | None) -> Any:
        frame = _fields(view_for(item, viewer))
        r = table.round
        if isinstance(item, ErrorItem) and frame is not None and r is not None and r.wall_left:
            frame = {**frame, "message": f"{frame['message']} (next: {tile_name(r.wall[r.front])})"}
        return frame

    return project


@pytest.mark.parametrize(
    ("project", "key", "why"),
    [
        (_leaky_drew, view_key, "at .'hand', [0-3]. .tile"),
        (_leaky_deal, view_key, "does not read"),
        (_leaky_concealed_gang, view_key, "at .'an', [0-3]. .melds"),
        (_leaky_spectator_hand, view_key, "spectator was shown a hand"),
        (_leaky_prompts, view_key, "got the prompt of seat"),
        (view_for, _everyone_alike, "viewer (None|[0-3]) may know 0"),
        ("wall", view_key, "error.message names"),
    ],
)
def test_the_audit_catches_a_leaky_projection(project: Any, key: Any, why: str) -> None:
    for m in range(6):
        table = OfflineTable("guiyang", f"leaky:{m}", rounds=8, tally=Tally(), key=key)
        table.project = _leaky_wall(table) if project == "wall" else project
        try:
            table.play(snapshot_every=1)
        except AssertionError as err:
            assert re.search(why, str(err)), err
            return
    raise AssertionError("the leak went unnoticed")


# ---------------------------------------------------------------------------------------------
# A real server on loopback: reconnects, snapshots, refusals, a spectator, the server's bots

P_DROP = 0.03  # per frame received: drop the connection and come back
P_SYNC = 0.01  # ask for a snapshot
P_BAD = 0.04  # send a message the server refuses


@dataclass
class Received:
    """Every frame one connection got, as text, and the tiles it sent in refused moves."""

    table: str
    viewer: int | None
    frames: list[str] = field(default_factory=list)
    sent: set[str] = field(default_factory=set)


class Recorder:
    def __init__(self) -> None:
        self.conns: list[Received] = []

    def new(self, table: str, viewer: int | None) -> Received:
        rec = Received(table, viewer)
        self.conns.append(rec)
        return rec


async def recv_text(client: Client, rec: Received, timeout: float = 20) -> dict[str, Any]:
    try:
        async with asyncio.timeout(timeout):
            text = await client.ws.recv()
    except TimeoutError:
        last = "\n  ".join(t[:300] for t in rec.frames[-4:])
        raise AssertionError(
            f"{client.name} (table {rec.table}, seat {rec.viewer}) got nothing in {timeout:g} s;"
            f" its last frames:\n  {last}"
        ) from None
    assert isinstance(text, str)
    rec.frames.append(text)
    frame: dict[str, Any] = json.loads(text)
    return frame


async def drain(client: Client, rec: Received) -> None:
    """Everything a replaced or closing connection still gets, until it is closed: by the
    server (4002, replaced), by our close handshake (which gives up after its own timeout) or
    by our abort, so the close comes. Not a few quiet seconds taken for it: on a loaded
    machine the server's 4002 may take longer, and a replaced connection was then found
    still open (`close_code` None)."""
    with contextlib.suppress(ConnectionClosed):
        while True:
            await recv_text(client, rec, 60)


async def close(client: Client, rec: Received) -> None:
    """Close cleanly, reading on meanwhile (a full queue would hide the server's answer)."""
    closing = asyncio.create_task(client.ws.close())
    await drain(client, rec)
    await closing


def bad_message(frame: dict[str, Any], player: BotPlayer, rng: random.Random, rec: Received) -> str:
    """A message the server refuses (never a move it would accept)."""
    seq = player.seq
    options: list[dict[str, Any] | str] = [
        "{not json",
        {"type": "act", "seq": 1, "act": "pass"},
        {"type": "act", "seq": seq, "act": "discard", "tile": "0m"},
        {"type": "add_bot"},
        {"type": "watch", "table": rec.table},
        {"type": "hello", "version": 1, "name": "again"},
        {"type": "start"},
    ]
    if frame["type"] == "prompt":
        offered = {(a["act"], a.get("tile")) for a in frame["actions"]}
        tile = tile_name(rng.randrange(NUM_KINDS))
        for guess in (
            {"act": "discard", "tile": tile},
            {"act": "pong"},
            {"act": "gang", "tile": tile},
            {"act": "ready", "tile": tile},
        ):
            if (guess["act"], guess.get("tile")) not in offered and not (
                guess["act"] == "gang" and ("gang", None) in offered
            ):
                options.append({"type": "act", "seq": frame["seq"], **guess})
                break
    choice_ = rng.choice(options)
    if isinstance(choice_, str):
        return choice_
    if "tile" in choice_:
        rec.sent.add(choice_["tile"])
    return json.dumps(choice_)


class LiveSeat:
    """A seat played by a protocol client that drops, comes back, asks for snapshots and sends
    refused messages; every frame its connections get is recorded."""

    def __init__(self, url: str, name: str, rng: random.Random, recorder: Recorder) -> None:
        self.url, self.name, self.rng, self.recorder = url, name, rng, recorder
        self.drops = self.bad = self.snapshots = 0

    async def join(self, first: dict[str, Any], client: Client, rec: Received) -> None:
        self.client, self.rec = client, rec
        self.table, self.seat, self.token = first["table"], first["seat"], first["token"]
        self.rec.viewer = self.seat
        self.player = BotPlayer(seed=f"{self.name}:{self.table}")
        self.player.on_frame(first)

    async def reconnect(self) -> bool:
        """Come back with the token: with the last seq (catch-up) or without (a snapshot);
        sometimes while the old connection is still open (it is replaced, 4002)."""
        self.drops += 1
        old, old_rec = self.client, self.rec
        replace = self.rng.random() < 0.3
        if not replace:
            if self.rng.random() < 0.5:
                old.ws.transport.abort()  # the network went away
                await drain(old, old_rec)
            else:
                await close(old, old_rec)
            await asyncio.sleep(self.rng.random() * 0.02)
        events = self.rng.random() < 0.5
        client = await Client.connect(
            self.url, self.name, token=self.token, last_seq=self.player.seq if events else None
        )
        rec = self.recorder.new(self.table, self.seat)
        self.client, self.rec = client, rec
        welcome = await recv_text(client, rec)
        assert welcome["type"] == "welcome"
        joined = await recv_text(client, rec)
        if joined["type"] == "error":  # the table was closed after the match
            assert joined["code"] == "bad_token"
            if replace:  # nothing was replaced: the old connection is only in the lobby now
                await close(old, old_rec)
            return False
        if replace:  # the server closed it before it answered the new one
            await drain(old, old_rec)
            assert old.ws.close_code == 4002
        assert joined["type"] == "joined" and joined["seat"] == self.seat
        if joined["resume"] == "snapshot":
            self.snapshots += 1
            self.player = BotPlayer(seed=f"{self.name}:{self.table}:{self.drops}")
        self.player.on_frame(joined)
        return True

    async def play(self) -> None:
        while True:
            frame = await recv_text(self.client, self.rec)
            reply = self.player.on_frame(frame)
            if frame["type"] == "match_ended" or (
                frame["type"] == "snapshot" and frame["info"]["state"] == "finished"
            ):
                await close(self.client, self.rec)
                return
            roll = self.rng.random()
            if roll < P_DROP:
                if not await self.reconnect():
                    return
                continue  # a prompt left unanswered is sent again
            if roll < P_DROP + P_SYNC:
                await self.client.send({"type": "sync"})
            elif roll < P_DROP + P_SYNC + P_BAD:
                self.bad += 1
                await self.client.send_raw(bad_message(frame, self.player, self.rng, self.rec))
            if reply is not None:
                await self.client.send(reply)


async def all_seated(host: LiveSeat) -> None:
    """Read the host's frames (fed to its player) until the table shows every seat connected:
    a person when its `table` event says so, a bot when its `seat_status` does."""
    connected = [False] * 4
    while not all(connected):
        frame = await recv_text(host.client, host.rec)
        host.player.on_frame(frame)
        if frame["type"] in ("table", "snapshot"):
            connected = [s["connected"] for s in frame["info"]["seats"]]
        elif frame["type"] == "seat_status":
            connected[frame["seat"]] = frame["connected"]


async def spectate(url: str, table: str, rng: random.Random, recorder: Recorder) -> int:
    """Watch a table to its end, leaving and coming back (a snapshot each time), dropping the
    connection, asking for snapshots and sending refused messages. Returns the re-watches."""
    again = 0
    while True:
        client = await Client.connect(url, "看客")
        rec = recorder.new(table, None)
        await recv_text(client, rec)
        await client.send({"type": "watch", "table": table})
        while True:
            try:
                frame = await recv_text(client, rec)
            except ConnectionClosed:
                return again
            if frame["type"] == "match_ended" or (
                frame["type"] == "snapshot" and frame["info"]["state"] == "finished"
            ):
                await close(client, rec)
                return again
            if frame["type"] == "error" and frame["code"] == "unknown_table":
                return again
            if frame["type"] == "left":  # (a `watch` sent before `left` is refused)
                await client.send({"type": "watch", "table": table})
                continue
            roll = rng.random()
            if roll < 0.01:
                again += 1
                await client.send({"type": "leave"})
            elif roll < 0.02:
                again += 1
                await close(client, rec)
                break
            elif roll < 0.03:
                await client.send({"type": "sync"})
            elif roll < 0.05:
                await client.send_raw(
                    rng.choice(
                        [
                            '{"type": "act", "seq": 1, "act": "pass"}',
                            '{"type": "start"}',
                            "[]",
                            "{bad",
                        ]
                    )
                )


def truth_by_seq(events: list[dict[str, Any]]) -> dict[int, Truth]:
    """The truth after each stored event, by its `seq` (0: before the first)."""
    truth = Truth()
    states = {0: copy.deepcopy(truth)}
    for e in events:
        truth.apply(e)
        states[e["seq"]] = copy.deepcopy(truth)
    return states


def audit_connection(rec: Received, states: dict[int, Truth], salts: dict[int, str]) -> int:
    """Audit every frame of one connection against the truth at the frame's `seq` (catch-up
    events come after a `joined` quoting a later number; a prompt quotes the event that opened
    its decision). A frame without a table `seq` is judged at the connection's last one."""
    truth = states[0]
    for text in rec.frames:
        parse_server(text)  # every frame is a protocol message
        frame = json.loads(text)
        if frame.get("table") == rec.table and frame.get("seq") is not None:
            truth = states[frame["seq"]]
        problems = check(claims_of(text), rec.viewer, truth, rec.sent)
        assert not problems, f"{'; '.join(problems)} [viewer {rec.viewer}: {text[:400]}]"
        salt = salts.get(truth.round_no)
        if truth.started and not truth.revealed and salt is not None:
            assert salt not in text, "the fair deal's salt was sent before the round's end"
    return len(rec.frames)


def engine_truth(db: Path, table: str, events: list[dict[str, Any]]) -> int:
    """The stored events are the engine's: each round replays from its stored deal and moves to
    the very same events, and the tracker agrees with the replayed round at its end."""
    rounds = [e for e in events if e["type"] == "round_started"]
    for started in rounds:
        round_no = started["round_no"]
        r = run_script(load_round_script(db, table, round_no))
        stored = [e for e in events if e.get("_round") == round_no]
        replayed = [e.to_dict() for e in r.events]
        assert [e["type"] for e in stored] == [e["type"] for e in replayed]
        for s, e in zip(stored, replayed, strict=True):
            assert {k: v for k, v in s.items() if k in e} == e, (s, e)
        truth = Truth()
        for e in stored:
            truth.apply(e)
        truth.check_against(r)
    return len(rounds)


async def test_a_live_server_leaks_nothing_through_reconnects_snapshots_and_refusals(
    tmp_path: Path,
) -> None:
    recorder = Recorder()
    db = tmp_path / "z.db"
    rng = random.Random(6)
    seats: list[LiveSeat] = []
    plan = [("guiyang", 4, 4), ("chuan", 2, 4), ("anshun", 3, 4)]  # preset, clients, rounds
    async with running_server(db, seed="leak", disconnect_grace=60) as (url, server):
        tables: list[str] = []
        for preset, humans, rounds in plan:
            names = [f"{preset[:2]}{i}号" for i in range(humans)]
            live = [LiveSeat(url, name, rng, recorder) for name in names]
            host = await Client.connect(url, names[0])
            rec = recorder.new("", 0)
            await recv_text(host, rec)
            await host.send(
                {
                    "type": "create_table",
                    "name": preset,
                    "preset": preset,
                    "rounds": rounds,
                    "claim_min_ms": 0,
                    "turn_seconds": 0,
                    "bank_seconds": 0,
                }
            )
            joined = await recv_text(host, rec)
            rec.table = joined["table"]
            await live[0].join(joined, host, rec)
            for seat in live[1:]:
                client = await Client.connect(url, seat.name)
                rec = recorder.new(joined["table"], None)
                await recv_text(client, rec)
                await client.send({"type": "take_seat", "table": joined["table"]})
                while (first := await recv_text(client, rec))["type"] != "joined":
                    pass
                await seat.join(first, client, rec)
            for _ in range(4 - humans):
                await host.send({"type": "add_bot"})
            tables.append(joined["table"])
            seats += live
        tasks = [asyncio.create_task(spectate(url, t, rng, recorder)) for t in tables]
        for t in tables:
            host_seat = next(s for s in seats if s.table == t and s.seat == 0)
            await all_seated(host_seat)  # the bots take their seats
            await host_seat.client.send({"type": "start"})
        async with asyncio.timeout(60):
            await asyncio.gather(*(s.play() for s in seats))
            rewatches = sum(await asyncio.gather(*tasks))

    frames = rounds_played = 0
    for t in tables:
        events = table_events(db, t)
        round_no = 0
        for e in events:
            if e["type"] == "round_started":
                round_no = e["round_no"]
            if e["type"] in ROUND_EVENT_TYPES:
                e["_round"] = round_no
        salts = {e["_round"]: e["deal"]["salt"] for e in events if e["type"] == "round_ended"}
        assert len(salts) == next(p[2] for p in plan if p[0] == server_preset(events))
        rounds_played += engine_truth(db, t, events)
        states = truth_by_seq(events)
        for rec in recorder.conns:
            if rec.table == t:
                frames += audit_connection(rec, states, salts)
        ended = [e for e in events if e["type"] == "match_ended"]
        assert ended and ended[0]["reason"] == "finished"
    drops = sum(s.drops for s in seats)
    snapshots = sum(s.snapshots for s in seats)
    bad = sum(s.bad for s in seats)
    print(
        f"\nleak audit (loopback): {rounds_played} rounds, {frames} frames on "
        f"{len(recorder.conns)} connections; {drops} reconnects ({snapshots} by snapshot), "
        f"{bad} refused messages, {rewatches} spectator re-watches"
    )
    assert drops - snapshots >= 5 and snapshots >= 5 and bad >= 20
    errors = sum(t.count('"type":"error"') for rec in recorder.conns for t in rec.frames)
    snaps = sum(t.count('"type":"snapshot"') for rec in recorder.conns for t in rec.frames)
    assert errors >= 20 and snaps >= 20, (errors, snaps)


def server_preset(events: list[dict[str, Any]]) -> str:
    return str(next(e["info"]["preset"] for e in events if e["type"] == "table"))
