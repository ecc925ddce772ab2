"""The words for every table option, in Chinese and English: its name, a one-line explanation, and
the name of each choice of a radio option. The create-table form, the table header and the lobby
show options with these (`client_tui.i18n.Lang.option`, `.option_help`, `.choice`).

The keys are the dotted option names of `protocol.option_fields` (read off `RuleOptions`); a test
checks that every option has its words here, so a new option cannot reach the form unexplained.
"""

from __future__ import annotations

# key → (zh name, en name, zh explanation, en explanation)
OPTION_TEXT: dict[str, tuple[str, str, str, str]] = {
    # 牌型 patterns (units per payer)
    "patterns.pinghu": ("平胡", "平胡", "普通胡牌的分", "units for a plain win"),
    "patterns.daduizi": ("大对子", "大对子", "四副刻子加一对", "four pungs and a pair"),
    "patterns.dandiao": (
        "单钓",
        "单钓",
        "四副碰杠、手里单钓一张；空=没有",
        "four melds, waiting on one tile; empty: none",
    ),
    "patterns.qidui": ("七对", "七对", "七个对子", "seven pairs"),
    "patterns.longqidui": (
        "龙七对",
        "龙七对",
        "七对里有四张一样的",
        "seven pairs with a four of a kind",
    ),
    "patterns.qingyise": ("清一色", "清一色", "一门花色的胡牌", "a win in one suit"),
    "patterns.qingdadui": ("清大对", "清大对", "一门花色的大对子", "大对子 in one suit"),
    "patterns.qingdandiao": (
        "清单钓",
        "清单钓",
        "一门花色的单钓；空=没有",
        "单钓 in one suit; empty: none",
    ),
    "patterns.qingqidui": ("清七对", "清七对", "一门花色的七对", "七对 in one suit"),
    "patterns.qinglongbei": ("青龙背", "青龙背", "一门花色的龙七对", "龙七对 in one suit"),
    "patterns.dilong": (
        "地龙",
        "地龙",
        "一碰、手里第四张加五对；常见10分；空=不算",
        "one 碰, its fourth tile and five pairs; usually 10; empty: off",
    ),
    "patterns.qingdilong": (
        "清地龙",
        "清地龙",
        "一门花色的地龙；常见20分；空=不算",
        "地龙 in one suit; usually 20; empty: off",
    ),
    # 豆 and passes
    "pass_gangs": (
        "通行证",
        "Pass 豆",
        "哪些豆算通行证（平胡可胡别人打的牌）",
        "which 豆 let a 平胡 win on a discard",
    ),
    "no_pinghu_after_diandou": (
        "点豆后不胡平胡",
        "No 平胡 after 点豆",
        "刚点豆打出的牌不能平胡",
        "a discard right after its 点豆 cannot be won as 平胡",
    ),
    "dou_dian": ("点豆", "点豆", "杠别人打的牌，放杠者付", "kong of a discard: the discarder pays"),
    "dou_men": ("闷豆", "闷豆", "暗杠，其他每家付", "concealed kong: each other player pays"),
    "dou_zhuanwan": (
        "转弯豆",
        "转弯豆",
        "碰后补杠，其他每家付",
        "added kong: each other player pays",
    ),
    "dou_need_ready": (
        "豆要叫牌",
        "豆 need ready",
        "没胡没叫的人豆不算",
        "a player who neither won nor is ready scores no 豆",
    ),
    "hanbao_dou": (
        "憨包豆",
        "憨包豆",
        "过了时机的闷豆/转弯豆不算分（仍是通行证）",
        "a late 闷豆/转弯豆 scores nothing (still a pass)",
    ),
    "baodou": (
        "包豆",
        "包豆",
        "有人胡时，没叫的人按自己的豆付给胡/叫的人",
        "at a win, the unready pay their 豆 to each winner/ready player",
    ),
    "repao_bonus": (
        "热炮加分",
        "热炮 bonus",
        "杠后打出的牌被胡，加分",
        "extra units for a win on a discard made after a kong",
    ),
    "repao_void_gang": (
        "热炮杠作废",
        "热炮 voids kong",
        "热炮时放炮者的杠不算",
        "a 热炮 voids the discarder's kong",
    ),
    "repao_men": (
        "热炮(闷豆)",
        "热炮 after 闷豆",
        "闷豆后热炮的分",
        "units of a 热炮 after a 闷豆",
    ),
    "repao_zhuanwan": (
        "热炮(转弯豆)",
        "热炮 after 转弯豆",
        "转弯豆后热炮的分",
        "units of a 热炮 after a 转弯豆",
    ),
    "repao_dian": (
        "热炮(点豆)",
        "热炮 after 点豆",
        "点豆后热炮的分",
        "units of a 热炮 after a 点豆",
    ),
    "qianggang_burn": (
        "抢杠烧鸡",
        "抢杠 burns",
        "被抢杠的人鸡和豆都不算",
        "the robbed player's chickens and 豆 do not score",
    ),
    # 过水
    "pass_win": (
        "过水",
        "过水 passed win",
        "放过一次胡之后：锁住到下次摸牌、罚分、或不管",
        "a passed win: locked till your draw, a penalty, or no rule",
    ),
    # 鸡 chickens
    "chickens": (
        "鸡的玩法",
        "Chicken family",
        "按哪个地方的鸡（幺鸡、乌骨鸡、翻牌）",
        "whose chickens: which tiles stand and how the flip works",
    ),
    "draw_chickens": (
        "荒庄算鸡",
        "Chickens at 荒庄",
        "流局时也算鸡",
        "chickens score when the wall runs out too",
    ),
    "chongfeng_value": (
        "冲锋鸡",
        "冲锋鸡",
        "第一张打出的幺鸡/乌骨鸡：固定3/6分，或按原值翻倍",
        "the first 1s/8p discarded: fixed 3/6, or twice its value",
    ),
    "zeren_extra": (
        "责任鸡",
        "责任鸡",
        "冲锋鸡被碰，打出者多付（每张幺鸡；乌骨鸡加倍）",
        "claimed 冲锋鸡: its discarder pays this extra per 1s (8p: twice)",
    ),
    "wuguji": ("乌骨鸡", "乌骨鸡", "八筒也是鸡", "8p is a standing chicken"),
    "wuguji_value": ("乌骨鸡分", "乌骨鸡 value", "每张乌骨鸡的分", "units per 8p chicken"),
    "chongfeng_scope": (
        "冲锋范围",
        "冲锋 scope",
        "每种鸡各有一次冲锋，或整局只有一次",
        "one 冲锋 per kind, or only the first chicken of the round",
    ),
    "chickens_need_ready": (
        "鸡要叫牌",
        "Chickens need ready",
        "没胡没叫的人鸡不算（包鸡）",
        "a player who neither won nor is ready scores no chicken (包鸡)",
    ),
    "discards_are_chickens": (
        "满堂鸡",
        "满堂鸡",
        "自己打出没被碰的鸡也算",
        "your own unclaimed discards count as chickens",
    ),
    "flip_chickens": (
        "翻牌鸡",
        "翻牌鸡",
        "翻牌的下一张是鸡；摇摆：上一张和下一张；或不翻",
        "the flip's next kind is a chicken; 摇摆: previous and next; none",
    ),
    "benji": (
        "本鸡",
        "本鸡",
        "翻出的那张牌本身也是鸡",
        "the flipped tile's own kind is a chicken too",
    ),
    "xingqiji": (
        "星期鸡",
        "星期鸡",
        "今天星期几，那个点数的三门都是鸡",
        "today's weekday rank (Mon 1 … Sun 7) is a chicken in every suit",
    ),
    "chuifengji": (
        "吹风鸡",
        "吹风鸡",
        "翻出五筒，这局所有鸡都不算",
        "a 5p flip blows every chicken of the round away",
    ),
    # 分 scoring
    "zimo_bonus": (
        "自摸加分",
        "自摸 bonus",
        "自摸时每家多付",
        "extra units from each payer for 自摸",
    ),
    "zimo_double": (
        "自摸翻倍",
        "自摸 doubles",
        "自摸时牌型分翻倍",
        "自摸 doubles the hand payment",
    ),
    "gangkai_bonus": (
        "杠上花",
        "杠上花 bonus",
        "杠后摸牌自摸的加分",
        "extra units for winning on a kong's replacement draw",
    ),
    "dealer_scoring": (
        "坐庄",
        "Dealer scoring",
        "庄家输赢加1和连庄数；或不算；或一扣二（平胡自摸多1）",
        "坐庄 +1 and the streak; none; or 一扣二 (平胡 自摸 +1)",
    ),
    "tianhu_bonus": (
        "天胡",
        "天胡 bonus",
        "庄家起手就胡的加分",
        "extra units for the dealer's win on the deal",
    ),
    "dihu_bonus": (
        "地胡",
        "地胡 bonus",
        "闲家第一轮胡的加分",
        "extra units for a win in the first go-round",
    ),
    "hand_cap": (
        "封顶",
        "Cap 封顶",
        "每家付给胡家的牌分最多这么多；空=不封顶",
        "the most one payer pays one winner for the hand; empty: no cap",
    ),
    "first_dealer": (
        "定庄",
        "First dealer",
        "第一局掷骰定庄，或座位1坐庄",
        "the first dealer drawn by dice, or seat 1",
    ),
    "two_winner_dealer": (
        "一炮多响坐庄",
        "Two winners: dealer",
        "一炮两响时谁坐庄",
        "who deals next when two win on one discard",
    ),
    "draw_dealer": (
        "荒庄坐庄",
        "Dealer after 荒庄",
        "流局后庄家留着，或按叫牌换",
        "after 荒庄 the dealer stays, or the deal moves by readiness",
    ),
    # 报听
    "declare": (
        "报听",
        "报听 declare",
        "第一张打牌时可以报听/天听，或不能报",
        "declare ready with the first discard: 报听, 天听, or not at all",
    ),
    "baoting_bonus": (
        "报听分",
        "报听 bonus",
        "报听后胡牌的加分",
        "extra units for a win after 报听",
    ),
    "tianting_value": ("天听分", "天听 value", "天听后胡牌的分", "units for a win after 天听"),
    "shabao_value": (
        "杀报",
        "杀报 value",
        "胡了报听者打的牌的分",
        "units for winning on a declared player's discard",
    ),
    # 提示
    "hints": (
        "提示",
        "Hints 提示",
        "客户端可以显示听牌和机器人建议",
        "the client may show waits and the bot's hints",
    ),
}

