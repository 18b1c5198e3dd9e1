"""Two or more named units of one figure: their sum or their difference, as the words say.

"<甲单位>与<乙单位><指标>合计", "<unit A> plus <unit B> <metric>" ask for a sum;
"<unit A> vs <unit B>", "<甲单位>与<乙单位>对比" for a comparison (the difference the agent
computes, ``agent.compare``). A question holding words of both ("<unit A> vs <unit B>,
combined") is asked about, never guessed. One holding neither keeps the plain listing and its
labelled difference.
"""

from __future__ import annotations

from collections.abc import Set
from typing import TYPE_CHECKING

from ragspine.agent.analysis_total import TOTAL

if TYPE_CHECKING:
    from ragspine.profile.periods import Period

SUM = "sum"  # the kind of a cue hit asking for a sum
VERSUS = "versus"  # the kind of a cue hit asking for a comparison

# Sum words not already cumulative cues (``agent.analysis_cues``: "combined", "一共", "合共"…)
# nor the total word (``agent.analysis_total``: "total", "合计").
SUM_ZH = ("加起来", "加在一起", "合起来", "相加", "之和", "总共", "合计", "总计")
SUM_EN = ("plus", "together", "in total", "sum", "added together", "add up", "adding up")
VERSUS_ZH = (
    "对比",
    "相比",
    "比较",
    "比起",
    "差距",
    "差异",
    "差额",
    "差多少",
    "相差",
    "高多少",
    "低多少",
    "多多少",
    "少多少",
)
VERSUS_EN = (
    "vs",
    "vs.",
    "versus",
    "compare",
    "compared",
    "compared with",
    "compared to",
    "comparison",
    "difference",
    "differ",
    "gap",
    "minus",
    "relative to",
)
# Every cue kind that asks for a sum of the units named.
_SUMMING = frozenset({"cumulative", TOTAL, SUM})

# How a question asking for both is recorded in ``Analysis.unsupported``.
SUM_OR_DIFFERENCE_PREFIX = "sum-or-difference:"


def sum_asked(kinds: Set[str], entities: tuple[str, ...], periods: tuple[Period, ...]) -> bool:
    """Whether the cue ``kinds`` ask for the sum of the several ``entities`` named over one
    period (a sum over years is a cumulative total, ``agent.analysis_cues``)."""
    return len(entities) > 1 and len(periods) <= 1 and bool(kinds & _SUMMING)


def difference_asked(kinds: Set[str]) -> bool:
    """Whether the cue ``kinds`` also ask for a comparison."""
    return VERSUS in kinds


def sum_or_difference(entities: tuple[str, ...]) -> str:
    """The ``Analysis.unsupported`` entry asking whether the sum or the difference is meant."""
    return SUM_OR_DIFFERENCE_PREFIX + ",".join(entities)


def entities_of(entry: str) -> list[str]:
    """The entity codes a ``sum_or_difference`` entry names."""
    return entry.removeprefix(SUM_OR_DIFFERENCE_PREFIX).split(",")
