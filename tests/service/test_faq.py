"""The FAQ short-circuit: the file format and its checks, matching, every exclusion of the
request flow, clearance, no side effects, ``ragspine faq check`` and the shipped ACME file."""

from __future__ import annotations

import shutil
import sqlite3
from collections.abc import Iterator
from datetime import date
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ragspine.agent import cues
from ragspine.agent.intent import ParsedIntent, parse_intent
from ragspine.cli import app
from ragspine.profile.loader import example_profile_path, load_profile
from ragspine.profile.model import DomainProfile
from ragspine.profile.sensitivity import Sensitivity
from ragspine.service.faq import faq_cache
from ragspine.service.faq.check import check_faq_file
from ragspine.service.faq.faq_cache import FaqCache, FaqHit, FaqLookup, FaqMiss
from ragspine.service.faq.items import (
    FaqFileError,
    FaqItem,
    load_faq_items,
    parse_faq_text,
    read_faq_file,
)
from ragspine.service.faq.matching import faq_key
from ragspine.workspace import Workspace

TODAY = date(2026, 11, 26)
PUBLIC, INTERNAL = Sensitivity.PUBLIC, Sensitivity.INTERNAL
CONFIDENTIAL, RESTRICTED = Sensitivity.CONFIDENTIAL, Sensitivity.RESTRICTED
ACME_FAQ = example_profile_path().parent / "acme_faq.toml"


@pytest.fixture(scope="module")
def acme() -> DomainProfile:
    return load_profile()


@pytest.fixture(scope="module")
def cache(acme: DomainProfile) -> FaqCache:
    return FaqCache.from_profile(acme)


def decide(
    cache: FaqCache, question: str, clearance: Sensitivity = CONFIDENTIAL, today: date = TODAY
) -> FaqMiss | None:
    """The miss reason, after checking that ``lookup`` agrees with ``decide``."""
    decision = cache.decide(question, clearance=clearance, today=today)
    assert cache.lookup(question, clearance=clearance, today=today) == decision.hit
    assert (decision.hit is None) != (decision.miss is None)
    return decision.miss


# --------------------------------------------------------------------------- the shipped file


def test_the_acme_profile_names_the_shipped_faq_file(acme: DomainProfile) -> None:
    assert acme.faq_path == ACME_FAQ
    assert ACME_FAQ.is_file()


def test_the_shipped_faq_file_checks_clean(acme: DomainProfile) -> None:
    checked = check_faq_file(ACME_FAQ, acme, TODAY)
    assert checked.problems == ()
    assert len(checked.items) == 6


def test_the_shipped_file_shows_each_item_state(cache: FaqCache) -> None:
    items = {item.id: item for item in cache.items}
    assert [i.id for i in items.values() if not i.enabled] == ["strategy-priorities"]
    assert [i.id for i in items.values() if not i.valid_on(TODAY)] == ["hk-compliance-next-steps"]
    assert [i.id for i in items.values() if i.sensitivity is RESTRICTED] == ["board-minutes-access"]
    assert {i.sensitivity for i in items.values()} == set(Sensitivity)


def test_a_hit_carries_the_items_answer_and_its_own_source(cache: FaqCache) -> None:
    hit = cache.lookup("Which dividend policy do we follow?", clearance=PUBLIC, today=TODAY)
    assert isinstance(hit, FaqHit)
    assert (hit.faq_id, hit.version, hit.doc, hit.locator) == (
        "dividend-policy",
        "1",
        "reports/ACME_annual_report_2025.pdf",
        "page=1,para=5",
    )
    assert hit.answer.startswith("A progressive dividend policy")
    assert hit.answer == hit.answer.strip()


def test_faq_cache_is_a_faq_lookup(cache: FaqCache) -> None:
    lookup: FaqLookup = cache
    assert lookup.lookup("股息政策是什么", clearance=PUBLIC, today=TODAY) is not None


# --------------------------------------------------------------------------- matching


