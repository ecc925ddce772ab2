"""Interface text in Chinese and English. Game terms keep their Chinese names in both (a player of
捉鸡 knows 碰 and 杠); the English interface adds a gloss where it helps.

>>> Lang("en").t("pong")
'碰 Pong'
>>> Lang("zh").t("pong")
'碰'
>>> Lang("en").t("seat_n", n=2)
'Seat 2'
"""

from __future__ import annotations

import locale
import os

# key → (zh, en). `{name}` fields are filled by `Lang.t(key, name=...)`.
TEXT: dict[str, tuple[str, str]] = {
    # the table
    "round": ("第{n}/{of}局", "Round {n}/{of}"),
    "wall": ("余{n}张", "wall {n}"),
    "base": ("底{n}", "base {n}"),
    "dealer": ("庄", "dealer"),
    "streak": ("连{n}", "streak {n}"),
    "auto": ("托管", "托管 auto"),
    "offline": ("断线", "offline"),
    "bot": ("机器人", "bot"),
    "declared": ("报听", "报听 declared"),
    "tiles_in_hand": ("手牌{n}", "{n} tiles"),
    "your_turn": ("轮到你出牌", "Your turn: discard"),
    "turn_of": ("{name} 出牌中", "{name} to play"),
    "claim_window": ("{name} 打出 {tile}", "{name} discarded {tile}"),
    "rob_window": ("{name} 补杠 {tile}", "{name} adds a 杠 with {tile}"),
    "you": ("你", "you"),
    "seat_n": ("座位{n}", "Seat {n}"),
    "empty_seat": ("空位", "empty"),
    "xiajia": ("下家", "right"),
    "duijia": ("对家", "across"),
    "shangjia": ("上家", "left"),
    "me": ("本家", "me"),
    "spectating": ("观战", "watching"),
    "score": ("分", "pts"),
    "last_discarded": ("{name} 打 {tile}", "{name} discarded {tile}"),
    "last_pong": ("{name} 碰 {tile}", "{name} 碰 pong {tile}"),
    "last_gang": ("{name} 杠 {tile}", "{name} 杠 kong {tile}"),
    "last_an": ("{name} 暗杠", "{name} concealed 杠"),
    "last_bu": ("{name} 补杠 {tile}", "{name} added 杠 {tile}"),
    "last_auto": ("{name} 托管出牌（{why}）", "{name} auto-played ({why})"),
    "why_timeout": ("超时", "timeout"),
    "why_disconnected": ("断线", "disconnected"),
    "why_auto": ("托管", "托管"),
    "won_zimo": ("{name} 自摸 {pattern}", "{name} wins by 自摸: {pattern}"),
    "won_discard": (
        "{name} 胡 {from_name} 的 {tile}：{pattern}",
        "{name} wins on {from_name}'s {tile}: {pattern}",
    ),
    "won_rob": ("{name} 抢杠胡 {tile}：{pattern}", "{name} robs the 杠 on {tile}: {pattern}"),
    "exhausted": ("荒庄：牌已摸完", "荒庄: the wall is empty"),
    "hand_revealed": ("手牌", "hand"),
    "round_over": ("本局结束 — 按 s 看结算", "Round over — s for the settlement"),
    "next_round": ("下一局即将开始…", "next round starting…"),
    # prompts
    "hu": ("胡", "胡 Win"),
    "zimo": ("自摸", "自摸 Win"),
    "pong": ("碰", "碰 Pong"),
    "gang": ("杠", "杠 Kong"),
    "pass": ("过", "过 Pass"),
    "ready": ("报听", "报听 Declare"),
    "prompt_behind": ("轮到你了：按 Enter 关闭结算", "Your move — Enter closes the sheet"),
    "auto_on": ("托管中：按 a 自己打", "托管: the server plays for you — a to take over"),
    "ready_on": ("报听：出牌时宣布", "报听 on: declared with the discard"),
    "discard_hint": (
        "←→ 选牌，Enter 出牌，或按牌上的键",
        "←→ pick, Enter discards, or a tile's key",
    ),
    "waiting_answer": ("已发送…", "sent…"),
    "clock": ("{s}秒", "{s}s"),
    "bank": ("（备用{s}秒）", " (bank {s}s)"),
    "choose_gang": ("杠哪张？", "Which 杠?"),
    # waits
    "waits": ("听", "Waits"),
    "left": ("剩{n}", "{n} left"),
    "pass_ok": ("有豆（通行证）：可胡别人打的牌", "通行证: a 豆 lets 平胡 win on discards"),
    "zimo_only": ("无豆：平胡只能自摸", "no 豆: 平胡 wins by 自摸 only"),
    "after_discard": ("打 {tile} 听：", "Discard {tile} → waits:"),
    "keep_ready": ("打出这些牌可以听牌：", "discarding one of these leaves you ready:"),
    # connection
    "connecting": ("正在连接 {url}…", "Connecting to {url}…"),
    "reconnecting": ("连接中断，正在重连（第{n}次）…", "Connection lost — reconnecting (try {n})…"),
    "connected": ("已连接", "connected"),
    "closed": ("连接已关闭：{why}", "Disconnected: {why}"),
    "not_connected": ("未连接", "not connected"),
    "seat_kept": (
        "座位为你保留，连上后自动继续",
        "your seat is kept; the game comes back when the server does",
    ),
    "resume_watch": ("连上后继续观战", "watching resumes when the server is back"),
    "quit_hint": ("按 q 退出", "q quits"),
    # lobby
    "lobby": ("大厅", "Lobby"),
    "tables": ("牌桌", "Tables"),
    "col_id": ("号", "#"),
    "col_name": ("名称", "Name"),
    "col_preset": ("规则", "Rules"),
    "col_options": ("改动", "Overrides"),
    "col_seats": ("座位", "Seats"),
    "col_watchers": ("观战", "Watching"),
    "col_state": ("状态", "State"),
    "col_round": ("局", "Round"),
    "state_waiting": ("等待", "waiting"),
    "state_playing": ("进行中", "playing"),
    "state_finished": ("已结束", "finished"),
    "btn_create": ("开桌", "Create table"),
    "btn_join": ("入座", "Sit"),
    "btn_watch": ("观战", "Watch"),
    "btn_refresh": ("刷新", "Refresh"),
    "btn_quit": ("退出", "Quit"),
    "btn_cancel": ("取消", "Cancel"),
    "btn_ok": ("确定", "OK"),
    "btn_start": ("开始", "Start"),
    "btn_add_bot": ("加机器人", "Add bot"),
    "btn_remove_bot": ("移除机器人", "Remove bot"),
    "btn_leave": ("离开", "Leave"),
    "seat_any": ("任意空位", "any free seat"),
    "no_tables": ("还没有牌桌：按 c 开一桌", "No tables yet: press c to create one"),
    "password": ("密码", "Password"),
    "password_opt": ("密码（可不填）", "Password (optional)"),
    "create_title": ("开一桌", "Create a table"),
    "table_name": ("桌名", "Table name"),
    "preset": ("规则", "Rules"),
    "preset_guiyang": ("贵阳捉鸡", "guiyang 贵阳"),
    "preset_chuan": ("捉鸡川麻", "chuan 川麻"),
    "preset_anshun": ("安顺捉鸡", "anshun 安顺"),
    "rounds": ("局数", "Rounds"),
    "turn_seconds": ("每步秒数（0=不限）", "Seconds per move (0 = none)"),
    "bank_seconds": ("每局备用秒数", "Bank seconds per round"),
    "options": ("规则改动 name=value，逗号分隔", "Rule overrides: name=value, comma separated"),
    "bad_number": ("{field}：请输入数字", "{field}: enter a number"),
    "bad_option": ("规则改动有误：{why}", "Bad override: {why}"),
    "room_title": ("{name}（{preset}）等待开局", "{name} ({preset}) — waiting to start"),
    "room_hint": (
        "四个座位坐满后按 Enter 开始；a 加机器人",
        "Enter starts once four are seated; a adds a bot",
    ),
    "sit_here": ("坐这里", "Sit here"),
    # settlement
    "settlement": ("第{n}局结算", "Round {n} settlement"),
    "sheet": ("结算", "settlement"),
    "flip": ("翻牌", "Flip"),
    "no_flip": ("不翻牌", "no flip"),
    "flip_makes": ("{tile} → 鸡：{chickens}", "{tile} → chicken: {chickens}"),
    "chickens": ("鸡", "Chickens 鸡"),
    "dou": ("豆", "豆 (kongs)"),
    "payments": ("收付", "Payments"),
    "totals": ("合计", "Totals"),
    "net": ("净", "Net"),
    "ready_yes": ("叫牌", "ready"),
    "ready_no": ("未叫", "not ready"),
    "winner": ("胡", "won"),
    "adds_up": ("✓ 各项相加等于净分", "✓ the lines add up to the nets"),
    "not_adds_up": ("✗ 各项与净分不符", "✗ the lines do not add up to the nets"),
    "fair_ok": ("✓ 发牌已验证", "✓ fair deal verified"),
    "fair_bad": ("✗ 发牌与承诺不符", "✗ the deal does not match its commitment"),
    "close_hint": ("Enter/Esc 关闭", "Enter/Esc closes"),
    "no_chickens": ("无", "none"),
    "scores_after": ("累计", "Match"),
    "dou_scores": ("计分", "scores"),
    "draw": ("荒庄", "Draw (荒庄)"),
    "payer_payee": ("付 → 收", "payer → payee"),
    "item": ("项", "item"),
    "amount": ("数", "amount"),
    "detail": ("说明", "note"),
    "hands": ("手牌", "Hands"),
    "discarded": ("打出", "discarded"),
    "win_mark_zimo": ("自摸", "自摸"),
    "win_mark_discard": ("胡", "胡"),
    "win_mark_rob": ("抢杠", "抢杠"),
    "chicken_mark": ("下划线 = 计鸡的牌", "underlined: tiles counted as chickens"),
    # match summary
    "match_over": ("比赛结束", "Match over"),
    "match_abandoned": ("比赛中止", "Match abandoned"),
    "rounds_played": ("共{n}局", "{n} rounds played"),
    "final": ("名次", "Standings"),
    "per_round": ("每局", "Per round"),
    "new_match": ("再来一场", "new match"),
    # help
    "help": ("帮助", "Help"),
    "keys": ("按键", "Keys"),
    "rules": ("规则摘要", "Rules summary"),
    "tile_mode_ascii": ("牌面：ASCII", "tiles: ASCII"),
    "tile_mode_cjk": ("牌面：中文", "tiles: CJK"),
    "quit_confirm": ("再按一次 q 退出", "Press q again to quit"),
}

