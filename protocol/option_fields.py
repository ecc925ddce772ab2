"""The table options as form fields, read off `rules.options.RuleOptions` itself.

Every `RuleOptions` field (and every pattern of `PatternValues`, as `patterns.<name>`) becomes an
`OptionField`: a `switch` (bool), a `radio` (a `Literal` of choices) or a `number` (an int, with
its bounds; `nullable` when `None` means "off", as for `hand_cap` and the optional patterns).
Nothing here is copied from the rules: a field added to `RuleOptions` appears here by itself, so
the create-table form and the house-preset files cannot drift from the rules core.

>>> from rules.options import make_options
>>> f = option_fields()["hand_cap"]
>>> f.kind, f.nullable, f.low, f.high
('number', True, 1, 1000000)
>>> option_fields()["flip_chickens"].choices
('next', 'both', 'none')
>>> option_fields()["patterns.dilong"].value_in(make_options("guiyang")) is None
True
"""

from __future__ import annotations

import types
import typing
from dataclasses import dataclass
from functools import cache
from typing import Any, Literal

from pydantic import BaseModel
from pydantic.fields import FieldInfo

from rules.options import PatternValues, RuleOptions

FieldKind = Literal["switch", "radio", "number"]


@dataclass(frozen=True, slots=True)
class OptionField:
    """One option as a form shows it: `path` is ("benji",) or ("patterns", "dilong")."""

    path: tuple[str, ...]
    kind: FieldKind
    choices: tuple[Any, ...] = ()
    nullable: bool = False
    low: int | None = None
    high: int | None = None

    @property
    def key(self) -> str:
        """The dotted name: `benji`, `patterns.dilong` (as `parse_overrides` and TOML write it)."""
        return ".".join(self.path)

    def value_in(self, options: RuleOptions) -> Any:
        """This field's value in `options`."""
        value: Any = options
        for part in self.path:
            value = getattr(value, part)
        return value

    def override(self, value: Any) -> dict[str, Any]:
        """`value` as an options dict for `make_options`: `{"patterns": {"dilong": 10}}`."""
        out: dict[str, Any] = {self.path[-1]: value}
        for part in reversed(self.path[:-1]):
            out = {part: out}
        return out


def _bounds(info: FieldInfo) -> tuple[int | None, int | None]:
    low = high = None
    for m in info.metadata:
        if getattr(m, "ge", None) is not None:
            low = int(m.ge)
        if getattr(m, "le", None) is not None:
            high = int(m.le)
    return low, high


def _field(path: tuple[str, ...], info: FieldInfo) -> OptionField | None:
    ann = info.annotation
    nullable = False
    if isinstance(ann, types.UnionType) or typing.get_origin(ann) is typing.Union:
        args = [a for a in typing.get_args(ann) if a is not type(None)]
        nullable = len(args) < len(typing.get_args(ann))
        if len(args) != 1:
            return None
        ann = args[0]
    if ann is bool:
        return OptionField(path, "switch", (True, False), nullable)
    if typing.get_origin(ann) is Literal:
        return OptionField(path, "radio", typing.get_args(ann), nullable)
    if ann is int:
        low, high = _bounds(info)
        return OptionField(path, "number", (), nullable, low, high)
    return None


def _fields_of(model: type[BaseModel], prefix: tuple[str, ...]) -> dict[str, OptionField]:
    out: dict[str, OptionField] = {}
    for name, info in model.model_fields.items():
        path = (*prefix, name)
        if info.annotation is PatternValues:
            out.update(_fields_of(PatternValues, path))
            continue
        f = _field(path, info)
        if f is None:  # a type the form has no widget for: only the advanced text sets it
            continue
        out[f.key] = f
    return out


@cache
def option_fields() -> dict[str, OptionField]:
    """Every option by dotted name, in the order `RuleOptions` declares them."""
    return _fields_of(RuleOptions, ())
