"""A radio set of the create form whose late highlight pass runs after it left the screen."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.widgets import RadioButton

from client_tui.screens.forms import ChoiceSet


class _OneSet(App[None]):
    def compose(self) -> ComposeResult:
        yield ChoiceSet(RadioButton("1分"), RadioButton("2分", value=True), id="base")


async def test_the_highlight_starts_on_the_chosen_button() -> None:
    app = _OneSet()
    async with app.run_test() as pilot:
        await pilot.pause()
        assert app.query_one(ChoiceSet)._selected == 1


async def test_a_set_removed_before_its_highlight_pass_is_left_alone() -> None:
    """Under load the pass (after a refresh) ran once the form's fold had been rebuilt: the set
    had no buttons left but still named its pressed one, and the form crashed (ValueError)."""
    app = _OneSet()
    async with app.run_test() as pilot:
        await pilot.pause()
        choice = app.query_one(ChoiceSet)
        await choice.remove_children()
        choice._highlight_choice()  # raised "RadioButton(...) is not in list" before
        assert choice.pressed_button is not None
