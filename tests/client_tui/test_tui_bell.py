"""Your turn is signalled: the terminal bell rings exactly when a move or a claim is asked of the
player (one ring per prompt that arrives, none for anything else) and the action bar is
highlighted while it waits; `--no-bell` silences it. Pilot tests against a real server."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.containers import Horizontal
from textual.pilot import Pilot

from client_tui.app import ZhuojiApp
from client_tui.local import LocalMessage
from client_tui.screens.table import TableScreen
from protocol.messages import CreateTable, Prompt, ServerMessage
from server.testkit import running_server
from tests.support import FAST, until
from zhuoji.cli import build_parser

SIZE = (100, 30)


class CountingApp(ZhuojiApp):
    """The app, with every `bell()` recorded with the frame being applied when it rang."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.rings: list[str] = []
        self.prompts = 0  # prompt frames that put a new prompt in the view
        self._applying: ServerMessage | LocalMessage | None = None

    def apply(self, msg: ServerMessage | LocalMessage, at: float | None = None) -> None:
        before = self.view.prompt
        self._applying = msg
        try:
            super().apply(msg, at)
        finally:
            self._applying = None
        if isinstance(msg, Prompt) and self.view.prompt is not before:
            self.prompts += 1

    def bell(self) -> None:
        self.rings.append(type(self._applying).__name__ if self._applying is not None else "key")


def asked_class(app: ZhuojiApp) -> bool:
    table = next(s for s in app.screen_stack if isinstance(s, TableScreen))
    return table.query_one("#actions", Horizontal).has_class("-asked")


def waiting(app: ZhuojiApp) -> bool:
    """A prompt waits for the player, or the match is over."""
    p = app.view.prompt
    return (p is not None and not p.answered) or app.view.match_end is not None


async def answer_prompts(pilot: Pilot[Any], app: CountingApp) -> int:
    """Answer every prompt of the match with a legal key (pass a claim, discard the drawn tile);
    how many were answered."""
    answered = 0
    while True:
        await until(pilot, lambda: waiting(app), timeout=20)
        if app.view.match_end is not None:
            return answered
        answered += 1
        prompt = app.view.prompt
        assert prompt is not None
        assert asked_class(app), "highlighted while it waits"
        await pilot.press("space" if prompt.is_claim else "enter")
        await until(pilot, lambda p=prompt: app.view.prompt is not p)  # type: ignore[misc]


@pytest.mark.parametrize("bell", [True, False])
async def test_the_bell_rings_once_for_each_prompt_and_only_then(
    tmp_path: Path, bell: bool
) -> None:
    # The seed fixes the deal and the bots' moves: one round in which this player, discarding
    # what it draws and passing every claim, is asked 14 times (enough for the count below).
    async with running_server(tmp_path / "z.db", seed="bell-2") as (url, _server):
        create = CreateTable(name="bell", rounds=1, **FAST)  # type: ignore[arg-type]
        app = CountingApp(
            url,
            name="me",
            lang="en",
            ascii=True,
            mode="play",
            create=create,
            show_sheets=False,
            bell=bell,
        )
        async with app.run_test(size=SIZE) as pilot:
            answered = await answer_prompts(pilot, app)
            await pilot.pause(0.05)
            assert app.prompts >= answered >= 12
            if bell:
                assert app.rings == ["Prompt"] * app.prompts
            else:
                assert app.rings == []
            assert not asked_class(app), "nothing waits once the match is over"


def test_no_bell_is_a_flag_of_play_and_join() -> None:
    # Not given, the bell is config.toml's (on by default: tests/client_tui/test_tui_config.py).
    parser = build_parser()
    assert parser.parse_args(["play"]).bell is None
    assert parser.parse_args(["play", "--no-bell"]).bell is False
    assert parser.parse_args(["join", "ws://h:1", "--no-bell"]).bell is False
    assert parser.parse_args(["join", "ws://h:1", "--bell"]).bell is True
    assert parser.parse_args(["join", "ws://h:1"]).bell is None
