"""The zhuoji terminal client: a Textual app around one `View`.

The network runs in a worker (`Link.run`); every frame comes back as a `ServerFrame` message, is
reduced into the view (`client_tui.reducer.reduce`), and the screens render the new view. Keys
become protocol messages through `send` and `act`; nothing else talks to the server.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, Literal

from pydantic import BaseModel
from textual import on, work
from textual.app import App
from textual.binding import Binding
from textual.message import Message
from textual.timer import Timer

from client_tui.i18n import Lang
from client_tui.intents import (
    Again,
    AnswerEnd,
    AskEnd,
    Claim,
    Discard,
    EndReveal,
    Intent,
    LeaveTable,
    NewMatch,
    Note,
    OpenSheet,
    PickPlayed,
    Presented,
    Quit,
    ReadyForNext,
    Refused,
    Request,
    TakeBack,
    ToggleAuto,
)
from client_tui.local import Acted, LocalMessage
from client_tui.net import Link, hello_frame
from client_tui.played import PlayedStore
from client_tui.player_key import for_server
from client_tui.reducer import reduce
from client_tui.render import name_cells, seat_names, vote_line, wait_line
from client_tui.replay import RoundTape
from client_tui.screens.lobby import LobbyScreen
from client_tui.screens.replay import Exporter
from client_tui.screens.table import TableScreen
from client_tui.seats import SavedSeat, SeatStore
from client_tui.view import Choice, Notice, ResultV, View
from protocol.messages import (
    Act,
    AddBot,
    Auto,
    BotLevel,
    CreateTable,
    GetRounds,
    Leave,
    ListTables,
    NextRound,
    ProposeEnd,
    Records,
    Rematch,
    Rounds,
    ServerMessage,
    Start,
    VoteEnd,
    Watch,
)

Mode = Literal["play", "join", "watch"]


class ServerFrame(Message):
    """A frame from the server (or a connection change), stamped with its arrival time."""

    def __init__(self, msg: ServerMessage | LocalMessage, at: float) -> None:
        super().__init__()
        self.msg = msg
        self.at = at


def asked(old: View, new: View) -> bool:
    """Whether `new` holds a prompt that `old` did not: a move or a claim was just asked of the
    player (an answer sent, or refused, is the same prompt)."""
    p = new.prompt
    if p is None or p.answered:
        return False
    q = old.prompt
    return q is None or q.seq != p.seq or q.actions != p.actions


class ZhuojiApp(App[int]):
    TITLE = "zhuoji 捉鸡"
    BINDINGS = [
        Binding("q", "quit_app", "quit"),
        Binding("question_mark,f1", "help", "help"),
        Binding("t", "toggle_tiles", "tiles"),
    ]

    def __init__(
        self,
        url: str,
        *,
        name: str,
        lang: str = "en",
        ascii: bool = False,
        mode: Mode = "join",
        watch_table: str | None = None,
        create: CreateTable | None = None,
        clock: Callable[[], float] = time.monotonic,
        show_sheets: bool = True,
        connect: bool = True,
        seats: SeatStore | None = None,
        seat_key: str | None = None,
        resume: SavedSeat | None = None,
        bell: bool = True,
        reveal_seconds: float = 0.0,
        player_key: str | None = None,
        bot_level: BotLevel = "normal",
        load_rounds: Callable[[str], list[RoundTape]] | None = None,
        exporter: Exporter | None = None,
    ) -> None:
        super().__init__()
        # `zhuoji play` hosts the server on this machine: its matches' rounds are read whole from
        # the host's database (every viewpoint, the deal to export), not asked of the server,
        # which sends a seat its own view only. `exporter` writes the replay's `e` files.
        self.load_rounds = load_rounds
        self.exporter = exporter
        self.player_key = player_key  # sent with every hello (client_tui.player_key)
        self.bot_level: BotLevel = bot_level  # `zhuoji play --bots`: the level of the bots added
        self.url = url
        self.player_name = name
        self.lang = Lang(lang)
        self.ascii = ascii
        self.play_mode: Mode = mode
        self.watch_table = watch_table
        self.create = create
        self.clock = clock
        self.show_sheets = show_sheets
        self.bell_on = bell  # the terminal bell when a move or claim is asked (`--no-bell`)
        # `zhuoji play`: the player ended the match on purpose (`l`): it is closed as abandoned,
        # not offered again (`q` keeps it to resume).
        self.abandon = False
        self.connect = connect
        # After a round's last action the table stays on the revealed hands and the flip this
        # long (or until a key, or a prompt) before the sheet opens; 0 opens it at once.
        self.reveal_seconds = reveal_seconds
        self.held: View | None = None  # the finished round, shown while it is revealed
        self._reveal_timer: Timer | None = None
        self._reveal_until = 0.0
        self.view = View(my_name=name, url=url)
        self.link: Link | None = None
        self._created = False
        self._bots_asked = False
        self._started = False
        self._watch_sent = False
        self._summary_pending = False
        # Seat tokens kept across runs (`zhuoji join`): the start says hello with the latest one.
        # `seat_key` names the server in the seat store (default: its URL; `zhuoji play`, whose
        # port changes every run, names its database); `resume` is a seat to take back at once.
        self.seats = seats
        # Matches played to their end (their tokens), to browse their rounds from the lobby.
        self.played = (
            PlayedStore(seats.path.with_name("played.json")) if seats is not None else None
        )
        self.seat_key = seat_key or url
        self._resume: SavedSeat | None = resume
        if resume is None and seats is not None and mode == "join":
            self._resume = seats.latest(self.seat_key)
        # The screens are made knowing how to draw; the view comes down to them (`_present`).
        self.add_mode(
            "lobby",
            lambda: LobbyScreen(self.lang, self.play_mode, has_key=self.player_key is not None),
        )
        self.add_mode("table", self._table_screen)

    def _table_screen(self) -> TableScreen:
        screen = TableScreen()
        screen.configure(self.lang, self.ascii, self.clock, self.play_mode)
        return screen

    # ----- start and the network -----

    def on_mount(self) -> None:
        self.switch_mode(self._wanted_mode(self.view))
        if self.connect:  # offline (tests, demos): frames come through `apply`
            self.run_network()

    @work(exclusive=True, group="net", exit_on_error=False)
    async def run_network(self) -> None:
        self.link = Link(self.url, self._hello, self._deliver)
        await self.link.run()

    def _hello(self) -> dict[str, Any]:
        frame = self._hello_frame()
        if self.player_key is not None:
            frame["player_key"] = for_server(self.player_key, self.url)
        return frame

    def _hello_frame(self) -> dict[str, Any]:
        v = self.view
        if v.token is None and self._resume is not None:
            # A seat saved by an earlier run (or picked in the lobby): the server sends a snapshot.
            return hello_frame(self.player_name, self._resume.token, None)
        return hello_frame(self.player_name, v.token, v.seq if v.table_id is not None else None)

    def take_back(self, saved: SavedSeat) -> None:
        """Return to a seat this client holds (left, or saved by an earlier run): only a `hello`
        carries a token, so connect again with it."""
        if self.link is None or self.view.status != "connected":
            self.notify(self.lang.t("not_connected"), severity="warning", markup=False)
            return
        self._resume = saved
        self.notify(self.lang.t("taking_back"), timeout=3, markup=False)
        self.link.reconnect()

    def _deliver(self, msg: ServerMessage | LocalMessage) -> None:
        self.post_message(ServerFrame(msg, self.clock()))

    def on_server_frame(self, message: ServerFrame) -> None:
        if not self.screen_stack:
            return  # the app is closing (its screens are gone): a late frame has nowhere to go
        self.apply(message.msg, message.at)

    def apply(self, msg: ServerMessage | LocalMessage, at: float | None = None) -> None:
        """Reduce one message into the view and bring the screens up to date."""
        if isinstance(msg, Rounds):
            self.browse(msg)
            return
        if isinstance(msg, Records):
            for screen in self.screen_stack:
                show_records = getattr(screen, "show_records", None)  # the Records screen
                if show_records is not None:
                    show_records(msg)
            return
        old = self.view
        self.view = reduce(old, msg, at=self.clock() if at is None else at)
        self._after(old, self.view)

    # ----- state down, intents up -----

    def _present(self) -> None:
        """Hand every table screen its state: how to draw, and the view (a replay screen keeps
        its own view and is told only how to draw). The one way state reaches the screens."""
        from client_tui.screens.replay import ReplayScreen

        for screen in self.screen_stack:
            if isinstance(screen, ReplayScreen):
                screen.configure(self.lang, self.ascii)
            elif isinstance(screen, TableScreen):
                screen.configure(self.lang, self.ascii, self.clock, self.play_mode)
                until = None if self.held is None else self._reveal_until
                screen.present(self.view, shown=self.displayed, reveal_until=until)
            elif isinstance(screen, LobbyScreen):
                store, v = self.seats, self.view
                mine = frozenset(
                    t.id for t in v.tables if store and store.get(self.seat_key, t.id) is not None
                )
                screen.present(v, mine)

    @on(Intent)
    def on_intent(self, intent: Intent) -> None:
        """What a screen asked for, turned into a protocol message, a screen, or a word: the one
        place the screens' intents are handled (`client_tui.intents`)."""
        intent.stop()
        match intent:
            case Presented():
                self._present()
            case Discard():
                self.act(Choice("ready" if intent.declare else "discard", intent.tile))
            case Claim():
                self.act(Choice(intent.act, intent.tile))
            case Request():
                self.send(intent.msg, quiet=intent.quiet)
            case TakeBack():
                saved = self.seats.get(self.seat_key, intent.table) if self.seats else None
                if saved is not None:
                    self.take_back(saved)
            case PickPlayed():
                self.pick_played()
            case AskEnd():
                self.propose_end()
            case AnswerEnd():
                self.answer_end(intent.agree)
            case Again():
                if not self.answer_end(False) and intent.summary:  # `n` refuses a vote first
                    self.new_match()
            case ToggleAuto():
                self.toggle_auto()
            case Quit():
                self.action_quit_app()
            case OpenSheet():
                self._open_sheet(intent)
            case LeaveTable():
                self.leave_table()
            case NewMatch():
                self.new_match()
            case ReadyForNext():
                self.ready_for_next()
            case EndReveal():
                self.end_reveal()
            case Refused():
                self.refuse(intent.why)
            case Note():
                self.notify(intent.text, timeout=6, markup=False)

    def _open_sheet(self, intent: OpenSheet) -> None:
        if intent.sheet == "settlement":
            view = intent.view or self.view
            self.open_settlement(view.result, view=view)
        elif intent.sheet == "summary":
            self.open_summary()
        elif intent.sheet == "history":
            self.open_history(intent.view)
        else:
            self.open_records(intent.table)

    # ----- sending -----

    def send(self, msg: BaseModel, *, quiet: bool = False) -> bool:
        """Send a client message; False (with a note unless `quiet`) when not connected."""
        frame = msg.model_dump(mode="json", exclude_none=True)
        if self.link is not None and self.link.send(frame):
            return True
        if not quiet:
            self.notify(self.lang.t("not_connected"), severity="warning", markup=False)
        return False

    def act(self, choice: Choice) -> None:
        """Answer the current prompt, quoting its `seq`; once per prompt."""
        prompt = self.view.prompt
        if prompt is None or prompt.answered:
            self.refuse(self.lang.t("why_nothing_asked" if prompt is None else "why_answered"))
            return
        msg = Act(seq=prompt.seq, act=choice.act, tile=choice.tile)  # type: ignore[arg-type]
        if self.send(msg):
            self.apply(Acted(prompt.seq))

    # ----- after every change -----

    def _wanted_mode(self, view: View) -> str:
        if view.table_id is not None or self.play_mode == "play":
            return "table"
        if self.watch_table is not None and not self._watch_sent:
            return "table"
        return "lobby"

    def _after(self, old: View, new: View) -> None:
        """Bring the app up to date with a reduced message, in this order: the notice, the
        seat store, where the app is (lobby or table), the move asked, the sheets."""
        fresh = self._notify_notice(old, new)
        self._keep_seat(old, new, bad_token=fresh is not None and fresh.code == "bad_token")
        self._follow_place(old, new)
        gave_way = asked(old, new) and self._give_way()
        self._present()
        if asked(old, new):
            self.ring()  # your turn (or a claim): heard even with the window behind another
            if gave_way:
                self.notify(self.lang.t("sheet_gave_way"), timeout=6, markup=False)
        self._follow_sheets(old, new)

    def _notify_notice(self, old: View, new: View) -> Notice | None:
        """Show a notice that is new in this view (a toast); returns it."""
        fresh = new.notice if new.notice is not None and new.notice is not old.notice else None
        if fresh is not None:
            # The text may come from the server: never markup.
            text = self.lang.t("seat_gone") if fresh.code == "bad_token" else fresh.text
            if fresh.code in ("vote_refused", "vote_expired", "vote_passed"):
                text = self.lang.t(fresh.code, name=fresh.text)  # `text`: the seat's name
            self.notify(
                text, severity="error" if fresh.error else "information", timeout=4, markup=False
            )
        return fresh

    def _follow_place(self, old: View, new: View) -> None:
        """Back in the lobby on connecting or leaving a table; the mode the view asks for."""
        if new.status == "connected" and old.status != "connected":
            self._connected(new)
        elif old.table_id is not None and new.table_id is None and not self._created:
            self._connected(new)  # left the table for a new match (or was sent back)
        self._setup(new)
        mode = self._wanted_mode(new)
        if mode != self.current_mode:
            self.switch_mode(mode)

    def _give_way(self) -> bool:
        """A move is asked: the table comes first, at once. The move's clock is the server's and
        runs for everyone; holding it for a reader would need the server and would let one open
        sheet stall three players, so the sheet gives way instead (`s` brings it back) and nobody
        loses clock time or falls into 托管 for reading (issue 23). Returns whether a sheet or a
        reading screen was open."""
        gave_way = self.held is not None or self._sheet_open()
        self.end_reveal(open_sheet=False)
        while self._reading_open():
            self.pop_screen()
        return gave_way

    def _follow_sheets(self, old: View, new: View) -> None:
        """A round's result shown (or, without sheets, ready at once); the match's summary."""
        if self.show_sheets and new.result is not None and new.result is not old.result:
            self._reveal(new)
        if not self.show_sheets and new.wait is not None and new.wait != old.wait:
            self.ready_for_next()  # no sheet to read: ready at once
        if old.match_end is not None and new.match_end is None and self._sheet_open():
            self.pop_screen()  # a new match (the rematch) began: the old sheets go
        if new.match_end is not None and old.match_end is None:
            self._settlement_hint_again()
            if self._sheet_open() or self.held is not None:
                self._summary_pending = True
            else:
                self.open_summary()

    def _settlement_hint_again(self) -> None:
        """The open settlement sheet's key line, again (the match has just ended)."""
        from client_tui.screens.sheets import SheetScreen

        if isinstance(self.screen, SheetScreen) and self.screen.name == "settlement":
            self.screen.set_hint(self.settlement_hint())

    def _keep_seat(self, old: View, new: View, *, bad_token: bool) -> None:
        """Keep the seat's token in the seat store while the match lasts: saved when the server
        gives it, marked when the player leaves a match (the lobby offers it back), forgotten
        when the match ends, the seat is freed or the server no longer knows it."""
        store, url = self.seats, self.seat_key
        if store is None:
            return
        if bad_token and self._resume is not None:
            store.forget(url, self._resume.table)
            self._resume = None
            if new.table_id is None:
                self._connected(new)  # to the lobby
        if new.table_id is not None and new.token is not None and new.seat is not None:
            if (new.table_id, new.token, new.seat) != (old.table_id, old.token, old.seat):
                self._resume = None
                store.put(url, new.table_id, token=new.token, seat=new.seat)
            ended = new.match_end is not None or (
                new.table is not None and new.table.state == "finished"
            )
            was_ended = old.table_id == new.table_id and (
                old.match_end is not None
                or (old.table is not None and old.table.state == "finished")
            )
            if ended and not was_ended:
                store.forget(url, new.table_id)
                if self.played is not None:  # its rounds can be browsed later
                    name = new.table.name if new.table is not None else new.table_id
                    score = new.scores[new.seat] if len(new.scores) == 4 else None
                    voted = new.match_end is not None and new.match_end.reason == "vote"
                    self.played.put(
                        url,
                        new.table_id,
                        token=new.token,
                        seat=new.seat,
                        name=name,
                        score=score,
                        voted=voted,
                    )
        if old.table_id is not None and new.table_id is None and old.token is not None:
            playing = old.table is not None and old.table.state == "playing"
            if playing and not bad_token and old.seat is not None and old.match_end is None:
                # Left a match: the bot plays the seat; the lobby offers it back.
                store.put(url, old.table_id, token=old.token, seat=old.seat, left=True)
            else:
                store.forget(url, old.table_id)

    def _connected(self, view: View) -> None:
        """After every `welcome`: take up where the client was."""
        if view.token is not None:
            return  # the hello carried the seat token: the server resumes the seat
        if self._resume is not None and view.table_id is None:
            return  # the hello carried a saved token: `joined` (or `bad_token`) follows
        if view.table_id is not None and view.seat is None:
            self.send(Watch(table=view.table_id), quiet=True)
            return
        if self.play_mode == "play" and not self._created and self.create is not None:
            self._created = True
            self.send(self.create, quiet=True)
        elif self.watch_table is not None and not self._watch_sent:
            self._watch_sent = True
            self.send(Watch(table=self.watch_table), quiet=True)
        else:
            self.send(ListTables(), quiet=True)

    def _setup(self, view: View) -> None:
        """`zhuoji play`: fill the table with bots and start, once."""
        if self.play_mode != "play" or view.table is None or view.seat is None:
            return
        if view.table.state != "waiting":
            return
        if view.table.seated < 4 and not self._bots_asked:
            self._bots_asked = True
            for _ in range(4 - view.table.seated):
                self.send(AddBot(level=self.bot_level), quiet=True)
        elif view.table.seated == 4 and not self._started:
            self._started = True
            self.send(Start(), quiet=True)

    def ring(self) -> None:
        """The terminal bell, unless the player turned it off."""
        if self.bell_on:
            self.bell()

    def refuse(self, why: str) -> None:
        """A key that cannot act now: the bell, and why, on the screen's status line (a screen
        without one shows it as a notification)."""
        self.ring()
        say = getattr(self.screen, "say_why", None)
        if say is not None:
            say(why)
        else:
            self.notify(why, timeout=3, markup=False)

    # ----- the round's end: the hands revealed, then the sheet -----

    @property
    def displayed(self) -> View:
        """What the table shows: the finished round while it is revealed, else the view."""
        return self.held if self.held is not None else self.view

    def _reveal(self, view: View) -> None:
        if self.reveal_seconds <= 0:
            self.open_settlement()
            return
        self.end_reveal(open_sheet=False)
        self.held = view
        self._reveal_until = self.clock() + self.reveal_seconds
        self._reveal_timer = self.set_timer(self.reveal_seconds, self.end_reveal)
        # The table learns it holds the round now (its countdown, any key opens the sheet), not
        # with whatever frame comes next.
        self._present()

    def reveal_left(self) -> float | None:
        """Seconds until the sheet opens, while the hands are revealed."""
        if self.held is None:
            return None
        return max(0.0, self._reveal_until - self.clock())

    def end_reveal(self, open_sheet: bool = True) -> None:
        """Stop showing the finished round; open its sheet."""
        if self.held is None:
            return
        self.held = None
        if self._reveal_timer is not None:
            self._reveal_timer.stop()
            self._reveal_timer = None
        self._present()
        if open_sheet:
            self.open_settlement()

    # ----- sheets -----

    def _reading_open(self) -> bool:
        """A sheet or the round list is over the table."""
        from client_tui.screens.history import HistoryScreen

        return self._sheet_open() or isinstance(self.screen, HistoryScreen)

    def _sheet_open(self) -> bool:
        from client_tui.screens.sheets import SheetScreen

        return isinstance(self.screen, SheetScreen)

    def name_cells(self) -> int:
        """The most cells a name takes on a sheet: `NAME_CELLS`, more on a wide screen."""
        return name_cells(self.size.width)

    def _names(self, dealer: int | None = None, view: View | None = None) -> Callable[[int], str]:
        """Seat names for the sheets of `view` (the live one by default): `render.seat_names`
        at this screen's width."""
        return seat_names(view or self.view, self.lang, self.name_cells(), dealer)

    def open_settlement(self, res: ResultV | None = None, *, view: View | None = None) -> None:
        """Show a round's settlement sheet, the last round's by default (replacing an older
        sheet); `view`: the table it is of, when not the live one (a replayed round: no wait, no
        "ready for the next round")."""
        live = view is None or view is self.view
        view = view or self.view
        res = res or view.result
        if res is None:
            self.refuse(self.lang.t("why_no_sheet"))
            return
        from client_tui.analysis import rules_for
        from client_tui.screens.sheets import SheetScreen, body_width, sheet_renderable
        from client_tui.sheet import build_sheet

        sheet = build_sheet(res, rules_for(view))
        names = self._names(res.dealer, view)
        body = sheet_renderable(sheet, names, self.lang, self.ascii, body_width(self.size.width))
        if self._sheet_open():
            self.pop_screen()
        if not live:
            self.push_screen(SheetScreen(body, self.lang.t("close_hint"), name="settlement"))
            return
        self.push_screen(
            SheetScreen(body, self.settlement_hint(), name="settlement", status=self.sheet_status),
            self._sheet_closed,
        )

    def settlement_hint(self) -> str:
        """The settlement sheet's key line: "ready for the next round" only to a player of a
        match that goes on (never to a watcher, never on the match's last sheet)."""
        v = self.view
        more = v.seat is not None and v.match_end is None
        return self.lang.t("next_hint" if more else "close_hint")

    def waiting_on_me(self) -> bool:
        """Between rounds, and the next round waits for this player's `next_round`."""
        v, w = self.view, self.view.wait
        return w is not None and not w.rematch and v.seat is not None and not w.ready[v.seat]

    def ready_for_next(self) -> None:
        """This player has read the sheet: the next round may start (`next_round`)."""
        if self.waiting_on_me():
            self.send(NextRound(), quiet=True)

    def sheet_status(self) -> str:
        """A sheet's status line: an open vote to end the match first, else the wait."""
        return self.vote_line() or self.wait_line()

    def action_propose_end(self) -> None:
        self.propose_end()

    def propose_end(self) -> None:
        """`e`: propose to end the match now (解散); every connected player is asked."""
        v, t = self.view, self.lang.t
        if v.seat is None:
            self.refuse(t("why_watching"))
            return
        if v.table is None or v.table.state != "playing" or v.match_end is not None:
            self.refuse(t("why_vote_playing"))
            return
        if self.send(ProposeEnd()):
            self.notify(t("vote_asked"), timeout=3, markup=False)

    def answer_end(self, agree: bool) -> bool:
        """`y` / `n` while a vote to end the match is open; False if none is (the key then
        does what it does otherwise)."""
        v = self.view
        if v.end_vote is None or v.seat is None:
            return False
        self.send(VoteEnd(agree=agree))
        return True

    def vote_line(self) -> str:
        """The open vote to end the match in words: `render.vote_line`."""
        return vote_line(self.view, self._names(), self.lang, self.clock())

    def wait_line(self) -> str:
        """The wait between rounds (or for a rematch) in words: `render.wait_line`."""
        return wait_line(self.view, self._names(), self.lang, self.clock())

    def _sheet_closed(self, ready: bool | None) -> None:
        if ready:
            self.ready_for_next()
        if self._summary_pending:
            self._summary_pending = False
            self.open_summary()

    def open_history(self, view: View | None = None) -> None:
        """`r`: every round of the match (of `view`, a replay's, or the live one); the one
        picked opens its settlement sheet, `v` replays the live match once it is over."""
        from client_tui.screens.history import REPLAY, HistoryScreen

        view = view or self.view
        history = view.history
        if not history:
            self.refuse(self.lang.t("why_no_history"))
            return

        def picked(index: int | None) -> None:
            if index == REPLAY:
                if view is not self.view:
                    self.refuse(self.lang.t("why_replaying"))
                elif self.view.match_end is None or self.view.table_id is None:
                    self.refuse(self.lang.t("why_replay_later"))
                else:
                    self.ask_rounds(self.view.table_id)
            elif index is not None and 0 <= index < len(history):
                self.open_settlement(history[index], view=view)

        self.push_screen(HistoryScreen(history, self._names(view=view), self.lang), picked)

    # ----- browsing a finished match's rounds -----

    def ask_rounds(self, table: str, token: str | None = None) -> None:
        """Open a finished match's rounds: from the host's database when this process hosts the
        server (`load_rounds`), else asked of the server (`rounds` opens the browser)."""
        if self.load_rounds is not None:
            try:
                tapes = self.load_rounds(table)
            except (OSError, ValueError) as err:  # an unreadable database: the server's copy
                self.log.warning(f"the host's rounds of {table} could not be read: {err}")
                tapes = []
            if tapes:
                self._open_tapes(tapes)
                return
        if self.send(GetRounds(table=table, token=token)):
            self.notify(self.lang.t("rp_asking"), timeout=3, markup=False)

    def pick_played(self) -> None:
        """The lobby's `h`: pick a match this client played here to its end, and browse it."""
        from client_tui.screens.forms import ChoiceScreen

        played = self.played.matches(self.url) if self.played is not None else []
        if not played:
            self.refuse(self.lang.t("why_no_played"))
            return
        by_table = {p.table: p for p in played}

        def picked(table: str | None) -> None:
            if table is not None and table in by_table:
                self.ask_rounds(table, by_table[table].token)

        voted = self.lang.t("state_voted")
        choices = [(p.table, p.label(voted)) for p in played]  # with the date and the result
        self.push_screen(ChoiceScreen(self.lang.t("rp_pick_played"), choices), picked)

    def browse(self, msg: Rounds) -> None:
        """Open the replay browser on a server's `rounds`; the live view waits behind it and
        comes back, brought up to date, when the browser closes."""
        from client_tui.replay import tapes_from_rounds

        tapes = tapes_from_rounds(msg)
        if not tapes:
            self.refuse(self.lang.t("rp_no_rounds"))
            return
        self._open_tapes(tapes)

    def _open_tapes(self, tapes: list[RoundTape]) -> None:
        """The replay browser over the table or the lobby: it keeps its own view (the live one
        goes on behind it) and is told only how to draw."""
        from client_tui.screens.replay import ReplayScreen

        self.push_screen(ReplayScreen(tapes, exporter=self.exporter))

    def open_records(self, table: str | None = None) -> None:
        """The Records screen (client_tui.screens.records); `table`: a match just played. Its
        module (and textual-plotext's plots) is imported when it is first opened, not at the
        start of every `zhuoji play` (issue 26)."""
        from client_tui.screens.records import RecordsScreen

        self.push_screen(RecordsScreen(self.lang.code, table=table))

    def open_summary(self) -> None:
        from client_tui.screens.sheets import SheetScreen, summary_renderable

        v = self.view
        body = summary_renderable(v.match_end, v.history, v.scores, self._names(), self.lang)
        again = v.seat is not None and v.match_end is not None and v.match_end.reason != "abandoned"
        hint = self.lang.t("again_hint" if again else "close_hint")
        if self._sheet_open() and self.screen.name == "summary":
            self.pop_screen()  # one standings sheet at a time: one Esc closes it
        self.push_screen(SheetScreen(body, hint, name="summary", status=self.sheet_status))

    # ----- actions -----

    def new_match(self) -> None:
        """`n` after a match: play again with the same seats and settings (`rematch`: the
        others are asked too); in `zhuoji play`, after an abandoned match, a new table."""
        v = self.view
        if v.match_end is None:
            self.refuse(self.lang.t("why_new_match_later"))
            return
        if v.seat is not None and v.match_end.reason != "abandoned" and v.table_id is not None:
            if self.send(Rematch()):
                self.notify(self.lang.t("rematch_asked"), timeout=3, markup=False)
            return
        if self.play_mode != "play":
            self.refuse(self.lang.t("why_new_match_join"))
            return
        self._created = self._bots_asked = self._started = False
        if self.view.table_id is not None:
            self.send(Leave())
        else:
            self._connected(self.view)

    def toggle_auto(self) -> None:
        """`a`: 托管 on or off for this player's seat (the server plays it meanwhile)."""
        v = self.view
        if v.seat is None or v.table is None:
            self.refuse(self.lang.t("why_watching"))
            return
        self.send(Auto(on=not v.table.seats[v.seat].auto))

    def mid_match(self) -> bool:
        """Seated at a match that has not ended: leaving hands the seat to the bot."""
        v = self.view
        return (
            v.seat is not None
            and v.table is not None
            and v.table.state == "playing"
            and v.match_end is None
        )

    def confirm(self, title: str, body: str, ok: str, then: Callable[[], None]) -> None:
        """Ask first (what will happen, in `body`); run `then` on yes."""
        from client_tui.screens.forms import ConfirmScreen

        if isinstance(self.screen, ConfirmScreen):
            return  # already asking

        def answered(yes: bool | None) -> None:
            if yes:
                then()

        self.push_screen(ConfirmScreen(self.lang, title, body, ok), answered)

    def leave_table(self) -> None:
        """`l`: leave the table; mid-match, only after saying what happens to the seat."""
        t = self.lang.t
        if self.play_mode == "play":
            if self.mid_match():
                self.confirm(t("end_play_title"), t("end_play_body"), t("btn_end"), self._end_match)
            else:
                self.exit(0)
            return
        if self.view.table_id is None:
            return
        if self.mid_match():
            self.confirm(t("leave_title"), t("leave_body"), t("btn_leave"), self._send_leave)
        else:
            self._send_leave()

    def _end_match(self) -> None:
        self.abandon = True
        self.exit(0)

    def _send_leave(self) -> None:
        self.send(Leave())

    def action_help(self) -> None:
        from client_tui.screens.help import help_renderable
        from client_tui.screens.sheets import SheetScreen

        if isinstance(self.screen, SheetScreen) and self.screen.name == "help":
            self.pop_screen()
            return
        self.push_screen(
            SheetScreen(help_renderable(self.lang), self.lang.t("close_hint"), name="help")
        )

    def action_toggle_tiles(self) -> None:
        self.ascii = not self.ascii
        self._present()

    def action_quit_app(self) -> None:
        """`q`: quit; mid-match, only after saying what happens to the seat."""
        if not self.mid_match():
            self.exit(0)
            return
        t = self.lang.t
        key = "quit_play" if self.play_mode == "play" else "quit"
        self.confirm(t(f"{key}_title"), t(f"{key}_body"), t("btn_quit"), lambda: self.exit(0))

    def on_unmount(self) -> None:
        if self.link is not None:
            self.link.stop()