# (option, choice) → (zh, en)
CHOICE_TEXT: dict[tuple[str, object], tuple[str, str]] = {
    ("pass_gangs", "any"): ("任何豆", "any 豆"),
    ("pass_gangs", "concealed_or_added"): ("闷豆/转弯豆", "闷豆/转弯豆 only"),
    ("pass_win", "lock"): ("锁胡", "locked"),
    ("pass_win", "penalty"): ("罚分", "penalty"),
    ("pass_win", "none"): ("不管", "no rule"),
    ("chickens", "guiyang"): ("贵阳", "guiyang"),
    ("chickens", "chuan"): ("川麻", "chuan"),
    ("chickens", "anshun"): ("安顺", "anshun"),
    ("chongfeng_value", "fixed"): ("固定", "fixed"),
    ("chongfeng_value", "double"): ("翻倍", "double"),
    ("wuguji_value", 1): ("1分", "1"),
    ("wuguji_value", 2): ("2分", "2"),
    ("chongfeng_scope", "kind"): ("每种", "per kind"),
    ("chongfeng_scope", "round"): ("整局一次", "once a round"),
    ("flip_chickens", "next"): ("下一张", "next"),
    ("flip_chickens", "both"): ("摇摆鸡", "摇摆 both"),
    ("flip_chickens", "none"): ("不翻", "none"),
    ("dealer_scoring", "lianzhuang"): ("坐庄连庄", "坐庄/连庄"),
    ("dealer_scoring", "none"): ("不算", "none"),
    ("dealer_scoring", "yikouer"): ("一扣二", "一扣二"),
    ("first_dealer", "dice"): ("掷骰", "dice"),
    ("first_dealer", "seat0"): ("座位1", "seat 1"),
    ("two_winner_dealer", "first_from_dealer"): ("庄家下手第一个", "first after the dealer"),
    ("two_winner_dealer", "discarder"): ("放炮者", "the discarder"),
    ("draw_dealer", "stays"): ("留庄", "stays"),
    ("draw_dealer", "ready_rule"): ("按叫牌", "by readiness"),
    ("declare", "none"): ("不报", "none"),
    ("declare", "baoting"): ("报听", "报听"),
    ("declare", "tianting"): ("天听", "天听"),
}

# group → (zh, en): the form's sections, as the apps group them.
GROUP_TEXT: dict[str, tuple[str, str]] = {
    "table": ("牌桌", "Table"),
    "house": ("家规", "House rules"),
    "chicken": ("鸡", "鸡 Chickens"),
    "dou": ("豆", "豆 Kongs"),
    "score": ("分", "分 Scoring"),
    "declare": ("报听", "报听 Declaring"),
    "pass": ("过水", "过水 Passing a win"),
    "hints": ("提示", "提示 Hints"),
    "clock": ("时间", "Clock"),
    "more": ("其他规则", "More rules"),
    "patterns": ("牌型分", "Pattern values 牌型"),
    "advanced": ("高级", "Advanced"),
}
