"""docs/RULES.md lists every table option with its default in each preset: the table is checked
against the rules core's presets, so it cannot drift from them."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from protocol.option_fields import option_fields
from rules.options import PRESETS

ROOT = Path(__file__).resolve().parents[2]
ROW = re.compile(r"^\| ((?:`[a-z_.*]+`(?:, )?)+) \|([^|]*)\|([^|]*)\|([^|]*)\|", re.M)


def shown(value: Any) -> str:
    if value is None:
        return "—"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return f"`{value}`"
    return str(value)


def test_rules_md_gives_every_options_default_in_each_preset() -> None:
    text = (ROOT / "docs" / "RULES.md").read_text(encoding="utf-8")
    section = text[text.index("### House options") : text.index("### House presets")]
    fields = option_fields()
    listed: set[str] = set()
    for names, *cells in ROW.findall(section):
        keys = re.findall(r"`([a-z_.*]+)`", names)
        if keys == ["patterns.*"]:
            listed |= {k for k in fields if k.startswith("patterns.")}
            continue
        for col, preset in zip(cells, PRESETS.values(), strict=True):
            values = [shown(fields[k].value_in(preset)) for k in keys]
            # one value stands for all the row's options when they share it
            ok = {", ".join(values)} | ({values[0]} if len(set(values)) == 1 else set())
            assert col.strip() in ok, (keys, col, values)
        listed |= set(keys)
    assert listed == set(fields), sorted(set(fields) - listed)
