"""Which analyst cue hits a question means, and the periods they span.

``agent.analysis_cues`` finds the cue words; these helpers settle the ones whose reading
depends on their neighbours: a closer ("以外") no exclusion opens, or that a unit's name opens
("东区以外的销售额" is "除东区以外的销售额"), the verb "mean" ("what does
this ratio mean?") against the average ("the mean sales"), and "between FY2022 and FY2024"
("FY2022和FY2024之间"), every year of which an average or a cumulative total is over.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ragspine.agent.types import Analysis, AnalysisOp
from ragspine.profile.glossary import ENTITY
from ragspine.profile.matching import AliasHit
from ragspine.profile.periods import MAX_RANGE_YEARS, Period

# Closers that leave out the unit named right before them even with no "除" ("东区以外的销售额"):
# unlike "外" alone ("海外", "户外"), never a character of a name.
CLOSE_ALONE = ("以外", "之外")
# "以外汇计", "以外币计": "in a foreign currency", no closer.
_CURRENCY = ("汇", "币")
# What may join the units of one list: "X and Y", "X、Y", "X和Y".
_JOINERS = frozenset({"", "and", "or", "&", ",", "、", "和", "及", "与", "或", "the", "以及"})


def joined(text: str, end: int, term: AliasHit) -> bool:
    """Whether ``term`` continues the list of units whose last name ends at ``end``."""
    return text[end : term.start].strip().casefold().strip(",") in _JOINERS


def without_stray_closers(text: str, hits: Sequence[AliasHit]) -> list[AliasHit]:
    """``hits`` without a closer ("以外", "外") that no exclusion cue ("除") opens before it:
    alone, "外" is a character of a name ("户外", "海外"), not the end of "除X以外"; nor the
    verb "mean" ("what does this ratio mean?"), which asks what a word means, not for
    an average. ``text`` is the question the hits index into."""
    opened = min((h.start for h in hits if h.kind == "exclude"), default=None)
    return [
        h
        for h in hits
        if (h.kind != "close" or h.code in CLOSE_ALONE or (opened is not None and h.start > opened))
        and not (h.text.casefold().endswith("mean") and _verb_mean(text, h))
    ]


# "which year", "in what fiscal year", "哪一年", "哪个财年": the years themselves to be ranked.
_WHICH_YEAR = re.compile(
    r"(?<![A-Za-z])(?:which|what)\s+(?:(?:fiscal|financial)\s+)?years?(?![A-Za-z])"
    r"|哪一?个?(?:年份|财年|年度|年)",
    re.IGNORECASE,
)


def which_year(text: str) -> str:
    """The words asking which year stands out ("哪一年销售额最高", "in which year was it lowest"),
    "" when none: a ranking of years, which no computation here gives (units are ranked)."""
    found = _WHICH_YEAR.search(text)
    return found.group() if found is not None else ""


def opened_by_units(
    text: str, hits: Sequence[AliasHit], terms: Sequence[AliasHit]
) -> list[AliasHit]:
    """An exclusion cue for each closer of ``CLOSE_ALONE`` right after a unit's name when no
    cue opens one ("东区以外", "东区和西区之外"): placed before the first unit of the list, as
    "除" would be, so the units after it are read as left out. ``terms`` are the slot aliases."""
    if any(h.kind == "exclude" for h in hits):
        return []
    opened = []
    for hit in hits:
        if hit.kind != "close" or hit.code not in CLOSE_ALONE:
            continue
        units = [t for t in terms if t.kind == ENTITY and t.end <= hit.start]
        if (
            not units
            or text[units[-1].end : hit.start].strip()
            or text[hit.end : hit.end + 1] in _CURRENCY
        ):
            continue
        first = units[-1]
        for unit in reversed(units[:-1]):
            if not joined(text, unit.end, first):
                break
            first = unit
        opened.append(AliasHit("exclude", hit.code, first.start, first.start, hit.text))
    return opened


def mean_as_average(prose: Sequence[AliasHit], hits: Sequence[AliasHit]) -> list[AliasHit]:
    """The prose cues ``prose`` without a "mean" that ``hits`` (screened by
    ``without_stray_closers``) read as an average: "the mean sales" asks for a figure, not
    for what a word means."""
    averages = [h for h in hits if h.kind == "average" and h.text.casefold().endswith("mean")]
    if not averages:
        return list(prose)
    return [h for h in prose if not any(a.start <= h.start < a.end for a in averages)]


# Words before "mean" that make it a verb: "what does X mean", "what do you mean by".
_BEFORE_VERB_MEAN = frozenset(
    {"do", "does", "did", "to", "i", "you", "we", "they", "it", "this", "that", "these"}
    | {"those", "would", "will", "can", "could", "may", "might", "should", "must", "not"}
)


def _verb_mean(text: str, hit: AliasHit) -> bool:
    """Whether "mean" at ``hit`` is the verb: after a subject or an auxiliary, or ending the
    question ("what does X mean?"); "the mean sales", "mean of X" are averages."""
    before = text[: hit.start].split()
    after = text[hit.end :].strip(" ?？!！.。")
    return not after or (bool(before) and before[-1].casefold() in _BEFORE_VERB_MEAN)


# "between FY2022 and FY2024", "FY2022和FY2024之间": the two years bound a range.
_BETWEEN = frozenset({"between", "之间"})


def between_asked(hits: Sequence[AliasHit]) -> bool:
    """Whether the cue ``hits`` hold "between" ("之间")."""
    return any(h.kind == "from" and h.text.casefold() in _BETWEEN for h in hits)


def periods_between(
    analysis: Analysis, hits: Sequence[AliasHit], periods: tuple[Period, ...]
) -> tuple[Period, ...]:
    """``periods`` with every fiscal year between the two named filled in, when an average or
    a cumulative total over one unit's periods is asked "between" them: the mean "between
    FY2022 and FY2024" is over three years, as "from FY2022 to FY2024" is. Any other question
    keeps the two years it named (a comparison, a change from one to the other)."""
    if (
        analysis.op not in (AnalysisOp.AVERAGE, AnalysisOp.CUMULATIVE)
        or analysis.population
        or len(periods) != 2
        or not between_asked(hits)
    ):
        return periods
    first, last = sorted(periods)
    years = last.year - first.year
    if first.type != "FY" or last.type != "FY" or not 1 < years < MAX_RANGE_YEARS:
        return periods
    return tuple(first.years_later(n) for n in range(years + 1))
