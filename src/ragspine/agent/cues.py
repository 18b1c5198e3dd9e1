"""Language cues the rule parser reads: generic words, nothing company-specific.

Kept as data so the parser's decisions can be audited in one place.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ragspine.agent.filler_words import FILLER_ZH
from ragspine.agent.types import ChangeBase
from ragspine.profile.matching import AliasEntry, AliasHit, AliasMatcher
from ragspine.profile.regex_starts import compile_guarded

# "Why / what happened" questions, answered from prose.
NARRATIVE_ZH = (
    "为什么",
    "为何",
    "原因",
    "归因",
    "驱动",
    "推动",
    "导致",
    "因素",
    "解释",
    "怎么样",
    "如何",
    "表现",
    "监管",
    "政策",
    "法规",
    "影响",
    "趋势",
    "动态",
    "战略",
    "策略",
    "风险",
    "展望",
    "前景",
    "发生了什么",
    "什么情况",
    "背景",
    "举措",
    "计划",
    "说明",
    "评论",
    "怎么看",
)
NARRATIVE_EN = (
    "why",
    "reason",
    "reasons",
    "driver",
    "drivers",
    "drove",
    "driven",
    "cause",
    "caused",
    "explain",
    "explanation",
    "impact",
    "impacts",
    "regulatory",
    "regulation",
    "regulations",
    "policy",
    "trend",
    "trends",
    "strategy",
    "strategic",
    "outlook",
    "risk",
    "risks",
    "what happened",
    "background",
    "initiative",
    "initiatives",
    "commentary",
    "perform",
    "performance",
    "happening",
    "affect",
    "affects",
    "affected",
    "affecting",
)
# What an unknown metric's name ends in ("combined ratio", "Ceded Premiums"): asking for a
# figure, and the head of the name before it (``unknown_names``).
METRIC_HEADS_EN = (
    "ratio",
    "rate",
    "margin",
    "cost",
    "costs",
    "expense",
    "expenses",
    "premium",
    "premiums",
)
# Asking for a figure.
NUMERIC_ZH = (
    "多少",
    "几",
    "数值",
    "金额",
    "数字",
    "多大",
    "同比",
    "环比",
    "对比",
    "比较",
    "相比",
    "差多少",
    "增长率",
    "增幅",
    "是多少",
    # "给我2025财年的数": figures asked for without naming one
    "数",
    "数据",
)
NUMERIC_EN = (
    "how much",
    "how many",
    "what is",
    "what was",
    "what's",
    "value",
    "figure",
    "figures",
    "number",
    "amount",
    "compare",
    "comparison",
    "versus",
    "vs",
    "growth",
    "grow",
    "grew",
    "yoy",
    "year-on-year",
    "year over year",
    "difference",
    "change",
    "level",
    "numbers",
    "data",
    *METRIC_HEADS_EN,
)
# A year-on-year change of one figure, computed by our code from two found facts.
GROWTH_ZH = (
    "同比",
    "增长",
    "增幅",
    "增速",
    "变化",
    "下降",
    "减少",
    "上升",
    "较上年",
    "比去年",
    "提升",
    "改善",
    "扭亏",
    "回升",
    "下滑",
    "上涨",
    "增加",
    "涨",
    "跌",
    "多了多少",
    "高了多少",
)
GROWTH_EN = (
    "grow",
    "grew",
    "grown",
    "growth",
    "yoy",
    "year-on-year",
    "year over year",
    "increase",
    "increased",
    "decline",
    "declined",
    "change",
    "changed",
    "rise",
    "rose",
    "fall",
    "fell",
    "add",
    "added",
    "net additions",
    "net addition",
    "by how much",
    "how much more",
    "how much higher",
    "how much lower",
)
# A change over the period just before (``ChangeBase.PRECEDING``), not over a year earlier.
SEQUENTIAL_ZH = ("环比",)
SEQUENTIAL_EN = (
    "quarter-on-quarter",
    "quarter on quarter",
    "quarter-over-quarter",
    "quarter over quarter",
    "qoq",
    "q-o-q",
    "half-on-half",
    "half on half",
    "half-over-half",
    "hoh",
    "period-on-period",
    "period on period",
    "sequential",
    "sequentially",
)
# Words naming the year-on-year base outright (a question may ask for both changes).
YEAR_ON_YEAR = frozenset({"同比", "yoy", "year-on-year", "year over year", "较上年", "比去年"})
# Asking what something is or is aimed at, not for its reported value: "What is 报行合一",
# "X是什么", "What is the target for this metric" — answered from prose even when a metric is named,
# unless the question also asks for an amount ("多少", "how much").
CONCEPT_ZH = ("是什么", "什么是", "含义", "定义", "意思", "是指", "指什么", "目标", "指引")
CONCEPT_EN = (
    "what does",
    "mean",
    "means",
    "meaning",
    "definition",
    "define",
    "stand for",
    "stands for",
    "target",
    "targets",
    "goal",
    "goals",
    "guidance",
    "objective",
    "objectives",
)
# One figure per channel of the profile: "各渠道", "by channel".
BREAKDOWN_ZH = (
    "各渠道",
    "各个渠道",
    "每个渠道",
    "分渠道",
    "按渠道",
    "渠道分布",
    "渠道拆分",
    "渠道构成",
    "渠道明细",
    "各销售渠道",
)
BREAKDOWN_EN = (
    "by channel",
    "per channel",
    "each channel",
    "every channel",
    "across channels",
    "channel breakdown",
    "channel split",
    "channel mix",
    "by distribution channel",
)
# The first half of a fiscal year named by a year: "2025年中期", "interim 2025",
# "half-year sales 2025" — the year's FY becomes its H1.
INTERIM_ZH = ("中期", "半年度", "半年报", "中报", "半年")
INTERIM_EN = ("interim", "half-year", "half year", "halfyear", "half-yearly", "semi-annual")
# Words that explicitly ask for an amount, so a concept cue does not send the question to
# prose ("What is the target, and how much was achieved?").
AMOUNT_ASKED = frozenset(
    {"多少", "是多少", "几", "数值", "金额", "how much", "how many", "value", "figure", "figures"}
)

# Asking about now: an answer vetted once cannot be today's (the FAQ short-circuit's exclusion).
REALTIME_ZH = (
    "今天",
    "今日",
    "现在",
    "目前",
    "当前",
    "此刻",
    "最新",
    "实时",
    "即时",
    "刚刚",
    "本周",
    "股价",
    "行情",
    "市值",
)
REALTIME_EN = (
    "today",
    "now",
    "right now",
    "currently",
    "current",
    "latest",
    "newest",
    "most recent",
    "real-time",
    "real time",
    "realtime",
    "live",
    "up to date",
    "up-to-date",
    "at the moment",
    "this week",
    "share price",
    "stock price",
    "market cap",
    "market value",
)


def cue_matcher(words_zh: tuple[str, ...], words_en: tuple[str, ...], kind: str) -> AliasMatcher:
    return AliasMatcher(AliasEntry(w, kind, w) for w in (*words_zh, *words_en))


NUMERIC = cue_matcher(NUMERIC_ZH, NUMERIC_EN, "numeric")
GROWTH = cue_matcher(GROWTH_ZH + SEQUENTIAL_ZH, GROWTH_EN + SEQUENTIAL_EN, "growth")
_SEQUENTIAL = frozenset(SEQUENTIAL_ZH + SEQUENTIAL_EN)
# Narrative, concept, breakdown and interim words: one automaton reads all four (each pass over
# a question has a fixed cost), and none of them is part of another.
PROSE_AND_MODIFIERS = AliasMatcher(
    [
        *(AliasEntry(w, "narrative", w) for w in (*NARRATIVE_ZH, *NARRATIVE_EN)),
        *(AliasEntry(w, "concept", w) for w in (*CONCEPT_ZH, *CONCEPT_EN)),
        *(AliasEntry(w, "breakdown", w) for w in (*BREAKDOWN_ZH, *BREAKDOWN_EN)),
        *(AliasEntry(w, "interim", w) for w in (*INTERIM_ZH, *INTERIM_EN)),
    ]
)
REALTIME = cue_matcher(REALTIME_ZH, REALTIME_EN, "realtime")
FILLER = re.compile("|".join(re.escape(w) for w in sorted(FILLER_ZH, key=len, reverse=True)))
# "Compared with last year", "跟上一年比呢", "vs the year before": the base of a year-on-year
# change, not a second period to look up.
_PRIOR_ZH = r"(?:上一?年度?|去年|上一?个?财年|前一年|上一会计年度)(?:同期)?"
_PRIOR_EN = (
    r"(?:the\s+)?(?:last|previous|prior|preceding)\s+(?:(?:fiscal|financial)\s+)?year"
    r"|the\s+year\s+before(?!\s+last)|a\s+year\s+(?:earlier|ago|before)"
)
GROWTH_BASE = compile_guarded(
    rf"(?:较|比|相比|对比)(?:于)?{_PRIOR_ZH}"
    rf"|(?:与|和|跟|同)\s*{_PRIOR_ZH}\s*(?:相比|比较|对比|比)"
    r"|(?<![A-Za-z])(?:vs\.?|versus|compared\s+(?:with|to)|over|than|against|from|on)"
    rf"\s+(?:{_PRIOR_EN})(?![A-Za-z])"
    r"|(?<![A-Za-z])and\s+(?:the\s+year\s+before(?!\s+last)|a\s+year\s+earlier)(?![A-Za-z])",
    re.IGNORECASE,
)


def growth_bases(text: str) -> list[tuple[int, int]]:
    """The spans of ``GROWTH_BASE`` in ``text``.

    Every base names the prior year, so it holds 上, 去 or 前 (``_PRIOR_ZH``) or "year"
    (``_PRIOR_EN``, in any case): text with none of them is not searched, which is most
    questions. A property test holds the regex to this.
    """
    if "上" in text or "去" in text or "前" in text or "year" in text.lower():
        return [match.span() for match in GROWTH_BASE.finditer(text)]
    return []


# "较上季度", "vs the previous quarter": the base of a change over the period just before.
_PRECEDING_ZH = r"(?:上一?个?季度?|上一?期)"
SEQUENTIAL_BASE = compile_guarded(
    rf"(?:较|比|相比|对比)(?:于)?{_PRECEDING_ZH}"
    rf"|(?:与|和|跟|同)\s*{_PRECEDING_ZH}\s*(?:相比|比较|对比|比)"
    r"|(?<![A-Za-z])(?:vs\.?|versus|compared\s+(?:with|to)|over|than|against|from|on)"
    r"\s+(?:the\s+)?(?:previous|prior|preceding|last)\s+(?:quarter|half(?:[- ]year)?|period)"
    r"(?![A-Za-z])",
    re.IGNORECASE,
)


def sequential_bases(text: str) -> list[tuple[int, int]]:
    """The spans of ``SEQUENTIAL_BASE`` in ``text``; text holding neither 上 nor one of the
    English period words is not searched."""
    folded = text.lower()
    if "上" in text or "quarter" in folded or "half" in folded or "period" in folded:
        return [match.span() for match in SEQUENTIAL_BASE.finditer(text)]
    return []


def change_base(
    year_bases: list[tuple[int, int]],
    preceding_bases: list[tuple[int, int]],
    growth_hits: Sequence[AliasHit],
) -> ChangeBase:
    """What the change asked is measured against: the period just before when a sequential
    word ("环比", "quarter-on-quarter") or base ("较上季度") is named, both when a year-on-year
    one is named too, else a year earlier."""
    words = {hit.code for hit in growth_hits}
    if not (preceding_bases or words & _SEQUENTIAL):
        return ChangeBase.YEAR
    if year_bases or words & YEAR_ON_YEAR:
        return ChangeBase.BOTH
    return ChangeBase.PRECEDING


# "add up", "added together", "add to": a sum asked for, not a change ("how many staff did
# the unit add" is one).
_SUMMING_ADD = re.compile(r"\s*(?:up|together|to)(?![A-Za-z])", re.IGNORECASE)


def without_summing_adds(text: str, hits: list[AliasHit]) -> list[AliasHit]:
    """The growth ``hits`` less an "add" or "added" that asks for a sum."""
    return [
        h
        for h in hits
        if h.code.lower() not in ("add", "added") or _SUMMING_ADD.match(text, h.end) is None
    ]
