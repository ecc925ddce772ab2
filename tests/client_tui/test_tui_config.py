"""Settings in `config.toml` (client_tui.config): the command line's flags override them, `zhuoji
join` without a server goes to the configured one or the last one joined, and a broken file ends
`zhuoji play`/`join`/`watch` with exit 2 and one line naming the file and the line — never a
traceback. The broken-file cases run real `python -m zhuoji` processes."""

from __future__ import annotations

import doctest
import importlib
import os
import subprocess
import sys
from pathlib import Path

import pytest

from client_tui.config import CONFIG_ENV, ConfigError, Settings, load, remember_server
from zhuoji.cli import build_parser
from zhuoji.cmd_join import server_for
from zhuoji.common import display

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("module", ["client_tui.config", "client_tui.board", "client_tui.clocks"])
def test_doctests(module: str) -> None:
    result = doctest.testmod(importlib.import_module(module), optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "config.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_every_setting_is_read(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        '# mine\nlang = "zh"\ntiles = "ASCII"\nbell = false\nname = " 阿明 "\nserver = "h:1"\n',
    )
    assert load(path) == Settings(lang="zh", tiles="ascii", bell=False, name="阿明", server="h:1")
    assert load(tmp_path / "none.toml") == Settings()


@pytest.mark.parametrize(
    ("text", "line", "what"),
    [
        ('lang = "zh"\nbell = maybe\n', 2, "not valid TOML"),
        ('lang = "zh"\n\n[houses]\nx = 1\n', 3, "unknown setting 'houses'"),
        ('name = "a"\ncolour = "red"\n', 2, "unknown setting 'colour'"),
        ('lang = "fr"\n', 1, 'lang must be "zh" or "en"'),
        ('tiles = "big"\n', 1, 'tiles must be "cjk" or "ascii"'),
        ('bell = "no"\n', 1, "bell must be true or false"),
        ('\n\nname = ""\n', 3, "name must be a non-empty string"),
        ("server = 8765\n", 1, "server must be a non-empty string"),
    ],
)
def test_a_broken_file_names_its_line(tmp_path: Path, text: str, line: int, what: str) -> None:
    path = write(tmp_path, text)
    with pytest.raises(ConfigError) as err:
        load(path)
    assert str(err.value).startswith(f"{path}, line {line}: "), str(err.value)
    assert what in str(err.value)


def test_not_utf8_names_its_line(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_bytes(b'lang = "zh"\nname = "\xff"\n')
    with pytest.raises(ConfigError, match="line 2: not UTF-8"):
        load(path)


def test_flags_override_the_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write(tmp_path, 'lang = "zh"\ntiles = "ascii"\nbell = false\nname = "阿明"\n')
    monkeypatch.setenv(CONFIG_ENV, str(tmp_path))
    parser = build_parser()
    d = display(parser.parse_args(["play"]), "play")
    assert (d.lang, d.ascii, d.bell, d.name) == ("zh", True, False, "阿明")
    d = display(
        parser.parse_args(["play", "--lang", "en", "--cjk", "--bell", "--name", "Bo"]), "play"
    )
    assert (d.lang, d.ascii, d.bell, d.name) == ("en", False, True, "Bo")
    d = display(parser.parse_args(["join", "h:1", "--no-bell"]), "join")
    assert d.bell is False and d.ascii is True


def test_without_a_file_the_defaults_hold(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(CONFIG_ENV, str(tmp_path))
    monkeypatch.setenv("LANG", "zh_CN.UTF-8")
    monkeypatch.delenv("LC_ALL", raising=False)
    monkeypatch.delenv("LC_MESSAGES", raising=False)
    d = display(build_parser().parse_args(["watch", "h:1", "--name", "x"]), "watch")
    assert (d.lang, d.ascii, d.bell, d.name) == ("zh", False, True, "x")


def test_join_goes_to_the_given_then_the_configured_then_the_last_server(tmp_path: Path) -> None:
    state = tmp_path / "state"
    assert server_for(None, Settings(), state) is None
    remember_server(state, "ws://last:1")
    assert server_for(None, Settings(), state) == "ws://last:1"
    assert server_for(None, Settings(server="conf:2"), state) == "conf:2"
    assert server_for("given:3", Settings(server="conf:2"), state) == "given:3"


@pytest.mark.parametrize("command", [["join", "ws://127.0.0.1:9"], ["play"], ["watch", "h:1"]])
def test_a_broken_file_stops_the_command_with_exit_2(tmp_path: Path, command: list[str]) -> None:
    write(tmp_path, 'lang = "zh"\ntiles = "cjk"\nbell = yes please\n')
    env = {**os.environ, "PYTHONPATH": str(ROOT), CONFIG_ENV: str(tmp_path)}
    env["ZHUOJI_STATE_DIR"] = str(tmp_path / "state")
    done = subprocess.run(
        [sys.executable, "-m", "zhuoji", *command],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 2, done
    assert "Traceback" not in done.stderr
    assert done.stderr.strip() == (
        f"zhuoji {command[0]}: {tmp_path / 'config.toml'}, line 3: not valid TOML"
        " (Invalid value, column 8)"
    )


def test_join_without_any_server_says_how_to_give_one(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT), CONFIG_ENV: str(tmp_path)}
    env["ZHUOJI_STATE_DIR"] = str(tmp_path / "state")
    done = subprocess.run(
        [sys.executable, "-m", "zhuoji", "join"],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "which server?" in done.stderr and str(tmp_path / "config.toml") in done.stderr
