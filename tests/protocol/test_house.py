"""House presets as TOML files (protocol.house): what a file holds, how it is written and read
back, and every way a file can be broken, each reported with the file, the line and the key."""

from __future__ import annotations

from pathlib import Path

import pytest

from protocol.house import (
    House,
    HouseError,
    dump_house,
    house_names,
    house_path,
    load_house,
    parse_house,
    resolve,
    save_house,
)
from rules.options import make_options

GOOD = """\
# friday nights
preset = "guiyang"

[options]
wuguji = false
benji = true
hand_cap = 20

[options.patterns]
dilong = 10
dandiao = "off"

[table]
rounds = 4
turn_seconds = 10
"""


def test_a_house_file_names_a_preset_its_changes_and_table_settings() -> None:
    house = parse_house(GOOD, "friday.toml")
    assert house.preset == "guiyang"
    assert house.overrides == {
        "wuguji": False,
        "benji": True,
        "hand_cap": 20,
        "patterns": {"dilong": 10, "dandiao": None},
    }
    assert house.table == {"rounds": 4, "turn_seconds": 10.0}
    opts = house.options
    assert (opts.wuguji, opts.benji, opts.hand_cap, opts.patterns.dilong) == (False, True, 20, 10)
    assert opts.patterns.dandiao is None and opts.patterns.qidui == 7  # the rest: the preset's


def test_only_differences_from_the_preset_are_kept_and_a_written_file_reads_back() -> None:
    # guiyang already has 乌骨鸡: saying so again is not an override.
    house = parse_house('preset = "guiyang"\n[options]\nwuguji = true\nbaodou = true\n')
    assert house.overrides == {"baodou": True}
    again = parse_house(dump_house(parse_house(GOOD)))
    assert again == parse_house(GOOD)
    assert 'dandiao = "off"' in dump_house(again)  # TOML has no null


def test_save_list_and_load_by_name(tmp_path: Path) -> None:
    house = House("chuan", {"benji": True}, {"rounds": 4})
    path = save_house("周五", house, tmp_path)
    assert path == tmp_path / "周五.toml" and house_names(tmp_path) == ["周五"]
    assert load_house(path) == house
    assert house_path("周五.toml", tmp_path) == path
    with pytest.raises(HouseError, match="not a usable house name"):
        save_house("../evil", house, tmp_path)
    assert not (tmp_path.parent / "evil.toml").exists()


def test_resolve_takes_a_path_or_a_saved_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ZHUOJI_CONFIG_DIR", str(tmp_path / "cfg"))
    assert resolve("friday") == tmp_path / "cfg" / "houses" / "friday.toml"
    assert resolve("friday.toml") == tmp_path / "cfg" / "houses" / "friday.toml"
    assert resolve(str(tmp_path / "x.toml")) == tmp_path / "x.toml"


@pytest.mark.parametrize(
    ("text", "problems"),
    [
        (
            "[options]\nbenji = tru\n",
            ["h.toml line 2 (key 'benji'): not valid TOML: Invalid value (at line 2, column 9)"],
        ),
        (
            'preset = "guiyang"\n[options\n',
            [
                "h.toml line 2: not valid TOML: Expected ']' at the end of a table declaration"
                " (at line 2, column 9)"
            ],
        ),
        (
            'preset = "sichuan"\n',
            ["h.toml line 1: preset 'sichuan': choose one of guiyang, chuan, anshun"],
        ),
        (
            "\n[options]\nbenjii = true\n",
            ["h.toml line 3: unknown option 'benjii' (did you mean 'benji'?)"],
        ),
        (
            "[options]\nhand_cap = 0\n",
            [
                "h.toml line 2: option 'hand_cap': Input should be greater than or equal to 1 (got 0)"
            ],
        ),
        (
            '[options]\nflip_chickens = "all"\n',
            [
                "h.toml line 2: option 'flip_chickens': Input should be 'next', 'both' or 'none'"
                " (got 'all')"
            ],
        ),
        (
            '[options.patterns]\ndilong = "ten"\n',
            [
                "h.toml line 2: option 'patterns.dilong': Input should be a valid integer, unable"
                " to parse string as an integer (got 'ten')"
            ],
        ),
        (
            'colour = "red"\n[table]\nrounds = 100\nspeed = 2\n',
            [
                "h.toml line 1: unknown key 'colour' (a house file has preset, options, table)",
                "h.toml line 3: table setting 'rounds': Input should be less than or equal to 64"
                " (got 100)",
                "h.toml line 4: unknown table setting 'speed' (one of base, rounds, turn_seconds,"
                " bank_seconds, claim_min_ms, next_round_seconds, bot_delay)",
            ],
        ),
        ("options = 3\n", ["h.toml line 1: 'options' must be a table of option names to values"]),
    ],
)
def test_a_broken_file_names_the_line_and_the_key(text: str, problems: list[str]) -> None:
    with pytest.raises(HouseError) as err:
        parse_house(text, "h.toml")
    assert err.value.problems == problems


def test_a_missing_or_unreadable_file_is_said_so(tmp_path: Path) -> None:
    with pytest.raises(HouseError, match="no such house file"):
        load_house(tmp_path / "nope.toml")
    (tmp_path / "bin.toml").write_bytes(b"\xff\xfe\x00")
    with pytest.raises(HouseError, match="cannot read it"):
        load_house(tmp_path / "bin.toml")


def test_every_option_of_the_rules_core_can_be_written_and_read() -> None:
    """A value other than the preset's for every field round-trips through TOML."""
    from protocol.option_fields import option_fields

    preset = make_options("guiyang")
    for key, f in option_fields().items():
        now = f.value_in(preset)
        if f.kind == "switch":
            value = not now
        elif f.kind == "radio":
            value = next(c for c in f.choices if c != now)
        else:
            value = None if (f.nullable and now is not None) else (f.low or 0) + 3
        house = House("guiyang", f.override(value))
        back = parse_house(dump_house(house))
        assert f.value_in(back.options) == value, key


def test_a_house_setting_an_option_that_changes_nothing_loads_with_a_note() -> None:
    """Issue 27: 乌骨鸡 and 责任鸡 do nothing under chuan's chickens (RULES.md §13 fine points);
    the file loads, with one line per such option naming the file, the line and why."""
    text = (
        'preset = "chuan"\n[options]\nwuguji = true\nbenji = true\nzeren_extra = 1\n'
        '"patterns.dilong" = 10\n'
    )
    house = parse_house(text, "chuan.toml")
    assert house.options.benji and house.options.patterns.dilong == 10
    assert house.notes == (
        "chuan.toml line 3: note: option 'wuguji' changes nothing here (no 乌骨鸡 in 捉鸡川麻将)",
        "chuan.toml line 5: note: option 'zeren_extra' changes nothing here"
        " (no 责任鸡 in 捉鸡川麻将)",
    )
    assert parse_house('preset = "guiyang"\n[options]\nwuguji = false\n').notes == ()
