"""A bot that plays a seat as a protocol client, with the rules core's policy (`rules.players.bot.Bot`).

`BotPlayer` is the transport-free part: feed it every frame the server sends (decoded JSON) and
it returns the frame to send back, if any. It knows only what its seat is shown — its own hand
and draws and the public record — exactly what an external bot program would know. The server's
own bots (`add_bot`) run it over an in-process pipe; `zhuoji loadtest` runs it over websockets.

The policy decides from a `rules.view.SeatView` reduced from the frames (`rules.view.reduce` of
`protocol.events.seen_event`), the same view the server would build for this seat. The prompt's
own list of legal actions stays the authority: the claims it offers are the view's, and if the
policy's pick is not on it (the view and the engine disagree), the bot plays the prompt's
default and counts a fallback.
"""

from __future__ import annotations

from typing import Any

from protocol.events import seen_event, snapshot_view
from rules.options import RuleOptions, make_options
from rules.players.bot import Bot
from rules.round import Phase
from rules.tiles import tile_name
from rules.view import SeatView, reduce, start

# Frames whose `seq` is no event this seat has been shown: an error's is the table's latest,
# and so is a `joined`'s, which the missed events of a resume follow (`_on_joined`).
UNSEEN_SEQ = frozenset({"error", "joined"})


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
        self.view: SeatView | None = None  # the round as this seat has been shown it

    # ----- frames in -----

    def on_frame(self, f: dict[str, Any]) -> dict[str, Any] | None:
        """Take one server frame; return the frame to answer with, if any."""
        kind = f["type"]
        if "seq" in f and f.get("table") == self.table and kind not in UNSEEN_SEQ:
            self.seq = max(self.seq, f["seq"])
        handler = getattr(self, "_on_" + kind, None)
        if handler is None:
            return None
        result: dict[str, Any] | None = handler(f)
        return result

    def _on_error(self, f: dict[str, Any]) -> None:
        self.errors.append(f)

    def _on_joined(self, f: dict[str, Any]) -> None:
        """A seat, or the same one again: `seq` stays the last event seen (0 at a new table).
        A resume's `joined` quotes the table's latest number, that of the last missed event,
        which comes after it: taken as seen, a connection dropped again amid the missed events
        would resume past the rest of them (the match's end, say) and never be sent them."""
        if f["table"] != self.table:
            self.seq = 0
        self.table, self.seat, self.token = f["table"], f["seat"], f["token"]

    def _set_options(self, info: dict[str, Any]) -> None:
        if self.opts is None:
            self.opts = make_options(info["preset"], info["options"])

    def _on_table(self, f: dict[str, Any]) -> None:
        self._set_options(f["info"])

    def _on_snapshot(self, f: dict[str, Any]) -> None:
        self._set_options(f["info"])
        rv = f["round"]
        if rv is None or self.seat is None or self.opts is None:
            self.view = None
            return
        self.view = snapshot_view(rv, self.seat, self.opts)

    def _round_event(self, f: dict[str, Any]) -> None:
        event = seen_event(f)
        if event is None or self.opts is None:
            return
        try:
            if event.type == "round_started":
                self.view = start(self.opts, self.seat, event)
            elif self.view is not None:
                self.view = reduce(self.view, event)
        except (ValueError, StopIteration) as err:  # a frame that does not fit the round seen
            self.policy_errors.append(f"view: {type(err).__name__}: {err}")
            self.view = None  # until the next deal or snapshot; prompts get the default

    _on_round_started = _on_drew = _on_discarded = _on_claimed = _on_concealed_gang = _round_event
    _on_add_gang_declared = _on_added_gang = _on_won = _on_exhausted = _on_flipped = _round_event

    def _on_round_ended(self, f: dict[str, Any]) -> None:
        self._round_event(f)
        self.round_nets.append(list(f["result"]["net"]))

    def _on_match_ended(self, f: dict[str, Any]) -> None:
        self.finished = f

    def _on_between_rounds(self, f: dict[str, Any]) -> dict[str, Any] | None:
        """Between rounds: a bot has read the sheet at once (`next_round`)."""
        if f["rematch"] or self.seat is None or f["ready"][self.seat]:
            return None
        return {"type": "next_round"}

    # ----- answering -----

    def _on_prompt(self, f: dict[str, Any]) -> dict[str, Any]:
        offered = {(a["act"], a.get("tile")) for a in f["actions"]}
        default = (f["default"]["act"], f["default"].get("tile"))
        try:
            choice = self._choose(offered)
        except Exception as err:  # the policy failed: play the default, but count it
            self.policy_errors.append(f"{type(err).__name__}: {err}")
            choice = ("", None)
        if choice not in offered:
            self.fallbacks += 1
            choice = default
        act, tile = choice
        frame: dict[str, Any] = {"type": "act", "seq": f["seq"], "act": act}
        if tile is not None:
            frame["tile"] = tile
        return frame

    def _choose(self, offered: set[tuple[str, str | None]]) -> tuple[str, str | None]:
        view = self.view
        assert view is not None and self.seat is not None, "a prompt before any round"
        # A turn always offers a discard; a claim or 抢杠 window always offers a pass. The
        # prompt's claims are the window's: kept in the view, they tell it later whether this
        # seat passed a win.
        if any(act == "discard" for act, _ in offered):
            if not view.on_turn:
                view = view._replace(phase=Phase.TURN, turn=self.seat)
        else:
            acts = {act for act, _ in offered}
            claims = tuple(a for a in ("hu", "pong", "gang") if a in acts)
            view = self.view = view._replace(offered=claims)
        action = self.policy.choose_for(view)
        return action.act, None if action.tile is None else tile_name(action.tile)
