"""Whether an amount (or a count) is a flow over a period or a balance at a point in time, as
the profile declares it (``nature``) or, when it does not, as the metric's names say.

A flow (sales, profit, premiums) accrues over a period, so the quarters of a year add up to
the part of the year they cover. A balance (total assets, deposits, loans outstanding, assets
under management) is measured at a period's end: four quarter-end balances add up to a number
no document means; so do the year-end head counts of five years. Only a flow is ever summed
over periods (``agent.analyst_periods``).

Read from names, a metric is a balance when some name holds a balance-sheet word and none a
flow word, a flow in the mirror case, and unknown otherwise: "interest income on loans" holds
both, "policy float" neither. Unknown is never taken for a flow — a sum of balances is a
fabricated number, while a flow left unsummed only shows its periods — so such a metric is
summed only once the profile declares ``nature = "flow"``. The words are data
(``profile/data/metric_nature_words.json``), read once on first use.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from enum import StrEnum
from functools import lru_cache
from importlib import resources
from typing import Protocol

WORDS_NAME = "metric_nature_words.json"


class MetricNature(StrEnum):
    FLOW = "flow"
    BALANCE = "balance"


class _Metric(Protocol):
    @property
    def code(self) -> str: ...
    @property
    def name_zh(self) -> str: ...
    @property
    def name_en(self) -> str: ...
    @property
    def kind(self) -> str: ...
    @property
    def aliases(self) -> tuple[str, ...]: ...
    @property
    def nature(self) -> MetricNature | None: ...


def nature_of(metric: _Metric) -> MetricNature | None:
    """An amount's or a count's nature as the profile declares it, else as its names say; None
    when unknown, and for a ratio or a per-share figure (neither is summed over periods)."""
    if metric.kind not in ("amount", "count"):
        return None
    return metric.nature or nature_from_names(
        (metric.code, metric.name_en, metric.name_zh, *metric.aliases)
    )


def nature_from_names(names: Iterable[str]) -> MetricNature | None:
    """What a metric's names (code, names, aliases) say it is; None when they say neither or
    both. A code's underscores read as spaces ("TOTAL_ASSETS")."""
    text = " | ".join(name.replace("_", " ") for name in names)
    balance_words, flow_words = _patterns()
    balance = balance_words.search(text) is not None
    if balance == (flow_words.search(text) is not None):
        return None
    return MetricNature.BALANCE if balance else MetricNature.FLOW


@lru_cache(maxsize=1)
def _patterns() -> tuple[re.Pattern[str], re.Pattern[str]]:
    path = resources.files("ragspine.profile").joinpath("data", WORDS_NAME)
    raw: dict[str, dict[str, list[str]]] = json.loads(path.read_text(encoding="utf-8"))
    return _pattern(raw["balance"]), _pattern(raw["flow"])


def _pattern(words: dict[str, list[str]]) -> re.Pattern[str]:
    """English words whole (no letter on either side), Chinese anywhere; any letter case."""
    english = "|".join(words["en"])
    return re.compile(
        rf"(?<![A-Za-z])(?:{english})(?![A-Za-z])|{'|'.join(words['zh'])}", re.IGNORECASE
    )
