"""Scale and currency on request: "in billions", "以亿元计" and the like.

A question may ask for its figures in another scale ("in billions", "in thousands",
"以亿元计", "以百万元计") or another currency ("in euros", "换算成美元", "以亿美元计"), or ask how
many of them the figure is ("how many billion US dollars", "是多少亿美元", "几亿港元"). The parser
finds such a request (``find_unit_request``), blanks it so that no word of it reads as a name,
and keeps it in the intent's ``extra``. The answer then keeps every found fact's own line (the
cited figure) and adds, for each amount, the same figure rescaled by code: a power of ten
within the fact's own currency, exact in decimal. A figure in another currency than the one
asked is converted at a rate the profile declares (``agent.conversion``: the latest of its
pair dated on or before the end of the figure's period), the line showing the rate, its date
and its source; without such a rate the conversion is refused with the reason (none declared,
or every declared rate dated after the period) and the figure stays in its reported currency.
A percentage or a count has no scale or currency to change, which the answer says too. A
request is never silently dropped, on a plain answer or a computed one (``agent.analyst``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal
from functools import lru_cache

from babel.numbers import get_currency_name

from ragspine.agent.conversion import (
    Computed,
    PostDated,
    computed_conversion_lines,
    converted,
    exchange_rate,
    rate_words,
    target_unit,
)
from ragspine.agent.messages import Messages
from ragspine.agent.render import found_subject
from ragspine.agent.types import AgentResult, FoundFact, ParsedIntent
from ragspine.profile.display import Names
from ragspine.profile.exchange_rates import ExchangeRateDef
from ragspine.units import Unit, UnitKind, currency_spellings, resolve

__all__ = [
    "CURRENCY_KEY",
    "SCALE_KEY",
    "UnitRequest",
    "computed_unit_lines",
    "exchange_rate",
    "find_unit_request",
    "rescale_factors",
    "unit_request_lines",
]

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
_ZH_SCALES = {
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
                scale = _ZH_SCALES[zh_scale]
            if name and name != "元":
                currency = resolve(name, reporting_currency) or currency
    if scale is None and currency is None:
        return None
    return UnitRequest(scale, currency, tuple(spans))


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
    names = {s for s in currency_spellings() if s and all("\u4e00" <= ch <= "\u9fff" for ch in s)}
    names -= set(_ZH_SCALES)
    currencies = "|".join(re.escape(n) for n in sorted(names, key=len, reverse=True))
    scales = "|".join(sorted(_ZH_SCALES, key=len, reverse=True))
    return re.compile(
        rf"(?P<lead>{_ZH_LEAD}|{_ZH_HOW_MUCH})\s*(?:{_ZH_HOW_MUCH})?\s*(?P<scale>{scales})?\s*"
        rf"(?P<cur>{currencies}|元)?\s*"
        rf"(?P<tail>{_ZH_TAIL})?"
    )


def requested(intent: ParsedIntent | None) -> tuple[int | None, str | None]:
    """The scale and currency ``intent`` asks for (``None`` each when it asks for none)."""
    if intent is None or not intent.extra:
        return None, None
    scale = intent.extra.get(SCALE_KEY)
    return (int(scale) if scale is not None else None), intent.extra.get(CURRENCY_KEY)


def unit_request_lines(
    intent: ParsedIntent,
    found: Sequence[FoundFact],
    msgs: Messages,
    default_channel: str,
    names: Names,
) -> list[str]:
    """The lines a unit request adds under the found facts: each amount rescaled or converted,
    a percentage or count left as is, a conversion refused, each said once."""
    scale, currency = requested(intent)
    if scale is None and currency is None:
        return []
    lines: list[str] = []
    zh = intent.language == "zh"
    not_scalable: list[str] = []
    refused: dict[str, None] = {}
    post_dated: dict[str, tuple[list[str], ExchangeRateDef]] = {}
    moneyless: list[str] = []  # a percentage or count asked for in a currency
    for fact in found:
        try:
            unit = Unit.parse(fact.unit)
        except ValueError:
            continue
        rate: ExchangeRateDef | None = None
        if currency is None or unit.currency == currency:
            pass
        elif unit.currency is None:
            moneyless.append(names.metric(fact.slots.metric))
        else:
            choice = exchange_rate(names.profile, unit.currency, currency, fact.slots.period)
            if isinstance(choice, ExchangeRateDef):
                rate = choice
            elif isinstance(choice, PostDated):
                periods, _ = post_dated.setdefault(unit.currency, ([], choice.earliest))
                periods.append(fact.slots.period.label)
            else:
                refused[unit.currency] = None
        if scale is not None and (unit.kind is not UnitKind.AMOUNT or unit.currency is None):
            not_scalable.append(names.metric(fact.slots.metric))
        if rate is not None and currency is not None:
            lines.append(_converted_line(fact, unit, rate, scale, currency, msgs, names, zh))
            continue
        if scale is None or unit.kind is not UnitKind.AMOUNT or unit.currency is None:
            continue
        shifted = float(_shifted(fact.value, unit.scale - scale))
        value = names.value(shifted, Unit(UnitKind.AMOUNT, unit.currency, scale))
        label = _scale_label(scale, unit.currency, zh)
        where = fact.source
        lines.append(
            msgs.rescaled(
                found_subject(fact, msgs, default_channel, names),
                label,
                value,
                names.value(fact.value, fact.unit),
                where.doc,
                where.locator,
            )
        )
    if not_scalable:
        lines.append(msgs.not_rescalable(list(dict.fromkeys(not_scalable))))
    if currency is not None and refused:
        lines.append(msgs.no_conversion(currency, list(refused)))
    for reported, (periods, earliest) in post_dated.items():
        assert currency is not None  # only a currency asked for is converted
        when = list(dict.fromkeys(periods))
        lines.append(msgs.rate_post_dated(currency, reported, when, earliest.as_of.isoformat()))
    if moneyless:
        lines.append(msgs.no_currency(list(dict.fromkeys(moneyless))))
    return lines


def _converted_line(
    fact: FoundFact,
    unit: Unit,
    rate: ExchangeRateDef,
    scale: int | None,
    currency: str,
    msgs: Messages,
    names: Names,
    zh: bool,
) -> str:
    """A found figure converted at ``rate``, with the original, the rate and both sources."""
    to = target_unit(unit, currency, scale)
    value = names.value(float(converted(fact.value, unit, rate, scale)), to)
    return msgs.converted(
        found_subject(fact, msgs, names.profile.defaults.channel, names),
        _conversion_label(currency, scale if unit.kind is UnitKind.AMOUNT else None, zh),
        value,
        names.value(fact.value, fact.unit),
        *rate_words(rate),
        fact.source.doc,
        fact.source.locator,
    )


def computed_unit_lines(
    intent: ParsedIntent, computed: Sequence[Computed], msgs: Messages, names: Names
) -> list[str]:
    """Each computed figure of an answer converted into the currency asked, once, or why not
    (``agent.conversion.computed_conversion_lines``)."""
    scale, currency = requested(intent)
    if currency is None:
        return []
    label = _conversion_label(currency, scale, intent.language == "zh")
    return computed_conversion_lines(names.profile, computed, (scale, currency), label, msgs, names)


def rescale_factors(result: AgentResult) -> list[float]:
    """The factors by which the answer's rescaled lines multiply a found amount (for the
    fabrication check: such a figure is a found value times a power of ten asked for)."""
    scale, _ = requested(result.intent)
    if scale is None:
        return []
    factors = set()
    for r in result.tool_results:
        if isinstance(r, FoundFact):
            try:
                unit = Unit.parse(r.unit)
            except ValueError:
                continue
            if unit.kind is UnitKind.AMOUNT:
                factors.add(10.0 ** (unit.scale - scale))
    return sorted(factors)


def _shifted(value: float, power: int) -> str:
    """``value`` times 10**power, exact in decimal, written without exponent or trailing 0."""
    return _plain_decimal(Decimal(repr(value)).scaleb(power))


def _plain_decimal(number: Decimal) -> str:
    return format(number.normalize(), "f")


_EN_SCALE_NAMES = {
    3: "thousands",
    4: "ten-thousands",
    6: "millions",
    7: "ten-millions",
    8: "hundred-millions",
    9: "billions",
    10: "ten-billions",
    11: "hundred-billions",
    12: "trillions",
}


def _conversion_label(currency: str, scale: int | None, zh: bool) -> str:
    """ "HKD" / "HKD billions" / "港元" / "亿港元": what a converted figure is in."""
    if scale is not None:
        return _scale_label(scale, currency, zh)
    return get_currency_name(currency, locale="zh") if zh else currency


def _scale_label(scale: int, currency: str, zh: bool) -> str:
    """ "亿美元" / "USD billions" (every scale a request can name has a name)."""
    if zh:
        name = get_currency_name(currency, locale="zh")
        word = next(w for w, s in _ZH_SCALES.items() if s == scale)
        return f"{word}{name}"
    return f"{currency} {_EN_SCALE_NAMES[scale]}"
