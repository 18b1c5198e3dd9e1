"""``ragspine faq check``'s work: a FAQ file's own problems, and wordings no question can reach.

The file's problems come from reading it (``items``). Against a profile one more kind shows: a
wording that the exclusions always turn away, such as "what does <a metric's alias> mean" (it
names a metric, so the agent answers it from the facts). Such a wording is dead text in the
file; its author should know.
"""

from __future__ import annotations

from datetime import date
from pathlib import Path

from ragspine.profile.model import DomainProfile
from ragspine.service.faq.faq_cache import FaqCache, FaqMiss
from ragspine.service.faq.items import FaqFile, FaqProblem, read_faq_file

_NEVER_SERVED = {
    FaqMiss.STRUCTURED: "it reads as a request for a figure, which the agent answers from facts",
    FaqMiss.SLOT_FILLED: "it names a metric, entity or period, so the agent answers it from facts",
    FaqMiss.OUT_OF_SCOPE: "it names a competitor or an entity the profile does not know",
    FaqMiss.REAL_TIME: "it asks about now (a real-time word such as today, latest, 最新)",
}


def check_faq_file(path: Path, profile: DomainProfile, today: date | None = None) -> FaqFile:
    """``path`` read and checked, with every never-served wording added to its problems."""
    read = read_faq_file(path)
    # The wording checks need the profile's parser, not the items: an empty cache asks it.
    cache = FaqCache(profile)
    day = today or date.today()
    dead = [
        FaqProblem(
            path,
            item.line,
            f"faq {item.id!r}: {text!r} is never served: {_NEVER_SERVED[miss]}",
        )
        for item in read.items
        for text in item.texts
        if (miss := cache.wording_miss(text, day)) is not None
    ]
    problems = sorted((*read.problems, *dead), key=lambda p: p.line)
    return FaqFile(read.path, read.items, tuple(problems))
