"""Query rewrite without a model: carry the question's terms into the other language.

Profile terms (metrics, entities, channels) expand to their aliases in the other language and
their codes; generic report words go through a small bilingual vocabulary. The original query
stays the first variant, and every variant runs under the same entity/period filters, so the
translated variants add cross-lingual recall without drowning the entity the user named.
"""

from __future__ import annotations

import re

from ragspine.profile.glossary import Glossary
from ragspine.profile.matching import CJK, detect_language
from ragspine.retrieval.bilingual import EN_TO_ZH, ZH_TO_EN

_EN_WORD = re.compile(r"[a-z]+")


def rewrite_query(query: str, glossary: Glossary) -> list[str]:
    """``[query, other-language variant]`` (the second only when it adds something)."""
    target = "en" if detect_language(query) == "zh" else "zh"
    words: list[str] = []
    for hit in glossary.match_terms(query).hits:
        words += _aliases(glossary, hit.kind, hit.code, target)
    words += _generic(query, target)
    variant = " ".join(dict.fromkeys(w for w in words if w))
    return [query, variant] if variant else [query]


def _aliases(glossary: Glossary, kind: str, code: str, target: str) -> list[str]:
    profile = glossary.profile
    item = {"metric": profile.metric, "entity": profile.entity, "channel": profile.channel}[kind](
        code
    )
    if item is None:
        return []
    names = [item.name_zh, item.name_en, *item.aliases]
    if kind == "entity" and code != profile.company.home_entity:
        # "<home company> <region>" aliases would add the company's name, which every
        # document contains, and pull the variant towards all of them.
        home = profile.home_entity
        company = [a.casefold() for a in (home.name_zh, home.name_en, *home.aliases) if len(a) > 2]
        names = [n for n in names if not any(c in n.casefold() for c in company)]
    wanted = [n for n in names if bool(CJK.search(n)) == (target == "zh")]
    # Two-letter ASCII aliases (region codes) are noisy tokens on their own; keep 3+ letters.
    return [n for n in wanted if target == "zh" or len(n) > 2]


def _generic(query: str, target: str) -> list[str]:
    if target == "en":
        return [w for zh, words in ZH_TO_EN.items() if zh in query for w in words]
    lowered = query.lower()
    return [zh for word in _EN_WORD.findall(lowered) for zh in EN_TO_ZH.get(word, ())]
