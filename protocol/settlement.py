"""The settlement of a round on the wire: `round_ended.result` (`rules.settle.Settlement.to_dict()`
with every hand and meld revealed), as strict pydantic models.

A client words every payment from the identifiers (`rules.kinds`: patterns, bonuses, chickens,
豆, payment kinds) and the numbers in its `details`: the settlement holds no words (since protocol
version 3; the engine's readable notes stay in `zhuoji replay --json`). The `details` of a payment depend on
its `kind` (docs/ENGINE.md, "Settlement details"), so `Payment` is a union discriminated on
`kind`. Like every protocol model these are frozen, refuse unknown fields and bound every value.

>>> p = PAYMENT_ADAPTER.validate_python({"from": 0, "to": 2, "item": "dou", "kind": "dou",
...     "amount": 3, "details": {"dou": {"kind": "mendou", "tile": "7p",
...     "fed_by": None}, "units": 3}})
>>> p.payer, p.details.dou.kind.zh, p.model_dump(mode="json")["from"]
(0, '闷豆', 0)
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Discriminator,
    Field,
    StringConstraints,
    Tag,
    TypeAdapter,
)

from rules.kinds import BonusKind, ChickenKind, DouKind, PatternKind

# The tile notation and seat numbers of the whole protocol (protocol.messages uses these).
TileName = Literal[
    "1m",
    "2m",
    "3m",
    "4m",
    "5m",
    "6m",
    "7m",
    "8m",
    "9m",
    "1p",
    "2p",
    "3p",
    "4p",
    "5p",
    "6p",
    "7p",
    "8p",
    "9p",
    "1s",
    "2s",
    "3s",
    "4s",
    "5s",
    "6s",
    "7s",
    "8s",
    "9s",
]
Seat = Annotated[int, Field(ge=0, le=3)]
Money = Annotated[int, Field(ge=-(2**53), le=2**53)]
Amount = Annotated[int, Field(ge=1, le=2**53)]
"""A payment's amount: units × base, never zero (the engine records no empty payment)."""
Units = Annotated[int, Field(ge=0, le=10**9)]
"""A count of units (× base gives money); never negative: a payment has a payer and a payee."""
Cap = Annotated[int, Field(ge=1, le=1_000_000)]
"""封顶 (§13.17): a table's `hand_cap`, the most units one payer pays one winner for the hand."""
Note = Annotated[str, StringConstraints(max_length=500)]

# The identifiers are StrEnums (rules.kinds); JSON carries their values. Lax on these fields
# only, so a Python dict of plain strings (the engine's `to_dict()`) validates as JSON does.
Pattern = Annotated[PatternKind, Field(strict=False)]
Bonus = Annotated[BonusKind, Field(strict=False)]
Chicken = Annotated[ChickenKind, Field(strict=False)]
Dou = Annotated[DouKind, Field(strict=False)]

MeldKind = Literal["pong", "ming", "an", "bu"]
MeldDou = Literal["dian", "men", "zhuanwan", "hanbao"]
"""A meld's 豆 as the engine names it (`Meld.dou`); `DouKind` is the identifier."""
DouWhy = Literal["", "hanbao", "repao", "quanshao", "not_ready"]
"""Why a 豆 did not score (`rules.kinds.DouVoid`; "" when it scores)."""
WinHow = Literal["zimo", "discard", "rob"]


class _Part(BaseModel):
    """A piece of a settlement: strict like every protocol model; `from`/`to`/`for` are Python
    keywords, so those fields have other names and are written under their aliases."""

    model_config = ConfigDict(
        extra="forbid",
        frozen=True,
        strict=True,
        validate_by_name=True,
        serialize_by_alias=True,
        defer_build=True,  # built on first use, not at import (issue 26: commands start at once)
    )


# ---------------------------------------------------------------------------------------------
# A payment's details, per kind


class BonusUnits(_Part):
    """A bonus worth something in a hand payment: its identifier and units."""

    kind: Bonus
    units: Units


class HandDetails(_Part):
    """A hand payment (`hand`, `baopai`): units = (pattern_units + Σ bonuses + dealer + streak)
    × multiplier + Σ after_multiplier, at most `cap` when a cap cut it."""

    pattern: Pattern
    pattern_units: Units
    bonuses: list[BonusUnits] = Field(max_length=16)
    dealer: Units = Field(description="坐庄 units")
    streak: Units = Field(description="连庄 units")
    multiplier: int = Field(ge=1, le=16)
    after_multiplier: list[BonusUnits] = Field(
        max_length=4, description="added after the multiplier: 杀报 on another's 自摸"
    )
    units: Units
    cap: Cap | None = Field(default=None, description="present when a cap cut the amount")


class HandShare(HandDetails):
    """One of the three shares a robbed player pays (抢杠), for seat `for`."""

    for_seat: Seat = Field(alias="for")


class RobDetails(_Part):
    """A 抢杠 hand payment: the robbed player pays the three shares; `units` is their sum."""

    pattern: Pattern
    pattern_units: Units
    shares: list[HandShare] = Field(min_length=1, max_length=3)
    units: Units


class DouRef(_Part):
    """A 豆: its kind, tile, and the discarder who fed a 点豆 (`fed_by`)."""

    kind: Dou
    tile: TileName
    fed_by: Seat | None


class DouDetails(_Part):
    """A `dou` or `baodou` (包豆, §13.15: an unready holder pays its 豆 to each ready player)."""

    dou: DouRef
    units: Units


class RepaoDetails(DouDetails):
    """A `repao` payment: `dou` is the voided gang, by its form; `cap` is present when 封顶
    (§13.17, covering hand and 热炮 together) cut it."""

    cap: Cap | None = Field(default=None, description="present when a cap cut the amount")