@pytest.mark.parametrize(
    "question",
    [
        "Which dividend policy do we follow?",
        "which dividend policy do we follow",  # case, no closing mark
        "WHICH   DIVIDEND POLICY\tDO WE FOLLOW ?",  # spaces
        "Ｗｈｉｃｈ ｄｉｖｉｄｅｎｄ ｐｏｌｉｃｙ ｄｏ ｗｅ ｆｏｌｌｏｗ？",  # full-width
        "Which dividend policy do we follow?!.",  # several closing marks
        "Which divi\u200bdend policy do we follow?",  # a zero-width space
        "股息政策是什么",  # an alias
        "股息政策是什么？",
        "股息 政策 是 什么。",
        "  我们实行什么股息政策！ ",
    ],
)
def test_normalized_wordings_hit(cache: FaqCache, question: str) -> None:
    hit = cache.lookup(question, clearance=PUBLIC, today=TODAY)
    assert hit is not None and hit.faq_id == "dividend-policy"


@pytest.mark.parametrize(
    ("question", "faq_id"),
    [
        ("What does 报行合一 mean?", "cn-commission-alignment"),
        ("什么是报行合一", "cn-commission-alignment"),
        ("what does the commission alignment rule mean", "cn-commission-alignment"),
        ("RBC是什么？", "hk-rbc"),
        ("What does risk-based capital mean?", "hk-rbc"),
    ],
)
def test_aliases_hit_their_item(cache: FaqCache, question: str, faq_id: str) -> None:
    hit = cache.lookup(question, clearance=CONFIDENTIAL, today=TODAY)
    assert hit is not None and hit.faq_id == faq_id


@pytest.mark.parametrize(
    "question",
    [
        "Which dividend policy do we follow next year?",
        "dividend policy",
        "Which dividend policy do we follow? Which one?",
        "股息政策",
        "",
    ],
)
def test_only_an_exact_wording_hits(cache: FaqCache, question: str) -> None:
    assert decide(cache, question, PUBLIC) is FaqMiss.NO_MATCH


def test_the_key_keeps_brackets_and_inner_punctuation() -> None:
    assert faq_key("什么是风险为本资本制度（RBC）？") == "什么是风险为本资本制度(rbc)"
    assert faq_key("A, B?") != faq_key("A B?")


# --------------------------------------------------------------------------- exclusions


def test_a_restricted_item_never_hits_whoever_asks(cache: FaqCache) -> None:
    assert decide(cache, "Who can read the board minutes?", RESTRICTED) is FaqMiss.RESTRICTED
    assert decide(cache, "谁可以查阅董事会会议纪要", RESTRICTED) is FaqMiss.RESTRICTED
    # Below RESTRICTED the item does not exist: the miss reads like any other.
    assert decide(cache, "Who can read the board minutes?", CONFIDENTIAL) is FaqMiss.NO_MATCH


def test_a_disabled_item_never_hits(cache: FaqCache) -> None:
    assert decide(cache, "What are the strategic priorities?") is FaqMiss.DISABLED
    assert decide(cache, "战略重点是什么？") is FaqMiss.DISABLED


def test_an_item_hits_only_inside_its_validity_window(cache: FaqCache) -> None:
    question = "What are compliance's next steps?"
    assert decide(cache, question, today=TODAY) is FaqMiss.EXPIRED
    assert decide(cache, question, today=date(2026, 1, 1)) is FaqMiss.EXPIRED  # just after
    assert decide(cache, question, today=date(2025, 12, 31)) is None  # last valid day
    assert decide(cache, question, today=date(2025, 4, 1)) is None  # first valid day
    assert decide(cache, question, today=date(2025, 3, 31)) is FaqMiss.EXPIRED  # not yet valid


def test_an_item_not_yet_valid_misses(cache: FaqCache) -> None:
    question = "报行合一是什么意思"  # valid from 2025-10-01, no end
    assert decide(cache, question, INTERNAL, date(2025, 9, 30)) is FaqMiss.EXPIRED
    assert decide(cache, question, INTERNAL, date(2025, 10, 1)) is None
    assert decide(cache, question, INTERNAL, date(2199, 1, 1)) is None


