"""A bot that plays a seat as a protocol client, with the rules core's policy (`rules.bot.Bot`).

`BotPlayer` is the transport-free part: feed it every frame the server sends (decoded JSON) and
it returns the frame to send back, if any. It knows only what its seat is shown — its own hand
and draws and the public record — exactly what an external bot program would know. The server's
own bots (`add_bot`) run it over an in-process pipe; `zhuoji loadtest` runs it over websockets.

The policy decides from a `rules.bot.SeatView`, filled here from what the seat was shown. The
prompt's own list of legal actions stays the authority: if the policy's pick is not on it (the
view and the engine disagree), the bot plays the prompt's default and counts a fallback.
"""

from __future__ import annotations

from typing import Any

from rules.bot import Bot, SeatView
from rules.options import RuleOptions, make_options
from rules.patterns import Meld
from rules.round import Phase
from rules.tiles import NUM_KINDS, parse_tile, tile_name


class BotPlayer:
    """Plays one seat from the frames it is sent.

    >>> p = BotPlayer(seed=1)
    >>> p.on_frame({"type": "welcome", "version": 1, "server": "zhuoji", "name": "b"}) is None
    True
    """

    def __init__(self, seed: int | str = 0) -> None:
        self.policy = Bot(seed)
        self.table: str | None = None
        self.seat: int | None = None
        self.token: str | None = None
        self.seq = 0
        self.opts: RuleOptions | None = None
        self.errors: list[dict[str, Any]] = []
        self.fallbacks = 0  # moves where the policy's pick was not offered (or it failed)
        self.policy_errors: list[str] = []
        self.finished: dict[str, Any] | None = None
        self.round_nets: list[list[int]] = []
        self._reset_round()

    def _reset_round(self) -> None:
        self.hand = [0] * NUM_KINDS
        self.melds: list[Meld] = []
        self.drawn: int | None = None
        self.after_pong = False
        self.declared = False
        self.discard_count = 0
        self.any_claim = False
        self.passed = False
        self.wall_left = 0
        self.claim_tile: int | None = None
        self.claim_from: int | None = None
        self.window: Phase = Phase.TURN

    # ----- frames in -----

    def on_frame(self, f: dict[str, Any]) -> dict[str, Any] | None:
        """Take one server frame; return the frame to answer with, if any."""
        kind = f["type"]
        if "seq" in f and f.get("table") == self.table and kind not in ("error",):
            self.seq = max(self.seq, f["seq"])
        handler = getattr(self, "_on_" + kind, None)
        if handler is None:
            return None
        result: dict[str, Any] | None = handler(f)
        return result

    def _on_error(self, f: dict[str, Any]) -> None:
        self.errors.append(f)

    def _on_joined(self, f: dict[str, Any]) -> None:
        self.table, self.seat, self.token = f["table"], f["seat"], f["token"]
        self.seq = f["seq"]

    def _set_options(self, info: dict[str, Any]) -> None:
        if self.opts is None:
            self.opts = make_options(info["preset"], info["options"])

    def _on_table(self, f: dict[str, Any]) -> None:
        self._set_options(f["info"])

    def _on_snapshot(self, f: dict[str, Any]) -> None:
        self._set_options(f["info"])
        self._reset_round()
        view = f["round"]
        if view is None or self.seat is None:
            return
        me = self.seat
        for name in view["hand"] or []:
            self.hand[parse_tile(name)] += 1
        self.melds = [
            Meld(m["kind"], parse_tile(m["tile"]), m["from_seat"], m["dou"])
            for m in view["melds"][me]
            if m["tile"] is not None
        ]
        self.drawn = None if view["drawn"] is None else parse_tile(view["drawn"])
        self.declared = view["declared"][me]
        self.discard_count = len(view["discards"][me])
        self.any_claim = any(view["melds"][s] for s in range(4))
        self.wall_left = view["wall_left"]
        if view["claim_tile"] is not None:
            self.claim_tile = parse_tile(view["claim_tile"])
            self.claim_from = view["claim_from"]
            self.window = Phase(view["phase"])
        # After a 碰 the claimer must discard: on turn with no draw and a fresh 碰.
        self.after_pong = (
            view["phase"] == "turn"
            and view["turn"] == me
            and self.drawn is None
            and bool(self.melds)
            and self.melds[-1].kind == "pong"
            and sum(self.hand) + 3 * len(self.melds) == 14
        )

    def _on_round_started(self, f: dict[str, Any]) -> None:
        self._reset_round()
        for name in f["hand"] or []:
            self.hand[parse_tile(name)] += 1
        self.wall_left = f["wall_left"]

    def _on_drew(self, f: dict[str, Any]) -> None:
        self.wall_left = f["wall_left"]
        if f["seat"] == self.seat:
            tile = parse_tile(f["tile"])
            self.hand[tile] += 1
            self.drawn = tile
            self.passed = False
            self.after_pong = False

    def _on_discarded(self, f: dict[str, Any]) -> None:
        tile = parse_tile(f["tile"])
        if f["seat"] == self.seat:
            self.hand[tile] -= 1
            self.discard_count += 1
            self.declared = self.declared or f["declared"]
            self.drawn = None
            self.after_pong = False
        self.claim_tile, self.claim_from, self.window = tile, f["seat"], Phase.CLAIM

    def _on_claimed(self, f: dict[str, Any]) -> None:
        self.any_claim = True
        if f["seat"] == self.seat:
            tile = parse_tile(f["tile"])
            pong = f["act"] == "pong"
            self.hand[tile] -= 2 if pong else 3
            self.melds.append(Meld("pong" if pong else "ming", tile, f["from_seat"],
                                   None if pong else "dian"))  # fmt: skip
            self.after_pong = pong
            self.drawn = None

    def _on_concealed_gang(self, f: dict[str, Any]) -> None:
        self.any_claim = True
        if f["seat"] == self.seat:
            tile = parse_tile(f["tile"])
            self.hand[tile] -= 4
            self.melds.append(Meld("an", tile, None, f["dou"]))

    def _on_add_gang_declared(self, f: dict[str, Any]) -> None:
        self.claim_tile, self.claim_from, self.window = parse_tile(f["tile"]), f["seat"], Phase.ROB

    def _on_added_gang(self, f: dict[str, Any]) -> None:
        self.any_claim = True
        if f["seat"] == self.seat:
            tile = parse_tile(f["tile"])
            self.hand[tile] -= 1
            for i, m in enumerate(self.melds):
                if m.kind == "pong" and m.tile == tile:
                    self.melds[i] = Meld("bu", tile, m.from_seat, f["dou"])
                    break

    def _on_round_ended(self, f: dict[str, Any]) -> None:
        self.round_nets.append(list(f["result"]["net"]))

    def _on_match_ended(self, f: dict[str, Any]) -> None:
        self.finished = f

    # ----- answering -----

    def _on_prompt(self, f: dict[str, Any]) -> dict[str, Any]:
        offered = {(a["act"], a.get("tile")) for a in f["actions"]}
        default = (f["default"]["act"], f["default"].get("tile"))
        try:
            choice = self._choose(f, offered)
        except Exception as err:  # the policy failed: play the default, but count it
            self.policy_errors.append(f"{type(err).__name__}: {err}")
            choice = ("", None)
        if choice not in offered:
            self.fallbacks += 1
            choice = default
        act, tile = choice
        if self.window is not Phase.TURN and act == "pass" and ("hu", None) in offered:
            self.passed = True
        frame: dict[str, Any] = {"type": "act", "seq": f["seq"], "act": act}
        if tile is not None:
            frame["tile"] = tile
        return frame

    def _choose(
        self, f: dict[str, Any], offered: set[tuple[str, str | None]]
    ) -> tuple[str, str | None]:
        # A turn always offers a discard; a claim or 抢杠 window always offers a pass.
        on_turn = any(act == "discard" for act, _ in offered)
        phase = Phase.TURN if on_turn else self.window
        claims = tuple(sorted({act for act, _ in offered if act != "pass"}))
        assert self.seat is not None and self.opts is not None
        view = SeatView(
            seat=self.seat, opts=self.opts, on_turn=phase is Phase.TURN, hand=list(self.hand),
            melds=list(self.melds), drawn=self.drawn, after_pong=self.after_pong,
            declared=self.declared, discard_count=self.discard_count, any_claim=self.any_claim,
            passed=self.passed, wall_left=self.wall_left, claim_tile=self.claim_tile,
            offered=() if phase is Phase.TURN else claims,
        )  # fmt: skip
        action = self.policy.choose_for(view)
        return action.act, None if action.tile is None else tile_name(action.tile)
