"""Small dialogs: pick one of several choices, create a table, pick a seat (and a password)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, TypeVar

from pydantic import ValidationError
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Grid, Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widget import Widget
from textual.widgets import (
    Button,
    Checkbox,
    Collapsible,
    Input,
    Label,
    OptionList,
    RadioButton,
    RadioSet,
    Select,
    Static,
)
from textual.widgets.option_list import Option

from client_tui.i18n import Lang
from client_tui.option_form import overrides_from, preset_values, sections, summary, values_of, word
from client_tui.render import plain
from client_tui.view import TableV
from protocol.house import House, HouseError, house_names, house_path, load_house, save_house
from protocol.messages import CreateTable
from protocol.option_fields import OptionField
from rules.options import (
    PRESETS,
    OptionsError,
    RuleOptions,
    inert_options,
    make_options,
    normalize_overrides,
)

FORMS_CSS = Path(__file__).with_name("forms.tcss")
"""The dialogs' styles, by absolute path: a relative `CSS_PATH` resolves beside the module of
the class that names it, and a subclass elsewhere (a test's, a benchmark's) would miss it."""


CompactW = TypeVar("CompactW", Input, Button, Checkbox, RadioButton, RadioSet, Select[str])


def compact(widget: CompactW) -> CompactW:
    """`widget` drawn compact (no border). Textual's `compact=True` toggles the class with a
    style update of the still unmounted widget, about 8 ms an Input on a loaded machine (issue
    23: the form opens in ≤ 200 ms); the class alone, set without that update, draws the same
    and the styles are applied once, when the widget mounts."""
    widget.set_reactive(type(widget).compact, True)
    widget.add_class("-textual-compact", update=False)
    return widget


class ChoiceScreen(ModalScreen[str | None]):
    """Pick one of `choices` ((value, label) pairs); Escape picks nothing."""

    CSS_PATH = FORMS_CSS
    BINDINGS = [Binding("escape", "cancel", "cancel")]

    def __init__(self, title: str, choices: list[tuple[str, str]]) -> None:
        super().__init__()
        self.title_text = title
        self.choices = choices

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(plain(self.title_text), classes="title")
            yield OptionList(*(Option(plain(label), id=value) for value, label in self.choices))

    @on(OptionList.OptionSelected)
    def _picked(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(event.option.id)

    def action_cancel(self) -> None:
        self.dismiss(None)


class ConfirmScreen(ModalScreen[bool]):
    """Ask before something that cannot be taken back by a key: `y` or Enter goes ahead, `n` or
    Escape stays. The body says what will happen."""

    CSS_PATH = FORMS_CSS
    BINDINGS = [
        Binding("y,enter", "answer(True)", "yes"),
        Binding("n,escape", "answer(False)", "no"),
    ]

    def __init__(self, lang: Lang, title: str, body: str, ok: str) -> None:
        super().__init__()
        self.lang = lang
        self.title_text = title
        self.body = body
        self.ok = ok

    def compose(self) -> ComposeResult:
        t = self.lang.t
        with Vertical():
            yield Static(plain(self.title_text), classes="title")
            yield Static(plain(self.body), classes="body")
            with Horizontal():
                # Not focusable: the keys are the dialog's own (y/Enter, n/Esc), as the hint says.
                for label, bid, variant in (
                    (self.ok, "yes", "warning"),
                    (t("btn_stay"), "no", "primary"),
                ):
                    button = Button(label, variant=variant, id=bid)  # type: ignore[arg-type]
                    button.can_focus = False
                    yield button
            yield Static(plain(t("confirm_hint")), classes="hint")

    @on(Button.Pressed, "#yes")
    def _yes(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(True)

    @on(Button.Pressed, "#no")
    def _no(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(False)

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)


def parse_overrides(text: str) -> dict[str, Any]:
    """`"zimo_bonus=2, patterns.pinghu=3, dealer_bonus=false"` → an options dict; values are read
    as JSON where they parse (numbers, true/false/null), else as text. Raises `OptionsError` (a
    ValueError) for a dotted name that is no option.

    >>> parse_overrides("zimo_bonus=2, patterns.pinghu=3, pass_win=penalty")
    {'zimo_bonus': 2, 'patterns': {'pinghu': 3}, 'pass_win': 'penalty'}
    """
    out: dict[str, Any] = {}
    for part in text.replace("\n", ",").split(","):
        part = part.strip()
        if not part:
            continue
        if "=" not in part:
            raise ValueError(f"{part!r}: write name=value")
        name, raw = (x.strip() for x in part.split("=", 1))
        try:
            value: Any = json.loads(raw)
        except ValueError:
            value = raw
        out[name] = value
    return normalize_overrides(out)  # `patterns.pinghu` nested; a bad dotted name refused


def option_id(key: str) -> str:
    """The widget id of an option's field: `patterns.dilong` → `opt-patterns-dilong`."""
    return "opt-" + key.replace(".", "-").replace("_", "-")


