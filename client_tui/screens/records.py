"""The Records screen (战绩): the group's standings for a period and preset, your own record,
your net over your latest matches and your placement histogram (plots by textual-plotext, not
hand-drawn), and the latest matches with their date, players, final scores and rating changes.

Opened from the lobby (`s`) and at a table (`g`, after the match: the match's own line comes
first, with each player's rating change). It asks the server with `get_records` and shows each
`records` answer as it comes (`show_records`); `t` / `m` / `a` choose tonight, this month or all
time, `p` the preset, PgUp / PgDn the page, Esc closes it.
"""

from __future__ import annotations

import time
from typing import cast

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import DataTable, Static
from textual_plotext import PlotextPlot

from client_tui.intents import Request
from protocol.messages import GetRecords, MatchLine, Period, PlayerRecord, Preset, Records

PRESETS: tuple[Preset | None, ...] = (None, "guiyang", "chuan", "anshun")
PERIODS = ("tonight", "month", "all")

WORDS: dict[str, tuple[str, str]] = {
    "title": ("战绩", "Records"),
    "tonight": ("今晚", "tonight"),
    "month": ("本月", "this month"),
    "all": ("全部", "all time"),
    "every_preset": ("全部玩法", "every preset"),
    "guiyang": ("贵阳", "Guiyang"),
    "chuan": ("川麻", "Sichuan"),
    "anshun": ("安顺", "Anshun"),
    "page": ("第 {n}/{of} 页", "page {n}/{of}"),
    "asking": ("正在取战绩…", "asking the server…"),
    "nobody": ("这段时间没人打过", "nobody played in this period"),
    "col_player": ("玩家", "player"),
    "col_matches": ("场", "M"),
    "col_rounds": ("局", "R"),
    "col_places": ("一/二/三/四", "1st/2nd/3rd/4th"),
    "col_net": ("输赢", "net"),
    "col_win": ("胡牌率", "win"),
    "col_zimo": ("自摸率", "自摸"),
    "col_dealin": ("点炮率", "点炮"),
    "col_rating": ("等级分", "rating"),
    "col_when": ("时间", "when"),
    "col_table": ("桌", "table"),
    "col_scores": ("玩家与得分", "players and scores"),
    "bot": ("机器人", "bot"),
    "me": ("我的战绩", "Your record"),
    "me_none": ("还没有你的战绩(说 hello 时带上玩家密钥才会记录)",
                "no records of yours (they are kept when hello carries your player key)"),
    "me_line": (
        "{rounds} 局 · 胡 {wins} (自摸 {zimo}) · 点炮 {dealins} · 荒庄听牌 {ready}/{draws} · "
        "报听 {declared} 胡 {declared_won} · 冲锋鸡 {chongfeng} · 责任鸡 付 {zp} 收 {zr} · "
        "包鸡 {baoji} · 豆 {dou} · 最大一手 {biggest} · 最长连庄 {streak}",
        "{rounds} rounds · {wins} wins ({zimo} 自摸) · {dealins} 点炮 · ready at 荒庄 "
        "{ready}/{draws} · 报听 {declared}, won {declared_won} · 冲锋鸡 {chongfeng} · 责任鸡 "
        "paid {zp} got {zr} · 包鸡 {baoji} · 豆 {dou} · biggest hand {biggest} · longest "
        "dealer run {streak}",
    ),
    "voted_line": ("投票解散 {n} 场(只计局数和输赢，不排名次)",
                   "{n} ended by vote (rounds and nets count, no placement)"),
    "voted_mark": ("投票解散", "ended by vote"),
    "net_plot": ("最近每场输赢", "net per match, latest last"),
    "place_plot": ("名次分布", "placements"),
    "this_match": ("本场", "This match"),
    "keys": (
        "t 今晚 · m 本月 · a 全部 · p 玩法 · PgUp/PgDn 翻页 · Esc 关闭",
        "t tonight · m month · a all · p preset · PgUp/PgDn page · Esc close",
    ),
}  # fmt: skip


