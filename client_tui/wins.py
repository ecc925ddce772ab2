"""A win in words, the same on the table's status line, the round list and the standings: who won
and how (`阿明 胡 ← Bea 点炮`: "X 点炮" reads "X fed the win", so only the feeder gets it), and the
bonuses after the pattern without the one the how already says (no `自摸 平胡 + 自摸`)."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from client_tui.i18n import Lang


def win_head(
    how: str, seat: int, from_seat: int | None, name: Callable[[int], str], lang: Lang
) -> str:
    """Who won and how, in words a Guizhou player reads right: `阿明 自摸`, `阿明 胡 ← Bea 点炮`
    (Bea fed the win), `阿明 抢杠胡 ← Bea`; en `阿明 wins on Bea's discard`."""
    feeder = name(from_seat) if from_seat is not None else "?"
    key = f"how_{how}" if how in ("zimo", "discard", "rob") else "how_discard"
    return lang.t(key, name=name(seat), from_name=feeder)


SAID_BY_HOW = {"zimo": "zimo", "rob": "qianggang"}
"""The bonus a win's `how` already says (自摸, 抢杠): never written twice."""


def extra_bonuses(how: str, bonuses: Iterable[str]) -> list[str]:
    """The bonuses worth naming after the pattern: all but the one `how` says (identifiers or
    Chinese names, as the wire gives them).

    >>> extra_bonuses("zimo", ["zimo", "gangkai"]), extra_bonuses("zimo", ["自摸", "报听"])
    (['gangkai'], ['报听'])
    """
    said = SAID_BY_HOW.get(how)
    zh = {"zimo": "自摸", "qianggang": "抢杠"}.get(said or "")
    return [str(b) for b in bonuses if b not in (said, zh)]
