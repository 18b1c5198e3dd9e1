"""Rule-based intent parsing: four slots, multi-value slots and a route — no LLM.

Order of work on a question: it is normalized (``agent.normalize``; ``raw_question`` keeps it
as typed); the security gate masks competitor names; period expressions are found (a range of
years expanded into its years; one the fiscal calendar has no period for is kept in
``unknown_periods`` for the gateway to ask about) and masked, and so are accounting standards
("IFRS 17", "US GAAP"); metric, entity and channel aliases are matched longest first (a longer
row label written with other punctuation wins, one written with shortened words is asked
about, and so is a metric's code that several rows' names hold: ``agent.row_choice``) and
masked; cue words decide the route and adjust the slots ("interim" turns a year into its first
half, "by channel" lists every channel); whatever looks like a company, unit or region the
profile does not know is kept in ``unknown_entities`` (and a name that reads as a metric in
``unknown_metrics``) so the clarification gateway can ask instead of guessing — months, table
words, a metric's name in capitals and a unit's short name are not unknown entities
(``agent.not_entities``). A profile with one entity fills the entity slot with it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import date
from functools import lru_cache

from ragspine.agent import cues
from ragspine.agent.analysis_cues import (
    analysis_entities,
    analyst_matcher,
    may_ask_ratio,
    read_analysis,
)
from ragspine.agent.analysis_total import ranged, total_asked, total_channel
from ragspine.agent.analysis_wording import (
    between_asked,
    mean_as_average,
    periods_between,
    without_stray_closers,
)
from ragspine.agent.gazetteer import place_matcher
from ragspine.agent.normalize import normalize_question
from ragspine.agent.not_entities import (
    rules_for,
)
from ragspine.agent.row_choice import longer_labels
from ragspine.agent.security_gate import SecurityGate
from ragspine.agent.spelling import unnamed_slot_misses
from ragspine.agent.types import Analysis, AnalysisOp, ChangeBase, NearMiss, ParsedIntent, Route
from ragspine.agent.unit_request import find_unit_request
from ragspine.agent.unknown_names import SLOT, unknown_entities
from ragspine.profile.glossary import CHANNEL, ENTITY, METRIC, Glossary, glossary_for
from ragspine.profile.matching import AliasHit, MatcherSet, alias_key, detect_language, mask
from ragspine.profile.model import DomainProfile, MetricKind
from ragspine.profile.period_latest import LatestMatch, find_latest
from ragspine.profile.period_parts import part_year
from ragspine.profile.periods import (
    MAX_RANGE_YEARS,
    Period,
    PeriodMatch,
    find_periods,
    merge_ranges,
)


class RuleIntentParser:
    """The default ``IntentParser``: rules and the profile's vocabulary, no model."""

    def __init__(self, profile: DomainProfile) -> None:
        self.profile = profile

    def parse(self, question: str, reference_date: date | None = None) -> ParsedIntent:
        return parse_intent(question, reference_date, profile=self.profile)


@dataclass(frozen=True)
class Given:
    """Slots a follow-up takes from the previous turn, read as if the question named them, so
    the computation it asks for ("and excluding <a unit>?") runs over the previous metric."""

    metrics: tuple[str, ...] = ()
    entities: tuple[str, ...] = ()
    periods: tuple[Period, ...] = ()


@dataclass(frozen=True)
class _Lexicon:
    glossary: Glossary
    gate: SecurityGate
    # The three cue vocabularies and the places the profile does not know, read in one pass
    # over the text left once slots are blanked.
    leftovers: MatcherSet
    breakdown: tuple[str, ...]  # the channels "by channel" lists


def _build_lexicon(profile: DomainProfile) -> _Lexicon:
    glossary = glossary_for(profile)
    known = {alias_key(entry.alias) for entry in glossary.terms.entries()}
    leftovers = MatcherSet(
        [
            cues.NUMERIC,
            cues.GROWTH,
            cues.PROSE_AND_MODIFIERS,
            place_matcher(known),
            analyst_matcher(profile),
        ]
    )
    return _Lexicon(glossary, SecurityGate.of(profile), leftovers, _breakdown_channels(profile))


def _breakdown_channels(profile: DomainProfile) -> tuple[str, ...]:
    """Every channel of the profile but the one that sums them: the store's total channel when
    the profile has one, else the profile's default."""
    total = total_channel(profile)
    return tuple(c.code for c in profile.channels if c.code != total)


# Parses kept per profile object. A question's parse is a pure function of its text, the
# reference date and the profile, and a third of a structured answer's time; the same
# questions come again (a dashboard's, a client's retry, a FAQ-like one). A profile that
# changes is a new object (profiles are frozen), which starts with none.
PARSE_CACHE_SIZE = 1024


