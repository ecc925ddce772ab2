"""The server's config file (`server.config`): every refusal names its line and key; what is
read is what `--print-config` prints back."""

from __future__ import annotations

from pathlib import Path

import pytest

from server.config import (
    ConfigError,
    ServerConfig,
    apply_overrides,
    key_line,
    load_config,
    parse_config,
    to_toml,
)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[limits]\n\n\nmax_tables = 0\n", "s.toml:4: limits.max_tables: Input should be greater"),
        ("limits.tables_per_address = -2\n", "s.toml:1: limits.tables_per_address:"),
        ('# c\nlimits = { lobby_timeout = "x" }\n', "s.toml:2: limits.lobby_timeout:"),
        ('[ "pace" ]\nbot_delay = 61\n', "s.toml:2: pace.bot_delay:"),
        ("[server]\nport = true\n", "s.toml:2: server.port: Input should be a valid integer"),
        ('[server]\nadmin_token = "short"\n', "s.toml:2: server.admin_token:"),
        ('[log]\nlevel = "loud"\n', "s.toml:2: log.level:"),
        ("[table]\nrounds = 65\n", "s.toml:2: table.rounds:"),
        ("[table.options]\nzimo_bonus = 'lots'\n", "s.toml:1: table.options:"),
        ("[server]\nport = 1\nport = 2\n", "s.toml:3: not valid TOML"),
    ],
)
def test_every_refusal_names_the_line_and_the_key(text: str, message: str) -> None:
    with pytest.raises(ConfigError) as err:
        parse_config(text, "s.toml")
    assert str(err.value).startswith(message), str(err.value)
    assert "\n" not in str(err.value)


def test_the_line_of_a_key_is_found_in_its_section_not_another() -> None:
    text = "[server]\nport = 1\n\n[limits]\n# port = 3\nmax_tables = 2\n'port' = 9\n"
    assert key_line(text, ("server", "port")) == 2
    assert key_line(text, ("limits", "max_tables")) == 6
    assert key_line(text, ("limits", "port")) == 7
    assert key_line(text, ("pace",)) is None


def test_defaults_print_and_read_back_and_flags_override() -> None:
    config = parse_config("[limits]\naddress_exempt = []\n[table]\noptions = {zimo_bonus = 2}\n")
    assert config.limits.address_exempt == ()
    assert parse_config(to_toml(config)) == config
    assert parse_config(to_toml(ServerConfig())) == ServerConfig()
    flagged = apply_overrides(config, {"server": {"port": 9000}, "pace": {"bot_delay": 1.5}})
    assert (flagged.server.port, flagged.pace.bot_delay) == (9000, 1.5)
    assert flagged.table.options == {"zimo_bonus": 2}
    with pytest.raises(ConfigError, match="server.port"):
        apply_overrides(config, {"server": {"port": 70000}})


def test_paths_are_taken_from_the_files_folder_and_a_missing_house_file_is_refused(
    tmp_path: Path,
) -> None:
    (tmp_path / "house.toml").write_text("", encoding="utf-8")
    path = tmp_path / "server.toml"
    path.write_text('[server]\ndb = "data/z.db"\n[table]\nhouse = "house.toml"\n', "utf-8")
    config = load_config(path)
    assert config.server.db == str(tmp_path / "data" / "z.db")
    assert config.table.house == str(tmp_path / "house.toml")
    path.write_text('[table]\n\nhouse = "nope.toml"\n', "utf-8")
    with pytest.raises(ConfigError, match=r"server\.toml:3: table\.house: no such file"):
        load_config(path)
    with pytest.raises(ConfigError, match="cannot read the config file"):
        load_config(tmp_path / "absent.toml")
