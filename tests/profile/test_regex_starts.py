"""The start guard and the rule scanner change no match, and skip positions no rule starts at."""

from __future__ import annotations

import re
from collections.abc import Iterable
from datetime import date

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ragspine.agent import cues
from ragspine.profile import period_rules, periods
from ragspine.profile.regex_starts import RuleScanner, compile_guarded, start_chars, start_guard


def _spans(pattern: re.Pattern[str], text: str) -> list[tuple[tuple[int, int], str | None]]:
    return [(m.span(), m.lastgroup) for m in pattern.finditer(text)]


def _admits(guard: str, text: str, position: int, flags: int = 0) -> bool:
    return re.compile(guard, flags).match(text, position) is not None


def test_literal_alternatives_admit_only_their_first_characters() -> None:
    guard = start_guard(r"abc|x\d|[1-3]y")
    assert [i for i, _ in enumerate("zzabcx1q2y") if _admits(guard, "zzabcx1q2y", i)] == [
        2,
        5,
        6,
        8,
    ]


def test_optional_prefixes_add_what_follows_them() -> None:
    guard = start_guard(r"(?:the\s+)?first|q?2")
    for text in ("the", "first", "q", "2"):
        assert _admits(guard, text, 0)
    assert not _admits(guard, "half", 0)


def test_a_word_edge_lookbehind_admits_letters_only_at_word_starts() -> None:
    guard = start_guard(r"(?<![A-Za-z0-9])FY\d\d", re.IGNORECASE)
    assert _admits(guard, "FY24", 0, re.IGNORECASE)
    assert _admits(guard, "港fy24", 1, re.IGNORECASE)
    assert not _admits(guard, "xFY24", 1, re.IGNORECASE)
    assert not _admits(guard, "9FY24", 1, re.IGNORECASE)


def test_a_lookbehind_that_does_not_cover_digits_is_not_a_word_edge() -> None:
    guard = start_guard(r"(?<![A-Za-z])vs")
    assert _admits(guard, "9vs", 1)


@pytest.mark.parametrize("pattern", [r"a*", r"(?:x)?", r".b", r"[^a]b", r"(\w)\1", r"(?i:a)b"])
def test_what_the_guard_cannot_read_admits_everything(pattern: str) -> None:
    assert start_guard(pattern) == ""


def test_compile_guarded_keeps_every_match() -> None:
    pattern = r"(?P<a>(?<![A-Za-z])last\s+year)|(?P<b>\d{4})年"
    guarded = compile_guarded(pattern, re.IGNORECASE)
    plain = re.compile(pattern, re.IGNORECASE)
    for text in ("Last year and 2024年", "blast year 12024年", "LAST  YEAR's"):
        assert _spans(guarded, text) == _spans(plain, text)


# Pieces of period expressions and of ordinary questions, glued at random, so that word edges,
# digits next to letters and partial words all occur.
_PIECES = [
    *("FY", "fy", "2024", "24", "1999", "Q3", "q2", "H1", "h2", "1Q24", "2H23", "'", "’"),
    *("first", "second", "third", "4th", "half", "quarter", "of", "the", "fiscal", "year"),
    *("last year's", "this year", "previous", "prior", "current", "vs", "versus", "over"),
    *("年", "年度", "财年", "季度", "上半年", "下半年", "第三", "去年", "今年", "本季度"),
    *("较上年", "与去年相比", "香港", "收入", "x", "ab", "9", ".", ",", " ", "%", "亿", "m"),
    *("March", "dec.", "31", "/", "-", "25", "ended", "as at", "six months", "月", "日", "截至"),
]
_TEXTS = st.lists(st.sampled_from(_PIECES), max_size=10).map("".join)


def _rule_spans(matches: Iterable[re.Match[str]]) -> list[tuple[object, ...]]:
    """Span, rule and the rule's own groups: what a caller of the period scanner reads."""
    return [
        (m.span(), m.lastgroup, {k: v for k, v in m.groupdict().items() if v is not None})
        for m in matches
    ]


_ALL_PERIOD_RULES = re.compile("|".join(period_rules.alternatives()), re.IGNORECASE)
# Read once: parsing ~40 rules' tree takes tens of milliseconds, too slow to redo per example.
_GUARD = re.compile(start_guard(_ALL_PERIOD_RULES.pattern, re.IGNORECASE), re.IGNORECASE)
_CHARS = re.compile(start_chars(_ALL_PERIOD_RULES.pattern, re.IGNORECASE), re.IGNORECASE)


# No deadline: the scanner compiles the rules of each start character on first sight, which
# takes longer than hypothesis's default deadline on a busy machine.
@settings(max_examples=400, deadline=None)
@given(_TEXTS)
def test_the_period_scanner_finds_what_one_alternation_of_its_rules_finds(text: str) -> None:
    assert _rule_spans(period_rules.SCANNER.finditer(text)) == _rule_spans(
        _ALL_PERIOD_RULES.finditer(text)
    )


