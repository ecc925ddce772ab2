"""Ruleset options and the three presets (RULES.md §10).

Every value or rule that differs between the presets is a field of `RuleOptions`; a preset is an
instance of it, and a table may override any field. `make_options("guiyang", {"base_bonus": …})`
refuses unknown names and bad values with a message naming them. A pattern value may be named
in the nested form (`{"patterns": {"dilong": 10}}`) or the dotted one (`{"patterns.dilong": 10}`):
`normalize_overrides` is the one place that reads both. `inert_options` names the options that
change nothing under a table's chickens (RULES.md §13, fine points).
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from rules.kinds import PatternKind


class Pattern(StrEnum):
    """The named patterns of RULES.md §3; the value is the Chinese name used in output."""

    PINGHU = "平胡"
    DADUIZI = "大对子"
    DANDIAO = "单钓"
    QIDUI = "七对"
    LONGQIDUI = "龙七对"
    QINGYISE = "清一色"
    QINGDADUI = "清大对"
    QINGDANDIAO = "清单钓"
    QINGQIDUI = "清七对"
    QINGLONGBEI = "青龙背"
    DILONG = "地龙"
    QINGDILONG = "清地龙"


PatternKey = Literal[
    "pinghu",
    "daduizi",
    "dandiao",
    "qidui",
    "longqidui",
    "qingyise",
    "qingdadui",
    "qingdandiao",
    "qingqidui",
    "qinglongbei",
    "dilong",
    "qingdilong",
]

PATTERN_KEYS: dict[Pattern, str] = {p: p.name.lower() for p in Pattern}
PATTERN_KIND: dict[Pattern, PatternKind] = {p: PatternKind[p.name] for p in Pattern}
"""Each pattern's stable identifier (`rules.kinds`)."""


class PatternValues(BaseModel):
    """Units per pattern; `None` means the preset has no such pattern ("—" in §3)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    pinghu: int = Field(ge=0, le=10_000)
    daduizi: int = Field(ge=0, le=10_000)
    dandiao: int | None = Field(default=None, ge=0, le=10_000)
    qidui: int = Field(ge=0, le=10_000)
    longqidui: int = Field(ge=0, le=10_000)
    qingyise: int = Field(ge=0, le=10_000)
    qingdadui: int = Field(ge=0, le=10_000)
    qingdandiao: int | None = Field(default=None, ge=0, le=10_000)
    qingqidui: int = Field(ge=0, le=10_000)
    qinglongbei: int = Field(ge=0, le=10_000)
    # §13.16 地龙 / 清地龙: off (None) in every preset; the apps' usual values are 10 and 20.
    dilong: int | None = Field(default=None, ge=0, le=10_000)
    qingdilong: int | None = Field(default=None, ge=0, le=10_000)

    def value(self, pattern: Pattern) -> int | None:
        v: int | None = getattr(self, PATTERN_KEYS[pattern])
        return v


Units = Field(ge=0, le=10_000)


class RuleOptions(BaseModel):
    """Every per-preset rule of RULES.md; see `PRESETS` for the three presets."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    patterns: PatternValues
    # §4 通行证: which 豆 are a pass; anshun's extra restrictions.
    pass_gangs: Literal["any", "concealed_or_added"] = "any"
    no_pinghu_after_diandou: bool = False
    # §5 豆 values and condition.
    dou_dian: int = Units
    dou_men: int = Units
    dou_zhuanwan: int = Units
    dou_need_ready: bool = True
    # §5 / §13.7: a late 闷豆 / 转弯豆 is a 憨包豆 (scores nothing, still a pass); off: ordinary.
    hanbao_dou: bool = True
    # §5 热炮.
    repao_bonus: int = Units
    repao_void_gang: bool = False
    repao_men: int = Field(default=0, ge=0, le=10_000)
    repao_zhuanwan: int = Field(default=0, ge=0, le=10_000)
    repao_dian: int = Field(default=0, ge=0, le=10_000)
    # §5 抢杠.
    qianggang_burn: bool = False
    # §2.5 passing a win; §13.8 adds `none` (no 过水 rule).
    pass_win: Literal["lock", "penalty", "none"] = "lock"
    # §6 chickens: the preset's family of chickens, and the §13 house options on them.
    chickens: Literal["guiyang", "chuan", "anshun"] = "guiyang"
    draw_chickens: bool = False
    chongfeng_value: Literal["fixed", "double"] = "fixed"  # §13.1
    zeren_extra: int = Field(default=2, ge=0, le=10_000)  # §13.2: per 1s; 8p twice it
    wuguji: bool = False  # §13.3: 8p is a standing chicken (guiyang's chickens only)
    wuguji_value: Literal[1, 2] = 2
    chongfeng_scope: Literal["kind", "round"] = "kind"  # §13.4
    chickens_need_ready: bool = True  # §13.5
    discards_are_chickens: bool = True  # §13.6 (满堂鸡)
    flip_chickens: Literal["next", "both", "none"] = "next"  # §13.10
    benji: bool = False  # §13.11 本鸡
    xingqiji: bool = False  # §13.12 星期鸡
    chuifengji: bool = False  # §13.13 吹风鸡
    # §8.1 bonuses.
    zimo_bonus: int = Units
    zimo_double: bool = False
    gangkai_bonus: int = Units
    # §8.1 坐庄/连庄, §13.14: `lianzhuang`, `none` or `yikouer` (一扣二).
    dealer_scoring: Literal["lianzhuang", "none", "yikouer"] = "none"
    tianhu_bonus: int = Units
    dihu_bonus: int = Units
    # §8.4 declarations.
    declare: Literal["none", "baoting", "tianting"] = "none"
    baoting_bonus: int = Field(default=10, ge=0, le=10_000)
    tianting_value: int = Field(default=10, ge=0, le=10_000)
    shabao_value: int = Field(default=10, ge=0, le=10_000)
    # §8.3 dealer rotation.
    two_winner_dealer: Literal["first_from_dealer", "discarder"] = "first_from_dealer"
    draw_dealer: Literal["stays", "ready_rule"] = "stays"
    # §13.9: the first dealer of a match: drawn from the match seed, or seat 0.
    first_dealer: Literal["dice", "seat0"] = "dice"
    # §13.15 包豆, §13.17 封顶 (units per payer and winner; None: no cap), §13.18 听牌提示.
    baodou: bool = False
    hand_cap: int | None = Field(default=None, ge=1, le=1_000_000)
    hints: bool = True


