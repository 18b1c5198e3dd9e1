"""A document's sensitivity: explicit metadata, then the profile's filename and keyword rules,
then the profile's default — in that order, so an owner's explicit label always wins."""

from __future__ import annotations

from fnmatch import fnmatch

from ragspine.profile.model import DomainProfile
from ragspine.profile.sensitivity import Sensitivity


def resolve_sensitivity(
    file_name: str, text: str, profile: DomainProfile, explicit: str | None = None
) -> Sensitivity:
    if explicit:
        return Sensitivity.parse(explicit)
    rules = profile.sensitivity
    name = file_name.casefold()
    for rule in rules.filename_rules:
        if fnmatch(name, rule.pattern.casefold()):
            return rule.level
    folded = text.casefold()
    hits = [rule.level for rule in rules.keyword_rules if rule.keyword.casefold() in folded]
    if hits:
        return max(hits, key=lambda level: level.rank)
    return rules.default
