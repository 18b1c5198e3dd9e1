"""The narrative guard against any reply: its output passes its own check and the eval's.

Replies are built from tokens chosen to stress sentence ends, citation markers and numbers
that can fuse ("2026." followed by "1"), so a gap between the guard (``ground_numbers``) and
the fabrication check (``eval.fabrication``) shows up as a falsifying example.
"""

from __future__ import annotations

import tempfile
from datetime import date
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from ragspine.agent.agent import answer_question
from ragspine.agent.narrative import ground_numbers
from ragspine.eval.fabrication import fabricated_numbers
from ragspine.retrieval.protocol import Snippet
from tests.agent.helpers import CountingStore, ScriptedProvider, text
from tests.agent.test_narrative import ListRetriever

SNIPPETS = [
    Snippet(
        "c1", "memos/Strategy_2026.md", "section=3,para=1-3", "1.香港以代理人渠道为主轴 2026年 3"
    ),
    Snippet(
        "c2", "decks/Review.pptx", "slide=7,body", "Agency sales grew; margin 55.4%, 7 regions."
    ),
]
TOKENS = [
    "[1]", "[2]", "[5]", "2026", "1.", "3", "55.4", "7", "1,234", "香港", "Sales", "。", "\n",
    ". ", " ", ".", "[", "1", "]", "(source: memos/Strategy_2026.md · section=3,para=1-3)",
]  # fmt: skip
replies = st.lists(st.sampled_from(TOKENS), max_size=16).map("".join)


@settings(max_examples=2000, deadline=None)
@given(replies)
def test_the_guard_output_passes_the_guard_unchanged(reply: str) -> None:
    grounded, _ = ground_numbers(reply, SNIPPETS)
    assert ground_numbers(grounded, SNIPPETS) == (grounded, 0)


@settings(max_examples=150, deadline=None)
@given(replies)
def test_no_reply_gets_a_fabricated_number_into_the_answer(reply: str) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        store = CountingStore(Path(tmp) / "facts.db")
        result = answer_question(
            "为什么香港的战略以代理人渠道为主？",
            store,
            ScriptedProvider([text(reply)]),
            reference_date=date(2026, 11, 26),
            narrative_retriever=ListRetriever(SNIPPETS),
        )
        store.close()
    assert result.narrative is not None
    assert fabricated_numbers(result) == []