GUIYANG = RuleOptions(
    patterns=PatternValues(
        pinghu=1,
        daduizi=5,
        dandiao=10,
        qidui=7,
        longqidui=10,
        qingyise=10,
        qingdadui=15,
        qingdandiao=20,
        qingqidui=17,
        qinglongbei=20,
    ),
    pass_gangs="any",
    dou_dian=1,
    dou_men=2,
    dou_zhuanwan=3,
    dou_need_ready=True,
    repao_bonus=1,
    repao_void_gang=False,
    qianggang_burn=True,
    pass_win="lock",
    chickens="guiyang",
    draw_chickens=True,
    wuguji=True,
    discards_are_chickens=True,
    flip_chickens="next",
    chickens_need_ready=True,
    zimo_bonus=1,
    zimo_double=False,
    gangkai_bonus=1,
    dealer_scoring="lianzhuang",
    tianhu_bonus=20,
    dihu_bonus=10,
    declare="baoting",
    baoting_bonus=10,
    two_winner_dealer="first_from_dealer",
    draw_dealer="stays",
)

CHUAN = RuleOptions(
    patterns=PatternValues(
        pinghu=10,
        daduizi=30,
        dandiao=None,
        qidui=40,
        longqidui=50,
        qingyise=50,
        qingdadui=80,
        qingdandiao=None,
        qingqidui=50,
        qinglongbei=100,
    ),
    pass_gangs="any",
    dou_dian=10,
    dou_men=20,
    dou_zhuanwan=10,
    dou_need_ready=False,
    hanbao_dou=False,
    repao_bonus=0,
    repao_void_gang=True,
    repao_men=60,
    repao_zhuanwan=30,
    repao_dian=10,
    qianggang_burn=False,
    pass_win="penalty",
    chickens="chuan",
    draw_chickens=False,
    wuguji=False,
    discards_are_chickens=False,
    flip_chickens="next",
    chickens_need_ready=False,
    zimo_bonus=0,
    zimo_double=False,
    gangkai_bonus=10,
    dealer_scoring="none",
    tianhu_bonus=0,
    dihu_bonus=0,
    declare="none",
    two_winner_dealer="first_from_dealer",
    draw_dealer="ready_rule",
)

