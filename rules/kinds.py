"""Stable ASCII identifiers for everything a settlement names (RULES.md §3, §5, §6, §8).

A client words a payment in its own language from these identifiers and the numbers beside them
(`Payment.details`), never by parsing the readable `detail` text. The values are part of the public
interface (`zhuoji replay --json`, the `round_ended` result): add members, never rename one.

>>> PatternKind.QINGQIDUI, BonusKind.ZIMO.zh, ChickenKind.WUGUJI.zh
(<PatternKind.QINGQIDUI: 'qingqidui'>, '自摸', '乌骨鸡')
"""

from __future__ import annotations

from enum import StrEnum


class _Named(StrEnum):
    """A StrEnum whose members also carry their Chinese name (`zh`)."""

    zh: str

    def __new__(cls, value: str, zh: str) -> _Named:
        member = str.__new__(cls, value)
        member._value_ = value
        member.zh = zh
        return member


class PatternKind(_Named):
    """The named patterns (牌型) of §3 and §13.16."""

    PINGHU = "pinghu", "平胡"
    DADUIZI = "daduizi", "大对子"
    DANDIAO = "dandiao", "单钓"
    QIDUI = "qidui", "七对"
    LONGQIDUI = "longqidui", "龙七对"
    QINGYISE = "qingyise", "清一色"
    QINGDADUI = "qingdadui", "清大对"
    QINGDANDIAO = "qingdandiao", "清单钓"
    QINGQIDUI = "qingqidui", "清七对"
    QINGLONGBEI = "qinglongbei", "青龙背"
    DILONG = "dilong", "地龙"
    QINGDILONG = "qingdilong", "清地龙"


class BonusKind(_Named):
    """The situations of a win (§8.1, §8.4, §12.23, §13.14) and the bonuses they add."""

    QIANGGANG = "qianggang", "抢杠"
    ZIMO = "zimo", "自摸"
    GANGKAI = "gangkai", "杠上开花"
    REPAO = "repao", "热炮"
    TIANHU = "tianhu", "天胡"
    DIHU = "dihu", "地胡"
    BAOTING = "baoting", "报听"
    TIANTING = "tianting", "天听"
    SHABAO = "shabao", "杀报"
    YIKOUER = "yikouer", "一扣二"


class ExtraKind(_Named):
    """The dealer's extras on a hand payment (§8.1): 坐庄 and 连庄."""

    DEALER = "dealer", "坐庄"
    STREAK = "streak", "连庄"


class ChickenKind(_Named):
    """What makes a tile a chicken (§6, §13.10–12), and the chicken payments' own kinds."""

    YAOJI = "yaoji", "幺鸡"
    WUGUJI = "wuguji", "乌骨鸡"
    FANPAI = "fanpai", "翻牌鸡"
    YAOBAI = "yaobai", "摇摆鸡"
    BENJI = "benji", "本鸡"
    XINGQI = "xingqi", "星期鸡"
    CHONGFENG = "chongfeng", "冲锋鸡"
    MENDOU = "mendou", "闷豆鸡"  # chuan: a 闷豆 of the chicken kind, 60 instead of 4 × 10
    ZEREN = "zeren", "责任鸡"
    BAOJI = "baoji", "包鸡"
    JIN = "jin", "金鸡"  # the gold mark: a line with `"gold": true`


class DouKind(_Named):
    """The 豆 (gangs) of §5."""

    DIANDOU = "diandou", "点豆"
    MENDOU = "mendou", "闷豆"
    ZHUANWAN = "zhuanwan", "转弯豆"
    HANBAO = "hanbao", "憨包豆"


class DouVoid(_Named):
    """Why a 豆 scored nothing (§5, §8.4, §12, §13.7, §13.15); a 豆 that scores has none."""

    HANBAO = "hanbao", "憨包豆不计分"
    REPAO = "repao", "热炮作废"
    QUANSHAO = "quanshao", "全烧"
    NOT_READY = "not_ready", "未叫牌"


class PaymentKind(_Named):
    """A payment's `kind`: its item (§8) or the finer name within it."""

    HAND = "hand", "牌型"
    REPAO = "repao", "热炮"
    BAOPAI = "baopai", "包牌"
    DOU = "dou", "豆"
    BAODOU = "baodou", "包豆"
    CHICKEN = "chicken", "鸡"
    BAOJI = "baoji", "包鸡"
    ZEREN = "zeren", "责任鸡"
    CHAJIAO = "chajiao", "查叫"


ITEM_OF_KIND: dict[PaymentKind, str] = {
    PaymentKind.REPAO: "hand",
    PaymentKind.BAOPAI: "hand",
    PaymentKind.BAODOU: "dou",
    PaymentKind.BAOJI: "chicken",
    PaymentKind.ZEREN: "chicken",
}
"""The item (hand, dou, chicken, chajiao) of a finer payment kind; the others are their own item."""

DOU_KIND_OF_MELD: dict[str, DouKind] = {
    "dian": DouKind.DIANDOU,
    "men": DouKind.MENDOU,
    "zhuanwan": DouKind.ZHUANWAN,
    "hanbao": DouKind.HANBAO,
}
"""`Meld.dou` (and `Meld.form`) → its identifier."""
