"""Analyst cues: rankings, totals, exclusions, averages, CAGR, spans — and what we cannot compute.

The parser reads these words in the same pass as its other cues (one automaton, built per
profile because a profile's named groups — "all regions" — are read here too). ``read_analysis``
turns the hits into an ``Analysis``: which computation, over which units. A cue the engine has
no computation for (a share, a median, a per-head figure) or a population the profile does not
define, or a breakdown finer than the asked period ("per quarter" of a year,
``agent.period_breakdown``), is kept as ``AnalysisOp.UNSUPPORTED``, so the answer says what it
did not do instead of answering the plain figure.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from ragspine.agent.analysis_pair import (
    SUM,
    SUM_EN,
    SUM_ZH,
    VERSUS,
    VERSUS_EN,
    VERSUS_ZH,
    difference_asked,
    sum_asked,
    sum_or_difference,
)
from ragspine.agent.analysis_top import top_entries
from ragspine.agent.analysis_total import TOTAL
from ragspine.agent.analysis_wording import joined, opened_by_units, which_year
from ragspine.agent.filler_words import STOPWORDS_EN
from ragspine.agent.not_entities import vocabulary
from ragspine.agent.period_breakdown import PER_PERIOD, breakdown_cues, finer_than_asked
from ragspine.agent.types import Analysis, AnalysisOp, ParsedIntent, Ratio
from ragspine.profile.glossary import CHANNEL, ENTITY
from ragspine.profile.matching import AliasEntry, AliasHit, AliasMatcher, alias_key, mask
from ragspine.profile.model import DomainProfile
from ragspine.profile.periods import Period

HIGH_ZH = ("最高", "最大", "最多", "最好", "最强", "第一")
HIGH_EN = ("highest", "largest", "biggest", "greatest", "top", "best", "leading")
LOW_ZH = ("最低", "最小", "最少", "最差", "最弱", "垫底")
LOW_EN = ("lowest", "smallest", "least", "bottom", "worst", "weakest")
RANK_ZH = ("排名", "排序", "排行", "名次")
RANK_EN = ("rank", "ranks", "ranked", "ranking", "rankings")
FASTEST_ZH = ("增长最快", "增速最快", "增幅最大", "增长最多", "增长最高", "增长更快", "增速更快")
FASTEST_EN = (
    "fastest-growing",
    "fastest growing",
    "grew fastest",
    "grew the most",
    "fastest",
    # between named units: "who grew faster, A or B?"
    "faster-growing",
    "faster growing",
    "grew faster",
    "grow faster",
    "growing faster",
    "faster",
)
EXCLUDE_ZH = ("除", "除了", "不包括", "不包含", "不含", "剔除", "扣除", "不计")
EXCLUDE_EN = (
    "excluding",
    "exclude",
    "excludes",
    "excl",
    "ex",
    "not including",
    "not counting",
    "except",
    "except for",
    "other than",
    "apart from",
    "aside from",
    "without",
    "but not",
    *(OUTSIDE_EN := ("outside", "outside of", "non")),
)
# What closes "除X以外": read so the words are not taken for a name.
CLOSE_ZH = ("以外", "之外", "外")
AVERAGE_ZH = ("平均", "均值", "平均值", "年均值", "平均数", "均数", "算术平均")
AVERAGE_EN = ("average", "averages", "averaged", "avg", "mean", "arithmetic mean")
CAGR_ZH = ("复合增长率", "年复合增长率", "复合年增长率", "年均复合增长率", "年均增长率", "复合增速")
CAGR_EN = (
    "cagr",
    "compound annual growth",
    "compound growth",
    "annualised growth",
    "annualized growth",
)
CUMULATIVE_ZH = ("累计", "累积", "总和", "加总", "共计", "合共", "一共")
CUMULATIVE_EN = (
    "cumulative",
    "cumulatively",
    "accumulated",
    "sum of",
    "summed",
    "combined",
    "altogether",
)
FROM_ZH = ("从", "由", "自", "之间")
FROM_EN = ("from", "between")
# Asked for, never computed here: the answer says so instead of giving a plain figure.
UNSUPPORTED_ZH = (
    "占比",
    "份额",
    "比重",
    "贡献率",
    "中位数",
    "人均",
    "每人",
    "每名员工",
    "方差",
    "标准差",
)
UNSUPPORTED_EN = (
    "share",
    "shares of",
    "proportion",
    "percentage of",
    "contribution",
    "median",
    "per head",
    "per capita",
    "per employee",
    "per person",
    "variance",
    "standard deviation",
)

_CUES: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("high", HIGH_ZH + HIGH_EN),
    ("low", LOW_ZH + LOW_EN),
    ("rank", RANK_ZH + RANK_EN),
    ("fastest", FASTEST_ZH + FASTEST_EN),
    ("exclude", EXCLUDE_ZH + EXCLUDE_EN),
    ("close", CLOSE_ZH),
    ("average", AVERAGE_ZH + AVERAGE_EN),
    ("cagr", CAGR_ZH + CAGR_EN),
    ("cumulative", CUMULATIVE_ZH + CUMULATIVE_EN),
    ("from", FROM_ZH + FROM_EN),
    (SUM, SUM_ZH + SUM_EN),
    (VERSUS, VERSUS_ZH + VERSUS_EN),
    ("unsupported", UNSUPPORTED_ZH + UNSUPPORTED_EN),
)


# Every cue word above, the "top N" and breakdown cues aside.
CUE_WORDS: tuple[str, ...] = tuple(word for _, words in _CUES for word in words)


def analyst_matcher(profile: DomainProfile) -> AliasMatcher:
    """Every analyst cue, and the profile's named groups (kind ``group``, its code as the code)."""
    entries = [AliasEntry(word, kind, word) for kind, words in _CUES for word in words]
    entries += top_entries()
    entries += [AliasEntry(word, PER_PERIOD, unit) for word, unit in breakdown_cues()]
    for group in profile.groups:
        names = {group.name_zh, group.name_en, *group.aliases} - {""}
        entries += [AliasEntry(name, "group", group.code) for name in sorted(names)]
    return AliasMatcher(entries)


