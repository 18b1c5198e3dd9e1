"""Traces: exact schema, one event per request, and nothing private in them."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

from ragspine.agent.agent import answer_question
from ragspine.agent.llm_provider import MockProvider
from ragspine.observability.trace import TRACE_FIELDS, JsonlTraceSink, MemoryTraceSink
from tests.agent.helpers import CountingStore

REF = date(2026, 11, 26)
QUESTIONS = [
    "中国内地FY2024的REVENUE是多少",
    "中国内地FY2025的REVENUE是多少",
    "香港和中国内地FY2024营运利润对比",
    "竞安保险FY2024的收入是多少",
    "香港FY2024的数据是多少",
    "What was ACME HK revenue last year?",
]


def test_each_request_emits_exactly_one_event_with_the_exact_fields(tmp_path: Path) -> None:
    store = CountingStore(tmp_path / "f.db")
    sink = MemoryTraceSink()
    results = [
        answer_question(q, store, MockProvider(), reference_date=REF, trace_sink=sink)
        for q in QUESTIONS
    ]
    assert len(sink.events) == len(QUESTIONS)
    for event, result in zip(sink.events, results, strict=True):
        assert tuple(event) == TRACE_FIELDS
        assert event["request_id"] == result.request_id
        assert event == result.trace


def test_trace_events_hold_no_question_answer_or_value(tmp_path: Path) -> None:
    store = CountingStore(tmp_path / "f.db")
    path = tmp_path / "traces.jsonl"
    sink = JsonlTraceSink(path)
    results = [
        answer_question(q, store, MockProvider(), reference_date=REF, trace_sink=sink)
        for q in QUESTIONS
    ]
    lines = path.read_text(encoding="utf-8").splitlines()
    assert len(lines) == len(QUESTIONS)
    blob = "\n".join(lines)
    for question, result in zip(QUESTIONS, results, strict=True):
        assert question not in blob
        for line in result.answer.splitlines():
            assert line not in blob
    # Identifiers and timings are random or clock-derived; everything else must be value-free.
    scrubbed = json.dumps(
        [
            {
                k: v
                for k, v in json.loads(line).items()
                if k not in ("request_id", "ts", "duration_ms")
            }
            for line in lines
        ],
        ensure_ascii=False,
    )
    for value in ("1320", "610", "402", "2480", "竞安"):
        assert value not in scrubbed
    first = json.loads(lines[0])
    assert first["metric_codes"] == ["REVENUE"] and first["entity_codes"] == ["ACME_CN"]
    assert first["answer_kind"] == "found" and first["sources_count"] == 1


def test_guard_flags_are_recorded(tmp_path: Path) -> None:
    store = CountingStore(tmp_path / "f.db")
    missing = answer_question(
        "中国内地FY2025的REVENUE是多少", store, MockProvider(), reference_date=REF
    )
    assert missing.trace["fabrication_guard_triggered"] is True
    assert missing.trace["tool_statuses"] == {"not_found": 1}
    refused = answer_question("竞安保险的收入", store, MockProvider(), reference_date=REF)
    assert refused.trace["security_refused"] is True
    assert refused.trace["clarification_mode"] == "out_of_scope_entity"