def read_advanced(text: str) -> dict[str, Any]:
    """The advanced overrides: a JSON object, or `name=value, ...` (`parse_overrides`)."""
    text = text.strip()
    if text.startswith("{"):
        try:
            data = json.loads(text)
        except ValueError as err:
            raise ValueError(f"not valid JSON: {err}") from None
        if not isinstance(data, dict):
            raise ValueError("write a JSON object of option names to values")
        return data
    return parse_overrides(text)


# The table settings the form sets, in order: (widget id, `create_table` field, text key).
TABLE_ROWS = (
    ("rounds", "rounds", "rounds"),
    ("base", "base", "base_label"),
)
PACES = ("default", "0", "0.5", "1", "1.5")
"""The bot paces the form offers: the server's, none, or seconds."""
CLOCK_ROWS = (
    ("turn", "turn_seconds", "turn_seconds"),
    ("bank", "bank_seconds", "bank_seconds"),
    ("next_round", "next_round_seconds", "next_round_seconds"),
)
"""The clock's number fields: (widget id, `create_table` field, label key); the bot pace, a
choice of four, follows them."""


class ChoiceSet(RadioSet):
    """A radio set whose highlight starts on the chosen button: Textual's starts on the first,
    and a player reads the highlight, not the dot (issue 23: `1分` lit while `2分` is set)."""

    def on_mount(self) -> None:
        self.call_after_refresh(self._highlight_choice)

    def _highlight_choice(self) -> None:
        # Runs after a refresh: by then the set may have been taken out of the form (its fold
        # rebuilt, the dialog closed), its buttons gone while it still names the pressed one.
        pressed = self.pressed_button
        if pressed is not None and pressed in self._nodes:
            self._selected = self._nodes.index(pressed)


class PaceChoice(ChoiceSet):
    """The bot pace, one of a few values (`"default"` or seconds), as a row of radio buttons:
    a dropdown here, low in the form, opened over the form's buttons and border (issue 23)."""

    def __init__(self, choices: list[tuple[str, str]], *, id: str, value: str = "default") -> None:
        self.values = [v for _label, v in choices]
        buttons = (compact(RadioButton(plain(label), v == value)) for label, v in choices)
        super().__init__(*buttons, id=id)
        compact(self)

    @property
    def value(self) -> str:
        """The chosen value ("default" before any is pressed)."""
        pressed = [v for v, b in zip(self.values, self.query(RadioButton), strict=False) if b.value]
        return pressed[0] if pressed else "default"  # the buttons, not the set's late index

    @value.setter
    def value(self, value: str) -> None:
        list(self.query(RadioButton))[self.values.index(value)].value = True