class RecordsScreen(ModalScreen[None]):
    """The group's records, as the server answers `get_records`."""

    BINDINGS = [
        Binding("escape,q", "close", "close"),
        Binding("t", "period('tonight')", "tonight"),
        Binding("m", "period('month')", "month"),
        Binding("a", "period('all')", "all"),
        Binding("p", "preset", "preset"),
        Binding("pagedown,right_square_bracket", "page(1)", "next page"),
        Binding("pageup,left_square_bracket", "page(-1)", "previous page"),
    ]

    CSS_PATH = "records.tcss"

    def __init__(self, lang_code: str, *, table: str | None = None) -> None:
        super().__init__()
        self.zh = lang_code == "zh"
        self.table = table
        self.period: Period = "all"
        self.preset: Preset | None = None
        self.page = 0
        self.pages = 1
        self.last: Records | None = None

    def w(self, key: str, **fields: object) -> str:
        text = WORDS[key][0 if self.zh else 1]
        return text.format(**fields) if fields else text

    def compose(self) -> ComposeResult:
        with Vertical(id="rec-box"):
            yield Static(id="rec-head")
            yield Static(id="rec-match")
            yield DataTable(id="rec-standings", cursor_type="row", zebra_stripes=True)
            yield Static(id="rec-me")
            with Horizontal(id="rec-plots"):
                yield PlotextPlot(id="rec-net")
                yield PlotextPlot(id="rec-places")
            yield DataTable(id="rec-matches", cursor_type="row", zebra_stripes=True)
            yield Static(self.w("keys"), id="rec-keys")

    def on_mount(self) -> None:
        standings = self.query_one("#rec-standings", DataTable)
        for key in ("col_player", "col_matches", "col_rounds", "col_places", "col_net",
                    "col_win", "col_zimo", "col_dealin", "col_rating"):  # fmt: skip
            standings.add_column(self.w(key), key=key)
        matches = self.query_one("#rec-matches", DataTable)
        for key in ("col_when", "col_table", "col_scores"):
            matches.add_column(self.w(key), key=key)
        self.ask()

    # ----- asking -----

    def ask(self) -> None:
        self._head(self.w("asking"))
        ask = GetRecords(period=self.period, preset=self.preset, page=self.page, table=self.table)
        self.post_message(Request(ask))

    def action_period(self, period: str) -> None:
        self.period, self.page = cast(Period, period), 0
        self.ask()

    def action_preset(self) -> None:
        self.preset = PRESETS[(PRESETS.index(self.preset) + 1) % len(PRESETS)]
        self.page = 0
        self.ask()

    def action_page(self, step: int) -> None:
        page = min(max(0, self.page + step), self.pages - 1)
        if page != self.page:
            self.page = page
            self.ask()

    def action_close(self) -> None:
        self.dismiss(None)

    # ----- showing -----

    def _head(self, status: str = "") -> None:
        preset = self.w(self.preset) if self.preset else self.w("every_preset")
        parts = [self.w("title"), self.w(self.period), preset]
        parts.append(self.w("page", n=self.page + 1, of=self.pages))
        if status:
            parts.append(status)
        self.query_one("#rec-head", Static).update(" · ".join(parts))

    def show_records(self, msg: Records) -> None:
        """A `records` answer: fill every part of the screen."""
        self.last = msg
        self.pages = msg.pages
        self._head("" if msg.standings or msg.matches else self.w("nobody"))
        self._standings(msg.standings)
        self._me(msg.me)
        self._plots(msg.recent_net, msg.recent_places)
        self._matches(msg.matches)
        match = self.query_one("#rec-match", Static)
        match.update(self._match_text(msg.match) if msg.match is not None else "")

    def _who(self, rec: PlayerRecord) -> str:
        return f"{rec.name} ({self.w('bot')})" if rec.bot else rec.name

    def _standings(self, rows: list[PlayerRecord]) -> None:
        table = self.query_one("#rec-standings", DataTable)
        table.clear()
        for r in rows:
            table.add_row(
                self._who(r),
                str(r.matches),
                str(r.rounds),
                "/".join(map(str, r.placements)),
                _signed(r.net),
                _pct(r.win_rate),
                _pct(r.zimo_rate),
                _pct(r.dealin_rate),
                "-" if r.rating is None else f"{r.rating:.0f} ({r.rating_change or 0:+.1f})",
            )

    def _me(self, me: PlayerRecord | None) -> None:
        box = self.query_one("#rec-me", Static)
        if me is None or me.rounds == 0:
            box.update(Text(self.w("me_none"), style="dim"))
            return
        line = self.w(
            "me_line",
            rounds=me.rounds,
            wins=me.wins,
            zimo=me.zimo,
            dealins=me.dealins,
            ready=me.ready_at_draw,
            draws=me.draws,
            declared=me.declared,
            declared_won=me.declared_won,
            chongfeng=me.chongfeng,
            zp=me.zeren_paid,
            zr=me.zeren_received,
            baoji=me.baoji_paid,
            dou=me.dou,
            biggest=me.biggest,
            streak=me.streak,
        )
        if me.voted:
            line += " · " + self.w("voted_line", n=me.voted)
        head = Text(f"{self.w('me')}: {self._who(me)}  ", style="bold")
        head.append(_signed(me.net))
        box.update(Text.assemble(head, "\n", line))

    def _plots(self, nets: list[int], places: list[int]) -> None:
        net = self.query_one("#rec-net", PlotextPlot)
        plt = net.plt
        plt.clear_data()
        plt.clear_figure()
        plt.title(self.w("net_plot"))
        if nets:
            plt.bar(list(range(1, len(nets) + 1)), nets)
        net.refresh()
        hist = self.query_one("#rec-places", PlotextPlot)
        plt = hist.plt
        plt.clear_data()
        plt.clear_figure()
        plt.title(self.w("place_plot"))
        counts = [sum(1 for p in places if p == k) for k in (1, 2, 3, 4)]
        plt.bar(["1", "2", "3", "4"], counts)
        hist.refresh()

    def _matches(self, lines: list[MatchLine]) -> None:
        table = self.query_one("#rec-matches", DataTable)
        table.clear()
        for m in lines:
            table.add_row(
                time.strftime("%m-%d %H:%M", time.localtime(m.ended_at)),
                f"{m.table} {m.name}",
                self._match_text(m),
            )

    def _match_text(self, m: MatchLine) -> Text:
        out = Text()
        for seat in range(4):
            if seat:
                out.append("  ")
            out.append(m.names[seat] or "?", style="bold")
            out.append(" ")
            out.append(_signed(m.scores[seat]))
            change = m.rating_changes[seat]
            if change is not None:
                out.append(f" ({change:+.1f})", style="dim")
        if m.state == "voted":
            out.append("  " + self.w("voted_mark"), style="yellow")
        return out


def _signed(n: int) -> Text:
    return Text(f"{n:+d}", style="green" if n > 0 else "red" if n < 0 else "")


def _pct(x: float | None) -> str:
    return "-" if x is None else f"{100 * x:.0f}%"