ANSHUN = RuleOptions(
    patterns=PatternValues(
        pinghu=1,
        daduizi=5,
        dandiao=None,
        qidui=10,
        longqidui=20,
        qingyise=10,
        qingdadui=15,
        qingdandiao=None,
        qingqidui=20,
        qinglongbei=30,
    ),
    pass_gangs="concealed_or_added",
    no_pinghu_after_diandou=True,
    dou_dian=1,
    dou_men=2,
    dou_zhuanwan=1,
    dou_need_ready=True,
    hanbao_dou=False,
    repao_bonus=0,
    repao_void_gang=True,
    repao_men=6,
    repao_zhuanwan=3,
    repao_dian=1,
    qianggang_burn=False,
    pass_win="lock",
    chickens="anshun",
    draw_chickens=False,
    wuguji=False,
    discards_are_chickens=True,
    flip_chickens="both",
    chickens_need_ready=True,
    zimo_bonus=0,
    zimo_double=True,
    gangkai_bonus=0,
    dealer_scoring="none",
    tianhu_bonus=0,
    dihu_bonus=0,
    declare="tianting",
    tianting_value=10,
    shabao_value=10,
    two_winner_dealer="discarder",
    draw_dealer="ready_rule",
)

PRESETS: dict[str, RuleOptions] = {"guiyang": GUIYANG, "chuan": CHUAN, "anshun": ANSHUN}


class OptionsError(ValueError):
    """An unknown ruleset, an unknown option name or a bad option value."""


def _format_validation(err: ValidationError) -> str:
    parts = []
    for e in err.errors():
        loc = ".".join(str(x) for x in e["loc"])
        if e["type"] == "extra_forbidden":
            parts.append(f"unknown option {loc!r}")
        else:
            parts.append(f"option {loc!r}: {e['msg']} (got {e.get('input')!r})")
    return "; ".join(parts)


def _legacy(overrides: dict[str, Any]) -> dict[str, Any]:
    """Old option names still read: `dealer_bonus` (a bool) is `dealer_scoring` lianzhuang/none."""
    if "dealer_bonus" not in overrides:
        return overrides
    out = dict(overrides)
    value = out.pop("dealer_bonus")
    if not isinstance(value, bool):
        raise OptionsError(f"option 'dealer_bonus': must be true or false (got {value!r})")
    out.setdefault("dealer_scoring", "lianzhuang" if value else "none")
    return out


def normalize_overrides(overrides: Mapping[str, Any]) -> dict[str, Any]:
    """Overrides in the nested form: a dotted name (`"patterns.dilong": 10`, as RULES.md and the
    form's advanced field write it) goes into `patterns`. A dotted name that names no option is
    refused with the names that exist, and so is a pattern given both ways with two values.

    >>> normalize_overrides({"benji": True, "patterns.dilong": 10, "patterns": {"qingdilong": 20}})
    {'benji': True, 'patterns': {'dilong': 10, 'qingdilong': 20}}
    """
    out: dict[str, Any] = {}
    patterns: dict[str, Any] | None = None  # the nested `patterns`, merged from both forms

    def merge(name: str, value: Any) -> None:
        nonlocal patterns
        if patterns is None:
            patterns = out["patterns"] = {}
        if name in patterns and patterns[name] != value:
            raise OptionsError(
                f"option 'patterns.{name}' is given twice, as {patterns[name]!r} and {value!r}"
            )
        patterns[name] = value

    for name, value in overrides.items():
        if not isinstance(name, str):
            raise OptionsError(f"option names are text, got {name!r}")
        head, dot, tail = name.partition(".")
        if not dot:
            if name == "patterns" and isinstance(value, Mapping):
                for sub, v in value.items():
                    merge(sub, v)
            else:
                out[name] = value
            continue
        if head != "patterns":
            known = head in RuleOptions.model_fields
            raise OptionsError(
                f"unknown option {name!r}: only pattern values have a dotted name "
                f"(patterns.<name>)" + (f"; write {head!r} without a dot" if known else "")
            )
        if tail not in PatternValues.model_fields:
            raise OptionsError(
                f"unknown option {name!r}: the patterns are {', '.join(PatternValues.model_fields)}"
            )
        merge(tail, value)
    return out


