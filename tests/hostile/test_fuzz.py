"""Hypothesis fuzzing of the parsers that read user and document text.

The number reader, the spreadsheet number formatter, label mapping, the period grammar, the
metadata sidecar parser (through a file on disk) and the question parser must never raise
anything but the project's own errors (``RagSpineError``) on arbitrary input; a number read
from a cell must be finite, since a fact cannot hold anything else.

The budget is a Hypothesis settings profile chosen by ``RAGSPINE_FUZZ``: ``ci`` (the default,
a few hundred examples per target, the module under a minute) or ``deep`` (``make fuzz``).
"""

from __future__ import annotations

import json
import math
import os
import re
import tempfile
from collections.abc import Callable, Iterator
from datetime import date
from pathlib import Path
from typing import ParamSpec, TypeVar

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from ragspine.agent.parse import parse_intent
from ragspine.errors import IngestError, RagSpineError
from ragspine.ingestion.file_metadata import METADATA_SUFFIX, read_metadata
from ragspine.ingestion.labels import read_label
from ragspine.ingestion.numbers import is_empty, parse_number
from ragspine.ingestion.readers.number_format import render_number
from ragspine.ingestion.unit_markers import read_units
from ragspine.profile.glossary import Glossary, glossary_for
from ragspine.profile.loader import load_profile
from ragspine.profile.model import DomainProfile
from ragspine.profile.period_spans import span_of_label
from ragspine.profile.periods import (
    FiscalCalendar,
    find_periods,
    find_relative_years,
    normalize_period,
)

settings.register_profile("ci", max_examples=300, deadline=None)
settings.register_profile(
    "deep", max_examples=20_000, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
P = ParamSpec("P")
T = TypeVar("T")
BUDGET = settings.get_profile(os.environ.get("RAGSPINE_FUZZ", "ci"))
PROFILE: DomainProfile = load_profile()
GLOSSARY: Glossary = glossary_for(PROFILE)

# Characters report text is made of, plus what a hostile file adds: digits and their
# decorations, both scripts, full-width forms, bidi and zero-width controls, combining marks.
ALPHABET = st.sampled_from(
    list("0123456789.,-−()%$¥￥*†~约亿万千百十元美港币年季度月半上下本去今前后第QHFYqhfy ")
    + list("收入营运利润香港澳门集团中国内地代理人渠道新业务价值董事会决议单位同比增长")
    + list("RevenuGrwthkHMCIsAofnd/:|[]{}\"'\\\n\t")
    + ["１", "２", "３", "％", "，", "。", "（", "）", "\u200b", "\u200d", "\u202e", "\u2066"]
    + ["\u0301", "\ufeff", "\x00", "\x1b", "\x07", "\ud7ff", "\U0001f600", "e", "E", "+"]
)
report_text = st.one_of(st.text(ALPHABET, max_size=60), st.text(max_size=60))
number_formats = st.one_of(
    st.sampled_from(
        [
            "#,##0",
            "0.0%",
            "#,##0.00_);(#,##0.00)",
            '"US$"#,##0,,"m"',
            "[Red]0.0;[Blue]-0.0",
            "0.00E+00",
            "[$US$-409]#,##0",
            "# ?/?",
            "[>=1000]#,##0",
            "@",
            ";;;",
            "General",
        ]
    ),
    st.text(st.sampled_from(list('0#?.,%;"[]$-_*\\@Ee+ /?()GeneralRd')), max_size=30),
    st.text(max_size=30),
)
days = st.dates(min_value=date(1900, 1, 1), max_value=date(2200, 12, 31))


def _own_errors_only(call: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T | None:
    """Call and return; the project's own errors are an allowed answer to bad input."""
    try:
        return call(*args, **kwargs)
    except RagSpineError:
        return None


# --------------------------------------------------------------------------- numbers


@BUDGET
@given(report_text)
@example("9" * 400)
@example("1" + "0" * 309)
@example("(1,000,000" + ",000" * 120 + ")")
def test_a_parsed_number_is_finite(text: str) -> None:
    parsed = _own_errors_only(parse_number, text)
    assert parsed is None or math.isfinite(parsed.value)


@BUDGET
@given(report_text)
def test_units_and_empty_markers_read_any_text(text: str) -> None:
    _own_errors_only(read_units, text, None, prose=True)
    _own_errors_only(read_units, text, None, prose=False)
    _own_errors_only(is_empty, text)


@BUDGET
@given(
    st.one_of(st.floats(), st.integers(-(10**20), 10**20).map(float)),
    number_formats,
)
@example(1e308, "#,##0.00")
@example(float("nan"), "0.0%")
@example(-1e-320, "0.00E+00")
def test_any_number_renders_in_any_format(value: float, number_format: str) -> None:
    rendered = _own_errors_only(render_number, value, number_format)
    assert rendered is None or isinstance(rendered, str)


# --------------------------------------------------------------------------- labels and periods


@BUDGET
@given(report_text, st.booleans())
@example("收入（十亿美元）FY2031 本年 上年同期", False)
def test_any_label_reads(text: str, prose: bool) -> None:
    _own_errors_only(read_label, text, GLOSSARY, prose=prose)


@BUDGET
@given(report_text, days, st.integers(1, 12))
@example("上年同期 去年上半年 2025Q5 FY0 9999年 第13季度", date(1900, 1, 1), 1)
def test_the_period_grammar_reads_any_text(text: str, day: date, year_end: int) -> None:
    calendar = FiscalCalendar(year_end)
    _own_errors_only(find_periods, text, day, calendar)
    _own_errors_only(normalize_period, text, day, calendar)
    _own_errors_only(find_relative_years, text)
    _own_errors_only(span_of_label, text)


# --------------------------------------------------------------------------- sidecars


def _json_values() -> st.SearchStrategy[object]:
    leaves = st.one_of(
        st.none(), st.booleans(), st.floats(allow_nan=False), st.integers(), st.text(max_size=20)
    )
    return st.recursive(
        leaves,
        lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=12), inner),
        max_leaves=12,
    )


