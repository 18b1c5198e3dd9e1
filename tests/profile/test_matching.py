from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ragspine.profile.matching import AliasEntry, AliasMatcher, MatcherSet, alias_key, mask
from tests.profiles import acme_glossary


def hits(text: str) -> list[tuple[str, str]]:
    """(code, matched text) of every profile term in ``text``, left to right."""
    return [(h.code, h.text) for h in acme_glossary().terms.finditer(text)]


def competitor_hits(text: str) -> list[tuple[str, str]]:
    return [(h.code, h.text) for h in acme_glossary().competitors.finditer(text)]


@pytest.mark.parametrize("text", ["heroes", "HEROES", "ROEss", "picnic", "Picnic", "CNY", "hkd"])
def test_ascii_aliases_never_match_inside_a_word(text: str) -> None:
    assert hits(text) == []


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("HK ROE", [("ACME_HK", "HK"), ("ROE", "ROE")]),
        ("HK roe", [("ACME_HK", "HK"), ("ROE", "roe")]),
        ("ROE, HK.", [("ROE", "ROE"), ("ACME_HK", "HK")]),
        ("(CN)", [("ACME_CN", "CN")]),
        # A CJK neighbour is an edge for an ASCII alias.
        ("香港ROE是多少", [("ACME_HK", "香港"), ("ROE", "ROE")]),
        ("中国内地的NBV", [("ACME_CN", "中国内地"), ("NBV", "NBV")]),
    ],
)
def test_ascii_aliases_match_whole_words_in_any_case(
    text: str, expected: list[tuple[str, str]]
) -> None:
    assert hits(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("新业务价值利润率", [("NBV_MARGIN", "新业务价值利润率")]),
        ("新业务价值", [("NBV", "新业务价值")]),
        ("NBV margin", [("NBV_MARGIN", "NBV margin")]),
        ("中国内地", [("ACME_CN", "中国内地")]),
        ("中国内地的收入", [("ACME_CN", "中国内地"), ("REVENUE", "收入")]),
        ("ACME HK", [("ACME_HK", "ACME HK")]),
        ("ACME香港", [("ACME_HK", "ACME香港")]),
        ("营业收入", [("REVENUE", "营业收入")]),
        ("代理人渠道", [("AGENCY", "代理人渠道")]),
    ],
)
def test_longest_alias_wins_and_matches_once(text: str, expected: list[tuple[str, str]]) -> None:
    assert hits(text) == expected


def test_multi_word_aliases_match_spaced_or_spaceless_but_not_split_elsewhere() -> None:
    assert hits("operating   profit") == [("OPERATING_PROFIT", "operating   profit")]
    assert hits("operatingprofit") == [("OPERATING_PROFIT", "operatingprofit")]
    # Spaces inside a word are not ignored for ordinary terms: "H K" is not "HK".
    assert hits("H K") == []


def test_matcher_orders_by_length_not_by_entry_order() -> None:
    matcher = AliasMatcher([AliasEntry("AB", "k", "SHORT"), AliasEntry("AB CD", "k", "LONG")])
    assert [h.code for h in matcher.finditer("ab cd, ab")] == ["LONG", "SHORT"]


def test_matcher_reports_spans_and_the_text_as_written() -> None:
    matcher = AliasMatcher([AliasEntry("甲乙", "k", "X"), AliasEntry("Foo", "k", "F")])
    (first, second) = matcher.finditer("问甲乙和FOO")
    assert (first.code, first.start, first.end, first.text) == ("X", 1, 3, "甲乙")
    assert (second.code, second.start, second.end, second.text) == ("F", 4, 7, "FOO")


def test_empty_matcher_finds_nothing() -> None:
    assert list(AliasMatcher([]).finditer("anything")) == []


def test_lookup_is_exact_modulo_case_and_whitespace() -> None:
    matcher = acme_glossary().terms
    found = matcher.lookup(" Operating  Profit ")
    assert found is not None and found.code == "OPERATING_PROFIT"
    assert matcher.lookup("operating profit growth") is None
    assert matcher.lookup("operating") is None


def test_alias_key_folds_case_and_drops_whitespace() -> None:
    assert alias_key(" ACME  Hk\t") == "acmehk"
    assert alias_key("竞 安") == "竞安"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("竞安保险的收入", [("竞安保险", "竞安保险")]),
        ("竞 安保险的收入", [("竞安保险", "竞 安保险")]),
        ("竞\t安 保 险", [("竞安保险", "竞\t安 保 险")]),
        ("竞安", [("竞安保险", "竞安")]),
        ("中国竞联人寿", [("中国竞联人寿", "中国竞联人寿")]),
        ("China  Jinglian Life revenue", [("中国竞联人寿", "China  Jinglian Life")]),
        ("jingan", [("竞安保险", "jingan")]),
        ("Jinganese", []),
    ],
)
def test_competitor_matching_ignores_whitespace_inside_names(
    text: str, expected: list[tuple[str, str]]
) -> None:
    assert competitor_hits(text) == expected