@pytest.mark.parametrize(
    ("clearance", "hits"),
    [(PUBLIC, False), (INTERNAL, False), (CONFIDENTIAL, True), (RESTRICTED, True)],
)
def test_an_item_above_the_callers_clearance_is_invisible(
    cache: FaqCache, clearance: Sensitivity, hits: bool
) -> None:
    miss = decide(cache, "What does RBC mean?", clearance)  # a CONFIDENTIAL item
    assert miss is (None if hits else FaqMiss.NO_MATCH)


# An author's file with wordings the exclusions must turn away: each is the control question
# ("股息政策是什么", which hits) plus the one thing that makes it a miss.
EXCLUDED_WORDINGS = {
    "新业务价值是什么意思": FaqMiss.SLOT_FILLED,  # a metric named (a what-is question: prose)
    "股息是多少": FaqMiss.STRUCTURED,  # asks for a figure
    "How much dividend do we pay?": FaqMiss.STRUCTURED,
    "香港的股息政策是什么": FaqMiss.SLOT_FILLED,  # an entity
    "2025年的股息政策是什么": FaqMiss.SLOT_FILLED,  # a period
    "What is the dividend policy for FY2025?": FaqMiss.SLOT_FILLED,
    "竞安保险的股息政策是什么": FaqMiss.OUT_OF_SCOPE,  # a competitor
    "What is Jingan's dividend policy?": FaqMiss.OUT_OF_SCOPE,
    "竞 安的股息政策是什么": FaqMiss.OUT_OF_SCOPE,  # spaced out, still the competitor
    "新加坡的股息政策是什么": FaqMiss.OUT_OF_SCOPE,  # a region the profile does not know
    "最新的股息政策是什么": FaqMiss.REAL_TIME,
    "今天的股息政策是什么": FaqMiss.REAL_TIME,
    "现在的股息政策是什么": FaqMiss.REAL_TIME,
    "目前的股息政策是什么": FaqMiss.REAL_TIME,
    "实时股息政策是什么": FaqMiss.REAL_TIME,
    "股价和股息政策是什么": FaqMiss.REAL_TIME,
    "What is the latest dividend policy?": FaqMiss.REAL_TIME,
    "What is the current dividend policy?": FaqMiss.REAL_TIME,
    "What is the dividend policy today?": FaqMiss.REAL_TIME,
    "Which dividend policy do we follow now?": FaqMiss.REAL_TIME,
    "Which dividend policy applies right now?": FaqMiss.REAL_TIME,
    "Which real-time dividend policy applies?": FaqMiss.REAL_TIME,
    "How does the share price affect the dividend policy?": FaqMiss.REAL_TIME,
    "How does the stock price affect the dividend policy?": FaqMiss.REAL_TIME,
}


def _item(item_id: str, question: str, *aliases: str, **fields: object) -> str:
    """One ``[[faq]]`` table; ``fields`` override the defaults (``None`` drops a key)."""
    values: dict[str, object] = {
        "id": item_id,
        "question": question,
        "aliases": list(aliases),
        "answer": "A vetted answer.",
        "source_doc": "reports/ACME_annual_report_2025.pdf",
        "source_locator": "page=1,para=5",
        "version": "1",
        "sensitivity": "PUBLIC",
        "owner": "Investor Relations",
        **fields,
    }
    lines = ["[[faq]]"]
    for key, value in values.items():
        if value is None:
            continue
        if isinstance(value, list):
            rendered = "[" + ", ".join(_toml_str(v) for v in value) + "]"
        elif isinstance(value, bool):
            rendered = str(value).lower()
        elif isinstance(value, str):
            rendered = _toml_str(value)
        else:
            rendered = str(value)
        lines.append(f"{key} = {rendered}")
    return "\n".join(lines) + "\n"