@pytest.mark.parametrize(
    "text",
    [
        "What is the NBV margin for Mainland China agency channel in 2024H1?",
        "香港FY2024的REVENUE是多少",
        "last year's first half vs the first half of 2023, Q3 FY24 and 2025年第二季度",
        "the year before last, this quarter, 上季度, 今年上半年, 1Q24, 2H 2023",
    ],
)
def test_the_period_scanner_agrees_on_questions(text: str) -> None:
    assert _rule_spans(period_rules.SCANNER.finditer(text)) == _rule_spans(
        _ALL_PERIOD_RULES.finditer(text)
    )
    assert periods.find_periods(text, date(2025, 6, 30))  # and each of them holds a period


@settings(max_examples=300)
@given(_TEXTS)
def test_start_chars_admits_exactly_the_positions_the_guard_admits(text: str) -> None:
    guard, chars = _GUARD, _CHARS
    assert [i for i in range(len(text)) if guard.match(text, i)] == [
        i for i in range(len(text)) if chars.match(text, i)
    ]
    assert [m.start() for m in chars.finditer(text)] == [
        i for i in range(len(text)) if chars.match(text, i)
    ]


def test_the_scanner_tries_only_rules_that_can_start_at_a_position() -> None:
    scanner = RuleScanner([r"(?P<a>(?<![A-Za-z0-9])ab)", r"(?P<b>\d\d)", r"(?P<c>b\d)"])
    assert [(m.lastgroup, m.group()) for m in scanner.finditer("xab ab 12 b3")] == [
        ("a", "ab"),
        ("b", "12"),
        ("c", "b3"),
    ]
    text = "xab ab 12 b3"
    assert scanner.rules_at(text, 1) == ()  # "a" after a letter starts no rule
    assert scanner.rules_at(text, 2) == (2,)  # "b" starts only the third
    assert scanner.rules_at(text, 4) == (0,)
    assert scanner.rules_at(text, 7) == (1,)
    assert scanner.rules_at(text, 3) == ()


def test_a_rule_the_guard_cannot_read_makes_the_scanner_try_every_rule() -> None:
    scanner = RuleScanner([r"(?P<a>.x)", r"(?P<b>y)"])
    assert [m.group() for m in scanner.finditer("ax y")] == ["ax", "y"]
    assert scanner.rules_at("ax y", 0) == (0, 1)


def test_the_period_scanner_tries_few_rules_at_each_position() -> None:
    text = "What is the NBV margin for Mainland China agency channel in 2024H1?"
    tried = [len(period_rules.SCANNER.rules_at(text, i)) for i in range(len(text))]
    rules = len(period_rules.alternatives())
    assert sum(tried) < rules * 3  # one alternation tries every rule at every position
    assert tried[text.index("2024")] > 0 and tried[text.index("What")] == 0


@settings(max_examples=200)
@given(_TEXTS)
def test_the_growth_base_cue_finds_what_it_finds_unguarded(text: str) -> None:
    assert _spans(cues.GROWTH_BASE, text) == _spans(_unguarded(cues.GROWTH_BASE), text)


@settings(max_examples=300)
@given(st.from_regex(cues.GROWTH_BASE))
def test_every_growth_base_holds_a_mark_of_the_prior_year(text: str) -> None:
    # ``growth_bases`` searches only text holding 上, 去, 前 or "year".
    assert cues.growth_bases(text) == [m.span() for m in cues.GROWTH_BASE.finditer(text)]


@settings(max_examples=200)
@given(_TEXTS)
def test_the_sequential_base_cue_finds_what_it_finds_unguarded(text: str) -> None:
    assert _spans(cues.SEQUENTIAL_BASE, text) == _spans(_unguarded(cues.SEQUENTIAL_BASE), text)


@settings(max_examples=300)
@given(st.from_regex(cues.SEQUENTIAL_BASE))
def test_every_sequential_base_holds_a_mark_of_the_period_before(text: str) -> None:
    # ``sequential_bases`` searches only text holding 上, "quarter", "half" or "period".
    assert cues.sequential_bases(text) == [m.span() for m in cues.SEQUENTIAL_BASE.finditer(text)]


def _unguarded(pattern: re.Pattern[str]) -> re.Pattern[str]:
    return re.compile(_body(pattern), pattern.flags)


def _body(pattern: re.Pattern[str]) -> str:
    """What ``compile_guarded`` wrapped: the group after the guard's own outer group."""
    text = pattern.pattern
    depth = 0
    for index, char in enumerate(text):
        if text[index - 1 : index] != "\\":
            depth += {"(": 1, ")": -1}.get(char, 0)
        if depth == 0:
            rest = text[index + 1 :]
            assert rest.startswith("(?:") and rest.endswith(")")
            return rest[3:-1]
    raise AssertionError(f"no guard in {text[:40]!r}")