def parse_intent(
    question: str,
    reference_date: date | None = None,
    *,
    profile: DomainProfile,
    given: Given | None = None,
) -> ParsedIntent:
    """The intent of ``question`` on ``reference_date`` (default today). The same
    ``ParsedIntent`` object may be returned for the same question again: it is never to be
    changed in place (``dataclasses.replace`` makes a changed copy). ``given`` fills the
    metric, entity and period it names none of (a follow-up's), before the computation is
    read; such a reading is not kept."""
    day = reference_date or date.today()
    if given is not None:
        return _parse(question, day, profile, given)
    parse = profile.compiled("intent-parses", _parser)
    return parse(question, day)


def forget_parses(profile: DomainProfile) -> None:
    """Empty ``profile``'s parse cache: the next question is parsed as if never asked (what
    ``bench/bench_answer.py`` times, a question a user asks for the first time)."""
    cached = profile.compiled("intent-parses", _parser)
    clear = getattr(cached, "cache_clear", None)
    if clear is not None:
        clear()


def _parser(profile: DomainProfile) -> Callable[[str, date], ParsedIntent]:
    def parse(question: str, day: date) -> ParsedIntent:
        return _parse(question, day, profile)

    return lru_cache(maxsize=PARSE_CACHE_SIZE)(parse)


