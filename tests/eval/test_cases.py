"""Golden cases: parsing one line, the checks that reject impossible expectations, loading a file
and the shipped splits."""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import date
from pathlib import Path

import pytest

from ragspine.agent.types import ClarifyMode
from ragspine.demo.corpora import Corpus
from ragspine.errors import UsageError
from ragspine.eval.cases import (
    REFUSING_MODES,
    GoldenCase,
    Split,
    default_golden_path,
    load_golden,
    parse_case,
)
from ragspine.profile.sensitivity import Sensitivity
from tests.eval.answers import HK_2024


def _write(tmp_path: Path, *lines: Mapping[str, object] | str) -> Path:
    path = tmp_path / "set.jsonl"
    text = "\n".join(line if isinstance(line, str) else json.dumps(line) for line in lines)
    path.write_text(text + "\n", encoding="utf-8")
    return path


GOOD: dict[str, object] = {
    "id": "a",
    "question": "香港FY2025收入",
    "expect": {"mode": "none", "refuse": False},
}
VALUE: dict[str, object] = {
    "metric": "REVENUE",
    "entity": "ACME_HK",
    "period_label": "FY2024",
    "channel": "TOTAL",
    "value": 2850,
    "unit": "USD_M",
    "doc": HK_2024.doc,
    "locator": HK_2024.locator,
}


def test_reference_date_and_clearance_defaults() -> None:
    default = GoldenCase(id="x", question="q")
    assert default.reference_date == date(2026, 11, 26)
    assert default.clearance is Sensitivity.CONFIDENTIAL


def test_defaults_apply_to_a_minimal_case(tmp_path: Path) -> None:
    (case,) = load_golden(_write(tmp_path, {"id": "a", "question": "q"}))
    assert case.clearance is Sensitivity.CONFIDENTIAL
    assert case.reference_date.isoformat() == "2026-11-26"
    assert case.expect.mode is None and case.expect.refuse is None
    assert case.tags == () and case.known_issue == "" and case.note == ""


def test_a_full_case_is_typed() -> None:
    line = {
        **GOOD,
        "reference_date": "2025-03-01",
        "tags": ["found", "zh"],
        "clearance": "restricted",
        "expect": {
            "mode": "answer_with_assumptions",
            "assumed": {"period": "FY2024"},
            "refuse": False,
            "values": [VALUE],
            "derived": ["+255 USD_M"],
            "narrative_docs": ["memos/a.md"],
            "forbidden": ["北极星"],
        },
        "known_issue": "described at length elsewhere",
        "note": "paraphrase group p01",
    }
    case = parse_case(json.dumps(line, ensure_ascii=False))
    assert case.reference_date == date(2025, 3, 1)
    assert case.clearance is Sensitivity.RESTRICTED
    assert case.tags == ("found", "zh")
    assert case.expect.mode is ClarifyMode.ANSWER_WITH_ASSUMPTIONS
    assert case.expect.assumed == {"period": "FY2024"}
    assert case.expect.values == (HK_2024,)
    assert isinstance(case.expect.values[0].value, float)
    assert case.expect.derived == ("+255 USD_M",)
    assert case.expect.narrative_docs == ("memos/a.md",)
    assert case.expect.forbidden == ("北极星",)
    assert case.known_issue == "described at length elsewhere"


def test_a_case_is_asked_over_the_demo_corpus_unless_it_names_another() -> None:
    assert parse_case(json.dumps(GOOD)).corpus is Corpus.DEMO
    line = {**GOOD, "corpus": "trust", "expect": {"cited_docs": ["memos/a.md", "shared/a.md"]}}
    case = parse_case(json.dumps(line))
    assert case.corpus is Corpus.TRUST
    assert case.expect.cited_docs == ("memos/a.md", "shared/a.md")