def _sum_word(text: str, hits: Sequence[AliasHit]) -> bool:
    """Whether a sum word asks for a sum: "together with X" only lists one more thing."""
    listing = ("together", "with")
    return any(
        hit.kind == SUM and (hit.code, text[hit.end :].split()[:1]) != (listing[0], [listing[1]])
        for hit in hits
    )


def read_analysis(
    text: str,
    hits: Sequence[AliasHit],
    terms: Sequence[AliasHit],
    entities: tuple[str, ...],
    periods: tuple[Period, ...],
    growth: bool,
    profile: DomainProfile,
) -> Analysis | None:
    """The computation the cue ``hits`` ask for over the slots named, or None for none.

    ``text`` is the question the hits and ``terms`` (the slot aliases found) index into.
    """
    ratio = _ratio_asked(text, terms, profile)
    if ratio:
        return Analysis(AnalysisOp.UNSUPPORTED, unsupported=(ratio,))
    too_fine = finer_than_asked(hits, periods)
    if too_fine:
        return Analysis(AnalysisOp.UNSUPPORTED, unsupported=too_fine)
    hits = [hit for hit in hits if hit.kind != PER_PERIOD]
    hits += opened_by_units(text, hits, terms)
    kinds = {hit.kind for hit in hits}
    if not kinds - {"close", "from"} and ("from" not in kinds or len(periods) < 2):
        return None
    unsupported = tuple(h.text for h in hits if h.kind == "unsupported" and not _per(text, h))
    if unsupported:
        return Analysis(AnalysisOp.UNSUPPORTED, unsupported=unsupported)
    excluded, dangling = _excluded(text, hits, terms)
    if dangling:
        return Analysis(AnalysisOp.UNSUPPORTED, unsupported=dangling)
    groups = [h.code for h in hits if h.kind == "group"]
    several_periods = len(periods) > 1
    if "cagr" in kinds:
        return Analysis(AnalysisOp.CAGR)
    if "average" in kinds and several_periods and not groups:
        return Analysis(AnalysisOp.AVERAGE)
    if "cumulative" in kinds and several_periods and not groups:
        return Analysis(AnalysisOp.CUMULATIVE)
    ranked = kinds & {"high", "low", "rank", "fastest", "top", "bottom"}
    if ranked and (years_asked := which_year(text)):
        return Analysis(AnalysisOp.UNSUPPORTED, unsupported=(years_asked,))
    # "total sales from FY2022 to FY2024" (``agent.analysis_total``): the sum over the years,
    # unless a population ("of all regions") or another computation is asked
    if TOTAL in kinds and several_periods and not (groups or excluded or ranked or growth):
        return Analysis(AnalysisOp.CUMULATIVE)
    # "2023年和2024年利润之和", "sales in 2024 plus 2025": a sum word over the years of
    # one unit is their cumulative total, as "sum of" is (over several units it is theirs)
    one_unit = len(entities) <= 1 and not (groups or excluded or ranked or growth)
    if several_periods and one_unit and _sum_word(text, hits) and not difference_asked(kinds):
        return Analysis(AnalysisOp.CUMULATIVE)
    # "<甲单位>与<乙单位>的<指标>合计": the sum of the units named; with "vs" too, asked
    # which is meant
    if sum_asked(kinds, entities, periods) and not (groups or excluded or ranked or growth):
        if difference_asked(kinds):
            return Analysis(AnalysisOp.UNSUPPORTED, unsupported=(sum_or_difference(entities),))
        return Analysis(AnalysisOp.TOTAL, *_population(profile, [], entities, ()))
    if not (ranked or groups or excluded or "average" in kinds or "cumulative" in kinds):
        if "from" in kinds and several_periods and (growth or len(periods) == 2):
            return Analysis(AnalysisOp.SPAN)
        return None
    if not groups and len(entities) < 2:
        asked_for = _population_word(text, hits, terms)
        if asked_for:  # "which branch", "各部门": a population the profile does not name
            return Analysis(AnalysisOp.UNSUPPORTED, unsupported=(f"{GROUP_PREFIX}{asked_for}",))
    population, whole = _population(profile, groups, entities, excluded)
    if not population:
        named = excluded or entities or (profile.company.home_entity,)
        return Analysis(AnalysisOp.UNSUPPORTED, unsupported=(f"{POPULATION_PREFIX}{named[0]}",))
    if ranked:
        top = next((int(h.code) for h in hits if h.kind in ("top", "bottom")), None)
        low = bool(kinds & {"low", "bottom"}) and not kinds & {"high", "top"}
        return Analysis(
            AnalysisOp.RANK,
            population,
            whole,
            excluded,
            descending=not low,
            top=top,
            by_growth="fastest" in kinds or growth,
        )
    if "average" in kinds:
        return Analysis(AnalysisOp.AVERAGE, population, whole, excluded)
    if growth and groups and not excluded and len(periods) <= 1:
        # "which branch grew sales", "各部门销售额增长多少": each unit's change over the year
        # before, in order; a total would drop the growth asked
        return Analysis(AnalysisOp.RANK, population, whole, by_growth=True)
    op = AnalysisOp.EXCLUDE if excluded else AnalysisOp.TOTAL
    return Analysis(op, population, whole, excluded)


