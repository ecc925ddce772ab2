"""A seat survives the client process: the seat token is kept per server and table in the state
directory, so a new run of the client returns to the seat with its hand; a seat left on purpose is
offered in the lobby; the token is forgotten when the match ends or the server no longer knows it.
Pilot tests against a real server on loopback (tests/test_tui_tmux.py does it with processes)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from textual.pilot import Pilot

from client_tui.app import ZhuojiApp
from client_tui.player_key import new_key
from client_tui.screens.lobby import LobbyScreen
from client_tui.screens.table import TableScreen
from client_tui.seats import STATE_ENV, SeatStore, state_dir
from clients.client import Client
from server.testkit import running_server
from tests.support import FAST, until

SIZE = (100, 30)


def joiner(url: str, store: SeatStore, key: str | None = None) -> ZhuojiApp:
    return ZhuojiApp(
        url, name="guest", lang="en", ascii=True, mode="join", seats=store, player_key=key
    )


async def host_table(url: str, *, rounds: int = 8) -> tuple[Client, str]:
    """A host at a new table (no clock), waiting for one more player."""
    host = await Client.connect(url, "host")
    host.ws.close_timeout = 0.2
    await host.recv_type("welcome")
    await host.send({"type": "create_table", "name": "friends", "rounds": rounds, **FAST})
    table = (await host.recv_type("joined"))["table"]
    return host, table


async def sit_and_start(pilot: Pilot[Any], app: ZhuojiApp, host: Client) -> None:
    """From the lobby: sit at the host's table (seat 1); the host adds two bots and starts."""
    await until(pilot, lambda: len(app.view.tables) == 1)
    await pilot.press("j")
    await pilot.pause(0.05)
    await pilot.press("enter")  # any free seat
    await until(pilot, lambda: app.view.seat is not None)
    for _ in range(2):
        await host.send({"type": "add_bot"})
    await until(pilot, lambda: app.view.table is not None and app.view.table.seated == 4)
    await host.send({"type": "start"})
    await until(pilot, lambda: app.view.round is not None and app.view.round.hand is not None)


def test_the_state_dir_is_the_users_unless_overridden(monkeypatch: Any, tmp_path: Path) -> None:
    monkeypatch.delenv(STATE_ENV, raising=False)
    assert state_dir().name == "zhuoji"
    monkeypatch.setenv(STATE_ENV, str(tmp_path))
    assert state_dir() == tmp_path
    assert SeatStore.default().path == tmp_path / "seats.json"


def test_a_broken_seat_file_holds_no_seats_and_is_replaced(tmp_path: Path) -> None:
    path = tmp_path / "seats.json"
    path.write_text("{not json")
    store = SeatStore(path)
    assert store.latest("ws://x") is None
    store.put("ws://x", "1", token="t" * 24, seat=3)
    assert json.loads(path.read_text())["ws://x"]["1"]["seat"] == 3
    assert path.stat().st_mode & 0o077 == 0, "a token is the seat: the user's eyes only"


async def test_a_new_run_returns_to_the_seat_with_its_hand(tmp_path: Path) -> None:
    store = SeatStore(tmp_path / "state" / "seats.json")
    async with running_server(tmp_path / "z.db", seed="seats") as (url, _server):
        host, table = await host_table(url)
        async with host:
            app = joiner(url, store)
            async with app.run_test(size=SIZE) as pilot:
                await sit_and_start(pilot, app, host)
                seat, token = app.view.seat, app.view.token
                assert app.view.round is not None
                hand = app.view.round.hand
            saved = store.get(url, table)
            assert saved is not None and (saved.seat, saved.token) == (seat, token)
            assert not saved.left
            # The process is gone; a new one starts and says hello with the saved token.
            again = joiner(url, store)
            async with again.run_test(size=SIZE) as pilot:
                await until(
                    pilot,
                    lambda: again.view.round is not None and again.view.round.hand is not None,
                )
                assert isinstance(again.screen, TableScreen)
                assert again.view.table_id == table and again.view.seat == seat
                assert again.view.round is not None and again.view.round.hand == hand
                assert again.view.notice is None, "no refusal"