# Payment kinds (the `kind` of a payment) → (zh, en).
ITEMS: dict[str, tuple[str, str]] = {
    "hand": ("胡牌", "hand"),
    "repao": ("热炮", "热炮 hot discard"),
    "baopai": ("包牌", "包牌 void win"),
    "dou": ("豆", "豆 kong"),
    "chicken": ("鸡", "鸡 chickens"),
    "baoji": ("包鸡", "包鸡 exposed"),
    "zeren": ("责任鸡", "责任鸡 fed chicken"),
    "chajiao": ("查叫", "查叫 not ready"),
    "baodou": ("包豆", "包豆 kong of a player not ready"),
}

# How a hand was won, after a hand payment's label → (zh, en).
HOW: dict[str, tuple[str, str]] = {
    "zimo": ("自摸", "自摸"),
    "discard": ("点炮", "on discard"),
    "rob": ("抢杠", "抢杠 rob"),
}

# Why a 豆 did not score (the server's words) → (zh, en).
DOU_WHY: dict[str, tuple[str, str]] = {
    "holder not ready": ("未叫牌", "holder not ready"),
    "憨包豆 scores nothing": ("憨包豆不计分", "憨包豆 scores nothing"),
    "voided by 热炮": ("热炮作废", "voided by 热炮"),
    "全烧": ("全烧", "全烧: burned"),
}