# How an unsupported population is recorded in ``Analysis.unsupported`` ("population:CODE"
# is a unit with no units under it).
GROUP_PREFIX = "group:"
POPULATION_PREFIX = "population:"
# A word after "which" / "each" / "各" that names a population: any but these generic ones.
_POPULATION_EN = re.compile(r"(?<![A-Za-z])(?:which|each|every|all|other)\s+([A-Za-z]+)", re.I)
_POPULATION_ZH = re.compile(r"(?:哪个|哪些|哪一个|各个|各|所有|其他|其它)([\u4e00-\u9fff]{2})")
_GENERIC_EN = frozenset(
    {"one", "ones", "unit", "units", "entity", "entities", "year", "years", "period", "periods"}
    | {"quarter", "quarters", "half", "halves", "month", "months", "figure", "figures"}
)
_GENERIC_ZH = frozenset({"单位", "实体", "年度", "年份", "期间", "季度", "月份", "数据", "指标"})


def _population_word(text: str, hits: Sequence[AliasHit], terms: Sequence[AliasHit]) -> str:
    """A population noun the question asks about that is no slot, cue or group ("branch")."""
    left = mask(text, [(h.start, h.end) for h in (*hits, *terms)])
    for match in _POPULATION_EN.finditer(left):
        word = match.group(1)
        if word.casefold() not in _GENERIC_EN and word.casefold() not in STOPWORDS_EN:
            return word
    for match in _POPULATION_ZH.finditer(left):
        if match.group(1) not in _GENERIC_ZH:
            return match.group(1)
    return ""


