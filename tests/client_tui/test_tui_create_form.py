"""The create-table form under Textual's Pilot: every rule option as a field, from the preset's
values (a new preset resets them), only the differences sent, the advanced text on top, house
presets saved and loaded (a broken one said so on the form), and all of it usable at 80×24."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from rich.cells import cell_len
from textual.app import App
from textual.pilot import Pilot
from textual.widgets import Checkbox, Collapsible, Input, RadioButton, RadioSet, Select, Static

from client_tui.i18n import Lang
from client_tui.option_form import preset_values, sections, summary
from client_tui.option_text import CHOICE_TEXT, OPTION_TEXT
from client_tui.screens.forms import (
    CLOCK_ROWS,
    TABLE_ROWS,
    CreateTableScreen,
    PaceChoice,
    option_id,
)
from protocol.house import House, load_house, save_house
from protocol.messages import CreateTable
from protocol.option_fields import option_fields
from rules.options import PRESETS
from tests.support import until


class FormApp(App[None]):
    """Just the form, over an empty screen; `result` is what it was dismissed with."""

    def __init__(self, houses: Path, lang: str = "en") -> None:
        super().__init__()
        self.houses = houses
        self.lang = Lang(lang)
        self.result: CreateTable | None | str = "open"

    def on_mount(self) -> None:
        self.open_form()

    def open_form(self) -> None:
        def done(msg: CreateTable | None) -> None:
            self.result = msg

        self.push_screen(CreateTableScreen(self.lang, "t", houses=self.houses), done)

    @property
    def form(self) -> CreateTableScreen:
        assert isinstance(self.screen, CreateTableScreen)
        return self.screen


def form_open(app: FormApp) -> bool:
    """The form is on screen with its fields mounted."""
    return isinstance(app.screen, CreateTableScreen) and bool(app.screen.query("#options"))


async def open_folds(pilot: Pilot[Any], form: CreateTableScreen) -> None:
    """Open every section of the form, as a player pressing Enter on each title would, and wait
    until their fields are built (they are built the first time a section opens)."""
    for fold in form.query(Collapsible):
        fold.collapsed = False
    await until(pilot, lambda: all(form.query(f"#{option_id(k)}") for k in option_fields()))


def text_of(form: CreateTableScreen, wid: str) -> str:
    return str(form.query_one(wid, Static).render())


def test_every_option_and_choice_has_its_words_in_both_languages() -> None:
    fields = option_fields()
    assert set(OPTION_TEXT) == set(fields)
    for key, words in OPTION_TEXT.items():
        assert all(words), key  # a name and an explanation, zh and en
        # one line of the form at 80 columns (its explanation line is 64 cells wide)
        assert max(cell_len(words[2]), cell_len(words[3])) <= 64, key
    for key, f in fields.items():
        for choice in f.choices if f.kind == "radio" else ():
            assert (key, choice) in CHOICE_TEXT, (key, choice)
    shown = [f.key for _, fs in sections() for f in fs]
    assert sorted(shown) == sorted(fields), "every option is on the form, once"


def test_the_header_words_every_house_option() -> None:
    zh, en = Lang("zh"), Lang("en")
    over = {"wuguji": False, "benji": True, "hand_cap": 20, "flip_chickens": "both"}
    assert summary("guiyang", over, zh) == "乌骨鸡 关 · 翻牌鸡 摇摆鸡 · 本鸡 开 · 封顶 20"
    assert summary("guiyang", over, en) == "乌骨鸡 off · 翻牌鸡 摇摆 both · 本鸡 on · Cap 封顶 20"
    assert summary("guiyang", {"patterns": {"dilong": 10}, "new_rule": 1}, zh) == (
        "地龙 10 · new_rule=1"
    )


async def test_the_form_starts_from_the_preset_and_a_new_preset_resets_it(tmp_path: Path) -> None:
    app = FormApp(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: form_open(app))
        await open_folds(pilot, app.form)
        form = app.form
        assert form.values() == preset_values("guiyang")
        form.query_one(f"#{option_id('benji')}", Checkbox).value = True
        await pilot.pause()
        assert "本鸡 on" in text_of(form, "#changes")
        form.query_one("#preset", Select).value = "chuan"
        await until(pilot, lambda: form.values() == preset_values("chuan"))
        assert form.query_one(f"#{option_id('benji')}", Checkbox).value is False
        await until(pilot, lambda: "as the preset" in text_of(form, "#changes"))
        assert form.build().options == {} and form.build().preset == "chuan"


async def test_only_the_differences_are_sent_and_the_advanced_text_goes_on_top(
    tmp_path: Path,
) -> None:
    app = FormApp(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: form_open(app))
        await open_folds(pilot, app.form)
        form = app.form
        form.query_one(f"#{option_id('wuguji')}", Checkbox).value = False
        form.query_one(f"#{option_id('benji')}", Checkbox).value = True
        form.query_one(f"#{option_id('hand_cap')}", Input).value = "20"
        flips = form.query_one(f"#{option_id('flip_chickens')}", RadioSet)
        flips.query("RadioButton")[1].value = True  # 摇摆鸡
        form.query_one(f"#{option_id('patterns.dilong')}", Input).value = "10"
        await pilot.pause()
        want = {
            "wuguji": False,
            "benji": True,
            "hand_cap": 20,
            "flip_chickens": "both",
            "patterns": {"dilong": 10},
        }
        assert form.build().options == want
        form.query_one("#options", Input).value = '{"zimo_bonus": 2, "benji": false}'
        assert form.build().options == {
            **{k: v for k, v in want.items() if k != "benji"},
            "zimo_bonus": 2,
        }
        form.query_one("#options", Input).value = "no_such_rule=1"
        await pilot.press("ctrl+s")  # no name yet: said so, and the focus goes to the name
        assert "name first" in text_of(form, "#error")
        await pilot.pause()
        assert app.focused is not None and app.focused.id == "house-name"
        form.query_one("#options", Input).value = ""
        form.query_one(f"#{option_id('zeren_extra')}", Input).value = ""  # not optional
        with pytest.raises(ValueError, match="责任鸡: enter a number"):
            form.build()
        form.query_one(f"#{option_id('zeren_extra')}", Input).value = "2"
        form.query_one(f"#{option_id('hand_cap')}", Input).value = "0"
        with pytest.raises(ValueError, match="hand_cap"):
            form.build()
        form.query_one(f"#{option_id('hand_cap')}", Input).value = "20"
        await pilot.click("#ok")
        await until(pilot, lambda: app.result != "open")
    assert isinstance(app.result, CreateTable) and app.result.options == want


async def test_a_saved_house_preset_fills_a_new_form(tmp_path: Path) -> None:
    app = FormApp(tmp_path, lang="zh")
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: form_open(app))
        await open_folds(pilot, app.form)
        form = app.form
        form.query_one("#preset", Select).value = "anshun"
        await until(pilot, lambda: form.values() == preset_values("anshun"))
        form.query_one(f"#{option_id('benji')}", Checkbox).value = True
        form.query_one(f"#{option_id('hand_cap')}", Input).value = "30"
        form.query_one("#rounds", Input).value = "4"
        form.query_one("#bot_delay", PaceChoice).value = "1.5"  # the bot pace is saved too
        form.query_one("#house-name", Input).value = "周五"
        await pilot.press("ctrl+s")
        await until(pilot, lambda: (tmp_path / "周五.toml").exists())
        assert "已存家规 周五" in text_of(form, "#error")
        saved = load_house(tmp_path / "周五.toml")
        assert (saved.preset, saved.overrides) == ("anshun", {"benji": True, "hand_cap": 30})
        assert saved.table["rounds"] == 4 and saved.table["bot_delay"] == 1.5
        await pilot.press("escape")
        await until(pilot, lambda: app.result is None)

        app.open_form()  # a new form: guiyang, until the house is picked
        await until(pilot, lambda: form_open(app))
        await open_folds(pilot, app.form)
        form = app.form
        assert form.values() == preset_values("guiyang")
        form.query_one("#house", Select).value = "周五"
        await until(pilot, lambda: form.current_preset() == "anshun")
        await until(pilot, lambda: form.values()["benji"] is True)
        assert form.values() == {**preset_values("anshun"), "benji": True, "hand_cap": 30}
        assert form.query_one("#rounds", Input).value == "4"
        # The pace's radio set lets go of the button pressed before when it handles the new
        # press (a message): until then both read as pressed, and the first one wins.
        await until(pilot, lambda: form.query_one("#bot_delay", PaceChoice).value == "1.5")
        await until(pilot, lambda: text_of(form, "#changes") == "改动: 本鸡 开 · 封顶 30")
        msg = form.build()
        assert (msg.preset, msg.options, msg.rounds, msg.bot_delay) == (
            "anshun",
            {"benji": True, "hand_cap": 30},
            4,
            1.5,
        )


async def test_a_broken_house_file_is_said_so_on_the_form(tmp_path: Path) -> None:
    (tmp_path / "bad.toml").write_text("[options]\nbenji = 3\n", encoding="utf-8")
    save_house("good", House("guiyang", {"baodou": True}), tmp_path)
    app = FormApp(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: form_open(app))
        await open_folds(pilot, app.form)
        form = app.form
        form.query_one("#house", Select).value = "bad"
        await until(pilot, lambda: "Bad house file" in text_of(form, "#error"))
        line = text_of(form, "#error")
        assert "bad.toml line 2: option 'benji'" in line
        assert form.values() == preset_values("guiyang"), "nothing was changed"
        form.query_one("#house", Select).value = "good"
        await until(pilot, lambda: form.values()["baodou"] is True)
        assert "House rules good loaded" in text_of(form, "#error")


async def test_at_80_by_24_every_field_scrolls_into_view_and_the_buttons_stay(
    tmp_path: Path,
) -> None:
    app = FormApp(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: form_open(app))
        await open_folds(pilot, app.form)
        form = app.form
        screen = form.region
        for bid in ("#ok", "#save", "#cancel"):
            assert screen.contains_region(form.query_one(bid).region), bid
        seen: set[str] = set()
        for _ in range(len(option_fields()) + 20):
            await pilot.press("tab")
            await pilot.pause()
            focused = app.focused
            if focused is None or focused.id is None:
                continue
            assert screen.contains_region(focused.region), focused.id
            seen.add(focused.id)
        assert {option_id(k) for k in option_fields()} <= seen
        assert PRESETS  # the presets are what the form starts from


async def test_options_that_change_nothing_are_greyed_out_with_the_reason(tmp_path: Path) -> None:
    """Issue 27: under chuan's chickens 乌骨鸡, 冲锋 and 责任 do nothing (RULES.md §13 fine
    points): their fields are disabled, their help line says why, and back on guiyang they are
    live again. The header leaves such an option out; the advanced text reads dotted names."""
    app = FormApp(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: form_open(app))
        await open_folds(pilot, app.form)
        form = app.form
        wuguji = form.query_one(f"#{option_id('wuguji')}", Checkbox)
        assert not wuguji.disabled
        form.query_one("#preset", Select).value = "chuan"
        await until(pilot, lambda: wuguji.disabled)
        for key in ("wuguji_value", "chongfeng_value", "chongfeng_scope", "zeren_extra"):
            assert form.query_one(f"#{option_id(key)}").disabled, key
        assert not form.query_one(f"#{option_id('benji')}").disabled
        help_line = f"#help-{option_id('wuguji')}"
        assert text_of(form, help_line) == "no 乌骨鸡 in 捉鸡川麻将"
        form.query_one("#options", Input).value = '{"patterns.dilong": 10}'
        await until(pilot, lambda: "地龙 10" in text_of(form, "#changes"))
        assert form.build().options == {"patterns": {"dilong": 10}}
        form.query_one("#preset", Select).value = "guiyang"
        await until(pilot, lambda: not wuguji.disabled)
        assert text_of(form, help_line) == Lang("en").option_help("wuguji")
    assert summary("chuan", {"wuguji": True, "zeren_extra": 1, "benji": True}, Lang("en")) == (
        "本鸡 on"
    )


async def test_a_section_is_built_when_opened_with_the_values_chosen_before(tmp_path: Path) -> None:
    """Issue 23: the form opens with its sections closed and their fields not yet built (that is
    what makes it open fast); a house preset loaded before a section opens is what the section
    shows when it does, and what the form sends either way."""
    save_house("fri", House("anshun", {"benji": True, "hand_cap": 30}, {"rounds": 4}), tmp_path)
    app = FormApp(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await until(pilot, lambda: form_open(app))
        form = app.form
        assert not form.query(f"#{option_id('benji')}"), "no section is built before it opens"
        assert len(form.query("*")) < 150
        form.query_one("#house", Select).value = "fri"
        await until(pilot, lambda: "fri" in text_of(form, "#error"))
        sent = form.build()
        assert (sent.preset, sent.options, sent.rounds) == (
            "anshun",
            {"benji": True, "hand_cap": 30},
            4,
        )
        form.query_one("#fold-chicken", Collapsible).collapsed = False
        await until(pilot, lambda: bool(form.query(f"#{option_id('benji')}")))
        benji = form.query_one(f"#{option_id('benji')}", Checkbox)
        assert benji.value is True and str(benji.label) == "on"
        form.query_one("#fold-score", Collapsible).collapsed = False
        await until(pilot, lambda: bool(form.query(f"#{option_id('hand_cap')}")))
        assert form.query_one(f"#{option_id('hand_cap')}", Input).value == "30"
        benji.value = False
        await until(pilot, lambda: form.build().options == {"hand_cap": 30})


async def test_enter_in_the_name_field_creates_the_table_and_saves_nothing(tmp_path: Path) -> None:
    """Issue 23, defect 6: Enter in the table's name creates the table; no house file is written."""
    app = FormApp(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: form_open(app))
        form = app.form
        form.query_one("#house-name", Input).value = "fri"  # a name to save under is typed
        name = form.query_one("#name", Input)
        name.focus()
        await pilot.pause()
        name.value = ""
        await pilot.press(*"Sunday", "enter")
        await until(pilot, lambda: app.result != "open")
        assert isinstance(app.result, CreateTable) and app.result.name == "Sunday"
        assert not list(tmp_path.iterdir()), "nothing was saved"


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
async def test_the_bot_pace_draws_inside_the_form(tmp_path: Path, size: tuple[int, int]) -> None:
    """Issue 23, defect 6: the bot pace's choices stay inside the form's body. It was a dropdown
    low in the form whose open list covered the buttons and the border; now a row of choices."""
    app = FormApp(tmp_path)
    async with app.run_test(size=size) as pilot:
        await until(pilot, lambda: form_open(app))
        form = app.form
        pace = form.query_one("#bot_delay", PaceChoice)
        pace.focus()
        await pilot.pause()
        await pilot.press("right", "enter")  # the second choice: no bot delay
        await until(pilot, lambda: pace.value == "0")
        inside = form.query_one("#body").region
        for button in pace.query(RadioButton):
            assert inside.contains_region(button.region), (button.region, inside)
        assert form.build().bot_delay == 0


