"""A document's sensitivity, monotone in what it contains: the content decides a floor that a
sidecar may raise, and may lower only with an explicit, audited ``sensitivity_override``."""

from __future__ import annotations

import re
from dataclasses import dataclass
from fnmatch import fnmatch
from functools import lru_cache

from ragspine.profile.model import DomainProfile, KeywordRule
from ragspine.profile.sensitivity import Sensitivity


def content_sensitivity(file_name: str, text: str, profile: DomainProfile) -> Sensitivity:
    """The level the file's name and content call for, whatever its sidecar says.

    The base is the highest matching file-name rule, or the profile's default when none
    matches (so ``*annual_report*`` may name a PUBLIC base); keywords found anywhere in
    ``text`` (blocks and table cells alike) can only raise it.
    """
    rules = profile.sensitivity
    name = file_name.casefold()
    named = [r.level for r in rules.filename_rules if fnmatch(name, r.pattern.casefold())]
    level = Sensitivity.highest(*named) if named else rules.default
    if rules.keyword_rules:
        pattern = _keyword_pattern(rules.keyword_rules)
        # One pass over the text; a level already at the top cannot rise further.
        for hit in pattern.finditer(text):
            level = Sensitivity.highest(level, _keyword_level(rules.keyword_rules, hit))
            if level is Sensitivity.RESTRICTED:
                break
    return level


@dataclass(frozen=True)
class SensitivityDecision:
    """The level a document gets, and why: its content's level and the sidecar's request."""

    level: Sensitivity
    content: Sensitivity
    requested: Sensitivity | None = None
    override: bool = False

    @property
    def overridden(self) -> bool:
        """The sidecar lowered the level below the content's, as it explicitly asked to."""
        return self.level.rank < self.content.rank

    @property
    def ignored(self) -> bool:
        """The sidecar asked for a lower level without ``sensitivity_override``."""
        requested = self.requested
        return not self.override and requested is not None and requested.rank < self.content.rank

    def note(self) -> str:
        """One line for the summary: an override applied or a lowering ignored, else ""."""
        if self.overridden:
            return (
                f"sensitivity {self.level.value} set by the sidecar's sensitivity_override "
                f"(content says {self.content.value}; recorded in the audit log)"
            )
        if self.ignored and self.requested is not None:
            return (
                f"sidecar sensitivity {self.requested.value} ignored: the file's name or content "
                f'makes it {self.content.value}; add "sensitivity_override": true to lower it'
            )
        return ""


def decide_sensitivity(
    content: Sensitivity, requested: Sensitivity | None, *, override: bool = False
) -> SensitivityDecision:
    """Combine the content's level with a sidecar's: the sidecar raises, or replaces the level
    when ``override`` is set."""
    if requested is None:
        return SensitivityDecision(content, content)
    level = requested if override else Sensitivity.highest(content, requested)
    return SensitivityDecision(level, content, requested, override)


@lru_cache(maxsize=8)
def _keyword_pattern(rules: tuple[KeywordRule, ...]) -> re.Pattern[str]:
    """Every keyword in one zero-width lookahead, so overlapping keywords are all seen in one
    pass; each sits in a named group so a hit says which rule, the highest level tried first."""
    order = sorted(range(len(rules)), key=lambda i: -rules[i].level.rank)
    parts = []
    for i in order:
        rule = rules[i]
        body = r"\s+".join(re.escape(word) for word in rule.keyword.split())
        # Whole words where the keyword starts or ends with a Latin letter or digit: "board
        # resolution" must not match inside "onboard resolutions"; 董事会决议 needs no boundary.
        if _WORDISH.match(rule.keyword[0]):
            body = f"(?<!{_WORDISH.pattern}){body}"
        if _WORDISH.match(rule.keyword[-1]):
            body += f"(?!{_WORDISH.pattern})"
        if not rule.case_sensitive:
            body = f"(?i:{body})"
        parts.append(f"(?P<k{i}>{body})")
    return re.compile(f"(?=(?:{'|'.join(parts)}))")


_WORDISH = re.compile(r"[A-Za-z0-9_]")


def _keyword_level(rules: tuple[KeywordRule, ...], hit: re.Match[str]) -> Sensitivity:
    group = hit.lastgroup
    return rules[int(group[1:])].level if group else Sensitivity.PUBLIC