class ChickenCount(_Part):
    """`count` chicken tiles of one kind, `each` units apiece; `gold` 金 (doubled)."""

    kind: Chicken
    tile: TileName
    count: int = Field(ge=1, le=4)
    each: int = Field(ge=1, le=10_000)
    units: Units
    gold: bool


class ChickenDetails(_Part):
    """A `chicken`, `baoji` or `zeren` payment: the chickens it pays for."""

    chickens: list[ChickenCount] = Field(min_length=1, max_length=32)
    units: Units


class ChajiaoDetails(_Part):
    """A 查叫 payment: the ready hand's best wait."""

    pattern: Pattern
    pattern_units: Units
    units: Units


# ---------------------------------------------------------------------------------------------
# Payments, discriminated on `kind`


class _PaymentBase(_Part):
    payer: Seat = Field(alias="from")
    payee: Seat = Field(alias="to")
    amount: Amount = Field(description="units × base")


def _hand_or_rob(details: Any) -> str:
    """A 抢杠's hand details are its shares; any other hand payment's are one hand."""
    shares = (
        details.get("shares") if isinstance(details, dict) else getattr(details, "shares", None)
    )
    return "rob" if shares is not None else "hand"


class HandPayment(_PaymentBase):
    """The hand (§8.1): a discard or 自摸 win, or a 抢杠 (`RobDetails`)."""

    item: Literal["hand"]
    kind: Literal["hand"]
    details: Annotated[
        Annotated[HandDetails, Tag("hand")] | Annotated[RobDetails, Tag("rob")],
        Discriminator(_hand_or_rob),
    ]


class BaopaiPayment(_PaymentBase):
    """包牌: a void winner pays each other player its hand's value."""

    item: Literal["hand"]
    kind: Literal["baopai"]
    details: HandDetails


class RepaoPayment(_PaymentBase):
    """热炮 after a gang whose 豆 it voids."""

    item: Literal["hand"]
    kind: Literal["repao"]
    details: RepaoDetails


class DouPayment(_PaymentBase):
    """A 豆 (`dou`), or one paid for another (`baodou`)."""

    item: Literal["dou"]
    kind: Literal["dou", "baodou"]
    details: DouDetails


class ChickenPayment(_PaymentBase):
    """Chickens (`chicken`), 包鸡 (`baoji`: an unready player's exposed chickens) or 责任鸡
    (`zeren`: the discarder of a claimed first 1s/8p pays the claimer)."""

    item: Literal["chicken"]
    kind: Literal["chicken", "baoji", "zeren"]
    details: ChickenDetails


class ChajiaoPayment(_PaymentBase):
    """查叫 (荒庄): an unready player pays a ready one its best wait."""

    item: Literal["chajiao"]
    kind: Literal["chajiao"]
    details: ChajiaoDetails


Payment = Annotated[
    HandPayment | BaopaiPayment | RepaoPayment | DouPayment | ChickenPayment | ChajiaoPayment,
    Field(discriminator="kind"),
]
PAYMENT_ADAPTER: TypeAdapter[Payment] = TypeAdapter(Payment, config=ConfigDict(defer_build=True))


# ---------------------------------------------------------------------------------------------
# The rest of the settlement


class Win(_Part):
    """A winner in identifiers: the pattern and every situation of the win (whether or not the
    preset gives it units), how it was won, on which tile, from whom; `void` for a 包牌."""

    seat: Seat
    pattern: Pattern
    pattern_units: Units
    bonuses: list[Bonus] = Field(max_length=16)
    how: WinHow
    tile: TileName | None
    from_seat: Seat | None = Field(alias="from")
    void: bool


class ChickenLine(_Part):
    """A line of a seat's chicken tally."""

    tile: TileName
    count: int = Field(ge=1, le=4)
    each: int = Field(ge=1, le=10_000)
    units: Units
    kind: Chicken
    gold: bool


class ChickenTally(_Part):
    """A seat's chickens, whether or not it collects them."""

    seat: Seat
    units: Units
    lines: list[ChickenLine] = Field(max_length=32)


class DouListing(_Part):
    """A gang and whether its 豆 scored (`why` not, if not)."""

    seat: Seat
    tile: TileName
    dou: MeldDou | None
    kind: MeldKind
    scores: bool
    why: DouWhy
    dou_kind: Dou


class RevealedMeld(_Part):
    """A meld shown at the end of the round, 暗杠 tile included."""

    kind: MeldKind
    tile: TileName
    from_seat: Seat | None = Field(alias="from")
    dou: MeldDou | None


class RoundResult(_Part):
    """`round_ended.result`: the outcome, every payment, each seat's net (they sum to zero), the
    next dealer, who was ready, each seat's chickens, the 豆, and every hand and meld revealed
    (a discard or 抢杠 winner's hand without the winning tile)."""

    outcome: Literal["win", "draw"]
    wins: list[Win] = Field(max_length=3)
    flip: TileName | None
    payments: list[Payment] = Field(max_length=512)
    net: list[Money] = Field(min_length=4, max_length=4)
    next_dealer: Seat
    next_streak: int = Field(ge=0, le=10_000)
    ready: list[bool] = Field(min_length=4, max_length=4)
    chickens: list[ChickenTally] = Field(max_length=4)
    dou: list[DouListing] = Field(max_length=16)
    hands: list[Annotated[list[TileName], Field(max_length=14)]] = Field(min_length=4, max_length=4)
    melds: list[Annotated[list[RevealedMeld], Field(max_length=4)]] = Field(
        min_length=4, max_length=4
    )


def parse_result(data: object) -> RoundResult:
    """Validate a settlement given as decoded JSON (or `to_dict()` output); raises
    `pydantic.ValidationError` naming the bad field."""
    return RoundResult.model_validate(data)
