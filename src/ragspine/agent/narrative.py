"""The narrative path: retrieve, synthesise only from numbered snippets, force citations.

Two invariants are enforced here in code: a snippet the caller is not cleared for never reaches
the prompt (checked again after the retriever, whatever it claims), and every number in the
synthesised text must occur in a cited snippet — a sentence carrying any other number is
dropped. Sources the model failed to name are appended.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ragspine.agent.intent import ParsedIntent
from ragspine.agent.llm_provider import LLMProvider
from ragspine.errors import ProviderError
from ragspine.observability.trace import RequestTrace
from ragspine.profile.sensitivity import Sensitivity
from ragspine.retrieval.protocol import NarrativeRetriever, RetrievalFilters, Snippet

NARRATIVE_SYSTEM_PROMPT = (
    "Answer only from the numbered snippets. Cite every snippet you use as [n]. "
    "If the snippets do not answer the question, say so. Never state a number that is not "
    "written in a snippet."
)
TOP_K = 5

_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
# Sentence ends: CJK or ASCII terminators, or a "." followed by whitespace (not "55.4").
_SENTENCE_END = re.compile(r"(?<=[。！？!?\n])|(?<=\.)(?=\s)")
_CITATION = re.compile(r"\[(\d+)\]")


@dataclass
class NarrativeOutcome:
    text: str
    sources: list[dict[str, str]] = field(default_factory=list)
    kind: str = "narrative"


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
) -> NarrativeOutcome:
    if retriever is None:
        return NarrativeOutcome(_NO_RETRIEVER[language], kind="no_context")
    snippets = [
        s
        for s in retriever.retrieve(question, top_k=TOP_K, filters=filters, clearance=clearance)
        if clearance.allows(Sensitivity.parse(s.sensitivity))
    ]
    trace.chunk_ids.extend(s.chunk_id for s in snippets)
    if not snippets:
        return NarrativeOutcome(_NOTHING_FOUND[language], kind="no_context")
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
        return NarrativeOutcome(_UNAVAILABLE[language], kind="degraded")
    text, stripped = ground_numbers(reply.text, snippets)
    trace.numbers_stripped += stripped
    text, used, appended = force_citations(text, snippets, language)
    trace.citations_appended += appended
    sources = [{"doc": s.doc, "locator": s.locator} for s in used]
    return NarrativeOutcome(text, sources)


def filters_for(intent: ParsedIntent) -> RetrievalFilters:
    """Entity and period named in the question narrow retrieval before scoring."""
    return RetrievalFilters(
        entities=intent.entities, periods=tuple(p.label for p in intent.periods)
    )


def build_prompt(question: str, snippets: list[Snippet], clearance: Sensitivity) -> str:
    """The user turn: the question and numbered snippets. Refuses uncleared material."""
    lines = [f"Question: {question}", "Snippets:"]
    for number, snippet in enumerate(snippets, start=1):
        if not clearance.allows(Sensitivity.parse(snippet.sensitivity)):
            raise PermissionError(f"snippet {snippet.chunk_id} exceeds the caller's clearance")
        lines.append(f"[{number}] (source: {snippet.doc} · {snippet.locator}) {snippet.text}")
    return "\n".join(lines)


def ground_numbers(text: str, snippets: list[Snippet]) -> tuple[str, int]:
    """Drop every sentence holding a number that no snippet contains; count the drops."""
    allowed = {_canonical(n) for s in snippets for n in _NUMBER.findall(s.text)}
    kept: list[str] = []
    dropped = 0
    for sentence in _SENTENCE_END.split(text):
        numbers = [_canonical(n) for n in _NUMBER.findall(_CITATION.sub("", sentence))]
        if all(n in allowed for n in numbers):
            kept.append(sentence)
        else:
            dropped += 1
    return "".join(kept).strip(), dropped


def _canonical(number: str) -> str:
    return number.replace(",", "")


def force_citations(
    text: str, snippets: list[Snippet], language: str = "en"
) -> tuple[str, list[Snippet], int]:
    """Name every source the answer used, with its locator; return the text and those sources.

    Used sources are the snippets the text cites as ``[n]``; when it cites none we cannot
    tell, so all snippets count as used. A footer maps each used ``[n]`` to its document and
    locator; the count says how many used sources the model had not named itself.
    """
    cited = sorted({int(n) for n in _CITATION.findall(text) if 1 <= int(n) <= len(snippets)})
    numbers = cited or list(range(1, len(snippets) + 1))
    used = [snippets[n - 1] for n in numbers]
    unnamed = sum(1 for s in used if s.doc not in text)
    heading = _SOURCES_HEADING[language]
    footer = "\n".join(f"[{n}] {snippets[n - 1].doc} · {snippets[n - 1].locator}" for n in numbers)
    body = text.strip() or _NUMBERS_REMOVED[language]
    return f"{body}\n{heading}\n{footer}", used, unnamed


_SOURCES_HEADING = {"zh": "来源：", "en": "Sources:"}
_NUMBERS_REMOVED = {
    "zh": "模型回答中的数字无法在引用段落中核实，已全部删除；请查看以下来源。",
    "en": "The model's answer stated figures that the passages do not support, so it was "
    "removed; see the sources below.",
}
