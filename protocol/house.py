"""House presets: a table's rules saved under a name, as a TOML file (docs/RULES.md, "House
presets").

A house file names a preset and what differs from it, and may carry table settings:

    # zhuoji house rules
    preset = "guiyang"

    [options]
    wuguji = false
    benji = true
    hand_cap = 20

    [options.patterns]
    dilong = 10

    [table]
    rounds = 8
    turn_seconds = 15.0

TOML has no null: `"off"` stands for `None` (no 封顶, a pattern the table does not have). Files
are read with the standard `tomllib` and written with `tomli_w`. A broken file (bad TOML, an
unknown key, a bad value) raises `HouseError`, whose lines each name the file, the line and the
key; nobody sees a traceback. Both the server (`zhuoji serve --house`) and the terminal client
(the create-table form, `zhuoji play --house`) read them through here.

>>> h = parse_house('preset = "chuan"\\n[options]\\nbenji = true\\nhand_cap = 20\\n')
>>> h.preset, h.overrides
('chuan', {'benji': True, 'hand_cap': 20})
>>> try:
...     parse_house('[options]\\nhand_cap = 0\\n', "x.toml")
... except HouseError as err:
...     print(err)
x.toml line 2: option 'hand_cap': Input should be greater than or equal to 1 (got 0)
"""

from __future__ import annotations

import difflib
import os
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import tomli_w
from pydantic import ValidationError

from protocol.messages import CreateTable
from protocol.option_fields import option_fields
from rules.options import (
    PRESETS,
    OptionsError,
    RuleOptions,
    inert_options,
    make_options,
    overrides_of,
)

CONFIG_ENV = "ZHUOJI_CONFIG_DIR"
OFF = "off"  # TOML has no null: "off" is None (no cap, no such pattern)
TOP_KEYS = ("preset", "options", "table")
# The table settings a house may carry: the `create_table` fields that are not the table's
# identity (its name, password) or rules (preset, options).
TABLE_KEYS = tuple(
    n
    for n in CreateTable.model_fields
    if n not in ("type", "name", "preset", "options", "password")
)
NAME_RE = re.compile(r"^[^\x00-\x1f/\\:*?\"<>|]{1,40}$")


class HouseError(ValueError):
    """A house file that cannot be used; `problems` is one line per fault (file, line, key)."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("; ".join(problems))
        self.problems = problems


@dataclass(frozen=True)
class House:
    """A house preset: the preset, the overrides of it (only the differences) and table
    settings (`create_table` fields: rounds, base, clock). `notes`: one line per option the
    file sets that changes nothing under its preset's chickens (`rules.options.inert_options`,
    e.g. 乌骨鸡 in chuan), for the reader to show; the house loads all the same."""

    preset: str
    overrides: dict[str, Any] = field(default_factory=dict)
    table: dict[str, Any] = field(default_factory=dict)
    notes: tuple[str, ...] = field(default=(), compare=False)

    @property
    def options(self) -> RuleOptions:
        return make_options(self.preset, self.overrides)


def config_dir() -> Path:
    """The user's config directory for zhuoji: `$ZHUOJI_CONFIG_DIR`, else platformdirs'
    `user_config_dir("zhuoji")` (`~/.config/zhuoji` on Linux, `$XDG_CONFIG_HOME` honoured)."""
    override = os.environ.get(CONFIG_ENV)
    if override:
        return Path(override)
    from platformdirs import user_config_path

    return user_config_path("zhuoji", appauthor=False)


def houses_dir() -> Path:
    """Where house presets are saved: `<config dir>/houses`."""
    return config_dir() / "houses"


def house_names(folder: Path | None = None) -> list[str]:
    """The saved house presets' names (without `.toml`), sorted."""
    folder = folder or houses_dir()
    try:
        return sorted(p.stem for p in folder.glob("*.toml") if p.is_file())
    except OSError:
        return []


def house_path(name: str, folder: Path | None = None) -> Path:
    """The file of the house preset called `name` (`.toml` added if missing). Refuses a name
    that is not a plain file name."""
    stem = name[:-5] if name.endswith(".toml") else name
    if not NAME_RE.match(stem) or stem.strip() != stem or stem in (".", ".."):
        raise HouseError([f"{name!r} is not a usable house name (1-40 characters, no / \\ : * ?)"])
    return (folder or houses_dir()) / f"{stem}.toml"


def resolve(arg: str) -> Path:
    """`--house ARG`: a path to a file if it names one (or has a directory part), else the
    saved house preset of that name."""
    path = Path(arg).expanduser()
    if path.exists() or len(path.parts) > 1:
        return path
    return house_path(arg)


# ----- reading -----


_SECTION = re.compile(r"^\s*\[\s*([^\[\]]+?)\s*\]\s*(#.*)?$")
_KEY = re.compile(
    r"^\s*((?:[A-Za-z0-9_-]+|\"[^\"]*\")(?:\s*\.\s*(?:[A-Za-z0-9_-]+|\"[^\"]*\"))*)\s*="
)


def _parts(dotted: str) -> tuple[str, ...]:
    return tuple(p.strip().strip('"') for p in dotted.split("."))


def line_of(text: str, path: tuple[str, ...]) -> int | None:
    """The line (from 1) where the key `path` (("options", "benji")) is set, if found."""
    section: tuple[str, ...] = ()
    for n, line in enumerate(text.splitlines(), 1):
        m = _SECTION.match(line)
        if m:
            section = _parts(m.group(1))
            if section == path:
                return n
            continue
        m = _KEY.match(line)
        if m and (*section, *_parts(m.group(1))) == path:
            return n
    return None


def _where(source: str, text: str, path: tuple[str, ...]) -> str:
    n = line_of(text, path)
    return f"{source} line {n}" if n is not None else source


