"""What a player's or a table's name may hold: text another player reads as exactly what it is.

A name is NFC-normalised (so `e` + combining acute and `é` are one name) and refused if it holds a
character that shows as nothing or as something else: Unicode's control, format, separator,
private-use, surrogate and unassigned categories (Cc, Cf, Zl, Zp, Co, Cs, Cn: a BOM makes
`\\ufeffadmin` read as "admin", tag characters hide text, bidi controls reorder it) and the
invisible fillers that are letters by category (the Hangul fillers, the braille blank, the
combining grapheme joiner). A name of spaces alone is refused, and a player's chosen name may not
pass for a seat the server plays (`Bot-2`, `ｂｏｔ 3`): bots are named by the server.

>>> clean_name("Ame\\u0301lie") == "Am\\u00e9lie"
True
>>> clean_name("\\ufeffadmin")
Traceback (most recent call last):
...
ValueError: a name may not hold U+FEFF at position 1 (ZERO WIDTH NO-BREAK SPACE)
>>> clean_name("   ")
Traceback (most recent call last):
...
ValueError: a name needs at least one visible character
>>> chosen_name("Bot-2")
Traceback (most recent call last):
...
ValueError: 'Bot-2' reads as a bot's name; bots are named by the server
"""

from __future__ import annotations

import re
import unicodedata
from functools import cache

REFUSED_CATEGORIES: frozenset[str] = frozenset({"Cc", "Cf", "Zl", "Zp", "Co", "Cs", "Cn"})
"""Unicode general categories a name may not hold (unicodedata's tables of this Python)."""

FILLERS: frozenset[int] = frozenset(
    {0x034F, 0x115F, 0x1160, 0x17B4, 0x17B5, 0x2800, 0x3164, 0xFFA0}
)
"""Invisible characters whose category is a letter or a mark: the combining grapheme joiner,
the Hangul choseong/jungseong/compatibility/halfwidth fillers, the Khmer inherent vowels and the
braille blank."""

_KINDS = {
    "Cc": "a control character",
    "Cf": "a format character",
    "Co": "a private-use character",
    "Cs": "a surrogate",
    "Cn": "an unassigned code point",
}

BOT_LIKE_PATTERN = r"^\s*[Bb][Oo][Tt]\s*[-_.·‐–—]?\s*[0-9]*\s*$"
"""A name that passes for a bot's, as a pattern (ASCII letters; `looks_like_a_bot` also folds
width and case first)."""
_BOT_LIKE = re.compile(BOT_LIKE_PATTERN)


@cache
def refused_bmp_class() -> str:
    """A regex class body of the Basic Multilingual Plane's characters of the refused categories
    (unassigned ones included) and the fillers, in `\\uXXXX` ranges: the schema's pattern.

    >>> refused_bmp_class().startswith("\\\\u0000-\\\\u001f\\\\u007f-\\\\u009f")
    True
    """
    ranges: list[tuple[int, int]] = []
    for code in range(0x10000):
        char = chr(code)
        category = unicodedata.category(char)
        if code in FILLERS or category in REFUSED_CATEGORIES:
            if ranges and ranges[-1][1] == code - 1:
                ranges[-1] = (ranges[-1][0], code)
            else:
                ranges.append((code, code))
    return "".join(f"\\u{a:04x}" if a == b else f"\\u{a:04x}-\\u{b:04x}" for a, b in ranges)


def beyond_the_schema(text: str) -> bool:
    """Whether `text` holds a refused character outside the Basic Multilingual Plane: the one
    part of the rule the schema's pattern cannot say (a JSON Schema pattern has no portable
    escape for such code points), so the server alone refuses it.

    >>> beyond_the_schema("\U000e0041"), beyond_the_schema("\U00020000")
    (True, False)
    """
    return any(ord(char) > 0xFFFF and refused_char(char) is not None for char in text)


def refused_char(text: str) -> tuple[int, str] | None:
    """The first (position, character) of `text` a name may not hold, or None.

    >>> refused_char("阿明"), refused_char("a\\u200bb")
    (None, (1, '\\u200b'))
    """
    for index, char in enumerate(text):
        if ord(char) in FILLERS or unicodedata.category(char) in REFUSED_CATEGORIES:
            return index, char
    return None


def clean_name(text: str) -> str:
    """`text` NFC-normalised, or ValueError naming the first character it may not hold."""
    text = unicodedata.normalize("NFC", text)
    bad = refused_char(text)
    if bad is not None:
        index, char = bad
        label = unicodedata.name(char, "") or _KINDS.get(unicodedata.category(char), "")
        raise ValueError(f"a name may not hold U+{ord(char):04X} at position {index + 1} ({label})")
    if not text.strip():
        raise ValueError("a name needs at least one visible character")
    return text


def looks_like_a_bot(text: str) -> bool:
    """Whether a name would pass for a server bot's (`Bot-N`), whatever its width or case.

    >>> looks_like_a_bot("ＢＯＴ－２"), looks_like_a_bot("Bota"), looks_like_a_bot("robot 1")
    (True, False, False)
    """
    return _BOT_LIKE.match(unicodedata.normalize("NFKC", text).casefold()) is not None


def chosen_name(text: str) -> str:
    """A name a player chose (`hello`): clean, and not one that passes for a bot."""
    text = clean_name(text)
    if looks_like_a_bot(text):
        raise ValueError(f"{text!r} reads as a bot's name; bots are named by the server")
    return text