PATTERNS_EN: dict[str, str] = {
    "平胡": "平胡 plain",
    "大对子": "大对子 all pungs",
    "单钓": "单钓 single wait",
    "七对": "七对 seven pairs",
    "龙七对": "龙七对 dragon pairs",
    "清一色": "清一色 one suit",
    "清大对": "清大对 one-suit pungs",
    "清单钓": "清单钓 one-suit single",
    "清七对": "清七对 one-suit pairs",
    "青龙背": "青龙背 one-suit dragon",
}


def default_lang() -> str:
    """`zh` when the locale is Chinese, else `en`."""
    for var in ("LC_ALL", "LC_MESSAGES", "LANG", "LANGUAGE"):
        value = os.environ.get(var)
        if value:
            return "zh" if value.lower().startswith("zh") else "en"
    try:
        code = locale.getlocale()[0] or ""
    except ValueError:
        code = ""
    return "zh" if code.lower().startswith("zh") else "en"


class Lang:
    """One interface language; `t(key, **fields)` looks a text up and fills it in."""

    def __init__(self, code: str) -> None:
        self.code = "zh" if code == "zh" else "en"
        self._index = 0 if self.code == "zh" else 1

    def t(self, key: str, **fields: object) -> str:
        pair = TEXT.get(key)
        text = pair[self._index] if pair is not None else key
        return text.format(**fields) if fields else text

    def item(self, item: str) -> str:
        """A payment kind (`hand`, `repao`, `dou`, `chicken`, `zeren`, …) by name.

        >>> Lang("zh").item("zeren"), Lang("en").item("chajiao"), Lang("en").item("new")
        ('责任鸡', '查叫 not ready', 'new')
        """
        pair = ITEMS.get(item)
        return pair[self._index] if pair is not None else item

    def how(self, how: str) -> str:
        """How a hand was won (`zimo`, `discard`, `rob`)."""
        pair = HOW.get(how)
        return pair[self._index] if pair is not None else how

    def dou_why(self, why: str) -> str:
        pair = DOU_WHY.get(why)
        return pair[self._index] if pair is not None else why

    def pattern(self, name: str) -> str:
        """A pattern's display name (its Chinese name; glossed in English)."""
        return PATTERNS_EN.get(name, name) if self.code == "en" else name
