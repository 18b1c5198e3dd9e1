"""Traceability of every number in an answer: the fabrication check the eval and tests share.

A number may appear in an answer, of any kind, only when it is

- an allowed value, or a difference or percentage change (as rendered, two decimals) of two
  allowed values, recomputed here — never a sum or any other combination, except in a computed
  answer (the intent carries an ``analysis``: a ranking, total, exclusion, average, CAGR or
  span), where the sums and means of the allowed values, a value minus a sum, a compound annual
  rate between two of them over the years the question spans, and the ranking's positions are
  recomputed here too (``eval.computed``) — from the allowed values, never from the answer's
  own arithmetic, and sums only within the groups of values that add up (``sum_groups``: the
  eval never adds a balance's values at two period ends); and a derived metric's figure
  (``ratios``: each key's numerator over its denominator, which the caller computes from the
  values it knows by key). The allowed values
  are the caller's oracle (``allowed_values``: the eval passes the ground truth's values for
  the keys the question is about, ``eval.oracle``); without one, the found facts for the
  slots the question asked (its metrics × entities × periods after assumptions, plus a growth
  question's base year) — a self-check that trusts the engine's lookups, which the eval never
  uses;
- in the narrative part, equal to a number written in a passage the sentence cites (any
  cited passage when the sentence cites none; a marker no passage has grounds nothing). This
  check is its own: its own sentence cutting, citation mapping and number reading, not the
  narrative guard's rule, so a bug in the guard is not shared by the measure of it;
- a value pending review for a key (a restatement) that the answer discloses with its source:
  the caller's ``pending_values`` with an oracle, else the result's own;
- part of a period the question named, the gateway assumed or offered, or the answer reported
  as not found;
- a citation index ``[n]``, or inside a document name, a locator, a found fact's row label
  (as the document writes it), a code (``USD_M``), a name
  the caller says the answer may show (``names``: the profile's entity, metric and channel
  names, which answers print instead of codes and which may hold digits), a scale
  written as a power of ten (``×10^2``) or an echo of the user's own words (what the answer
  says it does not compute, an unrecognised parameter, an unknown or competitor name, a period
  expression the calendar has no period for; asking back about one, the month fiscal years end
  in: ``year_end_month``).

Values are read as answers show them (``profile.display``): in ``US$ 3,480 m`` or
``3,480 百万美元`` the number is 3480 (thousands separators read, the symbol and the scale word
are not numbers), in ``63.80%`` it is 63.8.

Anything else is fabricated, and so is every amount of a narrative sentence that states a
value the truth holds differently: ``contradicting`` (the eval's, judged against the ground
truth) returns those amounts; ``facts`` asks the fact table (``agent.consistency``). The check
reads the typed result (the intent, the narrative section and its passages, the sources for
the names and locators it blanks), never the answer's headings, so it needs no knowledge of
the wording.
"""

from __future__ import annotations

import bisect
import math
import re
import unicodedata
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from itertools import product

from ragspine.agent.consistency import FactCheck
from ragspine.agent.types import (
    AgentResult,
    ClarifyReason,
    FactNotFound,
    FoundFact,
    NarrativeSection,
    ParsedIntent,
    Slots,
    UnrecognizedParam,
)
from ragspine.agent.unit_request import requested, rescale_factors
from ragspine.eval.computed import Allowed, computed_values, ratio_values
from ragspine.profile.exchange_rates import ExchangeRateDef
from ragspine.profile.glossary import glossary_for
from ragspine.profile.model import DomainProfile
from ragspine.profile.periods import MAX_RANGE_YEARS, Period, find_periods
from ragspine.storage.facts import DEFAULT_CHANNEL
from ragspine.units import Unit, UnitKind

_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
_CODE = re.compile(r"(?<![A-Za-z0-9_])[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+(?![A-Za-z0-9_])")
_CITATION = re.compile(r"\[(\d+)\]")
_POWER_OF_TEN = re.compile(r"×10\^-?\d+")
_TOLERANCE = 1e-6
# A sentence ends at a CJK or ASCII terminator, a line break, or a "." before whitespace (not
# the point of "55.4"); the "[n]" markers written right after its end still belong to it.
_TERMINATORS = frozenset("。！？!?\n")
_TRAILING_MARKERS = re.compile(r"(?:[ \t]*\[\d+\])+")


@dataclass(frozen=True)
class Fabrication:
    """One number that no allowed source accounts for, and the part of the answer it is in."""

    number: str
    where: str  # "structured" or "narrative"

    def __str__(self) -> str:
        return f"{self.number} ({self.where})"


