"""Small dialogs: pick one of several choices, create a table, pick a seat (and a password)."""

from __future__ import annotations

import json
from typing import Any

from pydantic import ValidationError
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, OptionList, Select, Static
from textual.widgets.option_list import Option

from client_tui.i18n import Lang
from client_tui.render import plain
from client_tui.view import TableV
from protocol.messages import CreateTable
from rules.options import OptionsError, make_options

DIALOG_CSS = """
{name} { align: center middle; }
{name} > Vertical {
    width: 72; max-width: 100%; height: auto; max-height: 100%;
    border: thick $primary; background: $surface; padding: 1 2;
}
{name} .title { text-style: bold; margin-bottom: 1; }
{name} .error { color: $error; height: auto; }
{name} Horizontal { height: auto; }
{name} #buttons { margin-top: 1; }
{name} Horizontal Button { margin-right: 2; }
{name} .row { height: auto; margin-bottom: 1; }
{name} .row Label { width: 30; }
{name} .row Input, {name} .row Select { width: 1fr; }
"""


def dialog_css(name: str) -> str:
    return DIALOG_CSS.replace("{name}", name)


class ChoiceScreen(ModalScreen[str | None]):
    """Pick one of `choices` ((value, label) pairs); Escape picks nothing."""

    DEFAULT_CSS = dialog_css("ChoiceScreen")
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

    DEFAULT_CSS = (
        dialog_css("ConfirmScreen")
        + """
    ConfirmScreen .body { height: auto; margin-bottom: 1; }
    ConfirmScreen .hint { height: auto; color: $text-muted; }
    """
    )
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
    as JSON where they parse (numbers, true/false/null), else as text.

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
        if "." in name:
            head, sub = name.split(".", 1)
            out.setdefault(head, {})[sub] = value
        else:
            out[name] = value
    return out


class CreateTableScreen(ModalScreen[CreateTable | None]):
    """The create-table form: name, preset, rounds, base, clock, password and rule overrides."""

    DEFAULT_CSS = dialog_css("CreateTableScreen")
    BINDINGS = [Binding("escape", "cancel", "cancel")]

    def __init__(self, lang: Lang, default_name: str) -> None:
        super().__init__()
        self.lang = lang
        self.default_name = default_name

    def compose(self) -> ComposeResult:
        t = self.lang.t
        with Vertical():
            yield Static(t("create_title"), classes="title")
            with Horizontal(classes="row"):
                yield Label(t("table_name"))
                yield Input(self.default_name, id="name", max_length=32, compact=True)
            with Horizontal(classes="row"):
                yield Label(t("preset"))
                yield Select(
                    [(t(f"preset_{p}"), p) for p in ("guiyang", "chuan", "anshun")],
                    value="guiyang",
                    allow_blank=False,
                    id="preset",
                    compact=True,
                )
            with Horizontal(classes="row"):
                yield Label(t("rounds"))
                yield Input("8", id="rounds", type="integer", compact=True)
            with Horizontal(classes="row"):
                yield Label(t("base", n="").strip() or "base")
                yield Input("1", id="base", type="integer", compact=True)
            with Horizontal(classes="row"):
                yield Label(t("turn_seconds"))
                yield Input("15", id="turn", type="number", compact=True)
            with Horizontal(classes="row"):
                yield Label(t("bank_seconds"))
                yield Input("30", id="bank", type="number", compact=True)
            with Horizontal(classes="row"):
                yield Label(t("bot_delay"))
                yield Select(
                    [(t("bot_delay_default"), "default"), (t("bot_delay_instant"), "0")]
                    + [(t("bot_delay_s", s=s), s) for s in ("0.5", "1", "1.5")],
                    value="default",
                    allow_blank=False,
                    id="bot_delay",
                    compact=True,
                )
                yield Label(t("next_round_seconds"))
                yield Input("30", id="next_round", type="number", compact=True)
            with Horizontal(classes="row"):
                yield Label(t("password_opt"))
                yield Input("", id="password", password=True, compact=True)
            yield Label(t("options"))
            yield Input(
                "", id="options", placeholder="zimo_bonus=2, patterns.pinghu=2", compact=True
            )
            yield Static("", classes="error", id="error")
            with Horizontal(id="buttons"):
                yield Button(t("btn_ok"), variant="primary", id="ok")
                yield Button(t("btn_cancel"), id="cancel")

    def _value(self, wid: str) -> str:
        return self.query_one(f"#{wid}", Input).value.strip()

    def build(self) -> CreateTable:
        """The form as a `create_table` message; raises ValueError with a message to show."""
        t = self.lang.t
        numbers: dict[str, float] = {}
        for wid, label in (
            ("rounds", "rounds"),
            ("base", "base"),
            ("turn", "turn_seconds"),
            ("bank", "bank_seconds"),
            ("next_round", "next_round_seconds"),
        ):
            try:
                numbers[wid] = float(self._value(wid))
            except ValueError:
                raise ValueError(t("bad_number", field=t(label, n="").strip())) from None
        preset = str(self.query_one("#preset", Select).value)
        delay = str(self.query_one("#bot_delay", Select).value)
        try:
            overrides = parse_overrides(self._value("options"))
            make_options(preset, overrides)
        except (ValueError, OptionsError) as err:
            raise ValueError(t("bad_option", why=str(err))) from None
        try:
            return CreateTable(
                name=self._value("name") or self.default_name,
                preset=preset,  # type: ignore[arg-type]
                options=overrides,
                rounds=int(numbers["rounds"]),
                base=int(numbers["base"]),
                turn_seconds=numbers["turn"],
                bank_seconds=numbers["bank"],
                next_round_seconds=numbers["next_round"],
                password=self._value("password") or None,
                bot_delay=None if delay == "default" else float(delay),
            )
        except ValidationError as err:
            e = err.errors()[0]
            raise ValueError(f"{'.'.join(str(x) for x in e['loc'])}: {e['msg']}") from None

    @on(Button.Pressed, "#ok")
    @on(Input.Submitted)
    def _ok(self) -> None:
        try:
            msg = self.build()
        except ValueError as err:
            self.query_one("#error", Static).update(plain(str(err)))  # it may quote the input
            return
        self.dismiss(msg)

    @on(Button.Pressed, "#cancel")
    def action_cancel(self) -> None:
        self.dismiss(None)


class SeatScreen(ModalScreen[tuple[int | None, str | None] | None]):
    """Choose a seat at `table` (or any free one), with its password if it has one. With
    `watch`, only the password is asked."""

    DEFAULT_CSS = dialog_css("SeatScreen")
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
