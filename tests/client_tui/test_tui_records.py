"""The player key on disk and the Records screen: the key is made once (0600, in the config
directory that `ZHUOJI_CONFIG_DIR` overrides) and refused, not replaced, when the file holds
something else; the lobby's `s` opens the Records screen on a real server, which shows the
standings, your record, your plots and the match with its date, players and scores."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest
from textual.widgets import DataTable, Static
from textual_plotext import PlotextPlot

from client_tui.player_key import PlayerKeyError, for_server, is_key, key_path, load_or_make
from clients.testkit import play_to_end
from server.testkit import running_server
from tests.support import until


def test_the_key_is_made_once_in_the_config_dir_readable_by_its_owner_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ZHUOJI_CONFIG_DIR", str(tmp_path / "cfg"))
    assert key_path() == tmp_path / "cfg" / "player.key"
    key = load_or_make()
    assert is_key(key) and load_or_make() == key
    mode = stat.S_IMODE(key_path().stat().st_mode)
    assert mode == 0o600
    other = load_or_make(tmp_path / "elsewhere" / "player.key")
    assert other != key, "each machine's first run makes its own"


def test_a_file_that_is_not_a_key_is_refused_and_left_alone(tmp_path: Path) -> None:
    path = tmp_path / "player.key"
    path.write_text("hello\n")
    with pytest.raises(PlayerKeyError, match="does not hold a zhuoji player key"):
        load_or_make(path)
    assert path.read_text() == "hello\n"


async def test_the_lobby_opens_the_records_of_the_match_just_played(tmp_path: Path) -> None:
    from client_tui.app import ZhuojiApp
    from client_tui.screens.lobby import LobbyScreen
    from client_tui.screens.records import RecordsScreen

    key = load_or_make(tmp_path / "player.key")
    async with running_server(tmp_path / "z.db") as (url, _server):
        # The app sends the key derived for this server; a protocol tool sends what it is given.
        done = await play_to_end(url, name="我", rounds=2, player_key=for_server(key, url))
        app = ZhuojiApp(url, name="我", lang="en", mode="join", bell=False, player_key=key)
        async with app.run_test(size=(140, 50)) as pilot:
            await until(
                pilot,
                lambda: isinstance(app.screen, LobbyScreen) and app.view.status == "connected",
            )
            await pilot.press("s")
            await until(pilot, lambda: isinstance(app.screen, RecordsScreen))
            screen = app.screen
            assert isinstance(screen, RecordsScreen)
            await until(pilot, lambda: screen.last is not None)
            msg = screen.last
            assert msg is not None and msg.me is not None
            assert msg.me.name == "我" and msg.me.rounds == 2 and msg.me.matches == 1
            standings = screen.query_one("#rec-standings", DataTable)
            names = [standings.get_row_at(i)[0] for i in range(standings.row_count)]
            assert "我" in names and any("(bot)" in str(n) for n in names)
            matches = screen.query_one("#rec-matches", DataTable)
            assert matches.row_count == 1
            when, table, players = matches.get_row_at(0)
            assert table.startswith(done.table) and "我" in str(players)
            assert len(str(when)) == len("12-02 13:45")
            me = str(screen.query_one("#rec-me", Static).render())
            assert "2 rounds" in me
            net = screen.query_one("#rec-net", PlotextPlot)
            assert net.plt is not None
            await pilot.press("t")  # tonight: asked again, the answer comes back
            await until(pilot, lambda: screen.last is not None and screen.last.period == "tonight")
            await pilot.press("escape")
            await until(pilot, lambda: isinstance(app.screen, LobbyScreen))


def test_zhuoji_join_stops_on_a_broken_key_file_and_names_it(tmp_path: Path) -> None:
    import os
    import subprocess
    import sys

    cfg = tmp_path / "cfg"
    cfg.mkdir()
    (cfg / "player.key").write_text("zk1_tooshort\n")
    env = {**os.environ, "ZHUOJI_CONFIG_DIR": str(cfg), "ZHUOJI_STATE_DIR": str(tmp_path / "st")}
    done = subprocess.run(
        [sys.executable, "-m", "zhuoji.cli", "join", "ws://127.0.0.1:9"],
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
        env=env,
    )
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert f"{cfg / 'player.key'} does not hold a zhuoji player key" in done.stderr
    assert (cfg / "player.key").read_text() == "zk1_tooshort\n"


def test_the_key_itself_never_leaves_the_machine_each_server_gets_its_own() -> None:
    """A server's host (or the unencrypted LAN) sees a key derived for that server only: it
    proves nothing to another server, and the same player is the same key on one server."""
    key = "zk1_" + "k" * 43
    one = for_server(key, "ws://mahjong.lan:8765")
    assert is_key(one) and one != key
    assert one == for_server(key, "ws://MAHJONG.lan:8765/")
    assert one != for_server(key, "ws://other.lan:8765")
    assert one != for_server("zk1_" + "j" * 43, "ws://mahjong.lan:8765")
    assert for_server(key, "ws://127.0.0.1:40001") == for_server(key, "ws://localhost:40002")


async def test_the_app_sends_the_derived_key_in_hello(tmp_path: Path) -> None:
    from client_tui.app import ZhuojiApp

    key = load_or_make(tmp_path / "player.key")
    app = ZhuojiApp("ws://mahjong.lan:8765", name="我", lang="en", mode="join", player_key=key)
    hello = app._hello()
    assert hello["player_key"] == for_server(key, "ws://mahjong.lan:8765") != key