# A figure divided by another: "sales per store", "占总部的比例". Units of measure ("per
# cent", "per annum", "per share") ask for no ratio, nor does "per the annual report", nor a
# breakdown ("per channel", "per region": a dimension word, a unit word of the finance
# vocabulary or a name of the profile's groups); nor do words inside a slot alias (a profile
# metric "sales per employee").
_PER_EN = re.compile(r"(?<![A-Za-z])per\s+([A-Za-z]+)", re.IGNORECASE)
_MEASURE_EN = frozenset({"cent", "centum", "annum", "share", "se"})
_BREAKDOWN_EN = frozenset(
    {"channel", "channels", "period", "periods", "year", "years", "quarter", "quarters"}
    | {"half", "halves", "month", "months", "line", "lines", "product", "products"}
    | {"category", "categories", "type", "types", "geography", "geographies"}
)
_SHARE_ZH = re.compile(r"占[^，。？！,.?!]{0,24}?(?:比例|百分比|几成)")


def _divisor(word: str, profile: DomainProfile) -> bool:
    """Whether "per <word>" divides by something: not a unit of measure, "per the report"
    (according to) or a breakdown."""
    folded = word.casefold()
    groups = {alias_key(n) for g in profile.groups for n in (g.name_en, *g.aliases) if n}
    return not (
        folded in _MEASURE_EN
        or folded in STOPWORDS_EN
        or folded in _BREAKDOWN_EN
        or alias_key(folded) in vocabulary().unit_words
        or alias_key(folded) in groups
    )


def may_ask_ratio(text: str) -> bool:
    """False only when ``text`` cannot ask for a ratio (no "per", no 占): most questions."""
    return "占" in text or "per" in text.casefold()


def _ratio_asked(text: str, terms: Sequence[AliasHit], profile: DomainProfile) -> str:
    """The words asking for a ratio of two figures, which no code here computes, or ""."""
    matches = [m for m in _PER_EN.finditer(text) if _divisor(m.group(1), profile)]
    matches += list(_SHARE_ZH.finditer(text))
    for match in matches:
        if not any(t.start <= match.start() < t.end for t in terms):
            return match.group(0)
    return ""


def _per(text: str, hit: AliasHit) -> bool:
    """ "per share" is a unit of measure (earnings per share), not a share of a whole."""
    return hit.text.casefold() == "share" and text[: hit.start].rstrip().casefold().endswith("per")


