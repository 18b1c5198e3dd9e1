"""The seeds' import path ``ragspine.agent.llm_provider`` keeps exposing the LLM seam."""

from __future__ import annotations

import ragspine.llm
from ragspine.agent import llm_provider


def test_every_name_is_the_one_from_ragspine_llm() -> None:
    assert set(llm_provider.__all__) == set(ragspine.llm.__all__)
    for name in llm_provider.__all__:
        assert getattr(llm_provider, name) is getattr(ragspine.llm, name), name
