"""Query rewrite across languages, and the rerank judge's fallbacks and RESTRICTED rule."""

from __future__ import annotations

import json

from ragspine.errors import ProviderError
from ragspine.llm.protocol import ProviderResponse
from ragspine.retrieval.protocol import Snippet
from ragspine.retrieval.rerank import LLMListwiseReranker
from ragspine.retrieval.rewrite import rewrite_query
from tests.profiles import acme_glossary


def test_chinese_question_gains_english_terms() -> None:
    original, variant = rewrite_query("为什么香港收入增长", acme_glossary())
    assert original == "为什么香港收入增长"
    for word in ("Hong Kong", "revenue", "growth", "why"):
        assert word in variant


def test_english_question_gains_chinese_terms() -> None:
    _, variant = rewrite_query("What is the regulatory impact on ACME HK?", acme_glossary())
    assert "香港" in variant and "监管" in variant and "影响" in variant


def test_nothing_to_translate_leaves_one_variant() -> None:
    assert rewrite_query("xyz", acme_glossary()) == ["xyz"]


class Judge:
    def __init__(self, reply: str | Exception) -> None:
        self.reply = reply
        self.prompts: list[str] = []

    def create_message(
        self, *, system: str, messages: list[dict[str, object]], tools: list[dict[str, object]]
    ) -> ProviderResponse:
        self.prompts.append(json.dumps(messages, ensure_ascii=False))
        if isinstance(self.reply, Exception):
            raise self.reply
        return ProviderResponse(text=self.reply, tool_calls=[], stop_reason="end_turn")


def snippets() -> list[Snippet]:
    return [
        Snippet("a", "d1", "slide=1,notes", "alpha text"),
        Snippet("s", "board.docx", "page=1,para=1", "SECRET NIGHTJAR", sensitivity="RESTRICTED"),
        Snippet("b", "d2", "slide=2,notes", "beta text"),
        Snippet("c", "d3", "slide=3,notes", "gamma text"),
    ]


def test_judge_reorders_and_restricted_keeps_its_slot_unseen() -> None:
    judge = Judge("3 > 1 > 2")
    ranked = LLMListwiseReranker(judge).rerank("q", snippets())
    assert [s.chunk_id for s in ranked] == ["c", "s", "a", "b"]
    assert "NIGHTJAR" not in judge.prompts[0]


def test_malformed_or_failing_judge_keeps_fused_order() -> None:
    for reply in ("no idea", "1 > 1 > 2", "7 > 1", ProviderError("timeout")):
        ranked = LLMListwiseReranker(Judge(reply)).rerank("q", snippets())
        assert [s.chunk_id for s in ranked] == ["a", "s", "b", "c"]


def test_partial_ranking_keeps_the_rest_in_order() -> None:
    ranked = LLMListwiseReranker(Judge("2")).rerank("q", snippets())
    assert [s.chunk_id for s in ranked] == ["b", "s", "a", "c"]