def _parse(
    question: str, reference_date: date, profile: DomainProfile, given: Given | None = None
) -> ParsedIntent:
    lex = profile.compiled("intent-lexicon", _build_lexicon)
    asked = question
    question = normalize_question(question)
    screen = lex.gate.detect(question)
    # "较上年" / "vs last year" names the base of a change, not a period to look up.
    bases = cues.growth_bases(screen.masked_text)
    preceding = cues.sequential_bases(screen.masked_text)  # "较上季度", "vs the previous quarter"
    based = bases + preceding
    text = mask(screen.masked_text, based) if based else screen.masked_text
    # "in billions", "以亿元计", "换算成美元": kept for the answer, blanked so no word of it is
    # read as a name.
    unit_request = find_unit_request(text, profile.company.reporting_currency)
    if unit_request is not None:
        text = mask(text, unit_request.spans)
    # "the latest quarter", "最近半年": a period the facts name (``agent.latest_period``);
    # "the last three quarters" names several and is asked about.
    latest = find_latest(text)
    unnamed: list[tuple[int, int]] = []
    if latest:
        text = mask(text, [(m.start, m.end) for m in latest])
    period_hits = merge_ranges(
        text,
        find_periods(text, reference_date, lex.glossary.calendar, unnamed=unnamed),
    )
    if period_hits or unnamed:
        text = mask(text, [*((p.start, p.end) for p in period_hits), *unnamed])
    names = rules_for(profile)
    # "IFRS 17", "US GAAP": a standard names neither an entity nor a place inside it.
    standards = [(h.start, h.end) for h in names.standards.finditer(text, respace=False)]
    text = mask(text, standards) if standards else text
    # The question is normalized: every run of spaces in the text from here on is a span
    # blanked below, which no alias may match across (``respace=False``).
    terms = lex.glossary.match_terms(text, respace=False)
    # A longer row label written around a shorter one wins; one nearly written is asked about.
    term_hits, unclear = longer_labels(profile).choose(text, terms.hits)
    # An alias glued to a suffix (alias + "率") names a metric we do not know: keep it out of
    # both the slots and the unknown-entity scan, and let the gateway ask which metric.
    other_metrics = [*terms.other_metrics, *unclear] if unclear else terms.other_metrics
    residual = mask(text, [*((h.start, h.end) for h in term_hits), *other_metrics])

    metrics, entities, channels = _codes(term_hits)
    # "2025年前三季度", "YTD Q3 2025": the quarters of a part of a year, for their sum.
    part = part_year(
        screen.masked_text, unnamed, period_hits, reference_date, lex.glossary.calendar
    )
    if part is not None:
        unnamed = []
        period_hits = [hit for hit in period_hits if hit is not part.hit]
    periods, long_range = _periods(period_hits)
    if part is not None:
        periods = part.quarters
    latest_kind = _latest(latest, periods, unnamed)

    numeric_hits, growth_hits, prose_hits, place_hits, analyst_hits = lex.leftovers.finditer(
        residual, respace=False
    )
    if growth_hits:
        growth_hits = cues.without_summing_adds(residual, growth_hits)
    if analyst_hits:
        analyst_hits = without_stray_closers(text, analyst_hits)
        prose_hits = mean_as_average(prose_hits, analyst_hits)
    cue_hits = {
        "numeric": numeric_hits,
        "growth": growth_hits,
        "narrative": [hit for hit in prose_hits if hit.kind == "narrative"],
    }
    modifiers = {hit.kind for hit in prose_hits}
    if "interim" in modifiers:
        periods = tuple(dict.fromkeys(_interim(p) for p in periods))
    if "breakdown" in modifiers and not set(channels) & set(lex.breakdown):
        channels = lex.breakdown

    slot_spans = [(p.start, p.end) for p in period_hits] + [(h.start, h.end) for h in term_hits]
    slot_spans += unnamed
    slot_spans += [(m.start, m.end) for m in latest]
    unslotted = mask(screen.masked_text, other_metrics) if other_metrics else screen.masked_text
    marked = mask(unslotted, slot_spans, fill=SLOT)
    cue_spans = [
        (h.start, h.end)
        for h in (*prose_hits, *cue_hits["numeric"], *cue_hits["growth"], *analyst_hits)
    ]
    cue_spans += standards
    if unit_request is not None:
        cue_spans += unit_request.spans
    # "revnue", "营运利闰": a word one typo away from a name is asked about, not read as a name.
    misses = unnamed_slot_misses(
        residual,
        profile,
        metrics=metrics,
        entities=entities,
        blanked=[(h.start, h.end) for h in place_hits],
        cues=cue_spans,
    )
    cue_spans += [miss.span for miss in misses]
    candidates, unknown_metrics = unknown_entities(
        marked,
        place_hits,
        cue_spans,
        # Capitals mark a name only in a question that uses them: in one typed all in
        # lower case ("aia sales"), any leftover word may be a name.
        any_case=question.lower() == question,
    )
    # Months, standards and table words are not entities; a unit's short name is its entity.
    found = names.sort(candidates) if candidates else None
    if found is not None:
        entities = tuple(dict.fromkeys((*entities, *found.entities)))
        unknown_metrics += found.unknown_metrics
    if unclear:
        unknown_metrics += tuple(_text_of(screen.masked_text, span) for span in unclear)
    unknown_metrics += _typed(misses, METRIC)
    if not entities and len(profile.entities) == 1:  # one entity: nothing to ask or assume
        entities = (profile.entities[0].code,)
    numeric = bool(other_metrics or unknown_metrics or cue_hits["numeric"])
    route = _route(metrics, numeric, cue_hits, "concept" in modifiers)
    if given is not None:
        metrics = metrics or given.metrics
        entities = entities or given.entities
        periods = periods or given.periods
    growth = bool(metrics) and bool(based or cue_hits["growth"])
    analysis = None
    # "total sales from FY2022 to FY2024": "total" over a range of years asks for their sum,
    # "<甲单位>与<乙单位><指标>合计" over several units named for one period too.
    total = None
    several_units = len(entities) > 1 and len(periods) <= 1
    if (
        metrics
        and not growth
        and (several_units or ranged(period_hits, periods, between_asked(analyst_hits)))
    ):
        total = total_asked(text, term_hits, profile, anywhere=several_units)
        if total is not None:
            analyst_hits = [*analyst_hits, total]
    # Most questions name no ranking, total, exclusion or ratio; one naming no metric has
    # nothing to compute (the gateway asks which metric) and keeps its slots as asked, but a
    # cue nothing computes ("and its share?", "那人均呢？") is kept: a follow-up takes its
    # metric from the previous turn and is answered "not computed", never with a plain figure.
    if analyst_hits or may_ask_ratio(text):
        analysis = read_analysis(
            text, analyst_hits, term_hits, entities, periods, growth, lex.glossary.profile
        )
        if not metrics and analysis is not None and analysis.op is not AnalysisOp.UNSUPPORTED:
            analysis = None
        if metrics and analysis is not None:
            entities = analysis_entities(analysis, entities)
            periods = periods_between(analysis, analyst_hits, periods)
            if total is not None and analysis.op is AnalysisOp.CUMULATIVE:
                # "agency channel total gross margin": the channel named beside "total" is summed
                kept = tuple(c for c in channels if c != total_channel(profile))
                channels = kept or channels
    if part is not None and metrics:
        analysis = _part_sum(analysis, growth, metrics, profile, part.said)
    # Positional, in the order of ParsedIntent's fields: sixteen keyword arguments cost 3% of
    # a parse. Each line names its field.
    return ParsedIntent(
        asked,  # raw_question
        route,
        metrics[0] if metrics else None,  # metric
        entities[0] if entities else None,  # entity
        periods[0] if periods else None,  # period
        channels[0] if channels else None,  # channel
        metrics,
        entities,
        periods,
        screen.hits[0] if screen.hit else None,  # external_entity
        # unknown_entities
        (*(found.unknown_entities if found is not None else ()), *_typed(misses, ENTITY)),
        growth or bool(analysis and analysis.by_growth),  # growth
        detect_language(question),  # language
        unit_request.extra() if unit_request is not None else {},  # extra
        channels,
        unknown_metrics,
        long_range,
        tuple(_text_of(screen.masked_text, span) for span in unnamed),  # unknown_periods
        analysis,
        latest_kind,  # latest
        # read without a metric too: a follow-up ("环比呢？") takes the metric from before
        cues.change_base(bases, preceding, cue_hits["growth"])
        if based or cue_hits["growth"]
        else ChangeBase.YEAR,
        tuple(misses),  # near_misses
    )