def test_mask_keeps_length_and_offsets() -> None:
    text = "中国竞联人寿的收入"
    masked = mask(text, [(0, 6)])
    assert masked == " " * 6 + "的收入"
    assert len(masked) == len(text)
    assert mask("abcdef", [(1, 2), (4, 6)], fill="#") == "a#cd##"


def test_lookup_by_exact_spelling_agrees_with_lookup_by_key() -> None:
    first = AliasEntry("Hong Kong", "entity", "HK")
    second = AliasEntry("HongKong", "entity", "HK")
    matcher = AliasMatcher([first, second, AliasEntry("REVENUE", "metric", "REVENUE")])
    # Both spellings share the key "hongkong": the first entry answers for either, typed
    # exactly or not, as it did before exact spellings were looked up first.
    assert matcher.lookup("HongKong") is first
    assert matcher.lookup("hong kong") is first
    assert matcher.lookup("REVENUE") == matcher.lookup("revenue") == matcher.entries()[2]
    assert matcher.lookup("Hong") is None


def test_respace_false_never_matches_across_a_blanked_span() -> None:
    matcher = AliasMatcher([AliasEntry("operating profit", "k", "OP")])
    blanked = mask("operating 2024 profit", [(10, 14)])
    assert [h.code for h in matcher.finditer(blanked)] == ["OP"]  # respaced: one gap
    assert list(matcher.finditer(blanked, respace=False)) == []
    # Text that needs no respacing reads the same either way, positions included.
    text = "Operating profit and operatingprofit"
    assert list(matcher.finditer(text, respace=False)) == list(matcher.finditer(text))


_VOCABULARIES = (
    [AliasEntry(w, "a", w) for w in ("how much", "how", "多少", "is", "what is")],
    [AliasEntry(w, "b", w) for w in ("grow", "growth", "增长", "同比增长", "much")],
    [AliasEntry(w, k, w) for w, k in (("why", "n"), ("原因", "n"), ("by channel", "c"))],
)
_WORDS = [
    "how",
    "much",
    "is",
    "what",
    "why",
    "growth",
    "grow",
    "多少",
    "增长",
    "同比",
    "原因",
    "by",
    "channel",
    "HowMuch",
    "  ",
    "x",
    "2024",
]


@given(st.lists(st.sampled_from(_WORDS), max_size=12), st.sampled_from([" ", "", "  "]))
def test_a_matcher_set_finds_what_each_matcher_finds_alone(words: list[str], sep: str) -> None:
    matchers = [AliasMatcher(entries) for entries in _VOCABULARIES]
    text = sep.join(words)
    for respace in (True, False):
        together = MatcherSet(matchers).finditer(text, respace=respace)
        assert together == [list(m.finditer(text, respace=respace)) for m in matchers]


def test_a_matcher_set_reads_text_one_way() -> None:
    flexible = AliasMatcher([AliasEntry("ab", "k", "AB")], flexible_spaces=True)
    with pytest.raises(ValueError, match="flexible_spaces"):
        MatcherSet([flexible, AliasMatcher([AliasEntry("cd", "k", "CD")])])


def _mask_by_characters(text: str, spans: list[tuple[int, int]], fill: str) -> str:
    chars = list(text)
    for start, end in spans:
        chars[start:end] = fill * max(0, end - start)
    return "".join(chars)


@given(
    st.text(max_size=30),
    st.lists(st.tuples(st.integers(0, 30), st.integers(0, 30)), max_size=5),
    st.sampled_from([" ", "\x00"]),
)
def test_mask_blanks_exactly_the_characters_of_every_span(
    text: str, spans: list[tuple[int, int]], fill: str
) -> None:
    # Spans inside the text (the only kind callers pass), overlapping or not, in any order.
    inside = [(min(a, len(text)), min(b, len(text))) for a, b in spans]
    assert mask(text, inside, fill) == _mask_by_characters(text, inside, fill)
    assert len(mask(text, inside, fill)) == len(text)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("HK net profits", [("ACME_HK", "HK"), ("NET_PROFIT", "net profits")]),
        ("Revenues, FY2024", [("REVENUE", "Revenues")]),
        ("the ROEs", [("ROE", "ROEs")]),
    ],
)
def test_an_english_metric_name_in_the_plural_is_the_metric(
    text: str, expected: list[tuple[str, str]]
) -> None:
    assert [h for h in hits(text) if h[0] != "FY2024"] == expected


@pytest.mark.parametrize("text", ["HKs", "Hong Kongs", "revenuess", "net profitsx", "ROEs1"])
def test_only_a_metric_takes_a_plural_s_and_only_one(text: str) -> None:
    """Entities and channels never take a plural; nor does an alias followed by more word."""
    assert all(code not in ("ACME_HK", "REVENUE", "NET_PROFIT", "ROE") for code, _ in hits(text))