class Fold(Collapsible):
    """A section of the form, closed and holding nothing but its title until it first opens,
    when the form mounts its body (`Collapsible.Contents`): each widget costs the form's
    opening time, and a closed section's empty body is one more."""

    def __init__(self, *, title: str, id: str) -> None:
        # Born with `-collapsed` (the class Collapsible sets when it mounts): no style update.
        super().__init__(title=title, id=id, classes="-collapsed")

    def compose(self) -> ComposeResult:
        yield self._title


def form_folds(lang: Lang) -> dict[str, tuple[str, list[OptionField]]]:
    """The form's folds in order: fold id → (its title, its fields). Each section of
    `option_form.sections()` is one, but the pattern values of "score" are a fold of their own."""
    out: dict[str, tuple[str, list[OptionField]]] = {}
    for section, fields in sections():
        patterns = [f for f in fields if f.key.startswith("patterns.")]
        rest = [f for f in fields if f not in patterns]
        if rest:
            out[section] = (lang.group(section), rest)
        if patterns:
            out["patterns"] = (lang.group("patterns"), patterns)
    return out


class CreateTableScreen(ModalScreen[CreateTable | None]):
    """The create-table form: name, preset, house rules, rounds, base, password; then every rule
    option of the preset as a switch, a radio or a number, grouped as the apps do, each with a
    line saying what it does; the clock; and the advanced text. It starts from the preset's
    values, and choosing another preset resets them. `build()` sends only the differences.

    A house preset (`protocol.house`) fills it from a saved file; Ctrl+S (or the button) saves the
    current choice under the name typed beside it. The body scrolls, so it works at 80×24."""

    CSS_PATH = FORMS_CSS
    BINDINGS = [
        Binding("escape", "cancel", "cancel"),
        Binding("ctrl+s", "save_house", "save house rules"),
    ]

    def __init__(
        self,
        lang: Lang,
        default_name: str,
        *,
        preset: str = "guiyang",
        houses: Path | None = None,
    ) -> None:
        super().__init__()
        self.lang = lang
        self.default_name = default_name
        self.preset = preset
        self.houses = houses  # the folder of house presets (None: the user's config dir)
        self.fields = {f.key: f for _, fs in sections() for f in fs}
        self.folds = form_folds(lang)
        self.fold_of = {f.key: fold for fold, (_t, fs) in self.folds.items() for f in fs}
        self.built: set[str] = set()  # the folds whose fields exist (opened at least once)
        self.building: set[str] = set()  # the folds whose fields are being mounted
        # What was set while its widgets were being mounted (built from the values before):
        # put into them once they are there.
        self._late: set[str] = set()
        # The options' values; a built fold's widgets are the truth for its fields.
        self._values: dict[str, Any] = preset_values(preset)
        # The text of the fields built after the first paint (rounds, base, password, the
        # clock, the advanced text) and the bot pace: the truth until their widgets exist, as
        # `_values` is for a closed fold.
        self._texts: dict[str, str] = {
            wid: f"{CreateTable.model_fields[name].default:g}"
            for wid, name, _k in TABLE_ROWS + CLOCK_ROWS
        }
        self._texts |= {"password": "", "options": ""}
        self._pace = "default"
        self.complete = False  # every widget of the form is mounted (`_build_rest`)

    # ----- layout -----

    def compose(self) -> ComposeResult:
        t = self.lang.t
        with Vertical():
            yield Static(t("create_title"), classes="title")
            yield Static("", id="changes")
            with VerticalScroll(id="body"):
                yield Grid(*self._table_cells(), classes="rows", id="table")
            yield Static("", classes="error", id="error")
            with Horizontal(id="buttons"):
                yield compact(Button(t("btn_ok"), variant="primary", id="ok"))
                yield compact(Button(t("btn_save_house"), id="save"))
                yield compact(Button(t("btn_cancel"), id="cancel"))
            yield Static(t("form_keys"), id="keys")

    def _table_cells(self) -> list[Widget]:
        """The table's settings on the first paint, as label and field pairs of one grid (a row
        container each cost a widget more, and each widget costs the form's opening time); the
        rest of its rows follow it (`_table_rest`)."""
        t = self.lang.t
        cells: list[Widget] = [
            Label(t("table_name")),
            compact(Input(self.default_name, id="name", max_length=32)),
            Label(t("preset")),
            compact(
                Select(
                    [(t(f"preset_{p}"), p) for p in PRESETS],
                    value=self.preset,
                    allow_blank=False,
                    id="preset",
                )
            ),
            Label(t("house")),
            compact(
                Select(
                    [(plain(n), n) for n in house_names(self.houses)],
                    prompt=t("house_none"),
                    id="house",
                )
            ),
            Label(t("house_save_as")),
            compact(Input("", id="house-name", placeholder=t("house_name_hint"))),
            Label(t("players")),
            Static("4"),
        ]
        return cells

    def _table_rest(self) -> list[Widget]:
        """The table's settings below the first paint: rounds, base, password."""
        cells: list[Widget] = []
        for wid, _name, key in TABLE_ROWS:
            cells += [
                Label(self._label(key)),
                compact(Input(self._texts[wid], id=wid, type="integer")),
            ]
        return cells + [
            Label(self.lang.t("password_opt")),
            compact(Input(self._texts["password"], id="password", password=True)),
        ]

    def _label(self, key: str) -> str:
        return self.lang.t(key, n="").strip() or key

    def _rest(self) -> list[Widget]:
        """What the form shows below the table's settings: the option sections (folded), the
        clock, the advanced text (the last widget: its being there says the form is whole). Built after the first paint (`_build_rest`), from the
        form's values, as a section's fields are when it first opens."""
        t = self.lang.t
        out: list[Widget] = [self._section(fold, title) for fold, (title, _f) in self.folds.items()]
        out += self._clock()
        out += [
            Static(self.lang.group("advanced"), classes="section"),
            Label(t("advanced")),
            compact(
                Input(
                    self._texts["options"],
                    id="options",
                    placeholder='zimo_bonus=2, patterns.pinghu=2  or  {"benji": true}',
                )
            ),
        ]
        return out

    def _clock(self) -> list[Widget]:
        t = self.lang.t
        cells: list[Widget] = []
        for wid, _name, key in CLOCK_ROWS:
            cells += [
                Label(self._label(key)),
                compact(Input(self._texts[wid], id=wid, type="number")),
            ]
        pace = PaceChoice(
            [(t("bot_delay_default"), "default"), (t("bot_delay_instant"), "0")]
            + [(t("bot_delay_s", s=s), s) for s in PACES[2:]],
            id="bot_delay",
            value=self._pace,
        )
        return [
            Static(self.lang.group("clock"), classes="section"),
            Grid(*cells, Label(t("bot_delay")), pace, classes="rows"),
        ]

    def _section(self, fold: str, title: str) -> Fold:
        """A section of options as a fold, closed at first and empty: its fields are built the
        first time it is opened (`_opened`). Building all ~1,100 widgets of every option took
        seconds (issue 23: ≤ 200 ms to open); a closed section costs two."""
        return Fold(title=title, id=f"fold-{fold}")

    @on(Collapsible.Expanded)
    async def _opened(self, event: Collapsible.Expanded) -> None:
        """Build a section's fields from the form's values the first time it is opened."""
        fold = (event.collapsible.id or "").removeprefix("fold-")
        if fold not in self.folds or fold in self.built | self.building:
            return
        self.building.add(fold)
        fields = self.folds[fold][1]
        cells = [w for f in fields for w in self._field(f, self._values[f.key])]
        await event.collapsible.mount(Collapsible.Contents(Grid(*cells, classes="opts")))
        self.building.discard(fold)
        self.built.add(fold)  # its widgets are the truth from now on
        for f in fields:
            if f.key in self._late:
                self._late.discard(f.key)
                self._put(f.key, self._values[f.key])
        self._show_changes()

    def _field(self, f: OptionField, value: Any) -> ComposeResult:
        """An option's three cells of its section's grid: its name, its field, and (across
        both columns) what it does."""
        lang, wid = self.lang, option_id(f.key)
        yield Label(plain(lang.option(f.key)))
        if f.kind == "switch":
            yield compact(Checkbox(word(f, f.key, value, lang), value, id=wid))
        elif f.kind == "radio":
            yield compact(
                ChoiceSet(
                    *(
                        compact(RadioButton(plain(lang.choice(f.key, c)), c == value))
                        for c in f.choices
                    ),
                    id=wid,
                )
            )
        else:
            yield compact(
                Input(
                    "" if value is None else str(value),
                    id=wid,
                    type="integer",
                    placeholder=lang.t("value_none") if f.nullable else "",
                    valid_empty=f.nullable,  # empty is "none" (no 封顶), not an error drawn red
                )
            )
        yield Static(plain(lang.option_help(f.key)), classes="help", id=f"help-{wid}")

    AUTO_FOCUS = "#name"

    def on_mount(self) -> None:
        # The first paint holds the name, the presets and the buttons (about 30 widgets: each
        # costs Textual ~3 ms of CPU, and the form opens in ≤ 200 ms, issue 23); the rest is
        # mounted right after it. Keys pressed meanwhile act on the form's values, not on
        # widgets that do not exist yet (`values`, `_value`), so nothing is half-read.
        self.call_after_refresh(self._build_rest)

    async def _build_rest(self) -> None:
        table = self.query_one("#table", Grid).mount_all(self._table_rest())
        await self.query_one("#body", VerticalScroll).mount_all(self._rest())
        await table
        self.complete = True  # the widgets are the truth from now on
        for wid in self._late & set(self._texts):
            self.query_one(f"#{wid}", Input).value = self._texts[wid]
        if "bot_delay" in self._late:
            self.query_one("#bot_delay", PaceChoice).value = self._pace
        self._late -= {*self._texts, "bot_delay"}
        self._show_changes()  # the line says what the whole form sends: shown once it is there

    # ----- values -----

    def values(self) -> dict[str, Any]:
        """The option fields' values by dotted key; raises ValueError naming a bad number."""
        out: dict[str, Any] = {}
        found = self._by_id()
        for key, f in self.fields.items():
            widget = found.get(option_id(key))
            if self.fold_of[key] not in self.built or widget is None:
                # Not built, or (two sections opened at once) still being attached: nobody
                # can have changed it yet, so the value it is built from is the truth.
                out[key] = self._values[key]
            elif isinstance(widget, Checkbox):
                out[key] = widget.value
            elif isinstance(widget, RadioSet):
                index = widget.pressed_index
                out[key] = f.choices[index] if index >= 0 else None
            else:
                assert isinstance(widget, Input), widget
                text = widget.value.strip()
                if not text and f.nullable:
                    out[key] = None
                    continue
                try:
                    out[key] = int(text)
                except ValueError:
                    why = self.lang.t("bad_number", field=self.lang.option(key))
                    raise ValueError(why) from None
        return out

    def fill(self, options: RuleOptions) -> None:
        """Set every option field to its value under `options`."""
        for key, value in values_of(options).items():
            f = self.fields.get(key)
            if f is None:
                continue
            self._values[key] = value
            fold = self.fold_of[key]
            if fold in self.built:
                self._put(key, value)
            elif fold in self.building:
                self._late.add(key)
            # else built from `_values` when its fold opens

    def _put(self, key: str, value: Any) -> None:
        """Set the (built) field of option `key` to `value`."""
        f, wid = self.fields[key], f"#{option_id(key)}"
        if f.kind == "switch":
            self.query_one(wid, Checkbox).value = bool(value)
        elif f.kind == "radio":
            buttons = list(self.query_one(wid, RadioSet).query(RadioButton))
            buttons[f.choices.index(value)].value = True
        else:
            self.query_one(wid, Input).value = "" if value is None else str(value)

    def current_preset(self) -> str:
        return str(self.query_one("#preset", Select).value)

    def overrides(self) -> dict[str, Any]:
        """The differences from the preset the form makes (the advanced text on top); raises
        ValueError with the message to show."""
        preset = self.current_preset()
        values = self.values()
        try:
            extra = read_advanced(self._value("options"))
            return overrides_from(preset, values, extra)
        except (ValueError, OptionsError) as err:
            raise ValueError(self.lang.t("bad_option", why=str(err))) from None

    def _show_changes(self) -> None:
        if not self.complete:
            return  # shown when the whole form is there (`_build_rest`)
        try:
            overrides = self.overrides()
            text = summary(self.current_preset(), overrides, self.lang)
        except ValueError:
            return
        self._grey_inert(overrides)
        label = f"{self.lang.t('changes')}: {text or self.lang.t('no_changes')}"
        self.query_one("#changes", Static).update(plain(label))

    def _grey_inert(self, overrides: dict[str, Any]) -> None:
        """Grey out the options that change nothing under the chosen chickens, their help line
        saying why ("no 乌骨鸡 in 捉鸡川麻将": `rules.options.inert_options`)."""
        try:
            options = make_options(self.current_preset(), overrides)
        except OptionsError:
            return
        inert = inert_options(options, "zh" if self.lang.code == "zh" else "en")
        found = self._by_id()
        for key in self.fields:
            wid = option_id(key)
            widget, help_line = found.get(wid), found.get(f"help-{wid}")
            if self.fold_of[key] not in self.built or widget is None:
                continue  # not attached yet: the next `_show_changes` greys it
            if not isinstance(help_line, Static):
                continue  # its help line not attached yet: greyed with it on the next pass
            greyed = key in inert
            if widget.disabled != greyed:
                widget.disabled = greyed
                why = inert[key] if greyed else self.lang.option_help(key)
                help_line.update(plain(why))

    def _by_id(self) -> dict[str, Widget]:
        """The form's widgets by id, from one walk of the page. A `query("#id")` per field
        walks the whole page each time: with every field read on each change that was ~0.9 s
        of CPU per change and a third of the test suite's time (issue 21)."""
        return {w.id: w for w in self.query("*") if w.id}

    @on(Checkbox.Changed)
    def _switched(self, event: Checkbox.Changed) -> None:
        key = next((k for k in self.fields if option_id(k) == event.checkbox.id), None)
        if key is not None:
            event.checkbox.label = word(self.fields[key], key, event.value, self.lang)
        self._show_changes()

    @on(RadioSet.Changed)
    @on(Input.Changed)
    def _changed(self) -> None:
        self._show_changes()

    @on(Select.Changed, "#preset")
    def _preset_changed(self, event: Select.Changed) -> None:
        preset = str(event.value)
        if preset != self.preset:
            self.fill(PRESETS[preset])
        self.preset = preset
        self._show_changes()

    # ----- house presets -----

    @on(Select.Changed, "#house")
    def _house_picked(self, event: Select.Changed) -> None:
        if event.value is Select.BLANK or event.value is None:
            return
        name = str(event.value)
        try:
            house = load_house(house_path(name, self.houses))
        except HouseError as err:
            self._say(self.lang.t("house_bad", why=str(err)), error=True)
            return
        self.load(house)
        self.query_one("#house-name", Input).value = name
        self._say(" ".join([self.lang.t("house_loaded", name=name), *house.notes]))

    def load(self, house: House) -> None:
        """Fill the form from a house preset: its preset, its options, its table settings."""
        for wid, name, _key in TABLE_ROWS + CLOCK_ROWS:
            if name in house.table:
                self._set_text(wid, f"{house.table[name]:g}")
        pace = house.table.get("bot_delay")
        self._pace = f"{pace:g}" if pace is not None and f"{pace:g}" in PACES else "default"
        if self.complete:
            self.query_one("#bot_delay", PaceChoice).value = self._pace
        else:
            self._late.add("bot_delay")
        preset = self.query_one("#preset", Select)
        self._set_text("options", "")
        self.fill(house.options)  # at once: `build()` right after sends the house's rules
        if preset.value != house.preset:
            self.preset = house.preset  # so that its Changed event does not reset the options
            preset.value = house.preset
        self._show_changes()

    def action_save_house(self) -> None:
        """Ctrl+S: save the current choice as the house preset named beside "Save as"."""
        name = self._value("house-name")
        if not name:
            self._say(self.lang.t("house_need_name"), error=True)
            self.query_one("#house-name", Input).focus()  # where the name goes (issue 23)
            return
        try:
            settings = self._table_settings()
            delay = self._bot_pace()
            if delay != "default":  # the bot pace is a table setting too: kept with the rest
                settings["bot_delay"] = float(delay)
            house = House(self.current_preset(), self.overrides(), settings)
            path = save_house(name, house, self.houses)
        except (ValueError, HouseError) as err:
            self._say(str(err), error=True)
            return
        select = self.query_one("#house", Select)
        select.set_options([(plain(n), n) for n in house_names(self.houses)])
        self._say(self.lang.t("house_saved", name=path.stem, path=str(path)))

    def _say(self, text: str, *, error: bool = False) -> None:
        """A line above the buttons: what went wrong, or what was done."""
        line = self.query_one("#error", Static)
        line.set_class(not error, "-ok")
        line.update(plain(text))

    # ----- the message -----

    def _value(self, wid: str) -> str:
        """The text of the field `wid`, or, before it is built, the form's value for it."""
        if wid in self._texts and not self.complete:
            return self._texts[wid].strip()
        return self.query_one(f"#{wid}", Input).value.strip()

    def _set_text(self, wid: str, text: str) -> None:
        """Set the field `wid` (one built after the first paint) to `text`."""
        self._texts[wid] = text
        if self.complete:
            self.query_one(f"#{wid}", Input).value = text
        else:
            self._late.add(wid)  # the field may be being built from the value before

    def _bot_pace(self) -> str:
        """The chosen bot pace, `"default"` or seconds."""
        if not self.complete:
            return self._pace
        return self.query_one("#bot_delay", PaceChoice).value

    def _table_settings(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for wid, name, key in TABLE_ROWS + CLOCK_ROWS:
            try:
                number = float(self._value(wid))
            except ValueError:
                raise ValueError(self.lang.t("bad_number", field=self._label(key))) from None
            kind = CreateTable.model_fields[name].annotation
            out[name] = int(number) if kind is int else number
        return out

    def build(self) -> CreateTable:
        """The form as a `create_table` message; raises ValueError with a message to show."""
        settings = self._table_settings()
        overrides = self.overrides()
        delay = self._bot_pace()
        try:
            return CreateTable(
                name=self._value("name") or self.default_name,
                preset=self.current_preset(),  # type: ignore[arg-type]
                options=overrides,
                password=self._value("password") or None,
                **settings,
                bot_delay=None if delay == "default" else float(delay),
            )
        except ValidationError as err:
            e = err.errors()[0]
            raise ValueError(f"{'.'.join(str(x) for x in e['loc'])}: {e['msg']}") from None

    @on(Button.Pressed, "#save")
    def _save_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.action_save_house()

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        """Enter in "Save as" saves the house preset; in any other field it creates the table."""
        event.stop()
        if event.input.id == "house-name":
            self.action_save_house()
        else:
            self._ok()

    @on(Button.Pressed, "#ok")
    def _ok(self) -> None:
        try:
            msg = self.build()
        except ValueError as err:
            self._say(str(err), error=True)  # it may quote the input
            return
        self.dismiss(msg)

    @on(Button.Pressed, "#cancel")
    def action_cancel(self) -> None:
        self.dismiss(None)


class SeatScreen(ModalScreen[tuple[int | None, str | None] | None]):
    """Choose a seat at `table` (or any free one), with its password if it has one. With
    `watch`, only the password is asked."""

    CSS_PATH = FORMS_CSS
    BINDINGS = [Binding("escape", "cancel", "cancel")]

    def __init__(self, lang: Lang, table: TableV, *, watch: bool = False) -> None:
        super().__init__()
        self.lang = lang
        self.table = table
        self.watch_only = watch

    def compose(self) -> ComposeResult:
        t = self.lang.t
        with Vertical():
            title = plain(f"{self.table.name} · {t('preset_' + self.table.preset)}")
            yield Static(title, classes="title")
            if self.table.has_password:
                with Horizontal(classes="row"):
                    yield Label(t("password"))
                    yield Input("", id="password", password=True, compact=True)
            if self.watch_only:
                with Horizontal():
                    yield Button(t("btn_watch"), variant="primary", id="watch")
                    yield Button(t("btn_cancel"), id="cancel")
                return
            options = [Option(t("seat_any"), id="any")]
            for i, s in enumerate(self.table.seats):
                who = s.name or t("empty_seat")
                options.append(
                    Option(plain(f"{i + 1}. {who}"), id=str(i), disabled=s.kind != "empty")
                )
            yield OptionList(*options, id="seats")
            with Horizontal():
                yield Button(t("btn_cancel"), id="cancel")

    def _password(self) -> str | None:
        if not self.table.has_password:
            return None
        return self.query_one("#password", Input).value or None

    @on(OptionList.OptionSelected)
    def _picked(self, event: OptionList.OptionSelected) -> None:
        seat = None if event.option.id == "any" else int(event.option.id or 0)
        self.dismiss((seat, self._password()))

    @on(Button.Pressed, "#watch")
    @on(Input.Submitted)
    def _watch(self) -> None:
        if self.watch_only:
            self.dismiss((None, self._password()))

    @on(Button.Pressed, "#cancel")
    def action_cancel(self) -> None:
        self.dismiss(None)


class HandSeatScreen(ModalScreen[tuple[int, str] | None]):
    """The table's creator hands an away seat (`away`: index and name) to a spectator, named
    as they watch (`hand_seat`): a returning player on a new machine, who has neither the
    seat's token nor the player key it was played under."""

    CSS_PATH = FORMS_CSS
    BINDINGS = [Binding("escape", "cancel", "cancel")]

    def __init__(self, lang: Lang, away: list[tuple[int, str | None]]) -> None:
        super().__init__()
        self.lang = lang
        self.away = away

    def compose(self) -> ComposeResult:
        t = self.lang.t
        with Vertical():
            yield Static(plain(t("hand_seat_title")), classes="title")
            with Horizontal(classes="row"):
                yield Label(t("hand_seat_to"))
                yield Input("", id="to", compact=True)
            yield OptionList(
                *(Option(plain(f"{i + 1}. {name or '—'}"), id=str(i)) for i, name in self.away),
                id="seats",
            )
            yield Static("", id="hand-error", classes="error")
            with Horizontal():
                yield Button(t("btn_cancel"), id="cancel")

    @on(OptionList.OptionSelected)
    def _picked(self, event: OptionList.OptionSelected) -> None:
        from protocol.messages import HandSeat

        to = self.query_one("#to", Input).value.strip()
        seat = int(event.option.id or 0)
        try:
            HandSeat(seat=seat, to=to)  # the name as the server checks it: say why here
        except ValidationError as err:
            why = self.lang.t("hand_seat_no_name") if not to else str(err.errors()[0]["msg"])
            self.query_one("#hand-error", Static).update(plain(why))
            return
        self.dismiss((seat, to))

    @on(Button.Pressed, "#cancel")
    def action_cancel(self) -> None:
        self.dismiss(None)
