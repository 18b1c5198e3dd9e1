"""Finding a scale or currency request in a question ("in billions", "以亿元计", "in euros",
"换算成港元", "how many billion US dollars", "是多少亿美元") for ``agent.unit_request`` to apply.

``find_unit_request`` returns what was asked and where it was said, so the parser can blank it
and no word of it reads as a name. A request is opened by a lead word ("in", "into",
"convert to", "how many"; "以…计", "换算成", "单位：", "多少"), or stands bare at the end of the
question ("… sales 2025 HKD bn", "…，港元"): written there, a currency code or symbol or a
scale word asks for nothing else.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from ragspine.units import currency_spellings, is_currency, resolve

SCALE_KEY = "scale"
CURRENCY_KEY = "currency"

_EN_SCALES = {
    "thousand": 3,
    "thousands": 3,
    "million": 6,
    "millions": 6,
    "mn": 6,
    "billion": 9,
    "billions": 9,
    "bn": 9,
    "trillion": 12,
    "trillions": 12,
}
ZH_SCALES = {
    "千": 3,
    "万": 4,
    "百万": 6,
    "千万": 7,
    "亿": 8,
    "十亿": 9,
    "百亿": 10,
    "千亿": 11,
    "万亿": 12,
}
# Words that may sit between the parts of an English request: "in billions of US dollars".
_EN_GLUE = frozenset({"of", "the"})
# Where an English request may start; the words after it are read one by one (a lead that
# is followed by neither a scale nor a currency, as in "in FY2024" or "how many agents", is
# passed over). "how many" stays outside the request's span: it is the cue that a figure is
# asked for, which the parser still reads.
_EN_LEAD = re.compile(
    r"\b(?:in|into|convert(?:ed)?\s+(?:in)?to|(?P<how>how\s+many))\s+", re.IGNORECASE
)
_EN_READ = 60  # characters after a lead: five words at most
_EN_WORD = re.compile(r"[A-Za-z$€£¥][\w$€£¥.'’]*")
# "以亿元计", "以百万美元为单位", "按港元计", "单位：亿元", "换算成美元", "折合人民币".
_ZH_LEAD = (
    r"(?:以|按|用)|(?:单位\s*[:：为是]?|换算\s*[成为]?|折合\s*[成为]?|折算\s*[成为]?|转换\s*[成为])"
)
_ZH_TAIL = r"(?:计算|计|为单位|表示|列示)"
# A question word between the lead and what it asks for: "折合多少港元", "换算成几亿美元";
# alone, it leads a request too when a scale or a currency follows it ("是多少亿美元", "几亿").
_ZH_HOW_MUCH = r"多少|几"


@dataclass(frozen=True)
class UnitRequest:
    """A scale (power of ten) and/or a currency (ISO code) asked for, and where it was said."""

    scale: int | None
    currency: str | None
    spans: tuple[tuple[int, int], ...]

    def extra(self) -> dict[str, str]:
        found: dict[str, str] = {}
        if self.scale is not None:
            found[SCALE_KEY] = str(self.scale)
        if self.currency is not None:
            found[CURRENCY_KEY] = self.currency
        return found


def find_unit_request(text: str, reporting_currency: str | None) -> UnitRequest | None:
    """The scale and currency ``text`` asks its figures in, or ``None``."""
    scale: int | None = None
    currency: str | None = None
    spans: list[tuple[int, int]] = []
    for match in _EN_LEAD.finditer(text) if _may_ask_in_english(text) else ():
        first = _EN_WORD.match(text, match.end())
        if first is None or _first_word(first.group()) not in _request_openers():
            continue
        read = _read_english(text[match.end() : match.end() + _EN_READ], reporting_currency)
        if read is None:
            continue
        length, asked_scale, asked_currency = read
        start = match.end() if match.group("how") else match.start()
        spans.append((start, match.end() + length))
        scale = asked_scale if asked_scale is not None else scale
        currency = asked_currency or currency
    if not text.isascii() and _ZH_LEAD_CHARS.search(text) is not None:
        for match in _zh_request().finditer(text):
            zh_scale, name, tail = match.group("scale"), match.group("cur"), match.group("tail")
            lead = match.group("lead")
            if not (zh_scale or name) or (lead in ("以", "按", "用") and not tail):
                continue
            # "多少" stays outside the span, as "how many" does in English.
            spans.append(
                (match.end("lead") if lead in _ZH_HOW_MUCH_WORDS else match.start(), match.end())
            )
            if zh_scale:
                scale = ZH_SCALES[zh_scale]
            if name and name != "元":
                currency = resolve(name, reporting_currency) or currency
    if scale is None and currency is None:
        bare = _bare_request(text, reporting_currency)
        if bare is None:
            return None
        start, end, scale, currency = bare
        spans.append((start, end))
    return UnitRequest(scale, currency, tuple(spans))


# What may follow a bare request at the end of the question, and stand before one.
_END = re.compile(r"[\s?？!！.。)）]*$")
_BEFORE_BARE = frozenset(" \t,，(（")


def _bare_request(
    text: str, reporting_currency: str | None
) -> tuple[int, int, int | None, str | None] | None:
    """A scale or currency written bare at the end of the question, no lead word before it
    ("sales 2025 HKD bn", "profit 2023 hkd", "2025年销售额（亿港元）"): its span and
    what it asks for. Only a currency code or symbol counts in English (a name such as
    "dollars" may be a word of the question), and never right after a number ("3.1 bn" states
    a figure)."""
    end = _END.search(text)
    stop = end.start() if end is not None else len(text)
    tokens = list(_EN_WORD.finditer(text, 0, stop))[-3:]
    for i, token in enumerate(tokens):
        start = token.start()
        if (start and text[start - 1] not in _BEFORE_BARE) or not all(
            _bare_word(t.group()) for t in tokens[i:]
        ):
            continue
        read = _read_english(text[start:stop], reporting_currency)
        if read is not None and start + read[0] == stop and not _after_number(text, start):
            return start, stop, read[1], read[2]
    match = _zh_bare().search(text, 0, stop)
    if match is None or _after_number(text, match.start()):
        return None
    zh_scale, name = match.group("scale"), match.group("cur")
    if not name or (name == "元" and not zh_scale):
        return None
    asked = resolve(name, reporting_currency) if name != "元" else None
    return match.start(), stop, ZH_SCALES[zh_scale] if zh_scale else None, asked


def _bare_word(word: str) -> bool:
    lowered = word.lower().rstrip(".")
    if lowered in _EN_SCALES:
        return True
    symbol = any(mark in word for mark in "$€£¥")
    return symbol or (len(lowered) == 3 and lowered.isalpha() and is_currency(lowered.upper()))


# The number a bare request may follow: an amount ("3.1 bn") states a figure; a year ("2024
# hkd", "FY2024 HKD", "2025年") does not.
_NUMBER_BEFORE = re.compile(r"(?P<lead>[A-Za-z]?)(?P<number>[\d.,]+)\s*$")
_YEAR = re.compile(r"(?:19|20)\d\d")


def _after_number(text: str, start: int) -> bool:
    number = _NUMBER_BEFORE.search(text, 0, start)
    if number is None:
        return False
    return not (number["lead"] or _YEAR.fullmatch(number["number"]))


@lru_cache(maxsize=1)
def _zh_alternations() -> tuple[str, str]:
    """The Chinese currency names (read from CLDR on first use) and scale words, each as a
    regex alternation, longest first."""
    names = {s for s in currency_spellings() if s and all("\u4e00" <= ch <= "\u9fff" for ch in s)}
    names -= set(ZH_SCALES)
    currencies = "|".join(re.escape(n) for n in sorted(names, key=len, reverse=True))
    scales = "|".join(sorted(ZH_SCALES, key=len, reverse=True))
    return currencies, scales


@lru_cache(maxsize=1)
def _zh_bare() -> re.Pattern[str]:
    """A Chinese scale and/or currency name ending the question ("…销售额 港元", "（亿美元）")."""
    currencies, scales = _zh_alternations()
    return re.compile(
        rf"[\s，,（(]*(?P<scale>{scales})?\s*(?P<cur>{currencies}|元)\s*[)）]?\s*(?=[?？。!！]*$)"
    )


def _read_english(
    words: str, reporting_currency: str | None
) -> tuple[int, int | None, str | None] | None:
    """How much of ``words`` (after "in") names a scale and/or a currency: its length and
    what it asks for; ``None`` when its first word is neither."""
    tokens = list(_EN_WORD.finditer(words))[:5]
    scale: int | None = None
    currency: str | None = None
    end = 0
    i = 0
    spellings = None
    while i < len(tokens):
        word = tokens[i].group().lower().rstrip(".")
        if word in _EN_SCALES:
            scale, end, i = _EN_SCALES[word], tokens[i].end(), i + 1
            continue
        if word in _EN_GLUE and end:
            i += 1
            continue
        spellings = spellings or currency_spellings()
        for size in (3, 2, 1):  # the longest spelling first: "US dollars" before "dollars"
            if i + size > len(tokens):
                continue
            phrase = " ".join(t.group().lower() for t in tokens[i : i + size])
            # A word may carry the sentence's full stop ("in euros."); a spelling's own
            # dots ("u.s.") are tried first.
            stop = 0 if phrase in spellings else len(phrase) - len(phrase.rstrip("."))
            phrase = phrase[: len(phrase) - stop]
            if phrase in spellings and _currency_word(phrase):
                currency = resolve(phrase, reporting_currency)
                end, i = tokens[i + size - 1].end() - stop, i + size
                break
        else:
            break
    if not end:
        return None
    return end, scale, currency


def _currency_word(phrase: str) -> bool:
    """A spelling that names money in a question, not an ordinary word CLDR also lists."""
    return len(phrase) > 1 and phrase not in _NOT_CURRENCY_WORDS


# Spellings CLDR lists that are ordinary words after "in" ("in all", "in top").
_NOT_CURRENCY_WORDS = frozenset({"all", "top", "mop", "cup", "try", "gel", "bob", "sos", "mad"})


def _may_ask_in_english(text: str) -> bool:
    """Whether a word that can open a request follows "in", "into" or "to": most questions'
    "in" is followed by a period or a place, and a split and a few set lookups pass them over
    (cheaper than the lead pattern's scan)."""
    words = text.lower().split()
    for i in range(len(words) - 1):
        if words[i] in _LEAD_WORDS or (words[i] == "many" and i and words[i - 1] == "how"):
            after = _first_word(words[i + 1].strip("?!,;:()"))
            if after in _request_openers():
                return True
    return False


_LEAD_WORDS = frozenset({"in", "into", "to"})


def _first_word(word: str) -> str:
    return word.lower().rstrip(".")


@lru_cache(maxsize=1)
def _request_openers() -> frozenset[str]:
    """Every word an English request can open with: a scale word or a currency spelling's
    first word."""
    spellings = (s for s in currency_spellings() if _currency_word(s))
    return frozenset(_EN_SCALES) | {_first_word(s.split()[0]) for s in spellings if s.split()}


# Every Chinese request opens with one of these characters (see ``_ZH_LEAD``).
_ZH_LEAD_CHARS = re.compile("[以按用单换折转多几]")
_ZH_HOW_MUCH_WORDS = frozenset(_ZH_HOW_MUCH.split("|"))


@lru_cache(maxsize=1)
def _zh_request() -> re.Pattern[str]:
    """The Chinese request pattern, its currency names read from CLDR on first use."""
    currencies, scales = _zh_alternations()
    return re.compile(
        rf"(?P<lead>{_ZH_LEAD}|{_ZH_HOW_MUCH})\s*(?:{_ZH_HOW_MUCH})?\s*(?P<scale>{scales})?\s*"
        rf"(?P<cur>{currencies}|元)?\s*"
        rf"(?P<tail>{_ZH_TAIL})?"
    )
