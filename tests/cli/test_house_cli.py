"""House presets on the command line: `zhuoji serve --house` and `zhuoji play --house` refuse a
broken file with its line and key (exit 2, no traceback), and a server's house rules are the
options of a table created with none on their preset."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from clients.client import Client
from protocol.house import House
from server.testkit import running_server

ROOT = Path(__file__).resolve().parents[2]
BROKEN = 'preset = "guiyang"\n[options]\nbenjii = true\nhand_cap = 0\n'


def zhuoji(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "ZHUOJI_CONFIG_DIR": str(cwd / "cfg")}
    return subprocess.run(
        [sys.executable, "-m", "zhuoji", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )


@pytest.mark.parametrize("command", ["serve", "play"])
def test_a_broken_house_file_is_refused_with_its_lines_and_keys(
    tmp_path: Path, command: str
) -> None:
    (tmp_path / "bad.toml").write_text(BROKEN, encoding="utf-8")
    extra = ["--db", str(tmp_path / "z.db"), "--port", "0"] if command == "serve" else []
    done = zhuoji(command, "--house", "bad.toml", *extra, cwd=tmp_path)
    assert done.returncode == 2, done
    assert done.stderr.splitlines() == [
        f"zhuoji {command}: bad.toml line 3: unknown option 'benjii' (did you mean 'benji'?)",
        f"zhuoji {command}: bad.toml line 4: option 'hand_cap': Input should be greater than or"
        " equal to 1 (got 0)",
    ]
    assert "Traceback" not in done.stderr + done.stdout
    assert not (tmp_path / "z.db").exists(), "nothing was started"


def test_a_house_name_is_looked_up_among_the_saved_ones(tmp_path: Path) -> None:
    done = zhuoji("play", "--house", "friday", cwd=tmp_path)
    assert done.returncode == 2
    want = f"zhuoji play: {tmp_path / 'cfg' / 'houses' / 'friday.toml'}: no such house file"
    assert done.stderr.strip() == want
    (tmp_path / "h.toml").write_text('preset = "chuan"\n', encoding="utf-8")
    done = zhuoji("play", "--house", "h.toml", "--preset", "anshun", cwd=tmp_path)
    assert done.returncode == 2
    assert "--preset anshun and the house file's preset chuan differ" in done.stderr


async def test_a_servers_house_rules_are_the_options_of_a_table_created_with_none(
    tmp_path: Path,
) -> None:
    house = House("guiyang", {"benji": True, "hand_cap": 20})
    async with running_server(tmp_path / "z.db", house=house) as (url, _server):
        seen = {}
        for name, ask in (
            ("plain", {}),
            ("own", {"options": {"zimo_bonus": 2}}),  # the creator's options win, whole
            ("chuan", {"preset": "chuan"}),  # another preset: the house is not for it
        ):
            async with await Client.connect(url, name) as c:
                await c.recv_type("welcome")
                await c.send({"type": "create_table", "name": name, **ask})
                joined = await c.recv_type("joined")
                table = await c.recv_until(lambda f: f["type"] == "snapshot")
                assert table["table"] == joined["table"]
                seen[name] = table["info"]["options"]
    assert seen == {"plain": {"benji": True, "hand_cap": 20}, "own": {"zimo_bonus": 2}, "chuan": {}}


def test_play_takes_the_houses_preset_options_and_table_and_the_command_line_wins(
    tmp_path: Path,
) -> None:
    from zhuoji.cli import build_parser
    from zhuoji.cmd_play import table_request

    house = tmp_path / "h.toml"
    house.write_text(
        'preset = "anshun"\n[options]\nbenji = true\n[table]\nrounds = 4\nturn_seconds = 9\n',
        encoding="utf-8",
    )
    args = build_parser().parse_args(["play", "--house", str(house), "--rounds", "2"])
    assert table_request(args) == {
        "preset": "anshun",
        "options": {"benji": True},
        "rounds": 2,
        "turn_seconds": 9.0,
        "bank_seconds": 60.0,
    }


def test_a_house_with_an_option_that_changes_nothing_loads_with_a_note(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from zhuoji.common import read_house

    house = tmp_path / "a.toml"
    house.write_text('preset = "anshun"\n[options]\nwuguji_value = 1\n', encoding="utf-8")
    loaded = read_house(str(house), "serve")
    assert loaded is not None and loaded.preset == "anshun"
    assert capsys.readouterr().err == (
        f"zhuoji serve: {house} line 3: note: option 'wuguji_value' changes nothing here"
        " (no 乌骨鸡 in 安顺捉鸡)\n"
    )