def _toml_str(value: object) -> str:
    return '"' + str(value).replace("\\", "\\\\").replace('"', '\\"') + '"'


@pytest.fixture(scope="module")
def authored(acme: DomainProfile, tmp_path_factory: pytest.TempPathFactory) -> FaqCache:
    path = tmp_path_factory.mktemp("faq") / "faq.toml"
    path.write_text(_item("dividend", "股息政策是什么", *EXCLUDED_WORDINGS), encoding="utf-8")
    return FaqCache(acme, load_faq_items(path))


def test_the_control_question_hits(authored: FaqCache) -> None:
    assert decide(authored, "股息政策是什么", PUBLIC) is None


@pytest.mark.parametrize(("question", "miss"), EXCLUDED_WORDINGS.items())
def test_a_wording_that_needs_the_agent_never_hits(
    authored: FaqCache, question: str, miss: FaqMiss
) -> None:
    assert decide(authored, question, PUBLIC) is miss


def test_the_wording_exclusions_come_before_the_items_state(acme: DomainProfile) -> None:
    text = _item("old", "股息政策是什么", "最新的股息政策是什么", enabled=False)
    items = parse_faq_text(text, Path("faq.toml")).items
    cache = FaqCache(acme, items)
    assert decide(cache, "最新的股息政策是什么", PUBLIC) is FaqMiss.REAL_TIME
    assert decide(cache, "股息政策是什么", PUBLIC) is FaqMiss.DISABLED


@pytest.mark.parametrize(
    "cue", ["今天", "现在", "目前", "最新", "实时", "股价", "latest", "current", "today", "now"]
)
def test_the_real_time_cues_include(cue: str) -> None:
    assert cue in cues.REALTIME_ZH + cues.REALTIME_EN


@pytest.mark.parametrize("text", ["nowhere to be found", "knowledge", "currency policy"])
def test_real_time_cues_match_whole_english_words(text: str) -> None:
    assert list(cues.REALTIME.finditer(text)) == []


# --------------------------------------------------------------------------- no side effects


def test_a_lookup_changes_nothing_and_opens_no_store(
    cache: FaqCache, acme: DomainProfile, monkeypatch: pytest.MonkeyPatch
) -> None:
    def no_store(*args: object, **kwargs: object) -> None:
        raise AssertionError("the FAQ lookup opened a database")

    questions = ["Which dividend policy do we follow?", "What does RBC mean?", "香港收入是多少"]
    before = (dict(vars(cache)), acme.model_dump())
    monkeypatch.setattr(sqlite3, "connect", no_store)
    first = [cache.decide(q, clearance=CONFIDENTIAL, today=TODAY) for q in questions]
    second = [cache.decide(q, clearance=CONFIDENTIAL, today=TODAY) for q in questions]
    assert first == second
    assert [d.hit is not None for d in first] == [True, True, False]
    assert (dict(vars(cache)), acme.model_dump()) == before


def test_the_cache_holds_no_store(cache: FaqCache) -> None:
    held = {type(value).__name__ for value in vars(cache).values()}
    assert held == {"DomainProfile", "SecurityGate", "tuple", "dict"}


