"""``query_metric``: normalise raw arguments through the glossary, look up typed slots, and the
tool schemas built from the profile."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import date
from pathlib import Path
from typing import Any

import pytest

from ragspine.agent.query_tools import (
    QUERY_METRIC_TOOL_ANTHROPIC,
    QUERY_METRIC_TOOL_NAME,
    QUERY_METRIC_TOOL_OPENAI,
    STATUS_FOUND,
    STATUS_NOT_FOUND,
    STATUS_UNRECOGNIZED,
    build_query_metric_tool_anthropic,
    build_query_metric_tool_openai,
    execute_query_metric,
    lookup,
    normalize,
    query_metric_spec,
)
from ragspine.agent.types import (
    FactNotFound,
    FoundFact,
    Slots,
    Source,
    SourceKind,
    ToolResult,
    ToolStatus,
    UnrecognizedParam,
)
from ragspine.profile.model import DomainProfile
from ragspine.profile.periods import Period
from ragspine.profile.sensitivity import Sensitivity
from ragspine.storage.fact_store import FactStore
from tests.facts import fact
from tests.profiles import acme, initech

DECK = "ACME_FY2024_Review.pptx"
LOCATOR = "slide=2,table=1,row=REVENUE,col=FY2024"
CN_FY2024 = Slots("REVENUE", "ACME_CN", Period(2024, "FY"), "TOTAL")


@pytest.fixture
def store(tmp_path: Path) -> Iterator[FactStore]:
    with FactStore(tmp_path / "facts.db") as db:
        db.init_schema()
        db.upsert_facts(
            [
                fact(),
                fact(entity="ACME_HK", value=980.5, source_locator="sheet=HK,cell=C4"),
                fact(entity="ACME_HK", period_type="H1", period="2025", value=510),
                fact(entity="ACME_HK", channel="AGENCY", value=600),
                fact(entity="ACME_HK", period="2025", value=1100),
                fact("NBV", "ACME_MO", review_status="pending"),
                fact("NBV", "ACME_HK", sensitivity="RESTRICTED"),
                fact("ROE", unit="PCT", value=12.5, sensitivity="CONFIDENTIAL"),
            ]
        )
        yield db


def query(store: FactStore, *args: Any, **kw: Any) -> ToolResult:
    """The tool as a model calls it, with the ACME example profile."""
    return execute_query_metric(store, *args, profile=acme(), **kw)


# --- the tri-state, on the wire exactly as before


def test_found_payload_is_exact(store: FactStore) -> None:
    result = query(store, "REVENUE", "ACME_CN", "FY2024")
    assert result == FoundFact(CN_FY2024, 1320, "USD_M", Source(DECK, LOCATOR))
    assert result.to_dict() == {
        "status": "found",
        "value": 1320,
        "unit": "USD_M",
        "metric_code": "REVENUE",
        "entity": "ACME_CN",
        "period_type": "FY",
        "period": "2024",
        "period_label": "FY2024",
        "channel": "TOTAL",
        "source": {"doc": DECK, "locator": LOCATOR},
        "row_label": None,  # the fixture's fact was not read from a table
    }


def test_not_found_payload_is_exact(store: FactStore) -> None:
    result = query(store, "REVENUE", "ACME_CN", "FY2025")
    assert result == FactNotFound(Slots("REVENUE", "ACME_CN", Period(2025, "FY"), "TOTAL"))
    assert result.to_dict() == {
        "status": "not_found",
        "normalized": {
            "metric_code": "REVENUE",
            "entity": "ACME_CN",
            "period_type": "FY",
            "period": "2025",
            "period_label": "FY2025",
            "channel": "TOTAL",
        },
    }


@pytest.mark.parametrize(
    ("args", "param", "raw"),
    [
        (("收入增长", "ACME_CN", "FY2024"), "metric", "收入增长"),
        (("REVENUE", "some unknown company", "FY2024"), "entity", "some unknown company"),
        (("REVENUE", "新加坡", "FY2024"), "entity", "新加坡"),
        (("REVENUE", "竞安保险", "FY2024"), "entity", "竞安保险"),
        (("REVENUE", "ACME_CN", "9999"), "period", "9999"),
        (("REVENUE", "ACME_CN", "FY2024 and FY2025"), "period", "FY2024 and FY2025"),
        (("REVENUE", "ACME_CN", "FY2024", "telesales"), "channel", "telesales"),
        ((None, "ACME_CN", "FY2024"), "metric", ""),
        (("REVENUE", "ACME_CN", None), "period", ""),
    ],
)
def test_unrecognized_payload_names_the_param_and_raw_value(
    store: FactStore, args: tuple[Any, ...], param: str, raw: str
) -> None:
    result = query(store, *args)
    assert result == UnrecognizedParam(param, raw)
    assert result.to_dict() == {"status": "unrecognized_param", "param": param, "raw": raw}


def test_metric_is_checked_first(store: FactStore) -> None:
    assert query(store, "bogus", "nowhere", "never") == UnrecognizedParam("metric", "bogus")


def test_status_constants() -> None:
    assert (STATUS_FOUND, STATUS_NOT_FOUND, STATUS_UNRECOGNIZED) == (
        ToolStatus.FOUND,
        ToolStatus.NOT_FOUND,
        ToolStatus.UNRECOGNIZED,
    )
    assert (STATUS_FOUND, STATUS_NOT_FOUND, STATUS_UNRECOGNIZED) == (
        "found",
        "not_found",
        "unrecognized_param",
    )


@pytest.mark.parametrize(
    ("metric", "entity", "period", "channel", "value"),
    [
        ("营收", "Hong Kong", "FY24", "TOTAL", 980.5),
        ("revenue", "香港", "2024财年", "合计", 980.5),
        ("Turnover", "acme_hk", "2024", None, 980.5),
        ("收入", "HK", "2025年上半年", "total", 510),
        ("revenue", "ACME HK", "H1 2025", "all channels", 510),
        ("营业收入", "香港", "FY2024", "代理人渠道", 600),
    ],
)
def test_aliases_are_normalised(
    store: FactStore, metric: str, entity: str, period: str, channel: str | None, value: float
) -> None:
    result = query(store, metric, entity, period, channel)
    assert isinstance(result, FoundFact)
    assert result.value == value
    assert (result.slots.metric, result.slots.entity) == ("REVENUE", "ACME_HK")


def test_relative_period_uses_the_reference_date(store: FactStore) -> None:
    result = query(store, "收入", "香港", "去年", reference_date=date(2026, 11, 26))
    assert isinstance(result, FoundFact)
    assert (result.value, result.slots.period) == (1100, Period(2025, "FY"))


def test_pending_facts_are_not_found(store: FactStore) -> None:
    assert query(store, "NBV", "ACME_MO", "FY2024").status is ToolStatus.NOT_FOUND


def test_facts_above_the_clearance_are_not_found(store: FactStore) -> None:
    # RESTRICTED needs an explicit grant; CONFIDENTIAL is above INTERNAL.
    assert query(store, "NBV", "ACME_HK", "FY2024").status is ToolStatus.NOT_FOUND
    restricted = query(store, "NBV", "ACME_HK", "FY2024", clearance=Sensitivity.RESTRICTED)
    assert restricted.status is ToolStatus.FOUND
    internal = query(store, "ROE", "ACME_CN", "FY2024", clearance=Sensitivity.INTERNAL)
    assert internal.status is ToolStatus.NOT_FOUND
    assert query(store, "ROE", "ACME_CN", "FY2024").status is ToolStatus.FOUND


def test_not_found_never_borrows_a_neighbouring_row(store: FactStore) -> None:
    # FY2024 exists for HK, but not 2024H1, not the BANCA channel, not another entity.
    assert query(store, "收入", "香港", "2024H1").status is ToolStatus.NOT_FOUND
    assert query(store, "收入", "香港", "FY2024", "银保").status is ToolStatus.NOT_FOUND
    assert query(store, "收入", "澳门", "FY2024").status is ToolStatus.NOT_FOUND


# --- the two steps on their own


def test_normalize_reads_every_alias_into_typed_slots() -> None:
    slots = normalize("营业收入", "香港", "2025年上半年", "代理人渠道", profile=acme())
    assert slots == Slots("REVENUE", "ACME_HK", Period(2025, "H1"), "AGENCY")


def test_normalize_fills_the_profile_default_channel() -> None:
    assert normalize("REVENUE", "ACME_CN", "FY2024", None, profile=acme()) == CN_FY2024
    assert normalize("订单额", "America", "FY2024", None, profile=initech()) == Slots(
        "BOOKINGS", "INI_US", Period(2024, "FY"), "DIRECT"
    )


def test_normalize_resolves_relative_periods_on_the_reference_date() -> None:
    # Initech's fiscal year ends in March: on 2026-11-26 last year is FY2026.
    day = date(2026, 11, 26)
    assert normalize("收入", "香港", "去年", None, profile=acme(), reference_date=day) == Slots(
        "REVENUE", "ACME_HK", Period(2025, "FY"), "TOTAL"
    )
    assert normalize(
        "bookings", "US", "last year", "all", profile=initech(), reference_date=day
    ) == Slots("BOOKINGS", "INI_US", Period(2026, "FY"), "TOTAL")


@pytest.mark.parametrize(
    ("args", "unrecognized"),
    [
        (("bogus", "nowhere", "never", "x"), UnrecognizedParam("metric", "bogus")),
        (("REVENUE", "nowhere", "never", "x"), UnrecognizedParam("entity", "nowhere")),
        (("REVENUE", "HK", "never", "x"), UnrecognizedParam("period", "never")),
        (("REVENUE", "HK", "FY2024", "x"), UnrecognizedParam("channel", "x")),
    ],
)
def test_normalize_names_the_first_parameter_it_cannot_read(
    args: tuple[str, str, str, str], unrecognized: UnrecognizedParam
) -> None:
    assert normalize(*args, profile=acme()) == unrecognized


def test_lookup_returns_the_fact_with_its_lineage(store: FactStore) -> None:
    assert lookup(store, CN_FY2024) == FoundFact(
        CN_FY2024,
        1320,
        "USD_M",
        Source(DECK, LOCATOR, Sensitivity.INTERNAL, SourceKind.FACT),
    )


def test_lookup_keeps_the_fact_sensitivity_on_its_source(store: FactStore) -> None:
    roe = Slots("ROE", "ACME_CN", Period(2024, "FY"), "TOTAL")
    result = lookup(store, roe)
    assert isinstance(result, FoundFact)
    assert result.source.sensitivity is Sensitivity.CONFIDENTIAL
    assert lookup(store, roe, clearance=Sensitivity.INTERNAL) == FactNotFound(roe)


def test_lookup_matches_every_slot_exactly(store: FactStore) -> None:
    for slots in (
        Slots("REVENUE", "ACME_CN", Period(2024, "H1"), "TOTAL"),
        Slots("REVENUE", "ACME_CN", Period(2024, "FY"), "AGENCY"),
        Slots("REVENUE", "ACME_MO", Period(2024, "FY"), "TOTAL"),
        Slots("NBV", "ACME_CN", Period(2024, "FY"), "TOTAL"),
    ):
        assert lookup(store, slots) == FactNotFound(slots)


def test_lookup_takes_typed_slots_without_the_glossary(store: FactStore) -> None:
    # Codes are not aliases: lookup never normalises, so an alias finds nothing.
    alias = Slots("收入", "香港", Period(2024, "FY"), "TOTAL")
    assert lookup(store, alias) == FactNotFound(alias)


# --- tool schemas are generated from the profile


def properties(schema: dict[str, Any]) -> dict[str, Any]:
    props: dict[str, Any] = schema["properties"]
    return props


def test_anthropic_tool_shape() -> None:
    tool: dict[str, Any] = build_query_metric_tool_anthropic(initech())
    assert set(tool) == {"name", "description", "input_schema"}
    assert tool["name"] == QUERY_METRIC_TOOL_NAME == "query_metric"
    schema = tool["input_schema"]
    assert schema["type"] == "object"
    assert schema["required"] == ["metric", "entity", "period"]
    assert set(properties(schema)) == {"metric", "entity", "period", "channel"}


def test_openai_tool_shape() -> None:
    profile = initech()
    tool: dict[str, Any] = build_query_metric_tool_openai(profile)
    assert tool["type"] == "function"
    function = tool["function"]
    assert function["name"] == "query_metric"
    assert function["parameters"] == build_query_metric_tool_anthropic(profile)["input_schema"]
    assert function["description"] == build_query_metric_tool_anthropic(profile)["description"]


def test_schemas_come_from_the_profile() -> None:
    profile: DomainProfile = initech()
    spec: dict[str, Any] = query_metric_spec(profile)
    props = properties(spec["parameters"])
    assert "INI_WORLD" in props["entity"]["description"]
    assert "INI_US" in props["entity"]["description"]
    assert "BOOKINGS" in props["metric"]["description"]
    assert "DIRECT" in props["channel"]["description"]
    assert "PARTNER" in props["channel"]["description"]
    assert props["channel"]["default"] == "DIRECT"
    assert "Initech" in spec["description"]
    for tool in (
        build_query_metric_tool_anthropic(profile),
        build_query_metric_tool_openai(profile),
    ):
        text = json.dumps(tool, ensure_ascii=False)
        assert "INI_US" in text and "BOOKINGS" in text
        for word in ("ACME", "REVENUE", "AGENCY", "香港"):
            assert word not in text


def test_prebuilt_tools_describe_the_shipped_profile() -> None:
    profile = acme()
    for tool in (QUERY_METRIC_TOOL_ANTHROPIC, QUERY_METRIC_TOOL_OPENAI):
        text = json.dumps(tool, ensure_ascii=False)
        codes = [item.code for item in profile.entities]
        codes += [item.code for item in profile.metrics]
        codes += [item.code for item in profile.channels]
        for code in codes:
            assert code in text
    assert build_query_metric_tool_anthropic(profile) == QUERY_METRIC_TOOL_ANTHROPIC
    assert build_query_metric_tool_openai(profile) == QUERY_METRIC_TOOL_OPENAI


def test_execution_uses_the_given_profile(tmp_path: Path) -> None:
    profile = initech()
    us_fact = fact(
        "BOOKINGS",
        "INI_US",
        channel="DIRECT",
        source_doc_id="initech.xlsx",
        source_locator="sheet=US,cell=B2",
    )
    with FactStore(tmp_path / "initech.db") as db:
        db.init_schema()
        db.upsert_facts([us_fact])
        found = execute_query_metric(db, "订单额", "US", "FY2024", None, profile=profile)
        assert found == FoundFact(
            Slots("BOOKINGS", "INI_US", Period(2024, "FY"), "DIRECT"),
            1320,
            "USD_M",
            Source("initech.xlsx", "sheet=US,cell=B2"),
        )
        # The example profile's vocabulary is unknown here.
        unknown = execute_query_metric(db, "收入", "US", "FY2024", profile=profile)
        assert unknown == UnrecognizedParam("metric", "收入")
        channel = execute_query_metric(db, "BOOKINGS", "US", "FY2024", "AGENCY", profile=profile)
        assert channel == UnrecognizedParam("channel", "AGENCY")
