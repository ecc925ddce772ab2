"""The table's widgets. Each renders what it is given ("attributes down") and reports clicks as
messages ("messages up"); none of them reads the network or the clock on its own. Their styles
are in the table's `screens/table.tcss`, the screen that shows them."""

from __future__ import annotations

from rich.text import Text
from textual import events
from textual.message import Message
from textual.reactive import reactive
from textual.widget import Widget
from textual.widgets import Static

from client_tui.render import HandSlot


class HandView(Widget):
    """The player's own hand: keys above, faces, the cursor and ready marks below. A click on a
    tile posts `TileClicked`."""

    text: reactive[Text] = reactive(Text, layout=False)

    class TileClicked(Message):
        def __init__(self, index: int) -> None:
            super().__init__()
            self.index = index

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.slots: list[HandSlot] = []

    def show(self, text: Text, slots: list[HandSlot]) -> None:
        self.slots = slots
        self.text = text

    def render(self) -> Text:
        return self.text

    def on_click(self, event: events.Click) -> None:
        for slot in self.slots:
            if slot.x0 <= event.x < slot.x1 + 1:
                self.post_message(self.TileClicked(slot.index))
                return


class Chip(Static):
    """A key and what it does (`[p] 碰`); clicking it runs `action` on its screen."""

    class Pressed(Message):
        def __init__(self, action: str) -> None:
            super().__init__()
            self.action = action

    def __init__(self, key: str, label: str, action: str, *, main: bool = False) -> None:
        super().__init__(Text.assemble((key, "bold cyan"), " ", label))
        self.action = action
        if main:
            self.add_class("-main")

    def on_click(self, event: events.Click) -> None:
        event.stop()
        self.post_message(self.Pressed(self.action))