async def test_a_seat_left_on_purpose_is_offered_in_the_lobby(tmp_path: Path) -> None:
    store = SeatStore(tmp_path / "seats.json")
    async with running_server(tmp_path / "z.db", seed="left") as (url, _server):
        host, table = await host_table(url)
        async with host:
            app = joiner(url, store)
            async with app.run_test(size=SIZE) as pilot:
                await sit_and_start(pilot, app, host)
                seat = app.view.seat
                await pilot.press("l", "y")  # leave, after saying what happens to the seat
                await until(
                    pilot, lambda: isinstance(app.screen, LobbyScreen) and len(app.view.tables) == 1
                )
                saved = store.get(url, table)
                assert saved is not None and saved.left and saved.seat == seat
            # A new run does not go back by itself: the lobby says where the seat is.
            again = joiner(url, store)
            async with again.run_test(size=SIZE) as pilot:
                await until(pilot, lambda: len(again.view.tables) == 1)
                await pilot.pause(0.05)
                assert isinstance(again.screen, LobbyScreen) and again.view.seat is None
                lobby = again.screen
                assert lobby.my_tables() == {table}
                await pilot.press("enter")
                await until(pilot, lambda: again.view.seat == seat and again.view.round is not None)
                assert isinstance(again.screen, TableScreen)
                saved = store.get(url, table)
                assert saved is not None and not saved.left


async def test_a_token_the_server_does_not_know_is_forgotten(tmp_path: Path) -> None:
    store = SeatStore(tmp_path / "seats.json")
    async with running_server(tmp_path / "z.db", seed="gone") as (url, _server):
        store.put(url, "9", token="x" * 24, seat=1)
        app = joiner(url, store)
        async with app.run_test(size=SIZE, notifications=True) as pilot:
            await until(pilot, lambda: store.get(url, "9") is None)
            await until(
                pilot,
                lambda: isinstance(app.screen, LobbyScreen) and app.view.status == "connected",
            )
            assert app.view.notice is not None and app.view.notice.code == "bad_token"


async def test_the_token_is_forgotten_when_the_match_ends(tmp_path: Path) -> None:
    store = SeatStore(tmp_path / "seats.json")
    async with running_server(tmp_path / "z.db", seed="ends") as (url, _server):
        host, table = await host_table(url, rounds=1)
        async with host:
            await host.send({"type": "auto", "on": True})
            app = ZhuojiApp(
                url,
                name="guest",
                lang="en",
                ascii=True,
                mode="join",
                seats=store,
                show_sheets=False,
            )
            async with app.run_test(size=SIZE) as pilot:
                await sit_and_start(pilot, app, host)
                assert store.get(url, table) is not None
                await pilot.press("a")  # 托管: the server plays this seat too
                await until(pilot, lambda: app.view.match_end is not None, timeout=30)
                assert store.get(url, table) is None


def test_a_seat_another_running_client_holds_is_not_taken_back_by_itself(tmp_path: Path) -> None:
    path = tmp_path / "seats.json"
    store = SeatStore(path)
    store.put("ws://x", "1", token="a" * 24, seat=0)
    data = json.loads(path.read_text())
    alive = subprocess.Popen(
        [sys.executable, "-c", "import sys; sys.stdin.read()"], stdin=subprocess.PIPE
    )
    try:
        data["ws://x"]["1"]["pid"] = alive.pid  # another client, still running, holds it
        path.write_text(json.dumps(data))
        assert store.latest("ws://x") is None
        assert store.get("ws://x", "1") is not None, "the lobby still offers it"
    finally:
        assert alive.stdin is not None
        alive.stdin.close()
        alive.wait()
    assert store.latest("ws://x") is not None, "its process is gone (killed): the seat is free"


def test_the_seat_store_examples() -> None:
    import doctest

    import client_tui.seats

    result = doctest.testmod(client_tui.seats)
    assert result.attempted > 0 and result.failed == 0


