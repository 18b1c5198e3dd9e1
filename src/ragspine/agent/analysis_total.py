""" "Total sales from FY2022 to FY2024": the word "total" asking for a cumulative total.

"Total" (总, 合计, 总计, 总额) next to a metric asks for the whole of it. Over one period that is
the plain figure ("total sales in FY2024"), which the default channel already holds. Over a
range of several years ("from FY2022 to FY2024", "2022至2024年", "between FY2022 and FY2024")
it asks for the sum over the range: ``total_asked`` finds the word, and
``agent.analysis_cues.read_analysis`` reads it as a cumulative total when no other computation
is asked (a population — "total sales of all regions" — is summed over its units instead).

The word may reach the parser as part of a metric's alias ("total sales", "总销售额"), as the
alias of the channel that sums the others ("total", "合计") or as a leftover word; all three
read the same. It is no qualifier when the metric's own name holds it ("Total assets",
"资产总额": the name of the figure, not a sum asked for), when the metric is a ratio (ratios do
not add up), or when the word is part of another name the question holds.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ragspine.profile.glossary import CHANNEL, METRIC
from ragspine.profile.matching import AliasHit, alias_key
from ragspine.profile.model import DomainProfile, MetricKind
from ragspine.profile.periods import Period, PeriodMatch
from ragspine.storage.facts import DEFAULT_CHANNEL

TOTAL = "total"  # the kind of the cue hit ``total_asked`` returns

_BEFORE_EN = re.compile(r"(?<![A-Za-z])total\s*$", re.IGNORECASE)
_AFTER_EN = re.compile(r"^\s*(?:in\s+)?total(?![A-Za-z])", re.IGNORECASE)
_BEFORE_ZH = ("合计", "总计", "总")
_AFTER_ZH = ("合计", "总计", "总额")
# What may stand between a Chinese total word and the metric before it ("公司的总销售额").
_LINK_ZH = "的"


def total_channel(profile: DomainProfile) -> str:
    """The channel that sums the others: the store's total channel when the profile has
    one, else the profile's default."""
    codes = {c.code for c in profile.channels}
    return DEFAULT_CHANNEL if DEFAULT_CHANNEL in codes else profile.defaults.channel


def ranged(period_hits: Sequence[PeriodMatch], periods: tuple[Period, ...], between: bool) -> bool:
    """Whether the periods asked form a range of several years: one range expression ("FY2022
    to FY2024", "近三年"), or two fiscal years asked "between"."""
    if any(hit.first is not None and hit.years > 1 for hit in period_hits):
        return True
    return between and len(periods) == 2 and all(p.type == "FY" for p in periods)


def total_asked(
    text: str, terms: Sequence[AliasHit], profile: DomainProfile, anywhere: bool = False
) -> AliasHit | None:
    """The word asking for the total of a metric the ``terms`` name in ``text`` ("total",
    "总", "合计"), as a cue hit of kind ``TOTAL`` over that word, or None. ``anywhere``: the
    total channel's name counts wherever it stands ("<甲单位>与<乙单位>的<指标>对比，合计多少":
    several units named, whose total is asked however far from the metric)."""
    total = total_channel(profile)
    if anywhere:
        for term in terms:
            if (term.kind, term.code) == (CHANNEL, total) and _total_word(term.text):
                return AliasHit(TOTAL, term.code, term.start, term.end, term.text)
    for term in terms:
        if term.kind != METRIC:
            continue
        metric = profile.metric(term.code)
        if metric is None or metric.kind is MetricKind.RATIO:
            continue
        names = (alias_key(metric.name_en), alias_key(metric.name_zh))
        span = _inside_alias(term, metric.aliases, names) or _beside(text, term, terms, total)
        if span is None:
            continue
        word = alias_key(text[span[0] : span[1]])
        if any(name.startswith(word) or name.endswith(word) for name in names):
            continue  # "Total assets": the figure's name, not a sum asked for
        return AliasHit(TOTAL, term.code, span[0], span[1], text[span[0] : span[1]])
    return None


def _total_word(said: str) -> bool:
    """Whether a name is a total word itself: "total", "in total", "合计", "总计"."""
    word = said.strip().casefold()
    return word in ("total", "in total", *_AFTER_ZH)


def _inside_alias(
    term: AliasHit, aliases: tuple[str, ...], names: tuple[str, ...]
) -> tuple[int, int] | None:
    """The total word of a metric alias that is the word and another name of the same
    metric: "total sales" ("sales"), "总销售额" ("销售额"), "销售额合计" ("销售额")."""
    said = term.text
    known = {alias_key(a) for a in aliases} | set(names)
    match = re.match(r"total\s+", said, re.IGNORECASE)
    if match and alias_key(said[match.end() :]) in known:
        return term.start, term.start + match.end()
    for word in _BEFORE_ZH:
        if said.startswith(word) and alias_key(said[len(word) :]) in known:
            return term.start, term.start + len(word)
    for word in _AFTER_ZH:
        if said.endswith(word) and alias_key(said[: -len(word)]) in known:
            return term.end - len(word), term.end
    return None


def _beside(
    text: str, term: AliasHit, terms: Sequence[AliasHit], total: str
) -> tuple[int, int] | None:
    """The total word right before or after the metric ``term``: "total gross margin",
    "总毛利", "毛利合计", "gross margin in total". It may be the total channel's alias
    but no other name."""
    before = text[: term.start].rstrip()
    spans: list[tuple[int, int]] = []
    match = _BEFORE_EN.search(before)
    if match:
        spans.append(match.span())
    zh = before.removesuffix(_LINK_ZH)
    for word in _BEFORE_ZH:
        if zh.endswith(word):
            spans.append((len(zh) - len(word), len(zh)))
            break
    after = text[term.end :]
    match = _AFTER_EN.match(after)
    if match:
        spans.append((term.end + match.end() - len("total"), term.end + match.end()))
    stripped = after.lstrip()
    for word in _AFTER_ZH:
        if stripped.startswith(word):
            start = term.end + len(after) - len(stripped)
            spans.append((start, start + len(word)))
            break
    for start, end in spans:
        if not any(
            _overlaps(t, start, end) and (t.kind, t.code) != (CHANNEL, total) for t in terms
        ):
            return start, end
    return None


def _overlaps(term: AliasHit, start: int, end: int) -> bool:
    return term.start < end and start < term.end