def _latest(
    found: list[LatestMatch], periods: tuple[Period, ...], unnamed: list[tuple[int, int]]
) -> str | None:
    """The kind of period a "latest quarter / half" asks for. One naming several periods
    ("最近三个季度"), several kinds, or one beside another period ("the latest quarter of
    2025") is added to ``unnamed`` for the gateway to ask about."""
    kinds = {m.kind for m in found}
    if not found or (len(kinds) == 1 and "" not in kinds and not periods and not unnamed):
        return found[0].kind if found else None
    unnamed += [(m.start, m.end) for m in found]
    return None


def _typed(misses: list[NearMiss], kind: str) -> tuple[str, ...]:
    return tuple(miss.typed for miss in misses if miss.kind == kind)


def _text_of(text: str, span: tuple[int, int]) -> str:
    return " ".join(text[span[0] : span[1]].split())


def _codes(hits: list[AliasHit]) -> tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]:
    """The metric, entity and channel codes named, each in order of first mention."""
    named: dict[str, dict[str, None]] = {METRIC: {}, ENTITY: {}, CHANNEL: {}}
    for hit in hits:
        named[hit.kind][hit.code] = None
    return tuple(named[METRIC]), tuple(named[ENTITY]), tuple(named[CHANNEL])


def _periods(hits: list[PeriodMatch]) -> tuple[tuple[Period, ...], tuple[Period, Period] | None]:
    """The periods named, each year of a range in order, and a range too long to expand."""
    if len(hits) == 1 and hits[0].first is None:  # most questions: one period
        return (hits[0].period,), None
    periods: list[Period] = []
    long_range = None
    for hit in hits:
        if hit.years > MAX_RANGE_YEARS and hit.first is not None:
            long_range = (hit.first, hit.period)
        else:
            periods += hit.periods
    return tuple(dict.fromkeys(periods)), long_range


def _part_sum(
    analysis: Analysis | None,
    growth: bool,
    metrics: tuple[str, ...],
    profile: DomainProfile,
    said: str,
) -> Analysis:
    """A part of a year asks for the sum of its quarters: computed for an amount or a count
    that is a flow (a ratio's, a balance's or the quarters of one of unknown nature are shown
    and said not to add up, ``agent.analyst_periods``), never beside another computation (a
    change, a ranking), which would need the sum of a base period too."""
    kinds = {m.kind for m in map(profile.metric, metrics) if m is not None}
    summed = {MetricKind.AMOUNT, MetricKind.COUNT, MetricKind.RATIO}
    if analysis is None and not growth and kinds <= summed:
        return Analysis(AnalysisOp.CUMULATIVE)
    return Analysis(AnalysisOp.UNSUPPORTED, unsupported=(said,))


def _interim(period: Period) -> Period:
    """A fiscal year named as an interim ("2025年中期", "interim 2025") means its first half."""
    return Period(period.year, "H1") if period.type == "FY" else period


def _route(
    metrics: tuple[str, ...], numeric: bool, cue_hits: dict[str, list[AliasHit]], concept: bool
) -> Route:
    """Prose for why/what-is questions, facts for figures, both for a figure and its why.

    A question about what something is or aims at ("What is 报行合一", "the target for a
    metric") asks for no reported value, so it goes to prose even when it names a metric; when
    it also asks for an amount ("目标是多少"), the figure is looked up and the prose follows.
    """
    narrative = bool(cue_hits["narrative"])
    # "增长的原因是什么" asks why a figure moved: a why-question about a metric, not a concept.
    if concept and not (metrics and narrative):
        amount = any(h.code in cues.AMOUNT_ASKED for h in cue_hits["numeric"])
        return Route.COMPOSITE if metrics and amount else Route.NARRATIVE
    if metrics:
        return Route.COMPOSITE if narrative else Route.STRUCTURED
    return Route.NARRATIVE if narrative or not numeric else Route.STRUCTURED
