"""What a screen asks of the client, as Textual messages: intents flow up, the view flows down.

A screen never calls into the app. It posts one of these; they bubble from the screen to the
app, whose one handler (`ZhuojiApp.on_intent`) turns each into a protocol message, a screen
opened or closed, or a word on the status line. So the table screen, the replay screen and the
lobby say *what* the player wants (`Discard`, `Claim`, `OpenSheet`, …) and one place decides how.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel
from textual.message import Message

from client_tui.view import View

Sheet = Literal["settlement", "summary", "history", "records"]


class Intent(Message):
    """Something the player asked for (the base of every intent; `on_intent` handles them)."""


class Presented(Intent):
    """A table screen was mounted: the app hands it the state to show (`present`)."""


class Discard(Intent):
    """Discard `tile` (notation); `declare`: with 报听."""

    def __init__(self, tile: str, *, declare: bool = False) -> None:
        super().__init__()
        self.tile = tile
        self.declare = declare


class Claim(Intent):
    """Answer the prompt with `act` (hu, pong, gang, pass), `tile` for a gang on one's turn."""

    def __init__(self, act: str, tile: str | None = None) -> None:
        super().__init__()
        self.act = act
        self.tile = tile


class Request(Intent):
    """Send a protocol message that answers no prompt (add a bot, start, 托管, sit, watch …);
    `quiet`: say nothing when it cannot be sent (a poll)."""

    def __init__(self, msg: BaseModel, *, quiet: bool = False) -> None:
        super().__init__()
        self.msg = msg
        self.quiet = quiet


class TakeBack(Intent):
    """Return to the seat this client holds at `table` (its token is saved)."""

    def __init__(self, table: str) -> None:
        super().__init__()
        self.table = table


class AskEnd(Intent):
    """`e`: propose to end the match now (解散)."""


class AnswerEnd(Intent):
    """`y` / `n` while a vote to end the match is open."""

    def __init__(self, agree: bool) -> None:
        super().__init__()
        self.agree = agree


class PickPlayed(Intent):
    """The lobby's `h`: pick a match played here to its end, and replay it."""


class OpenSheet(Intent):
    """Open a sheet: the last round's settlement, the match's standings, the round list, or the
    records (`table`: a match just played). `view`: the table the sheet is of, when it is not
    the live one (a replayed round)."""

    def __init__(self, sheet: Sheet, *, table: str | None = None, view: View | None = None) -> None:
        super().__init__()
        self.sheet = sheet
        self.table = table
        self.view = view


class LeaveTable(Intent):
    """`l`: leave the table (mid-match, after saying what happens to the seat)."""


class NewMatch(Intent):
    """`n` after a match: play again."""


class Again(Intent):
    """`n` over a sheet: refuse an open vote to end the match if there is one, else, over the
    standings (`summary`), play again."""

    def __init__(self, *, summary: bool) -> None:
        super().__init__()
        self.summary = summary


class ToggleAuto(Intent):
    """`a`: 托管 on or off for this player's seat (from the table, or over a sheet)."""


class Quit(Intent):
    """Quit the client (mid-match, after saying what happens to the seat)."""


class ReadyForNext(Intent):
    """Enter between rounds: this player has read the sheet."""


class EndReveal(Intent):
    """A key while the finished round is held on the table: open its sheet now."""


class Refused(Intent):
    """A key that cannot act now: the bell, and `why` on the screen's status line."""

    def __init__(self, why: str) -> None:
        super().__init__()
        self.why = why


class Note(Intent):
    """A word for the player (a file written, …): a notification."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.text = text