def asked_slots(intent: ParsedIntent, default_channel: str = DEFAULT_CHANNEL) -> set[Slots]:
    """Every slot combination the question asks for, plus a growth question's base year."""
    metrics = intent.metrics or ((intent.metric,) if intent.metric else ())
    entities = intent.entities or ((intent.entity,) if intent.entity else ())
    periods = intent.periods or ((intent.period,) if intent.period else ())
    channels = intent.channels or (intent.channel or default_channel,)
    asked = {Slots(m, e, p, c) for m, e, p, c in product(metrics, entities, periods, channels)}
    if asks_base_year(intent):
        asked |= {Slots(s.metric, s.entity, s.period.previous_year(), s.channel) for s in asked}
    if intent.analysis is not None:  # a derived metric's operands are shown as its inputs
        for ratio in intent.analysis.ratios:
            of = [s for s in asked if s.metric == ratio.code]
            asked |= {
                replace(s, metric=m) for s in of for m in (ratio.numerator, ratio.denominator)
            }
    return asked


def asks_base_year(intent: ParsedIntent) -> bool:
    """Whether the question compares each period asked with the year before: a growth
    question, unless it is computed over the periods it names (a span, a CAGR), whose inputs are
    those periods alone; a ranking by growth does need each unit's year before."""
    if not intent.growth:
        return False
    return intent.analysis is None or intent.analysis.by_growth


def fabricated_numbers(
    result: AgentResult,
    *,
    allowed_values: Iterable[float] | None = None,
    pending_values: Iterable[float] | None = None,
    default_channel: str = DEFAULT_CHANNEL,
    facts: FactCheck | None = None,
    contradicting: Callable[[str], Sequence[str]] | None = None,
    names: Iterable[str] = (),
    ratios: Iterable[float] | None = None,
    year_end_month: int | None = None,
    exchange_rates: Sequence[ExchangeRateDef] = (),
    sum_groups: Sequence[Sequence[float]] | None = None,
) -> list[Fabrication]:
    """Every number in ``result.answer`` that no allowed source accounts for.

    ``allowed_values`` (with ``pending_values``, the values pending review the answer may
    disclose) replaces the found facts for the asked slots when the caller knows the right
    values independently (the ground truth, a test's own facts): then the answer is judged
    against that oracle, not against what the system returned. ``contradicting`` gives the
    amounts of a narrative sentence that state a key's value differently from the truth;
    ``facts`` counts those of every sentence that contradicts a stored fact. ``ratios`` are
    the derived-metric figures the caller recomputed by key (``computed.ratio_values``); with
    no ``allowed_values``, those the found facts give. ``year_end_month`` is the profile's: a
    question about a period the calendar does not have is asked back stating the month fiscal
    years end in. ``exchange_rates`` are the profile's declared rates: with a currency asked
    for, an allowed value times a rate from a found figure's currency into it (at the scale
    asked) is allowed within the rounding of the number as written, and the rate, its date and
    its source may be shown; any other converted figure is fabricated. ``sum_groups`` are the
    groups of allowed values a computed answer may add up, one group at a time
    (``computed.sum_groups``); all of them together when None.
    """
    if allowed_values is None:
        allowed_values = _asked_fact_values(result, default_channel)
        pending_values = [p.value for p in result.pending]
        ratios = _found_ratios(result, default_channel)
    # A derived figure beside its inputs: the difference from a stated one is arithmetic too.
    allowed = [*allowed_values, *(ratios or ())]
    values = _with_arithmetic(allowed) + [abs(v) for v in pending_values or ()]
    if result.intent is not None and result.intent.analysis is not None:
        values += computed_values(allowed, result.intent, sum_groups)
    # A figure converted at a declared rate: an allowed value times the rate, as rounded.
    rates, factors = _conversion_factors(result, exchange_rates)
    converted = _Rounded([v * factor for factor in factors for v in values])
    values += [float(rate.rate) for rate in rates]
    # An amount rescaled on request ("in billions"): a found value times a power of ten.
    values += [v * factor for factor in rescale_factors(result) for v in values]
    covered = Allowed(values)
    structured, narrative = _split(result)
    shown_names = (*names, *(t for r in rates for t in (r.as_of.isoformat(), r.source)))
    found = [
        Fabrication(n, "structured")
        for n in _numbers(_blank_known_text(structured, result, shown_names, year_end_month))
        if not covered.holds(n) and not converted.holds(n)
    ]
    if narrative is not None:
        found += [Fabrication(n, "narrative") for n in _ungrounded(narrative, result)]
        if facts is not None:
            found += [Fabrication(n, "narrative") for n in _contradicting(narrative, facts)]
        if contradicting is not None:
            for sentence in sentences(narrative.body):
                found += [Fabrication(n, "narrative") for n in contradicting(sentence)]
    return found


