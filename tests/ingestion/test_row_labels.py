"""Which row answered (issue 27): each fact keeps its row's label as the document writes it,
every store returns it, and the answer line names it beside the metric, in both languages.

The Lakeside profile holds "Cost of sales", "Depreciation" and "Cost of sales excluding
depreciation" as three metrics; a fourth, "Core capital", is labelled "Tier 1 capital" in the
report: a digit in a row label that no name of the profile holds.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from datetime import date
from pathlib import Path

import pytest

from ragspine.agent.agent import answer_question
from ragspine.agent.llm_provider import MockProvider
from ragspine.agent.types import AgentResult, AnswerKind, FoundFact
from ragspine.eval.fabrication import fabricated_numbers, profile_names
from ragspine.ingestion.pipeline import ingest
from ragspine.profile.loader import load_profile
from ragspine.profile.model import DomainProfile
from ragspine.storage.protocol import WorkspaceStoreProtocol
from tests.profiles import LAKESIDE_PATH
from tests.storage.backends import BACKENDS, open_workspace_store

REF = date(2026, 11, 26)
LONG_ROW = "Cost of sales excluding depreciation (US$ m)"
TIER_ROW = "Tier 1 capital (US$ m)"
REPORT = (
    "# Lakeside Outfitters Group annual report FY2025\n\n"
    "| Item | FY2025 | FY2024 |\n| --- | --- | --- |\n"
    f"| {LONG_ROW} | 410 | 380 |\n"
    "| Depreciation | 55 | 50 |\n"
    f"| {TIER_ROW} | 720 | 690 |\n"
)
TIER_METRIC = """
[[metrics]]
code = "CORE_CAPITAL"
name_zh = "核心资本"
name_en = "Core capital"
aliases = ["Tier 1 capital"]
unit = "USD_M"
"""


@pytest.fixture
def profile(tmp_path: Path) -> DomainProfile:
    path = tmp_path / "lakeside.toml"
    text = LAKESIDE_PATH.read_text(encoding="utf-8")
    channels = text.index("[[channels]]")
    path.write_text(text[:channels] + TIER_METRIC + "\n" + text[channels:], encoding="utf-8")
    return load_profile(path)


@pytest.fixture(params=BACKENDS)
def store(
    request: pytest.FixtureRequest, tmp_path: Path, profile: DomainProfile
) -> Iterator[WorkspaceStoreProtocol]:
    with open_workspace_store(request.param, request, tmp_path) as opened:
        report = tmp_path / "docs" / "lakeside_fy2025.md"
        report.parent.mkdir()
        report.write_text(REPORT, encoding="utf-8")
        assert not ingest([report], opened, profile).failures
        yield opened


def ask(question: str, store: WorkspaceStoreProtocol, profile: DomainProfile) -> AgentResult:
    return answer_question(question, store, MockProvider(), reference_date=REF, profile=profile)


def test_each_fact_keeps_its_rows_label_as_written(store: WorkspaceStoreProtocol) -> None:
    labels = {(f.metric_code, f.period): f.row_label for f in store.list_facts()}
    assert labels == {
        ("COS_EX_DEP", "2025"): LONG_ROW,
        ("COS_EX_DEP", "2024"): LONG_ROW,
        ("DEPRECIATION", "2025"): "Depreciation",
        ("DEPRECIATION", "2024"): "Depreciation",
        ("CORE_CAPITAL", "2025"): TIER_ROW,
        ("CORE_CAPITAL", "2024"): TIER_ROW,
    }
    fact = store.get_fact("COS_EX_DEP", "LKS_ALL", "FY", "2025", "ALL")
    assert fact is not None and fact.row_label == LONG_ROW


def test_the_answer_names_the_row_beside_the_metric(
    store: WorkspaceStoreProtocol, profile: DomainProfile
) -> None:
    english = ask("What was cost of sales excluding depreciation in FY2025?", store, profile)
    assert english.answer_kind is AnswerKind.FOUND
    assert f'Cost of sales excluding depreciation (row "{LONG_ROW}"): US$ 410 m' in (english.answer)
    (found,) = english.tool_results
    assert isinstance(found, FoundFact) and found.row_label == LONG_ROW
    assert found.to_dict()["row_label"] == LONG_ROW
    chinese = ask("不含折旧的销售成本FY2025是多少", store, profile)
    assert f"不含折旧的销售成本（行“{LONG_ROW}”）：410 百万美元" in chinese.answer


def test_a_row_labelled_as_the_metrics_name_is_not_named_twice(
    store: WorkspaceStoreProtocol, profile: DomainProfile
) -> None:
    result = ask("Depreciation FY2025", store, profile)
    assert "Depreciation: US$ 55 m" in result.answer
    assert "(row " not in result.answer


def test_a_digit_in_the_row_label_is_never_a_number_the_answer_states(
    store: WorkspaceStoreProtocol, profile: DomainProfile
) -> None:
    result = ask("What was Tier 1 capital in FY2025?", store, profile)
    assert f'(row "{TIER_ROW}"): US$ 720 m' in result.answer
    names = profile_names(profile)
    assert fabricated_numbers(result, allowed_values=[720.0], names=names) == []
    # The control: the same answer with a label its fact does not carry states a "1".
    (found,) = result.tool_results
    assert isinstance(found, FoundFact)
    unlabelled = replace(result, tool_results=[replace(found, row_label=None)])
    counted = fabricated_numbers(unlabelled, allowed_values=[720.0], names=names)
    assert [f.number for f in counted] == ["1"]
