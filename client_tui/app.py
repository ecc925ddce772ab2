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
from textual import work
from textual.app import App
from textual.binding import Binding
from textual.message import Message

from client_tui.i18n import Lang
from client_tui.local import Acted, LocalMessage
from client_tui.net import Link, hello_frame
from client_tui.reducer import reduce
from client_tui.screens.lobby import LobbyScreen
from client_tui.screens.table import TableScreen
from client_tui.seats import SavedSeat, SeatStore
from client_tui.view import Choice, View
from protocol.messages import (
    Act,
    AddBot,
    CreateTable,
    Leave,
    ListTables,
    ServerMessage,
    Start,
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
    MODES = {"lobby": LobbyScreen, "table": TableScreen}

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
        bell: bool = True,
    ) -> None:
        super().__init__()
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
        self.connect = connect
        self.view = View(my_name=name, url=url)
        self.link: Link | None = None
        self._created = False
        self._bots_asked = False
        self._started = False
        self._watch_sent = False
        self._summary_pending = False
        # Seat tokens kept across runs (`zhuoji join`): the start says hello with the latest one.
        self.seats = seats
        self._resume: SavedSeat | None = (
            seats.latest(url) if seats is not None and mode == "join" else None
        )

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
        self.apply(message.msg, message.at)

    def apply(self, msg: ServerMessage | LocalMessage, at: float | None = None) -> None:
        """Reduce one message into the view and bring the screens up to date."""
        old = self.view
        self.view = reduce(old, msg, at=self.clock() if at is None else at)
        self._after(old, self.view)

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
        fresh = new.notice if new.notice is not None and new.notice is not old.notice else None
        if fresh is not None:
            # The text may come from the server: never markup.
            text = self.lang.t("seat_gone") if fresh.code == "bad_token" else fresh.text
            self.notify(
                text, severity="error" if fresh.error else "information", timeout=4, markup=False
            )
        self._keep_seat(old, new, bad_token=fresh is not None and fresh.code == "bad_token")
        if new.status == "connected" and old.status != "connected":
            self._connected(new)
        elif old.table_id is not None and new.table_id is None and not self._created:
            self._connected(new)  # left the table for a new match (or was sent back)
        self._setup(new)
        mode = self._wanted_mode(new)
        if mode != self.current_mode:
            self.switch_mode(mode)
        for screen in self.screen_stack:
            show = getattr(screen, "show", None)
            if show is not None:
                show(new)
        if asked(old, new):
            self.ring()  # your turn (or a claim): heard even with the window behind another
            if self._sheet_open():
                self.notify(self.lang.t("prompt_behind"), timeout=4, markup=False)
        if self.show_sheets and new.result is not None and new.result is not old.result:
            self.open_settlement()
        if new.match_end is not None and old.match_end is None:
            if self._sheet_open():
                self._summary_pending = True
            else:
                self.open_summary()

    def _keep_seat(self, old: View, new: View, *, bad_token: bool) -> None:
        """Keep the seat's token in the seat store while the match lasts: saved when the server
        gives it, marked when the player leaves a match (the lobby offers it back), forgotten
        when the match ends, the seat is freed or the server no longer knows it."""
        store, url = self.seats, self.url
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
                self.send(AddBot(), quiet=True)
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

    # ----- sheets -----

    def _sheet_open(self) -> bool:
        from client_tui.screens.sheets import SheetScreen

        return isinstance(self.screen, SheetScreen)

    def _names(self) -> Callable[[int], str]:
        view = self.view

        def name(seat: int) -> str:
            n = view.name_of(seat)
            return f"{n}*" if seat == view.seat else n

        return name

    def open_settlement(self) -> None:
        """Show the last round's settlement sheet (replacing an older one)."""
        res = self.view.result
        if res is None:
            self.refuse(self.lang.t("why_no_sheet"))
            return
        from client_tui.analysis import rules_for
        from client_tui.screens.sheets import SheetScreen, sheet_renderable
        from client_tui.sheet import build_sheet

        sheet = build_sheet(res, rules_for(self.view))
        body = sheet_renderable(sheet, self._names(), self.lang, self.ascii)
        if self._sheet_open():
            self.pop_screen()
        self.push_screen(
            SheetScreen(body, self.lang.t("close_hint"), name="settlement"), self._sheet_closed
        )

    def _sheet_closed(self, _: None) -> None:
        if self._summary_pending:
            self._summary_pending = False
            self.open_summary()

    def open_summary(self) -> None:
        from client_tui.screens.sheets import SheetScreen, summary_renderable

        v = self.view
        body = summary_renderable(v.match_end, v.history, v.scores, self._names(), self.lang)
        self.push_screen(SheetScreen(body, self.lang.t("close_hint"), name="summary"))

    # ----- actions -----

    def new_match(self) -> None:
        """`zhuoji play`, after a match: leave the finished table and open a new one."""
        if self.play_mode != "play":
            self.refuse(self.lang.t("why_new_match_join"))
            return
        if self.view.match_end is None:
            self.refuse(self.lang.t("why_new_match_later"))
            return
        self._created = self._bots_asked = self._started = False
        if self.view.table_id is not None:
            self.send(Leave())
        else:
            self._connected(self.view)

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
                self.confirm(
                    t("quit_play_title"), t("quit_play_body"), t("btn_quit"), lambda: self.exit(0)
                )
            else:
                self.exit(0)
            return
        if self.view.table_id is None:
            return
        if self.mid_match():
            self.confirm(t("leave_title"), t("leave_body"), t("btn_leave"), self._send_leave)
        else:
            self._send_leave()

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
        for screen in self.screen_stack:
            show = getattr(screen, "show", None)
            if show is not None:
                show(self.view)

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