def _syntax(source: str, text: str, err: tomllib.TOMLDecodeError) -> str:
    """A TOML syntax error, with the line and (where the line sets one) the key."""
    m = re.search(r"\(at line (\d+), column \d+\)", str(err))
    if m is None:
        return f"{source}: not valid TOML: {err}"
    n = int(m.group(1))
    lines = text.splitlines()
    key = _KEY.match(lines[n - 1]) if 0 < n <= len(lines) else None
    what = f" (key {'.'.join(_parts(key.group(1)))!r})" if key else ""
    return f"{source} line {n}{what}: not valid TOML: {err}"


def _unnull(value: Any) -> Any:
    return None if value == OFF else value


def parse_house(text: str, source: str = "house file") -> House:
    """A house preset from TOML text; `source` names it in errors (the file's name)."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        raise HouseError([_syntax(source, text, err)]) from None
    problems: list[str] = []

    def bad(path: tuple[str, ...], why: str) -> None:
        problems.append(f"{_where(source, text, path)}: {why}")

    for key in data:
        if key not in TOP_KEYS:
            bad((key,), f"unknown key {key!r} (a house file has {', '.join(TOP_KEYS)})")
    preset = data.get("preset", "guiyang")
    if preset not in PRESETS:
        bad(("preset",), f"preset {preset!r}: choose one of {', '.join(PRESETS)}")
        raise HouseError(problems)
    overrides = _options(data.get("options", {}), preset, bad)
    table = _table(data.get("table", {}), bad)
    if problems:
        raise HouseError(problems)
    try:
        options = make_options(preset, overrides)
    except OptionsError as err:  # each option was fine alone: say which combination is not
        raise HouseError([f"{source}: {err}"]) from None
    raw = data.get("options", {})
    notes = tuple(
        f"{_where(source, text, ('options', name))}: note: option {name!r} changes nothing"
        f" here ({why})"
        for name, why in inert_options(options).items()
        if name in raw
    )
    return House(preset, overrides_of(options, preset), table, notes)


def _options(raw: Any, preset: str, bad: Any) -> dict[str, Any]:
    """The `[options]` table checked option by option against the preset."""
    if not isinstance(raw, Mapping):
        bad(("options",), "'options' must be a table of option names to values")
        return {}
    fields = option_fields()
    out: dict[str, Any] = {}
    flat: list[tuple[str, Any]] = []
    for name, value in raw.items():
        if name == "patterns" and isinstance(value, Mapping):
            flat += [(f"patterns.{k}", v) for k, v in value.items()]
        else:
            flat.append((name, value))
    for key, value in flat:
        path = ("options", *key.split("."))
        if key not in fields and key != "dealer_bonus":
            close = difflib.get_close_matches(key, list(fields), n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            bad(path, f"unknown option {key!r}{hint}")
            continue
        one = (
            fields[key].override(_unnull(value))
            if key in fields
            else {key: value}  # the legacy name make_options still reads
        )
        try:
            make_options(preset, one)
        except OptionsError as err:
            bad(path, str(err))
            continue
        for head, v in one.items():
            if isinstance(v, dict):
                out.setdefault(head, {}).update(v)
            else:
                out[head] = v
    return out


def _table(raw: Any, bad: Any) -> dict[str, Any]:
    """The `[table]` settings checked against the `create_table` message's bounds."""
    if not isinstance(raw, Mapping):
        bad(("table",), "'table' must be a table of settings")
        return {}
    out: dict[str, Any] = {}
    for key, value in raw.items():
        if key not in TABLE_KEYS:
            bad(("table", key), f"unknown table setting {key!r} (one of {', '.join(TABLE_KEYS)})")
            continue
        if isinstance(value, int) and not isinstance(value, bool):
            kind = CreateTable.model_fields[key].annotation
            value = float(value) if kind is float else value
        try:
            CreateTable(name="house", **{key: value})
        except ValidationError as err:
            msg = err.errors()[0]["msg"]
            bad(("table", key), f"table setting {key!r}: {msg} (got {value!r})")
            continue
        out[key] = value
    return out


def load_house(path: Path) -> House:
    """Read and check the house file at `path`."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        saved = house_names()
        have = f" (saved: {', '.join(saved)})" if saved else ""
        raise HouseError([f"{path}: no such house file{have}"]) from None
    except (OSError, UnicodeDecodeError) as err:
        raise HouseError([f"{path}: cannot read it: {err}"]) from None
    return parse_house(text, str(path))


# ----- writing -----


def _nulled(value: Any) -> Any:
    if value is None:
        return OFF
    if isinstance(value, dict):
        return {k: _nulled(v) for k, v in value.items()}
    return value


def dump_house(house: House) -> str:
    """The house preset as TOML text (only the overrides of its preset)."""
    data: dict[str, Any] = {"preset": house.preset}
    if house.overrides:
        flat = {k: v for k, v in house.overrides.items() if not isinstance(v, dict)}
        nested = {k: v for k, v in house.overrides.items() if isinstance(v, dict)}
        data["options"] = _nulled({**flat, **nested})  # sub-tables last, as TOML wants
    if house.table:
        data["table"] = dict(house.table)
    head = "# zhuoji house rules: the preset and what differs from it (docs/RULES.md §13)\n"
    return head + tomli_w.dumps(data)


def save_house(name: str, house: House, folder: Path | None = None) -> Path:
    """Write `house` as the house preset `name` (replacing one of that name); its path."""
    path = house_path(name, folder)
    text = dump_house(house)
    parse_house(text, str(path))  # what is written must read back
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_text(text, encoding="utf-8")
        tmp.replace(path)
    except OSError as err:
        raise HouseError([f"cannot save {path}: {err.strerror or err}"]) from None
    return path
