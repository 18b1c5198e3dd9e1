"""Traces: exact schema, one event per request, and nothing private in them."""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import pytest

from ragspine.agent.agent import answer_question
from ragspine.agent.llm_provider import MockProvider
from ragspine.observability import trace
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


def test_the_event_time_is_now_in_utc_with_milliseconds() -> None:
    before = datetime.now(UTC)
    stamps = [trace._timestamp() for _ in range(3)]
    after = datetime.now(UTC)
    for stamp in stamps:
        moment = datetime.fromisoformat(stamp)
        # The form datetime.isoformat(timespec="milliseconds") writes for an aware UTC time.
        assert stamp == moment.isoformat(timespec="milliseconds")
        assert before - timedelta(milliseconds=1) <= moment <= after


def test_request_ids_are_32_hex_digits_unique_here_and_in_a_forked_child() -> None:
    ids = {trace.new_request_id() for _ in range(1000)}
    assert len(ids) == 1000 and all(len(i) == 32 and int(i, 16) >= 0 for i in ids)
    read, write = os.pipe()
    child = os.fork()
    if child == 0:  # the child reports its first id and leaves without running pytest's exit
        os.write(write, trace.new_request_id().encode())
        os._exit(0)
    os.close(write)
    os.waitpid(child, 0)
    from_child = os.read(read, 64).decode()
    os.close(read)
    # A forked child draws its own prefix, so it never repeats the parent's ids.
    assert len(from_child) == 32 and from_child[:16] != trace.new_request_id()[:16]


def test_the_trace_declares_its_fields_in_the_schema_order() -> None:
    # to_event copies the instance's fields in declaration order.
    declared = [f.name for f in dataclasses.fields(trace.RequestTrace)]
    assert declared == ["request_id", *TRACE_FIELDS[4:], "started"]
    assert list(trace.RequestTrace("x").to_event()) == list(TRACE_FIELDS)


def test_the_batched_sink_writes_whole_lines_on_flush_close_and_by_itself(
    tmp_path: Path,
) -> None:
    path = tmp_path / "traces.jsonl"
    sink = trace.BatchedTraceSink(path, interval=3600, batch=1000)  # only flushes write
    try:
        for n in range(3):
            sink.emit({"event": "e", "n": n})
        assert not path.exists()  # queued, not written
        sink.flush()
        assert [json.loads(line)["n"] for line in path.read_text("utf-8").splitlines()] == [
            0,
            1,
            2,
        ]
        sink.emit({"event": "e", "n": 3})
    finally:
        sink.close()  # writes what is left
    sink.emit({"event": "e", "n": 4})  # after close: written at once, never dropped
    assert [json.loads(line)["n"] for line in path.read_text("utf-8").splitlines()] == [
        0,
        1,
        2,
        3,
        4,
    ]

    # A full batch wakes the writer thread: the lines arrive without a flush.
    busy = trace.BatchedTraceSink(tmp_path / "busy.jsonl", interval=3600, batch=5)
    try:
        for n in range(5):
            busy.emit({"event": "e", "n": n})
        deadline = datetime.now(UTC) + timedelta(seconds=30)
        lines: list[str] = []
        while len(lines) < 5 and datetime.now(UTC) < deadline:
            os.sched_yield()
            written = tmp_path / "busy.jsonl"
            lines = written.read_text("utf-8").splitlines() if written.exists() else []
        assert [json.loads(line)["n"] for line in lines] == [0, 1, 2, 3, 4]
    finally:
        busy.close()


def test_a_clean_exit_writes_the_queued_traces(tmp_path: Path) -> None:
    path = tmp_path / "traces.jsonl"
    script = (
        "from ragspine.observability.trace import BatchedTraceSink\n"
        f"sink = BatchedTraceSink({str(path)!r}, interval=3600)\n"
        "for n in range(100): sink.emit({'event': 'e', 'n': n})\n"
    )
    subprocess.run([sys.executable, "-c", script], check=True)
    assert len(path.read_text("utf-8").splitlines()) == 100


def test_a_trace_file_that_cannot_be_written_is_reported_and_the_writer_goes_on(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "traces.jsonl"
    path.mkdir()  # appending to a folder fails
    sink = trace.BatchedTraceSink(path, interval=0.01)
    try:
        with caplog.at_level("ERROR", logger="ragspine.service"):
            sink.emit({"event": "e", "n": 0})
            deadline = datetime.now(UTC) + timedelta(seconds=30)
            while not caplog.records and datetime.now(UTC) < deadline:
                os.sched_yield()
        assert "cannot append traces to" in caplog.records[0].getMessage()
        path.rmdir()
        sink.emit({"event": "e", "n": 1})
    finally:
        sink.close()
    assert [json.loads(line)["n"] for line in path.read_text("utf-8").splitlines()] == [1]


def test_a_trace_line_is_json_dumps_with_sorted_keys_and_text_as_it_is(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    event = trace.RequestTrace("r1", language="zh", metric_codes=["收入", 'a "b"']).to_event()
    expected = json.dumps(event, ensure_ascii=False, sort_keys=True) + "\n"

    def built_per_line(*args: object, **kwargs: object) -> str:
        raise AssertionError("a trace line reuses one encoder, never json.dumps per line")

    monkeypatch.setattr(trace.json, "dumps", built_per_line)
    assert trace.trace_line(event) == expected