async def test_from_another_terminal_the_lobby_takes_back_the_seat_with_the_players_key(
    tmp_path: Path,
) -> None:
    """No token in this terminal's seat store, but the player's key (one per machine): the
    lobby's Enter on the started table, the table's password, and the away seat is the
    player's again, with its hand. (A name and the password alone take no seat: issue 22.)"""
    key = new_key()
    async with running_server(tmp_path / "z.db", seed="back") as (url, _server):
        host = await Client.connect(url, "host")
        host.ws.close_timeout = 0.2
        await host.recv_type("welcome")
        await host.send(
            {"type": "create_table", "name": "friends", "password": "芝麻", "rounds": 8, **FAST}
        )
        table = (await host.recv_type("joined"))["table"]
        async with host:
            first = SeatStore(tmp_path / "a" / "seats.json")
            app = joiner(url, first, key)
            async with app.run_test(size=SIZE) as pilot:
                await until(pilot, lambda: len(app.view.tables) == 1)
                await pilot.press("j")
                await pilot.pause(0.05)
                for ch in "芝麻":
                    await pilot.press(ch)
                await pilot.press("tab", "enter")  # any free seat
                await until(pilot, lambda: app.view.seat is not None)
                for _ in range(2):
                    await host.send({"type": "add_bot"})
                await until(
                    pilot, lambda: app.view.table is not None and app.view.table.seated == 4
                )
                await host.send({"type": "start"})
                await until(
                    pilot, lambda: app.view.round is not None and app.view.round.hand is not None
                )
                seat = app.view.seat
            # The laptop is gone; another one, with no token saved, under the same name.
            other = joiner(url, SeatStore(tmp_path / "b" / "seats.json"), key)
            async with other.run_test(size=SIZE) as pilot:
                await until(
                    pilot,
                    lambda: (
                        len(other.view.tables) == 1
                        and other.view.tables[0].state == "playing"
                        and not other.view.tables[0].seats[seat or 0].connected
                    ),
                )
                await pilot.press("enter")
                await pilot.pause(0.05)
                for ch in "芝麻":
                    await pilot.press(ch)
                await pilot.press("tab", "enter")
                await until(
                    pilot,
                    lambda: (
                        other.view.seat == seat
                        and other.view.round is not None
                        and other.view.round.hand is not None
                    ),
                )
                assert isinstance(other.screen, TableScreen) and other.view.table_id == table


async def test_the_creator_hands_an_away_seat_to_a_spectator_with_o(tmp_path: Path) -> None:
    """A player back on a new machine (no token, another key) watches; the creator's `o` picks
    the away seat and types their name: `hand_seat`, and the newcomer plays it."""
    from client_tui.screens.forms import CreateTableScreen, HandSeatScreen

    async with running_server(tmp_path / "z.db", seed="hand", bot_delay=0.0) as (url, _s):
        app = ZhuojiApp(url, name="host", lang="en", ascii=True, mode="join")
        async with app.run_test(size=SIZE) as pilot:
            await until(pilot, lambda: app.view.status == "connected")
            await pilot.press("c")
            await until(
                pilot, lambda: isinstance(app.screen, CreateTableScreen) and app.screen.complete
            )
            app.screen.query_one("#turn").value = "0"  # type: ignore[attr-defined]
            await pilot.click("#ok")
            await until(pilot, lambda: app.view.table is not None)
            table = app.view.table_id
            guest = await Client.connect(url, "guest")
            await guest.recv_type("welcome")
            await guest.send({"type": "take_seat", "table": table})
            await guest.recv_type("joined")
            for _ in range(2):
                await pilot.press("plus")
            await until(pilot, lambda: app.view.table is not None and app.view.table.seated == 4)
            await pilot.click("#start")
            await until(pilot, lambda: app.view.round is not None)
            await guest.ws.close()
            await until(
                pilot, lambda: app.view.table is not None and not app.view.table.seats[1].connected
            )
            li = await Client.connect(url, "小李")
            await li.recv_type("welcome")
            await li.send({"type": "watch", "table": table})
            await li.recv_type("snapshot")
            await pilot.press("o")
            await until(pilot, lambda: isinstance(app.screen, HandSeatScreen))
            await pilot.click("#to")
            await pilot.press(*"小李", "tab", "enter")  # the name, then the first away seat
            joined = await li.recv_type("joined")
            assert joined["seat"] == 1 and joined["token"]
            await until(
                pilot,
                lambda: app.view.table is not None and app.view.table.seats[1].name == "小李",
            )
            await li.ws.close()
