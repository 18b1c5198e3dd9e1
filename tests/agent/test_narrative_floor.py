"""Before synthesis: copies of one passage merge, and passages or sentences off the question's
topic never reach the answer."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest

from ragspine.agent.agent import answer_question
from ragspine.agent.llm_provider import MockProvider
from ragspine.agent.narrative import merge_duplicates
from ragspine.agent.types import AnswerKind, Source, SourceKind
from ragspine.eval.fabrication import fabricated_numbers
from ragspine.profile.glossary import glossary_for
from ragspine.profile.loader import load_profile
from ragspine.retrieval.passages import same_passage
from ragspine.retrieval.protocol import Snippet
from ragspine.retrieval.relevance import Topic, question_terms, topic_terms
from tests.agent.helpers import CountingStore, ScriptedProvider, text
from tests.agent.test_narrative import ListRetriever

REF = date(2026, 11, 26)
GROWTH = "香港收入同比增长5.9%至2,850百万美元，主要受代理人渠道带动。"
FILLER = "本次汇报回顾ACME集团2024财年的经营表现。"
REGULATION = "香港风险为本资本制度于2024年正式实施，对新业务价值的影响可控。"


@pytest.fixture
def store(tmp_path: Path) -> CountingStore:
    return CountingStore(tmp_path / "facts.db")


def passage(chunk_id: str, doc: str, body: str) -> Snippet:
    return Snippet(chunk_id, doc, "page=1,para=1", body)


def passage_source(doc: str) -> Source:
    return Source(doc, "page=1,para=1", kind=SourceKind.PASSAGE)


@pytest.mark.parametrize(
    ("a", "b", "same"),
    [
        (GROWTH, GROWTH, True),
        # A reflowed copy: other spacing, full-width punctuation and case.
        ("Revenue grew 5.9% , driven by agency.", "revenue grew 5.9%, driven by  agency", True),
        # The same paragraph with one word changed is a near copy...
        (GROWTH + REGULATION, (GROWTH + REGULATION).replace("主要", "大致"), True),
        # ...but not when a figure differs: that is a restatement, shown as such.
        (GROWTH, GROWTH.replace("2,850", "2,880"), False),
        (GROWTH, REGULATION, False),
    ],
)
def test_copies_are_recognised_by_text_and_numbers(a: str, b: str, same: bool) -> None:
    assert same_passage(a, b) is same


def test_merging_keeps_rank_order_and_folds_later_copies_in() -> None:
    first, other, copy = (
        passage("a#1", "a.docx", GROWTH),
        passage("r#1", "r.docx", REGULATION),
        passage("b#1", "b.docx", GROWTH),
    )
    merged = merge_duplicates([first, other, copy])
    assert [(p.snippet, p.copies) for p in merged] == [(first, (copy,)), (other, ())]


def test_a_paragraph_from_two_files_is_shown_once_and_cites_both(store: CountingStore) -> None:
    copies = [
        passage("a#1", "HK_Review_v1.docx", GROWTH),
        passage("b#1", "HK_Review_v2.docx", GROWTH + " "),
    ]
    spy = ScriptedProvider([text("香港收入增长主要受代理人渠道带动 [1]。")])
    result = answer_question(
        "为什么香港收入增长",
        store,
        spy,
        reference_date=REF,
        narrative_retriever=ListRetriever(copies),
    )
    prompt = str(spy.prompts)
    assert prompt.count("代理人渠道带动") == 1 and "[2]" not in prompt
    assert result.narrative is not None
    assert result.narrative.sources == [
        passage_source("HK_Review_v1.docx"),
        passage_source("HK_Review_v2.docx"),
    ]
    assert [c.number for c in result.narrative.citations] == [1, 1]
    assert fabricated_numbers(result) == []


def test_the_mock_summary_no_longer_repeats_a_copied_paragraph(store: CountingStore) -> None:
    copies = [passage(f"{n}#1", f"copy{n}.docx", GROWTH) for n in range(3)]
    result = answer_question(
        "为什么香港业务增长？",
        store,
        MockProvider(),
        reference_date=REF,
        narrative_retriever=ListRetriever(copies),
    )
    assert result.narrative is not None
    assert result.narrative.body.count("代理人渠道带动") == 1


def test_topic_terms_leave_out_entities_companies_periods_and_question_words() -> None:
    glossary = glossary_for(load_profile())
    assert topic_terms(FILLER, glossary).isdisjoint({"acme", "2024", "财年", "香港"})
    wanted = question_terms("What is the regulatory impact on ACME HK?", glossary)
    assert {"regula", "impact", "监管", "影响"} <= wanted
    assert wanted.isdisjoint({"what", "acme", "hk", "香港"})


def test_with_only_off_topic_passages_the_answer_says_nothing_relevant_was_found(
    store: CountingStore,
) -> None:
    spy = ScriptedProvider([text(f"{FILLER} [1]")])
    result = answer_question(
        "What is the regulatory impact on ACME HK?",
        store,
        spy,
        reference_date=REF,
        narrative_retriever=ListRetriever([passage("f#1", "review.pptx", FILLER + GROWTH)]),
    )
    assert result.answer_kind is AnswerKind.NO_CONTEXT
    assert spy.calls == 0 and result.sources == []
    assert "No relevant passage" in result.answer and FILLER not in result.answer


def test_a_filler_sentence_is_dropped_even_from_a_relevant_passage(store: CountingStore) -> None:
    """The mock, finding no English word in Chinese passages, falls back to first sentences:
    the floor in our code drops the filler one whatever the model."""
    snippets = [passage("f#1", "review.pptx", FILLER + REGULATION)]
    result = answer_question(
        "What is the regulatory impact on ACME HK?",
        store,
        MockProvider(),
        reference_date=REF,
        narrative_retriever=ListRetriever(snippets),
    )
    assert FILLER not in result.answer


def test_off_topic_sentences_of_a_model_are_dropped(store: CountingStore) -> None:
    spy = ScriptedProvider([text(f"{FILLER} [1] 新制度对新业务价值的影响可控 [1]。")])
    result = answer_question(
        "香港的监管影响是什么？",
        store,
        spy,
        reference_date=REF,
        narrative_retriever=ListRetriever([passage("f#1", "review.pptx", FILLER + REGULATION)]),
    )
    assert result.narrative is not None
    assert result.narrative.body.startswith("新制度对新业务价值的影响可控")
    assert FILLER not in result.answer


GLOSSARY = glossary_for(load_profile())
RESTATED = "香港FY2024收入按新会计政策重述为2,880百万美元。"
DIVIDEND = "管理层建议维持稳定的股息政策。"


@pytest.mark.parametrize(
    ("question", "sentence", "on_topic"),
    [
        # 政策 under another modifier is another kind of policy.
        ("ACME的股息政策是什么", RESTATED, False),
        ("ACME的股息政策是什么", DIVIDEND, True),
        ("What is ACME's dividend policy?", DIVIDEND, True),
        # The accounting policy is what this one asks about.
        ("香港的会计政策有什么变化", RESTATED, True),
        # A verb of change is no compound's head: revenue growth is growth too.
        ("为什么香港业务增长？", GROWTH, True),
        # A longer run cannot be cut into words: each shared word counts as before.
        ("合规部何时完成内部模型复核并提交年度资本报告", REGULATION, True),
    ],
)
def test_a_word_under_another_modifier_is_not_the_same_topic(
    question: str, sentence: str, on_topic: bool
) -> None:
    assert Topic.of(question, GLOSSARY).shared_by(sentence, GLOSSARY) is on_topic


def test_a_policy_question_quotes_the_policy_not_a_restatement(store: CountingStore) -> None:
    snippets = [
        passage("r#1", "FY2025_Review.pptx", RESTATED),
        passage("d#1", "FY2024_Review.pptx", DIVIDEND),
    ]
    result = answer_question(
        "ACME的股息政策是什么",
        store,
        MockProvider(),
        reference_date=REF,
        narrative_retriever=ListRetriever(snippets),
    )
    assert result.narrative is not None
    assert DIVIDEND in result.answer and "会计政策" not in result.answer
    assert [s.doc for s in result.sources] == ["FY2024_Review.pptx"]