def _excluded(
    text: str, hits: Sequence[AliasHit], terms: Sequence[AliasHit]
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The entities an exclusion cue names ("excluding X", "除X以外", "X and Y"), and the cues
    followed by no entity (a channel or a word: nothing this engine can leave out)."""
    excluded: list[str] = []
    dangling: list[str] = []
    for hit in hits:
        if hit.kind != "exclude":
            continue
        following = [t for t in terms if t.start >= hit.end and _adjacent(text, hit.end, t.start)]
        if not following or following[0].kind != ENTITY:
            if hit.code in OUTSIDE_EN:  # "outside sources", "non-life": no unit left out
                continue
            what = following[0].text if following and following[0].kind == CHANNEL else ""
            dangling.append(f"{hit.text} {what}".strip())
            continue
        chain = following[0]
        excluded.append(chain.code)
        for term in terms:  # "excluding X and Y", "除X和Y以外"
            if term.start > chain.end and term.kind == ENTITY and joined(text, chain.end, term):
                excluded.append(term.code)
                chain = term
    return tuple(dict.fromkeys(excluded)), tuple(dangling)


def _adjacent(text: str, end: int, start: int) -> bool:
    gap = text[end:start].strip().strip("-").strip().casefold()  # "ex-X" names X too
    return gap in ("", "the", "of", "the entity")


def _population(
    profile: DomainProfile,
    groups: list[str],
    entities: tuple[str, ...],
    excluded: tuple[str, ...],
) -> tuple[tuple[str, ...], str | None]:
    """The units to rank or sum, and the entity whose figure they add up to (if one).

    Units named beside the cue (two or more) are ranked among themselves; else a named group
    gives its members; else the children of the one entity named (or of an excluded unit's
    parent, or of the home entity).
    """
    named = [e for e in entities if e not in excluded]
    if len(named) > 1:
        members = tuple(named)
    elif groups:
        group = profile.group(groups[0])
        members = profile.members(group) if group is not None else ()
    else:
        root = named[0] if named else None
        if root is None or not profile.children(root):
            parent = _parent(profile, excluded[0]) if excluded else None
            root = parent or (root if excluded else profile.company.home_entity)
        members = profile.children(root) if root else ()
    whole = _common_parent(profile, members)
    if whole is not None and set(profile.children(whole)) - {*members, *excluded}:
        # "<unit A> and <unit B> combined": a part of the whole is no check against it
        whole = None
    return tuple(m for m in members if m not in excluded), whole


def _parent(profile: DomainProfile, code: str) -> str | None:
    entity = profile.entity(code)
    return entity.parent if entity is not None else None


def _common_parent(profile: DomainProfile, members: tuple[str, ...]) -> str | None:
    parents = {_parent(profile, m) for m in members}
    return parents.pop() if len(parents) == 1 else None


def analysis_entities(analysis: Analysis, entities: tuple[str, ...]) -> tuple[str, ...]:
    """The entity slots an analysis looks up: its units, the whole and the units left out;
    the question's own entities for one computed over periods."""
    if not analysis.population:
        return entities
    whole = (analysis.whole,) if analysis.whole else ()
    return tuple(dict.fromkeys((*analysis.population, *whole, *analysis.excluded)))


def with_ratios(intent: ParsedIntent, profile: DomainProfile) -> ParsedIntent:
    """``intent`` with the profile's rule for each derived metric it asks for (``Ratio``), on
    its analysis (``AnalysisOp.DERIVED`` when it asks for no other computation); unchanged when
    it asks for none. Run on the final intent, so a follow-up's inherited metric counts too."""
    if not profile.derived:
        return intent
    metrics = intent.metrics or ((intent.metric,) if intent.metric else ())
    ratios = tuple(
        Ratio(rule.code, rule.numerator, rule.denominator)
        for metric in metrics
        if (rule := profile.derived_metric(metric)) is not None
    )
    if not ratios:
        return intent
    analysis = intent.analysis or Analysis(AnalysisOp.DERIVED)
    return replace(intent, analysis=replace(analysis, ratios=ratios))