# ----- options that change nothing (RULES.md §13, fine points) -----

FAMILY_NAME = {"guiyang": "贵阳捉鸡", "chuan": "捉鸡川麻将", "anshun": "安顺捉鸡"}
"""The rule documents' names for the three chicken families (seeds 000, 001, 002)."""

# option → the chicken it needs; which families lack that chicken (RULES.md §13, fine points)
_NEEDS: dict[str, tuple[str, tuple[str, ...]]] = {
    "wuguji": ("乌骨鸡", ("chuan", "anshun")),
    "wuguji_value": ("乌骨鸡", ("chuan", "anshun")),
    "chongfeng_value": ("冲锋鸡", ("chuan",)),
    "chongfeng_scope": ("冲锋鸡", ("chuan",)),
    "zeren_extra": ("责任鸡", ("chuan", "anshun")),
}


def inert_options(opts: RuleOptions, lang: Literal["en", "zh"] = "en") -> dict[str, str]:
    """The options that change nothing under these options' chickens, each with its reason
    (RULES.md §13, fine points: an option for a mechanism the preset's chickens lack — chuan
    冲锋/责任, `8p` outside guiyang, anshun 责任). Keys are option names, in the rules' order; the
    reason names the missing chicken and the family by its document's name.

    >>> inert_options(PRESETS["anshun"])["wuguji"]
    'no 乌骨鸡 in 安顺捉鸡'
    >>> inert_options(PRESETS["chuan"], "zh")["zeren_extra"]
    '捉鸡川麻将没有责任鸡'
    >>> inert_options(PRESETS["guiyang"])
    {}
    """
    family = opts.chickens
    where = FAMILY_NAME[family]
    return {
        name: (f"{where}没有{chicken}" if lang == "zh" else f"no {chicken} in {where}")
        for name, (chicken, lacking) in _NEEDS.items()
        if family in lacking
    }


# ----- the options' value as a cache key -----

_KEYS: dict[int, tuple[RuleOptions, str]] = {}
_KEYS_MAX = 256


def options_key(opts: RuleOptions) -> str:
    """The options' value as a hashable key (their JSON), for caches of what depends on the
    rules: two equal options share entries, and a key never outlives its meaning (a key by
    `id(opts)` could be reused by another object once the first is freed). Computed once per
    options object: the entry holds the object, so its id cannot be reused while it stands.

    >>> options_key(make_options("guiyang", {"benji": True})) == options_key(
    ...     make_options("guiyang", {"benji": True})
    ... )
    True
    """
    entry = _KEYS.get(id(opts))
    if entry is not None and entry[0] is opts:
        return entry[1]
    if len(_KEYS) >= _KEYS_MAX:
        _KEYS.clear()
    key = opts.model_dump_json()
    _KEYS[id(opts)] = (opts, key)
    return key


def make_options(ruleset: str, overrides: Mapping[str, Any] | None = None) -> RuleOptions:
    """The preset `ruleset` with `overrides` applied; `patterns` may be overridden in part.

    >>> make_options("guiyang", {"zimo_bonus": 2}).zimo_bonus
    2
    """
    preset = PRESETS.get(ruleset)
    if preset is None:
        raise OptionsError(f"unknown ruleset {ruleset!r}: choose one of {', '.join(PRESETS)}")
    if not overrides:
        return preset
    if not isinstance(overrides, Mapping):
        raise OptionsError("options must be an object of option names to values")
    data = preset.model_dump()
    overrides = _legacy(normalize_overrides(overrides))
    for name, value in overrides.items():
        if name == "patterns" and isinstance(value, dict):
            data["patterns"] = {**data["patterns"], **value}
        else:
            data[name] = value
    try:
        return RuleOptions.model_validate(data)
    except ValidationError as err:
        raise OptionsError(_format_validation(err)) from None


def overrides_of(options: RuleOptions, ruleset: str) -> dict[str, Any]:
    """The fields in which `options` differs from the preset (what a table header shows)."""
    preset = PRESETS[ruleset].model_dump()
    mine = options.model_dump()
    diff: dict[str, Any] = {}
    for name, value in mine.items():
        if name == "patterns":
            pat = {k: v for k, v in value.items() if preset["patterns"][k] != v}
            if pat:
                diff["patterns"] = pat
        elif preset[name] != value:
            diff[name] = value
    return diff