def _conversion_factors(
    result: AgentResult, rates: Sequence[ExchangeRateDef]
) -> tuple[list[ExchangeRateDef], list[float]]:
    """The declared rates from a found figure's currency into the currency the question asks
    for, and the factors they multiply a value by (the rate, times the power of ten from the
    figure's scale to the scale asked)."""
    scale, currency = requested(result.intent)
    if currency is None or not rates:
        return [], []
    used: dict[ExchangeRateDef, None] = {}
    factors: set[float] = set()
    for fact in result.tool_results:
        if not isinstance(fact, FoundFact):
            continue
        try:
            unit = Unit.parse(fact.unit)
        except ValueError:
            continue
        power = unit.scale - scale if scale is not None and unit.kind is UnitKind.AMOUNT else 0
        for rate in rates:
            if rate.from_currency == unit.currency and rate.to_currency == currency:
                used[rate] = None
                factors.add(float(rate.rate) * 10.0**power)
    return list(used), sorted(factors)


class _Rounded:
    """Values a number may state rounded to its own last digit ("19,300.6", "3.12")."""

    def __init__(self, values: Iterable[float]) -> None:
        self._values = sorted(abs(v) for v in values if math.isfinite(v))

    def holds(self, number: str) -> bool:
        stated = _as_float(number)
        if stated is None or not self._values:
            return False
        digits = _canonical(number).partition(".")[2]
        slack = 0.5 * 10.0 ** -len(digits) + _TOLERANCE
        at = bisect.bisect_left(self._values, stated - slack)
        return at < len(self._values) and self._values[at] <= stated + slack


def _contradicting(section: NarrativeSection, facts: FactCheck) -> list[str]:
    """The numbers of the narrative sentences that state a stored key's value differently
    (the period they name is not one of them)."""
    calendar = glossary_for(facts.profile).calendar
    found: list[str] = []
    for sentence in sentences(section.body):
        if facts.contradicts(sentence):
            text = _CITATION.sub(" ", sentence)
            # Right to left, so the spans still to blank keep their offsets.
            for period in reversed(find_periods(text, facts.day, calendar)):
                text = f"{text[: period.start]} {text[period.end :]}"
            found += _numbers(text)
    return found


def profile_names(profile: DomainProfile) -> list[str]:
    """Every name an answer may show for a profile code (``profile.display``)."""
    pairs = [(e.name_zh, e.name_en) for e in profile.entities]
    pairs += [(m.name_zh, m.name_en) for m in profile.all_metrics]
    pairs += [(c.name_zh, c.name_en) for c in profile.channels]
    return [name for pair in pairs for name in pair if name]


def _asked_fact_values(result: AgentResult, default_channel: str) -> list[float]:
    if result.intent is None:
        return []
    asked = asked_slots(result.intent, default_channel)
    return [r.value for r in result.tool_results if isinstance(r, FoundFact) and r.slots in asked]


def _found_ratios(result: AgentResult, default_channel: str) -> list[float]:
    """The derived figures the found facts of the keys asked give (the self-check's)."""
    if result.intent is None:
        return []
    found: dict[Slots, list[float]] = {}
    for r in result.tool_results:
        if isinstance(r, FoundFact):
            found.setdefault(r.slots, []).append(r.value)
    asked = asked_slots(result.intent, default_channel)
    return ratio_values(result.intent, asked, lambda slots: found.get(slots, []))


def _with_arithmetic(values: list[float]) -> list[float]:
    """The values, their pairwise differences and percentage changes (as rendered: 2 decimals)."""
    allowed = [abs(v) for v in values]
    for a in values:
        for b in values:
            allowed.append(abs(a - b))
            if b:
                allowed.append(round(abs((a - b) / b * 100), 2))
    return allowed


def _split(result: AgentResult) -> tuple[str, NarrativeSection | None]:
    """The answer without its narrative section (text before and after it), and the section."""
    section = result.narrative
    if section is None:
        return result.answer, None
    at = result.answer.rfind(section.text)
    if at < 0:
        return result.answer, None
    rest = result.answer[at + len(section.text) :]
    return f"{result.answer[:at]}\n{rest}", section


