"""The create-table form's options, without Textual: which option goes in which section, the
form's values for a preset, the overrides a set of values makes, and the one-line summary of
overrides the table header and the lobby show.

The fields themselves (kind, choices, bounds, defaults) come from the rules core through
`protocol.option_fields`; this module only groups them as the apps do. An option no section
names lands in "more" by itself, so a new rule is offered the day it is added.

>>> from client_tui.i18n import Lang
>>> summary("guiyang", {"wuguji": False, "benji": True, "hand_cap": 20}, Lang("zh"))
'乌骨鸡 关 · 本鸡 开 · 封顶 20'
>>> overrides_from("guiyang", {**values_of(PRESETS["guiyang"]), "benji": True})
{'benji': True}
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from protocol.option_fields import OptionField, option_fields
from rules.options import (
    PRESETS,
    OptionsError,
    RuleOptions,
    inert_options,
    make_options,
    normalize_overrides,
    overrides_of,
)

if TYPE_CHECKING:
    from client_tui.i18n import Lang

# section → the options in it, in the order the form shows them (RULES.md §13 and the apps)
SECTIONS: dict[str, tuple[str, ...]] = {
    "chicken": (
        "wuguji",
        "wuguji_value",
        "chongfeng_value",
        "chongfeng_scope",
        "zeren_extra",
        "flip_chickens",
        "benji",
        "xingqiji",
        "chuifengji",
        "discards_are_chickens",
        "chickens_need_ready",
        "draw_chickens",
    ),
    "dou": ("hanbao_dou", "baodou", "dou_need_ready", "dou_dian", "dou_men", "dou_zhuanwan"),
    "score": (
        *(k for k in option_fields() if k.startswith("patterns.")),
        "zimo_bonus",
        "zimo_double",
        "dealer_scoring",
        "first_dealer",
        "hand_cap",
        "gangkai_bonus",
    ),
    "declare": ("declare", "baoting_bonus", "tianting_value", "shabao_value"),
    "pass": ("pass_win",),
    "hints": ("hints",),
}


def sections() -> list[tuple[str, list[OptionField]]]:
    """The form's sections with their fields; every option not named above is in `more`."""
    fields = option_fields()
    named = {k for keys in SECTIONS.values() for k in keys}
    out = [(name, [fields[k] for k in keys if k in fields]) for name, keys in SECTIONS.items()]
    more = [f for k, f in fields.items() if k not in named]
    if more:
        out.append(("more", more))
    return out


def values_of(options: RuleOptions) -> dict[str, Any]:
    """Every form field's value under `options`, by dotted key."""
    return {k: f.value_in(options) for k, f in option_fields().items()}


def nest(values: dict[str, Any]) -> dict[str, Any]:
    """Dotted keys as an options dict: `{"patterns.dilong": 10}` → `{"patterns": {"dilong": 10}}`."""
    out: dict[str, Any] = {}
    for key, value in values.items():
        head, _, sub = key.partition(".")
        if sub:
            out.setdefault(head, {})[sub] = value
        else:
            out[key] = value
    return out


def overrides_from(
    preset: str, values: dict[str, Any], extra: dict[str, Any] | None = None
) -> dict[str, Any]:
    """The overrides of `preset` that the form's `values` (and the advanced text's `extra`, on
    top) make: only the differences. Raises `OptionsError` naming a bad value."""
    data = nest(values)
    for name, value in normalize_overrides(extra or {}).items():
        if name == "patterns" and isinstance(value, dict):
            data["patterns"] = {**data.get("patterns", {}), **value}
        else:
            data[name] = value
    return overrides_of(make_options(preset, data), preset)


def word(field: OptionField | None, key: str, value: Any, lang: Lang) -> str:
    """An option's value in words: 开/关, a choice's name, a number, 不限."""
    if value is None:
        return lang.t("value_none") if key == "hand_cap" else lang.t("value_off")
    if isinstance(value, bool):
        return lang.t("value_on" if value else "value_off")
    if field is not None and field.kind == "radio":
        return lang.choice(key, value)
    return str(value)


def summary(preset: str, overrides: dict[str, Any], lang: Lang) -> str:
    """The overrides in words, in the rules' order: `乌骨鸡 关 · 本鸡 开 · 封顶 20` ('' for none).
    An option this client does not know is shown as `name=value`; one that changes nothing
    under the table's chickens (`rules.options.inert_options`: 乌骨鸡 in chuan) is left out.

    >>> from client_tui.i18n import Lang
    >>> summary("chuan", {"wuguji": True, "benji": True}, Lang("zh"))
    '本鸡 开'
    """
    fields = option_fields()
    try:
        inert = inert_options(make_options(preset, overrides))
    except OptionsError:  # words for what the server sent, even if this client cannot read it
        inert = {}
    flat: dict[str, Any] = {}
    for name, value in overrides.items():
        if isinstance(value, dict):
            flat.update({f"{name}.{k}": v for k, v in value.items()})
        else:
            flat[name] = value
    for name in inert:
        flat.pop(name, None)
    parts = []
    for key in [k for k in fields if k in flat] + [k for k in flat if k not in fields]:
        field = fields.get(key)
        if field is None:
            parts.append(f"{key}={flat[key]}")
        else:
            parts.append(f"{lang.option(key)} {word(field, key, flat[key], lang)}")
    return " · ".join(parts)


def preset_values(preset: str) -> dict[str, Any]:
    """The form's values for a preset (`PRESETS[preset]`)."""
    return values_of(PRESETS[preset])