@pytest.fixture
def parses(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """The questions the cache hands to the (real) parser, in order."""
    seen: list[str] = []

    def counting(
        question: str, reference_date: date | None = None, *, profile: DomainProfile
    ) -> ParsedIntent:
        seen.append(question)
        return parse_intent(question, reference_date, profile=profile)

    monkeypatch.setattr(faq_cache, "parse_intent", counting)
    yield seen


def test_a_question_no_item_words_is_never_parsed(cache: FaqCache, parses: list[str]) -> None:
    for question in ("香港FY2025的收入是多少", "为什么香港收入增长", "What is the latest price?"):
        assert cache.lookup(question, clearance=RESTRICTED, today=TODAY) is None
    assert parses == []
    cache.lookup("What does RBC mean?", clearance=RESTRICTED, today=TODAY)
    assert parses == ["What does RBC mean?"]  # a matching one is parsed once


# --------------------------------------------------------------------------- the file's checks


def _problems(text: str, path: Path = Path("faq.toml")) -> list[str]:
    return [str(p) for p in parse_faq_text(text, path).problems]


GOOD = _item("dividend", "股息政策是什么", "What kind of dividend policy do we have?")
GOOD_LINES = GOOD.count("\n")  # the second item's header is on line GOOD_LINES + 2


def _second(**fields: object) -> str:
    """The good item, a blank line, then a second item at line GOOD_LINES + 2."""
    return GOOD + "\n" + _item("rbc", "What does RBC mean?", **fields)


def _line_of(text: str, start: str) -> int:
    return next(n for n, line in enumerate(text.splitlines(), 1) if line.startswith(start))


def test_a_good_file_has_no_problems() -> None:
    assert _problems(_second()) == []


@pytest.mark.parametrize(
    ("fields", "key", "message"),
    [
        ({"questoin": "typo"}, "questoin", "unknown key 'questoin'; known keys: id, question"),
        ({"valid_from": "2025-13-01"}, "valid_from", "valid_from 2025-13-01 is not a date"),
        ({"valid_until": "2025-06-31"}, "valid_until", "valid_until 2025-06-31 is not a date"),
        ({"valid_from": "2025-06-01T08:00:00"}, "valid_from", "is not a date; write YYYY-MM-DD"),
        (
            {"valid_from": "2026-01-01", "valid_until": "2025-12-31"},
            "valid_from",
            "valid_from 2026-01-01 is after valid_until 2025-12-31",
        ),
        ({"source_doc": None}, "[[faq]]", "missing 'source_doc'"),
        ({"source_locator": None}, "[[faq]]", "missing 'source_locator'"),
        ({"source_locator": " "}, "source_locator", "'source_locator' is empty"),
        ({"answer": "  "}, "answer", "'answer' is empty"),
        ({"answer": None}, "[[faq]]", "missing 'answer'"),
        ({"sensitivity": "SECRET"}, "sensitivity", "unknown sensitivity 'SECRET'; valid options"),
        ({"sensitivity": None}, "[[faq]]", "missing 'sensitivity'"),
        ({"version": None}, "[[faq]]", "missing 'version'"),
        ({"owner": None}, "[[faq]]", "missing 'owner'"),
        ({"enabled": "yes"}, "enabled", "'enabled' must be true or false"),
        ({"aliases": ["ok", "？"]}, "aliases", "an alias is empty or only punctuation"),
        ({"id": "has space"}, "id", "id must be letters, digits"),
    ],
)
def test_each_problem_names_file_line_item_and_reason(
    fields: dict[str, object], key: str, message: str
) -> None:
    text = _second(**fields)
    line = _line_of(text[len(GOOD) :], key) + GOOD_LINES
    if key != "[[faq]]":
        assert line > GOOD_LINES + 2  # a key line below the header, not the header
    item = "faq 'rbc'" if key != "id" else "faq 'has space'"
    [problem] = _problems(text, Path("conf/faq.toml"))
    assert problem.startswith(f"conf/faq.toml:{line}: {item}: ")
    assert message in problem


def test_toml_dates_are_accepted() -> None:
    text = _second().replace('version = "1"', "version = 3\nvalid_from = 2025-01-01")
    [_, item] = parse_faq_text(text, Path("faq.toml")).items
    assert (item.version, item.valid_from) == ("3", date(2025, 1, 1))


def test_duplicate_ids_and_wordings_name_both_lines() -> None:
    second = GOOD_LINES + 2
    text = _second() + "\n" + _item("dividend", "股息 政策是什么？", "What does RBC mean")
    third = text.splitlines().index("[[faq]]", second) + 1
    assert _problems(text) == [
        f"faq.toml:{third}: faq 'dividend': duplicate id (first used at line 1)",
        f"faq.toml:{third}: faq 'dividend': '股息 政策是什么？' is already a wording of faq "
        "'dividend' (line 1); wordings compare ignoring case, spaces, full-width forms and "
        "closing punctuation",
        f"faq.toml:{third}: faq 'dividend': 'What does RBC mean' is already a wording of faq "
        f"'rbc' (line {second}); wordings compare ignoring case, spaces, full-width forms and "
        "closing punctuation",
    ]


def test_a_missing_id_names_the_item_by_position() -> None:
    [problem] = _problems(_second(id=None))
    assert problem == f"faq.toml:{GOOD_LINES + 2}: faq #2: missing 'id'"


def test_syntax_errors_and_stray_tables_name_their_line() -> None:
    [problem] = _problems(GOOD + 'oops = "unterminated\n')
    assert problem.startswith(f"faq.toml:{GOOD_LINES + 1}: not valid TOML: ")
    stray = " unknown top-level key {!r}; the file holds only [[faq]] tables"
    assert _problems('title = "FAQ"\n' + GOOD + "[settings]\nx = 1\n") == [
        "faq.toml:1:" + stray.format("title"),
        f"faq.toml:{GOOD_LINES + 2}:" + stray.format("settings"),
    ]


def test_a_key_like_line_inside_an_answer_is_not_a_key() -> None:
    text = _second(sensitivity="SECRET").replace(
        'answer = "A vetted answer."\nsource_doc = "reports/ACME_annual_report_2025.pdf"\n'
        'source_locator = "page=1,para=5"\nversion = "1"\nsensitivity = "SECRET"',
        'answer = """\nsensitivity = PUBLIC is what this answer says\n"""\n'
        'source_doc = "a.pdf"\nsource_locator = "page=1"\nversion = "1"\nsensitivity = "SECRET"',
    )
    assert 'answer = """' in text
    [problem] = _problems(text)
    assert problem.startswith(f"faq.toml:{len(text.splitlines()) - 1}: faq 'rbc': unknown ")


def test_loading_a_file_with_problems_fails_naming_them(tmp_path: Path) -> None:
    path = tmp_path / "faq.toml"
    path.write_text(_second(sensitivity="SECRET"), encoding="utf-8")
    with pytest.raises(FaqFileError, match=rf"^{path}:\d+: faq 'rbc': unknown sensitivity"):
        load_faq_items(path)
    with pytest.raises(FaqFileError, match="FAQ file not found"):
        read_faq_file(tmp_path / "none.toml")


def test_items_built_in_code_may_not_share_a_wording(acme: DomainProfile) -> None:
    items = parse_faq_text(_second(), Path("faq.toml")).items
    clash = FaqItem(**{**vars(items[1]), "id": "other", "aliases": ("股息政策是什么?",)})
    with pytest.raises(ValueError, match="already a wording of faq 'dividend'"):
        FaqCache(acme, (*items[:1], clash))


# --------------------------------------------------------------------------- the profile's file


def test_the_faq_file_resolves_beside_the_profile(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "conf"
    folder.mkdir()
    shutil.copy(example_profile_path(), folder / "profile.toml")
    shutil.copy(ACME_FAQ, folder / "acme_faq.toml")
    monkeypatch.chdir(tmp_path)
    profile = load_profile("conf/profile.toml")
    assert profile.faq_path == folder / "acme_faq.toml"
    cache = FaqCache.from_profile(profile)
    assert cache.lookup("What does RBC mean?", clearance=CONFIDENTIAL, today=TODAY) is not None


def test_a_named_faq_file_that_is_missing_fails(tmp_path: Path) -> None:
    shutil.copy(example_profile_path(), tmp_path / "profile.toml")
    profile = load_profile(tmp_path / "profile.toml")
    with pytest.raises(FaqFileError, match=r"acme_faq.toml: FAQ file not found \(named by "):
        FaqCache.from_profile(profile)


def test_a_profile_without_a_faq_file_never_hits(tmp_path: Path) -> None:
    text = example_profile_path().read_text(encoding="utf-8")
    (tmp_path / "profile.toml").write_text(
        text.replace('faq_file = "acme_faq.toml"\n', ""), encoding="utf-8"
    )
    cache = FaqCache.from_profile(load_profile(tmp_path / "profile.toml"))
    assert cache.items == ()
    assert decide(cache, "Which dividend policy do we follow?", PUBLIC) is FaqMiss.NO_MATCH


def test_installing_a_profile_copies_its_faq_file(tmp_path: Path) -> None:
    source = tmp_path / "src"
    source.mkdir()
    shutil.copy(example_profile_path(), source / "profile.toml")
    (source / "acme_faq.toml").write_text(GOOD, encoding="utf-8")
    ws = Workspace.create(tmp_path / "ws")
    ws.install_profile(source / "profile.toml")
    assert (ws.root / "acme_faq.toml").read_text(encoding="utf-8") == GOOD
    cache = FaqCache.from_profile(ws.profile())
    assert [item.id for item in cache.items] == ["dividend"]
    ws.install_profile(ws.profile_path)  # its own file again: nothing to copy, no error


# --------------------------------------------------------------------------- the command


@pytest.fixture
def runner() -> CliRunner:
    return CliRunner()


def test_check_the_profiles_file(runner: CliRunner) -> None:
    result = runner.invoke(app, ["faq", "check"])
    assert result.exit_code == 0, result.output
    assert result.stdout == f"{ACME_FAQ}: 6 items, 5 enabled, no problems\n"


def test_check_a_workspaces_file(runner: CliRunner, tmp_path: Path) -> None:
    ws = Workspace.create(tmp_path / "ws")
    result = runner.invoke(app, ["faq", "check", "--workspace", str(ws.root)])
    assert result.exit_code == 0, result.output
    assert "6 items, 5 enabled" in result.stdout


def test_check_prints_file_line_problems_and_exits_1(runner: CliRunner, tmp_path: Path) -> None:
    path = tmp_path / "faq.toml"
    text = _second(valid_from="2025-02-30") + "\n" + _item("nbv", "新业务价值是多少")
    path.write_text(text, encoding="utf-8")
    result = runner.invoke(app, ["faq", "check", str(path)])
    assert result.exit_code == 1
    third = text.splitlines().index("[[faq]]", GOOD_LINES + 2) + 1
    assert result.stdout.splitlines() == [
        f"{path}:{_line_of(text, 'valid_from')}: faq 'rbc': valid_from 2025-02-30 is not a "
        "date; write YYYY-MM-DD",
        f"{path}:{third}: faq 'nbv': '新业务价值是多少' is never served: it reads as a "
        "request for a figure, which the agent answers from facts",
    ]


@pytest.mark.parametrize(
    ("args", "error"),
    [
        (["--profile", "p.toml", "--workspace", "ws"], "error: give --profile or --workspace"),
        (["missing.toml"], "error: missing.toml: FAQ file not found"),
        (["--workspace", "nowhere"], "error: workspace nowhere does not exist"),
    ],
)
def test_check_usage_errors_exit_2(
    runner: CliRunner, args: list[str], error: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(app, ["faq", "check", *args])
    assert result.exit_code == 2
    assert result.stderr.startswith(error)
    assert len(result.stderr.splitlines()) == 1


def test_check_without_a_faq_file_named_exits_2(runner: CliRunner, tmp_path: Path) -> None:
    text = example_profile_path().read_text(encoding="utf-8")
    profile = tmp_path / "profile.toml"
    profile.write_text(text.replace('faq_file = "acme_faq.toml"\n', ""), encoding="utf-8")
    result = runner.invoke(app, ["faq", "check", "--profile", str(profile)])
    assert result.exit_code == 2
    assert result.stderr == (
        f"error: {profile} names no FAQ file (defaults.faq_file); give the FAQ file to check\n"
    )
