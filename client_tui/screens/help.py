"""Help: the keys, and a summary of the rules (RULES.md §1–§8) in the interface language.

>>> wrap("平胡 10，大对子。", 8)
['平胡', '10，大对', '子。']
>>> wrap("一张幺鸡，打出", 8)
['一张幺', '鸡，打出']
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from rich.cells import cell_len
from rich.console import Console, ConsoleOptions, Group, RenderableType
from rich.measure import Measurement
from rich.table import Table
from rich.text import Text

from client_tui.i18n import Lang

# A line may not start with these (CJK line breaking: closing punctuation stays with its text).
NO_LINE_START = frozenset("，。、；：！？）》」』】,.;:!?)")
# Units that are never split: a run of non-space non-CJK characters (a word, a number), or one
# CJK character; spaces are where a line may break without a character of its own.
_UNIT = re.compile(r"\s+|[\u0021-\u007e\u00a0-\u02ff\u2010-\u2027]+|.")


def wrap(text: str, width: int) -> list[str]:
    """Chinese text in lines of at most `width` cells: broken between any two characters, words
    and numbers whole, and never before closing punctuation (the unit before it comes down too)."""
    lines: list[list[str]] = [[]]
    for unit in _UNIT.findall(text):
        line = lines[-1]
        if unit.isspace():
            if line:
                line.append(" ")
            continue
        if not line or cell_len("".join(line) + unit) <= width:
            line.append(unit)
            continue
        while line and line[-1] == " ":
            line.pop()
        if unit[0] in NO_LINE_START and len(line) > 1:
            carry = line.pop()
            while line and line[-1] == " ":
                line.pop()
            lines.append([carry, unit])
        else:
            lines.append([unit])
    return ["".join(line).rstrip() for line in lines if line]


class Paragraph:
    """Chinese text that a table wraps with `wrap` (rich would start lines with a comma)."""

    def __init__(self, text: str) -> None:
        self.text = text

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        longest = max((cell_len(u) for u in _UNIT.findall(self.text)), default=1)
        return Measurement(min(longest, options.max_width), cell_len(self.text))

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> Iterator[Text]:
        for line in wrap(self.text, options.max_width):
            yield Text(line)


KEYS: list[tuple[str, str, str]] = [
    ("← →  Enter", "选牌、出牌", "pick a tile, discard it"),
    ("1-9 0 - = [ ]", "直接打出该位置的牌", "discard the tile under that key"),
    ("mouse 鼠标", "点牌选中，再点打出", "click a tile to pick it, again to discard"),
    ("h", "胡 / 自摸", "胡: win on the discard, or 自摸"),
    ("p", "碰", "碰 pong the discard"),
    ("k", "杠（明杠、暗杠、补杠）", "杠 kong (claimed, concealed or added)"),
    ("space", "过", "过 pass"),
    (
        "b",
        "报听：只能在自己的第一张出牌时宣布（之后不能再报）",
        "报听: declare ready with your first discard only (not later)",
    ),
    ("*", "名字后的 * 是你自己", "a * after a name marks you"),
    ("i", "提示：强机器人的三个最佳打法", "hints: the strong bot's three best moves"),
    ("a", "托管开关（等待中：加机器人）", "托管 auto-play on/off (before the start: add a bot)"),
    ("v", "等待中：换下一个机器人的水平", "before the start: the next bot's level"),
    ("t", "中文 / ASCII 牌面", "CJK / ASCII tiles"),
    (
        "↗ •  (^ *)",
        "弃牌：↗ 被碰、杠或胡拿走（灰、划线）；• 报听打出的牌（下划线）；反色：最新一张",
        "discards: ↗ taken by a 碰, 杠 or 胡 (greyed, struck through); • the 报听 discard"
        " (underlined); reversed: the newest",
    ),
    ("碰←对家", "←后面：这副碰/杠是谁打出的牌", "after ←: whose discard a 碰 or 杠 was"),
    ("s  m", "本局结算 / 比赛成绩", "last round's settlement / match standings"),
    (
        "Enter",
        "结算表上：看完了，准备下一局（大家都准备好或时间到就开局）",
        "on the settlement: done reading, ready for the next round (it starts when all are)",
    ),
    ("n", "比赛结束后：原班人马再来一场", "after the match: play again with the same seats"),
    (
        "e",
        "提议解散：在线的玩家都在30秒内同意，就按现在的分数结束比赛（每人5分钟一次）",
        "propose to end the match now with the scores so far: every connected player must"
        " agree within 30 s (once per 5 minutes each)",
    ),
    (
        "y  n",
        "解散投票中：同意 / 拒绝（一人拒绝即继续）",
        "during a vote to end: agree / refuse (one refusal plays on)",
    ),
    (
        "o",
        "开桌的人：把离座玩家的座位让给一位观战者（换了电脑回来的玩家先观战）",
        "the table's creator: hand an away seat to a spectator (a player back on a new"
        " machine watches first)",
    ),
    (
        "l",
        "离开牌桌（比赛中先确认：座位由机器人托管代打，可以回来；zhuoji play 中：结束这场比赛）",
        "leave the table (mid-match it asks first: the bot plays your seat until you return;"
        " in zhuoji play: end the match)",
    ),
    ("c j w r", "大厅：开桌、入座、观战、刷新", "lobby: create a table, sit, watch, refresh"),
    ("?  F1", "帮助", "this help"),
    ("q", "退出（比赛中先确认）", "quit (mid-match it asks first)"),
]

# The rules in short, one paragraph per topic; the terminal wraps them.
RULES_ZH: list[tuple[str, str]] = [
    ("牌", "万、筒、条各1–9，每种四张，共108张；没有字牌和花牌。幺鸡是一条，乌骨鸡是八筒。"),
    (
        "一局",
        "庄家14张先出，闲家13张。轮到你时可以自摸、暗杠、补杠或出一张。别人出牌后可以胡、杠、碰"
        "（没有吃）。同时多人胡都算（一炮多响）；碰后出牌，杠后从牌尾补一张。过水：放过可胡的牌，"
        "到自己下次摸牌前不能胡别人的牌。",
    ),
    (
        "牌型",
        "平胡 1 · 大对子 5 · 七对 7 · 龙七对 10 · 清一色 10 · 单钓 10 · 清大对 15 · 清七对 17 · "
        "清单钓 20 · 青龙背 20（贵阳）。只算最大的一种。",
    ),
    (
        "通行证",
        "平胡要有一个豆（任何杠）才能胡别人打的牌，否则只能自摸；大于平胡的牌型随时可胡。"
        "抢杠、热炮不需要。",
    ),
    (
        "豆",
        "点豆（明杠）1，闷豆（暗杠）2，转弯豆（补杠）3；憨包豆（晚杠）不计分但算通行证。"
        "只有胡牌或叫牌的人的豆才计分。",
    ),
    (
        "鸡",
        "幺鸡1、乌骨鸡2；冲锋鸡（本局第一张打出且没人要的幺鸡3/乌骨鸡6）。有人胡牌后翻牌，"
        "下一张为翻牌鸡（每张1）；翻到的是幺鸡或乌骨鸡则成金鸡，翻倍。责任鸡：碰/杠了第一张幺鸡或"
        "乌骨鸡，打出的人另付2/4。包鸡：没叫牌的人打出或碰出的鸡要赔给胡牌和叫牌的人。"
        "胡牌或叫牌的人每有一分鸡，向其余三家各收一分。",
    ),
    ("荒庄", "摸完没人胡：查叫，没叫牌的赔叫牌的；鸡照算（贵阳）。"),
    (
        "结算",
        "自摸三家付；点炮只由放炮者付。加分：自摸+1，杠上开花+1，热炮+1，天胡+20，地胡+10，"
        "报听+10，坐庄+1，连庄+连庄数。结算表（s）亮出每家的手牌，计鸡的牌加下划线。",
    ),
    ("其他", "川麻、安顺的规则见 docs/RULES.md。"),
]

RULES_EN: list[tuple[str, str]] = [
    (
        "Tiles",
        "1–9 in 万 characters, 筒 dots and 条 bamboo, four of each, 108 in all; no honours, "
        "no flowers. 幺鸡 is 1s (one bamboo), 乌骨鸡 is 8p (eight dots).",
    ),
    (
        "The round",
        "The dealer starts with 14 tiles and discards; the others hold 13. On your "
        "turn: 自摸 (win), a concealed or added 杠, or discard. On another's discard: 胡, 杠 or 碰 "
        "(no 吃 chow). Several may win on one discard. After a 碰 you discard; after a 杠 you draw "
        "a replacement. Passing a win (过水) locks discard wins until your next draw.",
    ),
    (
        "Patterns",
        "(guiyang) 平胡 1 · 大对子 5 · 七对 7 · 龙七对 10 · 清一色 10 · 单钓 10 · 清大对 15 · "
        "清七对 17 · 清单钓 20 · 青龙背 20. Only the highest counts.",
    ),
    (
        "通行证",
        "The pass: a 平胡 may win on a discard only if you hold a 豆 (any 杠); otherwise "
        "自摸 only. Anything above 平胡 may always win on a discard. No pass needed to rob a 杠 or "
        "on a 热炮.",
    ),
    (
        "豆 kongs",
        "点豆 (claimed) 1 from the discarder, 闷豆 (concealed) 2 and 转弯豆 (added) 3 "
        "from each; a late one (憨包豆) scores nothing but is a pass. Only a holder who won or is "
        "ready scores them.",
    ),
    (
        "鸡 chickens",
        "幺鸡 1, 乌骨鸡 2; 冲锋 (the first one discarded, unclaimed) 3 / 6. After a "
        "win the next wall tile is flipped: the tile after it is a 翻牌鸡 worth 1 each; if that is "
        "幺鸡 or 乌骨鸡 it turns 金 (gold, double). 责任鸡: whoever discarded the first 幺鸡/乌骨鸡 "
        "that was claimed pays 2 / 4. 包鸡: a player not ready pays for their exposed chickens. A "
        "winner or ready player collects each of their chicken units from each of the other three.",
    ),
    (
        "荒庄",
        "The wall is empty: players not ready pay ready players their best wait's value "
        "(查叫); chickens too.",
    ),
    (
        "Payment",
        "自摸: all three pay; on a discard: the discarder alone pays. Bonuses: 自摸 +1, "
        "杠上开花 +1, 热炮 +1, 天胡 +20, 地胡 +10, 报听 +10, dealer +1, streak +n. The settlement "
        "sheet (s) shows every hand, chicken tiles underlined.",
    ),
    ("Other rules", "The chuan and anshun presets differ: see docs/RULES.md."),
]


def help_renderable(lang: Lang) -> RenderableType:
    keys = Table(
        box=None,
        show_header=False,
        padding=(0, 2),
        title_justify="left",
        title=Text(lang.t("keys"), style="bold"),
    )
    keys.add_column(style="bold cyan", no_wrap=True)
    keys.add_column(overflow="fold")
    for key, zh, en in KEYS:
        # Chinese has no spaces to wrap at: Rich would cut the line with "…" (80×24, issue 23).
        keys.add_row(key, Paragraph(zh) if lang.code == "zh" else en)
    rules = Table(
        box=None,
        show_header=False,
        padding=(0, 2),
        title_justify="left",
        title=Text(lang.t("rules"), style="bold"),
    )
    rules.add_column(style="bold", no_wrap=True)
    rules.add_column(overflow="fold")
    for topic, text in RULES_ZH if lang.code == "zh" else RULES_EN:
        rules.add_row(topic, Paragraph(text) if lang.code == "zh" else text)
    return Group(keys, Text(""), rules)
