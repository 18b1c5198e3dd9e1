"""The company's name and its fiscal year end, as a draft profile reads them from the
documents: the name most titles begin with, the month "year ended …" phrases (else date
headers) end in."""

from __future__ import annotations

import re
from collections import Counter

from ragspine.errors import UsageError
from ragspine.ingestion.suggest.names import bilingual, read_parts
from ragspine.ingestion.suggest.observe import Observations, Seen
from ragspine.profile.matching import alias_key

# Where a title's parts meet: "<company> — <topic>", "<company>: <topic>", "<company> | …".
_TITLE_PARTS = re.compile(r"\s+[-–—|:]\s+|[—–|:：，,;；]")


def split_names(name: str) -> list[str]:
    """A name, or its English and Chinese halves when it is both side by side."""
    pair = bilingual(name)
    if pair is not None:
        return list(pair)
    return [name] if name else []


def company_name_of(found: Observations, given: str | None) -> tuple[str, list[Seen]]:
    """The name the most documents' titles begin with (the longest such), or ``given``.

    A title is read in its parts ("<company> — <topic>"); a part that begins with a sheet's
    name ("Ports segment") is about a unit, not the company."""
    if given:
        return given.strip(), [Seen("--company", "")]
    by_prefix: dict[str, list[Seen]] = {}
    spelled: dict[str, str] = {}
    for text, seen in found.titles:
        for part in _TITLE_PARTS.split(read_parts(text, prose=True).name):
            words = part.split()
            for n in range(1, len(words) + 1):
                prefix = " ".join(words[:n])
                key = alias_key(prefix)
                spelled.setdefault(key, prefix)
                places = by_prefix.setdefault(key, [])
                if all(s.doc != seen.doc for s in places):
                    places.append(seen)
    units = {
        alias_key(name)
        for view in found.tables
        if view.sheet
        for name in split_names(read_parts(view.sheet).name)
    }
    order = {key: n for n, key in enumerate(by_prefix)}
    ranked = sorted(
        (key for key in by_prefix if not any(key.startswith(unit) for unit in units)),
        key=lambda k: (-len(by_prefix[k]), -len(spelled[k]), order[k]),
    )
    if not ranked:
        raise UsageError("no document has a title to name the company: give --company")
    best = ranked[0]
    return spelled[best], by_prefix[best]


def year_end(found: Observations) -> tuple[int, str]:
    for evidence, how in ((found.ended, "a year ended"), (found.dated, "a date header")):
        if evidence:
            counts = Counter(month for month, _ in evidence)
            month = sorted(counts, key=lambda m: (-counts[m], m))[0]
            places = [s for m, s in evidence if m == month]
            others = sorted(set(counts) - {month})
            note = f"{how} in month {month} at {len(places)} place(s), e.g. {places[0]}"
            if others:
                note += f"; other months seen: {', '.join(map(str, others))}"
            return month, note
    return 12, "no 'year ended …' phrase or date header seen: December assumed"
