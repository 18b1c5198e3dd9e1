"""Golden cases: parsing one line, the checks that reject impossible expectations, loading a file
and the shipped splits, which share no case and no question, and whose dev and regression cases
copy no held-out one."""

from __future__ import annotations

import difflib
import itertools
import json
import unicodedata
from collections.abc import Iterable, Iterator, Mapping
from datetime import date
from pathlib import Path

import pytest

from ragspine.agent.types import ClarifyMode
from ragspine.demo.corpora import Corpus
from ragspine.errors import UsageError
from ragspine.eval.cases import (
    HELD_OUT_SPLITS,
    REFUSING_MODES,
    Expectation,
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
    assert parse_case(json.dumps({**GOOD, "corpus": "one_entity"})).corpus is Corpus.ONE_ENTITY


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
        (
            {**GOOD, "corpus": "poisoned"},
            "unknown corpus 'poisoned'; valid options: demo, trust, one_entity",
        ),
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
    assert [s.value for s in Split] == ["dev", "regression", "heldout"]
    assert default_golden_path().name == "golden.jsonl"
    assert default_golden_path(Split.DEV) == default_golden_path()
    assert default_golden_path(Split.REGRESSION).name == "golden_regression.jsonl"
    assert default_golden_path(Split.HELDOUT).name == "golden_heldout.jsonl"
    assert all(default_golden_path(s).is_file() for s in Split)
    assert [s.value for s in Split if s.held_out] == ["heldout"]
    assert set(HELD_OUT_SPLITS) == {"heldout"}


def test_load_golden_reads_the_asked_split() -> None:
    dev = load_golden()
    assert [c.id for c in load_golden(split=Split.DEV)] == [c.id for c in dev]
    regression = load_golden(split=Split.REGRESSION)
    assert {c.id for c in regression} != {c.id for c in dev}


def test_no_case_id_is_in_two_splits() -> None:
    ids = {split: {c.id for c in load_golden(split=split)} for split in Split}
    shared = {
        f"{a.value}/{b.value}": sorted(ids[a] & ids[b])
        for a, b in itertools.combinations(Split, 2)
        if ids[a] & ids[b]
    }
    assert shared == {}


def test_no_dev_question_is_a_regression_question() -> None:
    """The exact-string guard; against the held-out split the near-duplicate guard below holds
    it, and more."""
    dev, regression = ({c.question for c in load_golden(split=s)} for s in Split if not s.held_out)
    assert sorted(dev & regression) == []


def test_a_path_wins_over_the_split(tmp_path: Path) -> None:
    (case,) = load_golden(_write(tmp_path, GOOD), split=Split.REGRESSION)
    assert case.id == "a"


# --------------------------------------------------------------------------- near-duplicates

# A dev or regression case copies a held-out one when it asks for the same facts, or when its
# question is the held-out question with a little changed. difflib's ratio is 2·M/T (M matched
# characters, T both lengths), after ``normalized`` drops digits, so a changed year costs
# nothing and the ratio prices what else was edited: at 0.85 one swapped word (an entity, a
# metric) in a question of about 13 characters or more is a copy, two are not. Measured when
# the held-out split was added: dev questions at 0.85 or more from a regression question (the
# split dev was tuned against, entity- and year-swapped copies among them) 49, at 0.9 31, equal
# after normalizing 8; from the independently written held-out questions 10, at 0.9 one, equal
# none. Lower (0.8: 33 independent matches) would mostly flag questions that merely share a
# template; higher (0.9) would let most of the swapped copies through.
COPY_RATIO = 0.85
# Dev and regression cases the guard flagged when the held-out split was written: they were all
# written before it existed, so none copies it. A case is listed with the rule that flagged it;
# the list only shrinks (an entry no longer flagged fails, so it gets removed).
PREDATING_HELDOUT = Path(__file__).parent / "predating_heldout.txt"


def normalized(question: str) -> str:
    """Casefolded NFKC text without digits, punctuation, symbols or whitespace."""
    text = unicodedata.normalize("NFKC", question).casefold()
    return "".join(ch for ch in text if unicodedata.category(ch)[0] not in "NPSZC")


def value_slots(case: GoldenCase) -> frozenset[tuple[str, str, str, str]]:
    return frozenset((v.metric, v.entity, v.period_label, v.channel) for v in case.expect.values)


def copies(cases: Iterable[GoldenCase], heldout: list[GoldenCase]) -> Iterator[tuple[str, str]]:
    """``(case id, rule)`` for each case that copies a held-out case: ``slots`` (the same
    non-empty set of expected metric/entity/period/channel keys) or ``wording`` (ratio of the
    normalized questions at least ``COPY_RATIO``; an equal normalized question, whatever its
    expected mode or refusal, is ratio 1). Held-out ids never leave this function."""
    held_slots = {value_slots(h) for h in heldout} - {frozenset()}
    matcher = difflib.SequenceMatcher(autojunk=False)
    held_questions = [normalized(h.question) for h in heldout]
    for case in cases:
        if value_slots(case) in held_slots:
            yield case.id, "slots"
        # difflib caches what it learns about the second sequence: the case is that one.
        matcher.set_seq2(normalized(case.question))
        for question in held_questions:
            matcher.set_seq1(question)
            if (
                matcher.real_quick_ratio() >= COPY_RATIO
                and matcher.quick_ratio() >= COPY_RATIO
                and matcher.ratio() >= COPY_RATIO
            ):
                yield case.id, "wording"
                break


def test_normalizing_drops_what_a_copy_changes_for_free() -> None:
    assert normalized("ＨＫ FY2024 Revenue？") == normalized("hk fy2025 revenue")
    assert normalized("香港２０２４年收入是多少。") == "香港年收入是多少"
    assert normalized("What was HK's revenue, in USD?") == "whatwashksrevenueinusd"


def test_the_guard_catches_a_changed_year_a_swapped_entity_and_the_same_facts() -> None:
    held = [
        GoldenCase("h1", "香港2024年的营运利润和收入分别是多少"),
        GoldenCase("h2", "a question about something else", expect=Expectation(values=(HK_2024,))),
    ]
    asked = [
        GoldenCase("year", "香港FY2023年的营运利润和收入分别是多少？"),
        GoldenCase("entity", "澳门2024年的营运利润和收入分别是多少"),
        GoldenCase("other", "澳门2024年的收入是多少"),
        GoldenCase("facts", "HK turnover for fiscal 2024?", expect=Expectation(values=(HK_2024,))),
    ]
    assert sorted(copies(asked, held)) == [
        ("entity", "wording"),
        ("facts", "slots"),
        ("year", "wording"),
    ]


def test_no_dev_or_regression_case_copies_a_heldout_case() -> None:
    """Fails naming the dev or regression case only, never the held-out case it copies."""
    heldout = load_golden(split=Split.HELDOUT)
    others = [c for split in Split if not split.held_out for c in load_golden(split=split)]
    flagged = set(copies(others, heldout))
    listed = {tuple(line.split()) for line in _listed_lines()}
    assert sorted(flagged - listed) == [], "these copy a held-out case: change them"
    assert sorted(listed - flagged) == [], f"no longer flagged: remove from {PREDATING_HELDOUT}"


def _listed_lines() -> list[str]:
    text = PREDATING_HELDOUT.read_text(encoding="utf-8")
    return [line for line in text.splitlines() if line.strip() and not line.startswith("#")]


def test_a_follow_up_case_carries_its_earlier_questions() -> None:
    case = parse_case('{"id": "f", "question": "And in FY2023?", "previous": ["HK FY2024?"]}')
    assert case.previous == ("HK FY2024?",)
    assert parse_case('{"id": "g", "question": "FY2024?"}').previous == ()
    with pytest.raises(ValueError, match="'previous' must be a list"):
        parse_case('{"id": "h", "question": "And?", "previous": "HK FY2024?"}')
