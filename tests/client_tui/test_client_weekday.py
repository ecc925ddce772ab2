"""星期鸡 in the client: the day of the deal comes with `round_started`, the header names the
day's chicken tiles, and the settlement sheet lists them among what the flip makes — read from
the seat view (`rules.chickens`), not worked out by the client."""

from __future__ import annotations

from typing import Any

from client_tui.i18n import Lang
from client_tui.reducer import reduce
from client_tui.render import header_text
from client_tui.sheet import build_sheet, flip_chickens_under, settlement_of
from client_tui.view import View
from rules.kinds import ChickenKind
from rules.options import make_options
from rules.players.bot import Bot
from rules.round import Phase, Round
from tests.client_tui.test_client_reducer import TABLE, info, parse, project

XQ = {"xingqiji": True}


def table_view(options: dict[str, Any]) -> View:
    v = reduce(View(), parse({"type": "welcome", "version": 1, "server": "t", "name": "me"}))
    joined = {"type": "joined", "table": TABLE, "seq": 1, "seat": 0, "token": "x" * 20}
    v = reduce(v, parse({**joined, "resume": "snapshot"}))
    snapshot = {"type": "snapshot", "table": TABLE, "seq": 1, "seat": 0, "round": None}
    return reduce(v, parse({**snapshot, "info": {**info("playing"), "options": options}}))


def played(options: dict[str, Any], weekday: int | None, seed: int) -> tuple[Round, list[View]]:
    """A bot round dealt on `weekday`, seat 0's view after every frame."""
    r = Round.deal(make_options("guiyang", options), seed=seed, dealer=0, weekday=weekday)
    bots = [Bot(f"{seed}:{s}") for s in range(4)]
    while r.phase is not Phase.OVER:
        seat = r.awaiting()[0]
        r.apply(bots[seat].choose(r, seat))
    views = [table_view(options)]
    for seq, event in enumerate(r.events, start=2):
        views.append(
            reduce(views[-1], parse(project({**event.to_dict(), "table": TABLE, "seq": seq}, 0)))
        )
    return r, views


def test_the_header_names_the_days_chickens_only_under_the_option() -> None:
    _, views = played(XQ, 3, seed=1)
    dealt = views[1]
    assert dealt.round is not None and dealt.round.weekday == 3
    zh = header_text(dealt, Lang("zh"), ascii=False).plain
    en = header_text(dealt, Lang("en"), ascii=True).plain
    assert "星期鸡 三万三筒三条" in zh
    assert "weekday chickens 3m 3p 3s" in en
    _, plain = played({}, 3, seed=1)  # the day is known, the option is off
    assert "星期鸡" not in header_text(plain[1], Lang("zh"), ascii=False).plain
    _, unknown = played(XQ, None, seed=1)  # the option is on (the overrides say so), no day
    line = header_text(unknown[1], Lang("zh"), ascii=False).plain
    assert "(星期鸡 开)" in line and " · 星期鸡 " not in line


def flipped(weekday: int | None) -> tuple[Round, list[View]]:
    """The first bot round with a flip (a winner, the wall not empty) whose flip makes no 5."""
    for seed in range(60):
        r, views = played(XQ, weekday, seed)
        if r.flip is not None and (r.flip + 1) % 9 != 4:
            return r, views
    raise AssertionError("no round of 60 had such a flip")


def test_the_sheet_lists_the_days_chickens_with_what_the_flip_makes() -> None:
    _, views = flipped(5)
    res = views[-1].result
    assert res is not None and res.weekday == 5  # the day round_started said
    sheet = build_sheet(res, make_options("guiyang", XQ))
    days = {tile for tile, what in sheet.flip_makes if what is ChickenKind.XINGQI}
    assert days == {"5m", "5p", "5s"}


def test_the_sheet_reads_the_day_not_only_the_tallies() -> None:
    """A round whose tallies hold no 星期鸡 (dealt without a day): the sheet names the day's
    chickens only when it is told the day."""
    _, views = flipped(None)
    res = views[-1].result
    assert res is not None and res.weekday is None
    result = settlement_of(res)
    assert not any(ln.kind is ChickenKind.XINGQI for c in result.chickens for ln in c.lines)
    told = flip_chickens_under(make_options("guiyang", XQ), result, 2)
    by_flip = {t for t, what in told if what is not ChickenKind.XINGQI}
    assert {t for t, what in told if what is ChickenKind.XINGQI} == {"2m", "2p", "2s"} - by_flip
    untold = flip_chickens_under(make_options("guiyang", XQ), result, None)
    assert not [t for t, what in untold if what is ChickenKind.XINGQI]
