"""The agent's typed vocabulary: wire shapes equal the old dicts, a read-only dict view, the
assumed slots as the wire shows them, and which answer kinds state no value."""

from __future__ import annotations

import dataclasses
from dataclasses import replace

import pytest

from ragspine.agent.types import (
    AnswerKind,
    ClarificationResult,
    ClarifyMode,
    FactNotFound,
    FoundFact,
    Slots,
    Source,
    SourceKind,
    ToolError,
    ToolStatus,
    UnrecognizedParam,
)
from ragspine.profile.periods import Period
from ragspine.profile.sensitivity import Sensitivity

HK_2025H1 = Slots("REVENUE", "ACME_HK", Period(2025, "H1"), "AGENCY")
SOURCE = Source("ACME_5Y.xlsx", "sheet=HK,cell=C7", Sensitivity.CONFIDENTIAL, SourceKind.FACT)
FOUND = FoundFact(HK_2025H1, 510.0, "USD_M", SOURCE)


# --- to_dict is exactly the dict shape earlier versions passed around


def test_source_wire_form_is_doc_and_locator_only() -> None:
    assert SOURCE.to_dict() == {"doc": "ACME_5Y.xlsx", "locator": "sheet=HK,cell=C7"}


def test_source_defaults_to_an_internal_fact_cell() -> None:
    source = Source("deck.pptx", "slide=1")
    assert (source.sensitivity, source.kind) == (Sensitivity.INTERNAL, SourceKind.FACT)


def test_slots_wire_form() -> None:
    assert HK_2025H1.to_dict() == {
        "metric_code": "REVENUE",
        "entity": "ACME_HK",
        "period_type": "H1",
        "period": "2025",
        "period_label": "2025H1",
        "channel": "AGENCY",
    }


def test_found_wire_form() -> None:
    assert FOUND.to_dict() == {
        "status": "found",
        "value": 510.0,
        "unit": "USD_M",
        "metric_code": "REVENUE",
        "entity": "ACME_HK",
        "period_type": "H1",
        "period": "2025",
        "period_label": "2025H1",
        "channel": "AGENCY",
        "source": {"doc": "ACME_5Y.xlsx", "locator": "sheet=HK,cell=C7"},
        "row_label": None,
    }
    labelled = replace(FOUND, row_label="Revenue (US$ m)")
    assert labelled.to_dict()["row_label"] == "Revenue (US$ m)"


def test_not_found_wire_form() -> None:
    assert FactNotFound(HK_2025H1).to_dict() == {
        "status": "not_found",
        "normalized": {
            "metric_code": "REVENUE",
            "entity": "ACME_HK",
            "period_type": "H1",
            "period": "2025",
            "period_label": "2025H1",
            "channel": "AGENCY",
        },
    }


def test_unrecognized_wire_form() -> None:
    assert UnrecognizedParam("period", "next decade").to_dict() == {
        "status": "unrecognized_param",
        "param": "period",
        "raw": "next decade",
    }


def test_tool_error_wire_form() -> None:
    assert ToolError("unknown tool 'x'").to_dict() == {
        "status": "error",
        "message": "unknown tool 'x'",
    }


def test_each_result_carries_its_status() -> None:
    assert [r.status for r in (FOUND, FactNotFound(HK_2025H1), UnrecognizedParam("a", "b"))] == [
        ToolStatus.FOUND,
        ToolStatus.NOT_FOUND,
        ToolStatus.UNRECOGNIZED,
    ]
    assert ToolError("m").status is ToolStatus.ERROR


# --- the read-only dict view the seeds' examples use


def test_dict_view_reads_the_wire_form() -> None:
    assert FOUND["status"] == "found" and FOUND.get("status") == ToolStatus.FOUND
    assert FOUND["value"] == 510.0
    assert FOUND["source"]["locator"] == "sheet=HK,cell=C7"
    assert SOURCE["doc"] == "ACME_5Y.xlsx"
    assert FactNotFound(HK_2025H1)["normalized"]["period_label"] == "2025H1"


def test_dict_view_hides_server_side_fields() -> None:
    assert SOURCE.get("sensitivity") is None
    assert SOURCE.get("kind", "absent") == "absent"
    with pytest.raises(KeyError):
        SOURCE["sensitivity"]


def test_dict_view_is_read_only() -> None:
    with pytest.raises(TypeError):
        SOURCE["doc"] = "other.pptx"  # type: ignore[index]
    with pytest.raises(dataclasses.FrozenInstanceError):
        SOURCE.doc = "other.pptx"  # type: ignore[misc]


# --- which result answers which slots


def test_only_found_and_not_found_for_exactly_the_slots_answer_them() -> None:
    other_channel = dataclasses.replace(HK_2025H1, channel="TOTAL")
    assert FOUND.answers(HK_2025H1) and not FOUND.answers(other_channel)
    assert FactNotFound(HK_2025H1).answers(HK_2025H1)
    assert not FactNotFound(other_channel).answers(HK_2025H1)
    assert not UnrecognizedParam("metric", "REVENUE").answers(HK_2025H1)
    assert not ToolError("unknown tool").answers(HK_2025H1)


# --- the clarification's assumed slots, as the wire shows them


@pytest.mark.parametrize(
    ("entity", "period", "slots"),
    [
        (None, None, {}),
        ("ACME_GROUP", None, {"entity": "ACME_GROUP"}),
        (None, Period(2025, "FY"), {"period": "FY2025"}),
        ("INI_WORLD", Period(2026, "H1"), {"entity": "INI_WORLD", "period": "2026H1"}),
    ],
)
def test_assumed_slots(entity: str | None, period: Period | None, slots: dict[str, str]) -> None:
    result = ClarificationResult(
        ClarifyMode.ANSWER_WITH_ASSUMPTIONS, assumed_entity=entity, assumed_period=period
    )
    assert result.assumed_slots == slots


# --- answer kinds


def test_refusing_kinds_are_exactly_those_that_state_no_value() -> None:
    assert {kind for kind in AnswerKind if kind.refuses} == {
        AnswerKind.REFUSED,
        AnswerKind.NOT_FOUND,
        AnswerKind.UNRECOGNIZED,
        AnswerKind.CLARIFY,
        AnswerKind.NO_CONTEXT,
    }
    # A degraded answer states no value either, but it is an outage, not a refusal.
    assert not AnswerKind.DEGRADED.refuses


def test_enum_values_are_the_wire_strings() -> None:
    assert [k.value for k in AnswerKind] == [
        "found",
        "partial",
        "not_found",
        "unrecognized",
        "refused",
        "clarify",
        "degraded",
        "narrative",
        "no_context",
    ]
    assert AnswerKind.parse(" Found ") is AnswerKind.FOUND