sidecar_bytes = st.one_of(
    st.binary(max_size=200),
    _json_values().map(lambda v: json.dumps(v).encode("utf-8")),
    st.dictionaries(
        st.sampled_from(["sensitivity", "sensitivity_override", "owner", "title", ""]),
        _json_values(),
    ).map(lambda d: json.dumps(d, ensure_ascii=False).encode("utf-8")),
)


@pytest.fixture(scope="module")
def sidecar_dir() -> Iterator[Path]:
    with tempfile.TemporaryDirectory(prefix="ragspine-fuzz-") as tmp:
        yield Path(tmp)


@BUDGET
@given(data=sidecar_bytes)
@example(data=b'{"sensitivity": ["RESTRICTED"]}')
@example(data=b'{"sensitivity": null, "sensitivity_override": "yes"}')
@example(data=b"\xff\xfe{\x00}\x00")
def test_any_sidecar_reads_or_fails_with_an_ingest_error(sidecar_dir: Path, data: bytes) -> None:
    document = sidecar_dir / "report.md"
    document.write_text("# Notes\n", encoding="utf-8")
    (sidecar_dir / f"report.md{METADATA_SUFFIX}").write_bytes(data)
    metadata = _own_errors_only(read_metadata, document)
    assert metadata is None or isinstance(metadata, dict)


# --------------------------------------------------------------------------- questions

questions = st.one_of(
    report_text,
    st.lists(
        st.sampled_from(
            [
                "香港",
                "收入",
                "2025年",
                "上半年",
                "同比",
                "为什么",
                "ACME",
                "AIA",
                "revenue",
                "Hong Kong",
                "last year",
                "vs",
                "Q3",
                "？",
                "?",
                "的",
                " ",
                "FY2024",
                "是多少",
            ]
        ),
        max_size=12,
    ).map("".join),
)


@BUDGET
@given(questions, days)
@example("收入" * 2000, date(2026, 11, 26))
@example("", date(2026, 11, 26))
def test_any_question_parses_or_fails_with_a_project_error(question: str, day: date) -> None:
    _own_errors_only(parse_intent, question, day, profile=PROFILE)


def test_a_sidecar_of_100k_nested_arrays_fails_with_an_ingest_error(sidecar_dir: Path) -> None:
    document = sidecar_dir / "deep.md"
    document.write_text("# Notes\n", encoding="utf-8")
    (sidecar_dir / f"deep.md{METADATA_SUFFIX}").write_text("[" * 100_000 + "]" * 100_000)
    with pytest.raises(IngestError, match=re.escape("deep.md.meta.json")):
        read_metadata(document)