def test_an_expected_value_is_keyed_by_its_slots() -> None:
    assert HK_2024.key == "REVENUE/ACME_HK/FY2024/TOTAL"


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        ({**GOOD, "colour": "red"}, "unknown field"),
        ({**GOOD, "expect": {"mode": "maybe"}}, "valid options: out_of_scope_entity, ask_first"),
        *(
            ({**GOOD, "expect": {"mode": mode.value, "refuse": False}}, "never answers")
            for mode in sorted(REFUSING_MODES)
        ),
        ({**GOOD, "expect": {"refuse": True, "derived": ["+1"]}}, "cannot expect values"),
        ({**GOOD, "expect": {"refuse": True, "values": [VALUE]}}, "cannot expect values"),
        ({**GOOD, "expect": {"refuse": "yes"}}, "must be true or false"),
        ({**GOOD, "expect": {"values": [{"metric": "REVENUE"}]}}, "lacks"),
        ({**GOOD, "expect": {"values": [{**VALUE, "value": "2850"}]}}, "finite number"),
        ({**GOOD, "expect": {"values": [{**VALUE, "value": True}]}}, "finite number"),
        ({**GOOD, "expect": {"values": [{**VALUE, "colour": "red"}]}}, "unknown value field"),
        ({**GOOD, "expect": {"values": VALUE}}, "must be a list of value objects"),
        ({**GOOD, "expect": {"reason": "competitor"}}, "needs 'expect.mode'"),
        ({**GOOD, "expect": {"mode": "none", "assumed": {"period": "FY2024"}}}, "needs mode"),
        ({**GOOD, "expect": {"colour": "red"}}, "unknown expect field"),
        ({**GOOD, "expect": []}, "'expect' must be an object"),
        ({**GOOD, "tags": "found"}, "'tags' must be a list"),
        ({**GOOD, "question": " "}, "'question' must be a non-empty string"),
        ({**GOOD, "reference_date": "26/11/2026"}, "not a YYYY-MM-DD date"),
        ({**GOOD, "reference_date": 20261126}, "must be a YYYY-MM-DD string"),
        ({**GOOD, "clearance": "SECRET"}, "valid options"),
        ({**GOOD, "corpus": "poisoned"}, "unknown corpus 'poisoned'; valid options: demo, trust"),
        ({**GOOD, "corpus": 1}, "'corpus' must be a non-empty string"),
        ({**GOOD, "expect": {"cited_docs": "memos/a.md"}}, "'cited_docs' must be a list"),
        ("[1, 2]", "each line must be one JSON object"),
        ("{not json", "not valid JSON"),
    ],
)
def test_errors_name_the_file_and_line(
    tmp_path: Path, bad: Mapping[str, object] | str, message: str
) -> None:
    path = _write(tmp_path, GOOD, bad)
    with pytest.raises(UsageError, match=rf"set\.jsonl:2: .*{message}"):
        load_golden(path)


def test_non_finite_values_are_rejected() -> None:
    line = json.dumps({**GOOD, "expect": {"values": [{**VALUE, "value": float("nan")}]}})
    with pytest.raises(ValueError, match="finite number"):
        parse_case(line)


def test_duplicate_ids_and_empty_sets_are_rejected(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match=r"set\.jsonl:2: duplicate id 'a'"):
        load_golden(_write(tmp_path, GOOD, GOOD))
    with pytest.raises(UsageError, match="holds no records"):
        load_golden(_write(tmp_path, ""))
    with pytest.raises(UsageError, match="cannot read golden set"):
        load_golden(tmp_path / "absent.jsonl")


def test_blank_lines_are_skipped(tmp_path: Path) -> None:
    cases = load_golden(_write(tmp_path, GOOD, "", {**GOOD, "id": "b"}))
    assert [c.id for c in cases] == ["a", "b"]


# --------------------------------------------------------------------------- the shipped splits


def test_each_split_ships_its_own_file() -> None:
    assert [s.value for s in Split] == ["dev", "heldout"]
    assert default_golden_path().name == "golden.jsonl"
    assert default_golden_path(Split.DEV) == default_golden_path()
    assert default_golden_path(Split.HELDOUT).name == "golden_heldout.jsonl"
    assert all(default_golden_path(s).is_file() for s in Split)


def test_load_golden_reads_the_asked_split() -> None:
    dev = load_golden()
    assert [c.id for c in load_golden(split=Split.DEV)] == [c.id for c in dev]
    heldout = load_golden(split=Split.HELDOUT)
    assert {c.id for c in heldout} != {c.id for c in dev}


def test_a_path_wins_over_the_split(tmp_path: Path) -> None:
    (case,) = load_golden(_write(tmp_path, GOOD), split=Split.HELDOUT)
    assert case.id == "a"