class HeldForm(CreateTableScreen):
    """The form, its second half (below the name and the presets) built only when the test
    says: the moments after the first paint, when a player may already press keys, held open."""

    def __init__(self, houses: Path) -> None:
        super().__init__(Lang("en"), "t", houses=houses)
        self.held = True

    async def _build_rest(self) -> None:
        if not self.held:
            await super()._build_rest()


async def test_keys_before_the_form_is_whole_act_on_its_values(tmp_path: Path) -> None:
    """Issue 23: the form paints its name, presets and buttons first and builds the rest (the
    rounds, the clock, the sections, the advanced text) right after. A house picked, Ctrl+S and
    Enter in that moment act on the form's values: nothing is lost or read half-built, and the
    fields, once built, show what was picked."""
    table = {"rounds": 4, "turn_seconds": 20, "bot_delay": 1.5}
    save_house("fri", House("anshun", {"benji": True, "hand_cap": 30}, table), tmp_path)
    app = FormApp(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: form_open(app))  # the FormApp's own form, whole
        form = HeldForm(tmp_path)
        app.push_screen(form, lambda msg: setattr(app, "result", msg))
        await until(pilot, lambda: bool(form.query("#name")) and app.screen is form)
        await pilot.pause()
        assert not form.query("#rounds") and not form.query("#options") and not form.complete
        form.query_one("#house", Select).value = "fri"
        await until(pilot, lambda: "fri loaded" in text_of(form, "#error"))
        form.query_one("#house-name", Input).value = "sat"
        await pilot.press("ctrl+s")  # saves everything, from the values: no field is there yet
        await until(pilot, lambda: (tmp_path / "sat.toml").exists())
        saved = load_house(tmp_path / "sat.toml")
        assert (saved.preset, saved.overrides) == ("anshun", {"benji": True, "hand_cap": 30})
        defaults = {n: CreateTable.model_fields[n].default for _w, n, _k in TABLE_ROWS + CLOCK_ROWS}
        assert saved.table == {**defaults, **table}
        form.held = False
        await form._build_rest()
        await until(pilot, lambda: form_open(app) and form.complete)
        assert form.query_one("#rounds", Input).value == "4"
        assert form.query_one("#turn", Input).value == "20"
        assert form.query_one("#bot_delay", PaceChoice).value == "1.5"
        await until(pilot, lambda: text_of(form, "#changes") == "Changes: 本鸡 on · Cap 封顶 30")
        form.query_one("#name", Input).focus()
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.result, CreateTable))
        assert isinstance(app.result, CreateTable)
        assert (app.result.preset, app.result.rounds, app.result.turn_seconds) == ("anshun", 4, 20)
        assert app.result.bot_delay == 1.5


async def test_enter_before_the_form_is_whole_creates_the_table_from_its_values(
    tmp_path: Path,
) -> None:
    """Issue 23: Enter in the name field in the moment before the rest of the form is built
    creates the table with the values the form holds (the defaults, or a house picked)."""
    save_house("fri", House("anshun", {"benji": True}, {"rounds": 4, "bot_delay": 0}), tmp_path)
    app = FormApp(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: form_open(app))
        form = HeldForm(tmp_path)
        app.push_screen(form, lambda msg: setattr(app, "result", msg))
        await until(pilot, lambda: bool(form.query("#name")) and app.screen is form)
        form.query_one("#house", Select).value = "fri"
        await until(pilot, lambda: "fri loaded" in text_of(form, "#error"))
        form.query_one("#name", Input).focus()
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.result, CreateTable))
        assert not form.complete
        assert isinstance(app.result, CreateTable)
        sent = app.result
        assert (sent.preset, sent.options, sent.rounds, sent.bot_delay) == (
            "anshun",
            {"benji": True},
            4,
            0,
        )
        assert sent.turn_seconds == CreateTable.model_fields["turn_seconds"].default