def _blank_known_text(
    text: str, result: AgentResult, names: tuple[str, ...] = (), year_end_month: int | None = None
) -> str:
    """Blank everything that may hold digits without stating a value (see the module doc)."""
    echoes: list[str] = [n for n in names if any(c.isdigit() for c in n)]
    for source in result.sources:
        echoes += [source.doc, source.locator]
    for pending in result.pending:
        echoes += [pending.doc_id, pending.locator]
    for r in result.tool_results:
        if isinstance(r, FoundFact):
            # The row's label is shown as the document writes it, like the locator: its
            # digits ("2019 restated") name the row, they state no value.
            echoes += [r.source.doc, r.source.locator, r.row_label or ""]
        elif isinstance(r, UnrecognizedParam):
            echoes.append(r.raw)
    clar = result.clarification
    echoes += clar.narrowing_options
    if clar.reason is ClarifyReason.PERIOD_RANGE:  # the gateway states its own limit
        echoes.append(str(MAX_RANGE_YEARS))
    if clar.reason is ClarifyReason.UNKNOWN_PERIOD and year_end_month is not None:
        echoes.append(str(year_end_month))  # ... and the calendar the period is not in
    echoes += [p.label for p in _allowed_periods(result)]
    if result.intent is not None:
        echoes += result.intent.unknown_entities
        echoes += result.intent.unknown_periods  # a date the calendar has no period for
        if result.intent.analysis is not None:  # what is not computed, quoted as asked
            echoes += result.intent.analysis.unsupported
        if result.intent.external_entity:
            echoes.append(result.intent.external_entity)
    for echo in sorted((e for e in echoes if e), key=len, reverse=True):
        text = text.replace(echo, " ")
    return _CODE.sub(" ", _POWER_OF_TEN.sub(" ", text))


def _allowed_periods(result: AgentResult) -> list[Period]:
    periods: list[Period] = []
    if result.intent is not None:
        periods += result.intent.periods
        if result.intent.period is not None:
            periods.append(result.intent.period)
        if result.intent.growth:
            periods += [p.previous_year() for p in periods]
        if result.intent.long_range is not None:
            periods += result.intent.long_range
    if result.clarification.assumed_period is not None:
        periods.append(result.clarification.assumed_period)
    for r in result.tool_results:
        if isinstance(r, FactNotFound | FoundFact):
            periods.append(r.slots.period)
    return periods


def _ungrounded(section: NarrativeSection, result: AgentResult) -> list[str]:
    """Numbers of the narrative that the passages their sentence may draw on do not hold.

    The citations are the passages listed as sources, so a sentence citing none may use any
    of them; one citing only markers no passage has may use none.
    """
    written: dict[int, list[float]] = {}
    for citation in section.citations:
        written.setdefault(citation.number, []).extend(_values_in(citation.passage))
    pool = [v for values in written.values() for v in values]
    bad: list[str] = []
    for sentence in sentences(section.body):
        marks = [int(n) for n in _CITATION.findall(sentence)]
        grounds = [v for n in marks for v in written.get(n, ())] if marks else pool
        text = _blank_known_text(_CITATION.sub(" ", sentence), result)
        bad += [n for n in _numbers(text) if not _written(n, grounds)]
    return bad


def sentences(text: str) -> list[str]:
    """``text`` cut into sentences, each with the ``[n]`` markers written right after it."""
    cut: list[str] = []
    start = i = 0
    while i < len(text):
        ch = text[i]
        i += 1
        if ch in _TERMINATORS or (ch == "." and (i == len(text) or text[i].isspace())):
            markers = _TRAILING_MARKERS.match(text, i)
            i = markers.end() if markers else i
            cut.append(text[start:i])
            start = i
    cut.append(text[start:])
    return [s for s in cut if s.strip()]


def _values_in(passage: str) -> list[float]:
    """The numbers a passage writes, as values (full-width digits and separators read)."""
    read = (_as_float(n) for n in _numbers(unicodedata.normalize("NFKC", passage)))
    return [v for v in read if v is not None]


def _numbers(text: str) -> list[str]:
    return _NUMBER.findall(text)


def _canonical(number: str) -> str:
    return number.replace(",", "")


def _written(number: str, values: list[float]) -> bool:
    """Whether ``number`` is one of ``values`` exactly (a passage's own figures: no rounding)."""
    stated = _as_float(number)
    return stated is not None and any(
        math.isclose(stated, v, rel_tol=0, abs_tol=_TOLERANCE) for v in values
    )


def _as_float(number: str) -> float | None:
    try:
        return float(_canonical(number))
    except ValueError:  # "1.2.3": digits and points, but no number
        return None
