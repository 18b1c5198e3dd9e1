"""The narrative path: retrieve, synthesise only from numbered snippets, force citations.

Three invariants are enforced here in code: a snippet the caller is not cleared for, or one held
for review as instruction-like text, never reaches the prompt (checked again after the
retriever, whatever it claims); a sentence stating a value the fact table holds differently is
dropped (the structured fact wins, ``agent.consistency``); and every number in the synthesised
text must occur in a cited snippet — a sentence carrying any other number is dropped. Sources
the model failed to name are appended.

Between retrieval and the prompt, copies of one passage (the same paragraph in two files or
versions) merge into one numbered snippet that cites every copy's source once, and a relevance
floor keeps only passages that share a topic word with the question (in a sentence or in
their title). The floor holds for the answer too: a sentence that shares no topic word with
the question is dropped, so filler never stands in for an answer; when none is left, the
on-topic sentences of the passages are quoted instead, and when there are none either, the
answer says that no relevant passage was found.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace

from ragspine.agent.cues import GROWTH
from ragspine.agent.types import (
    AnswerKind,
    Citation,
    NarrativeSection,
    ParsedIntent,
    Source,
    SourceKind,
)
from ragspine.errors import ProviderError
from ragspine.llm.protocol import LLMProvider
from ragspine.observability.trace import RequestTrace
from ragspine.profile.glossary import Glossary
from ragspine.profile.sensitivity import Sensitivity
from ragspine.retrieval.passages import fold_copies, numbers_in_text
from ragspine.retrieval.protocol import NarrativeRetriever, RetrievalFilters, Snippet
from ragspine.retrieval.relevance import Topic, topic_terms

NARRATIVE_SYSTEM_PROMPT = (
    "Answer only from the numbered snippets. Cite every snippet you use as [n]. "
    "If the snippets do not answer the question, say so. Never state a number that is not "
    "written in a snippet."
)
TOP_K = 5
# The relevance floor and the merging of copies thin the list, so more candidates are read
# than are shown; the retriever scores this many anyway (retriever.CANDIDATES).
POOL = 3 * TOP_K
QUOTED_SENTENCES = 3

# Sentence ends: CJK or ASCII terminators, or a "." followed by whitespace (not "55.4").
_SENTENCE_END = re.compile(r"(?<=[。！？!?\n])|(?<=\.)(?=\s)")
_CITATION = re.compile(r"\[(\d+)\]")
_LEADING_CITATIONS = re.compile(r"^(\s*(?:\[\d+\]\s*)+)")


_NO_RETRIEVER = {
    "zh": "未接入叙述检索，无法回答原因类问题；为避免误导，不作推测。",
    "en": "Narrative retrieval is not configured, so this question cannot be answered; "
    "nothing is guessed.",
}
_NOTHING_FOUND = {
    "zh": "未检索到相关文档段落，无法回答；为避免误导，不作推测。",
    "en": "No relevant passage was found in the documents, so nothing is guessed.",
}
_UNAVAILABLE = {
    "zh": "AI 服务暂时不可用，未能生成叙述回答；为避免误导，不作推测。",
    "en": "The AI service is temporarily unavailable, so no narrative answer was generated.",
}


def run_narrative(
    question: str,
    retriever: NarrativeRetriever | None,
    provider: LLMProvider,
    *,
    filters: RetrievalFilters | None,
    clearance: Sensitivity,
    language: str,
    trace: RequestTrace,
    glossary: Glossary,
    contradicts: Callable[[str], bool] | None = None,
) -> NarrativeSection:
    """``contradicts`` tells whether a sentence states a value the fact table holds
    differently (``agent.consistency.FactCheck.contradicts``); such sentences are dropped."""
    if retriever is None:
        return _message(_NO_RETRIEVER[language], AnswerKind.NO_CONTEXT)
    ranked = retriever.retrieve(question, top_k=POOL, filters=filters, clearance=clearance)
    # Copies a retriever folded in are screened like the passages themselves.
    retrieved = [
        s
        for top in ranked
        for s in (replace(top, copies=()), *top.copies)
        if clearance.allows(Sensitivity.parse(s.sensitivity)) and not s.held
    ]
    merged = merge_duplicates(retrieved)
    # The retrieval record lists each passage once: a copy of a passage (the same text in
    # another file) is cited with it, not ranked after it.
    trace.chunk_ids.extend(p.snippet.chunk_id for p in merged)
    wanted = Topic.of(question, glossary)
    passages = [p for p in merged if p.answers(wanted, glossary)][:TOP_K]
    if not passages:
        return _message(_NOTHING_FOUND[language], AnswerKind.NO_CONTEXT)
    snippets = [p.snippet for p in passages]
    prompt = build_prompt(question, snippets, clearance)
    try:
        trace.llm_calls += 1
        reply = provider.create_message(
            system=NARRATIVE_SYSTEM_PROMPT,
            messages=[{"role": "user", "content": prompt}],
            tools=[],
        )
    except ProviderError:
        trace.provider_error = True
        return _message(_UNAVAILABLE[language], AnswerKind.DEGRADED)

    def screened(candidate: str) -> str:
        """``candidate`` without sentences that contradict a fact or state an unsupported
        number."""
        if contradicts is not None:
            candidate, contradicted = drop_sentences(candidate, contradicts)
            trace.facts_contradicted += contradicted
        candidate, stripped = ground_numbers(candidate, snippets)
        trace.numbers_stripped += stripped
        return candidate

    on_topic = relevant_sentences(reply.text, wanted, glossary)
    text = screened(on_topic)
    if not text.strip():
        # The model said nothing on topic that survives the checks, yet the passages may:
        # quote those sentences instead, screened the same way.
        quoted = quote_relevant(passages, wanted, glossary)
        if not on_topic and not quoted:
            return _message(_NOTHING_FOUND[language], AnswerKind.NO_CONTEXT)
        text = screened(quoted)
    body = text.strip() or _NUMBERS_REMOVED[language]
    copies = {n: p.copies for n, p in enumerate(passages, start=1)}
    text, citations, appended = force_citations(text, snippets, language, copies)
    trace.citations_appended += appended
    return NarrativeSection(text, citations, body=body)


@dataclass(frozen=True)
class Passage:
    """One snippet shown to the model, with the other retrieved copies of its text."""

    snippet: Snippet
    copies: tuple[Snippet, ...] = ()

    def answers(self, wanted: Topic, glossary: Glossary) -> bool:
        """Whether its title or one of its sentences shares a topic word with the question
        (any passage does when the question names no topic at all)."""
        if not wanted or self.titled(wanted, glossary):
            return True
        return any(wanted.shared_by(s, glossary) for s in cited_sentences(self.snippet.text))

    def titled(self, wanted: Topic, glossary: Glossary) -> bool:
        """Whether the title it sits under is about the question: then all of it is."""
        return wanted.shared_by(self.snippet.title, glossary)


def merge_duplicates(snippets: Sequence[Snippet]) -> list[Passage]:
    """Snippets in rank order, each later copy of an earlier one's text folded into it (with
    the copies a retriever already folded)."""
    return [Passage(replace(s, copies=()), s.copies) for s in fold_copies(snippets)]


def quote_relevant(passages: Sequence[Passage], wanted: Topic, glossary: Glossary) -> str:
    """The sentences of the passages that share a topic word with the question (the first
    sentence with any topic of a passage whose title does), each cited as ``[n]``, in
    passage order."""
    quoted = []
    for n, p in enumerate(passages, start=1):
        sentences = [s.strip() for s in cited_sentences(p.snippet.text) if s.strip()]
        if p.titled(wanted, glossary):
            sentences = [s for s in sentences if topic_terms(s, glossary)][:1]
        else:
            sentences = [s for s in sentences if wanted.shared_by(s, glossary)]
        quoted += [f"{sentence} [{n}]" for sentence in sentences]
    return " ".join(quoted[:QUOTED_SENTENCES])


def relevant_sentences(text: str, wanted: Topic, glossary: Glossary) -> str:
    """``text`` without the sentences that share no topic word with the question (all stay
    when the question names no topic)."""
    if not wanted:
        return text
    kept = [s for s in cited_sentences(text) if wanted.shared_by(_CITATION.sub(" ", s), glossary)]
    return "".join(kept).strip()


def _message(text: str, kind: AnswerKind) -> NarrativeSection:
    """A narrative section that is only our own fixed message: nothing retrieved or cited."""
    return NarrativeSection(text, kind=kind, body=text)


def filters_for(intent: ParsedIntent) -> RetrievalFilters:
    """Entity and period named in the question narrow retrieval before scoring.

    A period admits the periods inside it (``RetrievalFilters``), and a question about a
    change also admits the year before, ranked after: the base of the change is explained
    there too.
    """
    asked = tuple(dict.fromkeys(p.label for p in intent.periods))
    change = intent.growth or any(GROWTH.finditer(intent.raw_question))
    before = [p.previous_year().label for p in intent.periods] if change else []
    return RetrievalFilters(
        entities=intent.entities,
        periods=asked,
        comparison_periods=tuple(p for p in dict.fromkeys(before) if p not in asked),
    )


def build_prompt(question: str, snippets: list[Snippet], clearance: Sensitivity) -> str:
    """The user turn: the question and numbered snippets. Refuses uncleared or held material."""
    lines = [f"Question: {question}", "Snippets:"]
    for number, snippet in enumerate(snippets, start=1):
        if not clearance.allows(Sensitivity.parse(snippet.sensitivity)):
            raise PermissionError(f"snippet {snippet.chunk_id} exceeds the caller's clearance")
        if snippet.held:
            raise PermissionError(f"snippet {snippet.chunk_id} is held for review")
        lines.append(f"[{number}] (source: {snippet.doc} · {snippet.locator}) {snippet.text}")
    return "\n".join(lines)


def ground_numbers(text: str, snippets: list[Snippet]) -> tuple[str, int]:
    """Drop every sentence holding a number its cited snippets do not contain; count the drops.

    A sentence that cites ``[n]`` is held to those snippets (a marker past the last snippet
    cites nothing). A sentence citing none may use the snippets the answer cites elsewhere,
    or any snippet shown when it cites none at all: exactly the passages ``force_citations``
    then lists as sources. A dropped sentence leaves a space, so its neighbours cannot fuse
    into a new number ("2026." + "1" is not "2026.1"). Dropping can take a snippet's only
    citation with it or move a sentence boundary, so the check runs again on its own output
    until it drops nothing: the result passes the same check unchanged.
    """
    numbers_in = {n: numbers_in_text(s.text) for n, s in enumerate(snippets, start=1)}
    text = text.strip()
    dropped = 0
    while True:
        pool = set().union(*(numbers_in[n] for n in used_snippets(text, len(snippets))))
        sentences = cited_sentences(text)
        grounded = [sentence_numbers(s) <= allowed_numbers(s, numbers_in, pool) for s in sentences]
        if all(grounded):
            return text, dropped
        dropped += grounded.count(False)
        text = "".join(s if ok else " " for s, ok in zip(sentences, grounded, strict=True)).strip()


def drop_sentences(text: str, rejects: Callable[[str], bool]) -> tuple[str, int]:
    """``text`` without the sentences ``rejects`` flags, each leaving a space (see
    ``ground_numbers``), and how many were dropped."""
    sentences = cited_sentences(text)
    flags = [rejects(s) for s in sentences]
    kept = "".join(" " if flag else s for s, flag in zip(sentences, flags, strict=True))
    return kept.strip(), sum(flags)


def used_snippets(text: str, count: int) -> list[int]:
    """The snippet numbers ``text`` cites as ``[n]`` (1..count), or all of them when none."""
    cited = sorted({int(n) for n in _CITATION.findall(text) if 1 <= int(n) <= count})
    return cited or list(range(1, count + 1))


def allowed_numbers(
    sentence: str, numbers_in: Mapping[int, set[str]], uncited_pool: set[str]
) -> set[str]:
    """The numbers ``sentence`` may state: those of the snippets it cites, else the pool.

    ``numbers_in`` maps snippet numbers to the numbers written in them; a marker it lacks cites
    nothing. ``uncited_pool`` holds the numbers a sentence without a marker may use.
    """
    cited = [int(n) for n in _CITATION.findall(sentence)]
    if not cited:
        return uncited_pool
    return set().union(*(numbers_in.get(n, set()) for n in cited))


def sentence_numbers(sentence: str) -> set[str]:
    """The numbers a sentence states, citation markers aside, thousands separators removed."""
    return numbers_in_text(_CITATION.sub(" ", sentence))


def cited_sentences(text: str) -> list[str]:
    """``text`` cut into sentences, each keeping the ``[n]`` markers written after its end.

    Lossless: joined back they give ``text``. Whitespace between sentences stays with the
    sentence before it.
    """
    sentences: list[str] = []
    for piece in _SENTENCE_END.split(text):
        lead = _LEADING_CITATIONS.match(piece)
        if sentences and (lead or not piece.strip()):
            cut = lead.end() if lead else len(piece)
            sentences[-1] += piece[:cut]
            piece = piece[cut:]
        if piece:
            sentences.append(piece)
    return sentences


def force_citations(
    text: str,
    snippets: list[Snippet],
    language: str = "en",
    copies: Mapping[int, Sequence[Snippet]] | None = None,
) -> tuple[str, tuple[Citation, ...], int]:
    """Name every source the answer used, with its locator; return the text and its citations.

    Used sources are the snippets the text cites as ``[n]``; when it cites none we cannot
    tell, so all snippets count as used. A footer maps each used ``[n]`` to its document and
    locator — and to those of the snippet's ``copies[n]``, each source once, under the same
    number and text; the count says how many used sources the model had not named itself.
    """
    citations = tuple(
        Citation(n, source, snippets[n - 1].text)
        for n in used_snippets(text, len(snippets))
        for source in _sources(snippets[n - 1], (copies or {}).get(n, ()))
    )
    unnamed = sum(1 for c in citations if c.source.doc not in text)
    heading = _SOURCES_HEADING[language]
    footer = "\n".join(f"[{c.number}] {c.source.doc} · {c.source.locator}" for c in citations)
    body = text.strip() or _NUMBERS_REMOVED[language]
    return f"{body}\n{heading}\n{footer}", citations, unnamed


def _sources(snippet: Snippet, copies: Sequence[Snippet]) -> list[Source]:
    return list(dict.fromkeys(_source(s) for s in (snippet, *copies)))


def _source(snippet: Snippet) -> Source:
    return Source(
        snippet.doc, snippet.locator, Sensitivity.parse(snippet.sensitivity), SourceKind.PASSAGE
    )


_SOURCES_HEADING = {"zh": "来源：", "en": "Sources:"}
_NUMBERS_REMOVED = {
    "zh": "模型回答中的数字无法在引用段落中核实，已全部删除；请查看以下来源。",
    "en": "The model's answer stated figures that the passages do not support, so it was "
    "removed; see the sources below.",
}
