""" "The latest quarter", "最近一个季度", "the most recent half year": a period named by the facts.

Which quarter or half is the latest depends on what the documents report, not on the calendar
alone (at the end of November the latest complete quarter may have no figures yet), so these
words name no period here: ``find_latest`` finds them and the kind of period they ask for, and
the agent looks the period up among the stored facts of the metric and entity asked
(``agent.latest_period``). Read like this, they are never taken for "no period given" and
answered for the latest full year. "The last three quarters" or "最近两个半年" name several
periods; they are found too, with no kind, so the question is asked about.

"Last quarter" / "上季度" stay the calendar's previous quarter (``period_rules``), and "最近一年"
/ "the latest year" the latest complete fiscal year.
"""

from __future__ import annotations

import re
from typing import NamedTuple

QUARTER = "Q"
HALF = "H"

_EN = re.compile(
    r"(?<![A-Za-z0-9])(?:the\s+)?(?:latest|most\s+recent(?:ly\s+reported)?|newest|last\s+reported"
    r"|latest\s+reported)\s+(?:(?P<n>two|three|four|[2-9])\s+)?"
    r"(?:(?:fiscal|financial|reported)\s+)?"
    r"(?:(?P<q>quarters?)|(?P<h>half[-\s]?years?|halves|half|interim(?:\s+period)?))"
    r"(?![A-Za-z0-9])"
    r"|(?<![A-Za-z0-9])(?:the\s+)?(?:last|past|previous|trailing)\s+(?P<n2>two|three|four|[2-9])\s+"
    r"(?:(?:fiscal|financial)\s+)?(?:(?P<q2>quarters)|(?P<h2>half[-\s]?years|halves))"
    r"(?![A-Za-z0-9])",
    re.IGNORECASE,
)
_ZH = re.compile(
    r"(?:最近|最新|近)\s*(?:的)?\s*(?:(?P<n>[两二三四2-9])\s*个|一\s*个?|一期)?\s*"
    r"(?:(?P<q>季度|季(?!节))|(?P<h>半年度|半年|中期))"
)


class LatestMatch(NamedTuple):
    kind: str  # QUARTER or HALF; "" for several periods ("the last three quarters")
    start: int
    end: int


def find_latest(text: str) -> list[LatestMatch]:
    """Every "latest quarter / half" expression in ``text``, left to right."""
    found = [_read(m, "n", "q", "h") for m in _ZH.finditer(text)]
    for match in _EN.finditer(text):
        several = match["n"] or match["n2"]
        read = _read(match, "n", "q", "h") if not match["n2"] else _read(match, "n2", "q2", "h2")
        found.append(read if not several else LatestMatch("", *match.span()))
    return sorted(found, key=lambda m: m.start)


def _read(match: re.Match[str], count: str, quarter: str, half: str) -> LatestMatch:
    if match[count]:
        return LatestMatch("", *match.span())
    return LatestMatch(QUARTER if match[quarter] else HALF, *match.span())
