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
    query_metric_spec,
)
from ragspine.profile.loader import load_profile
from ragspine.profile.model import DomainProfile
from ragspine.profile.sensitivity import Sensitivity
from ragspine.storage.fact_store import Fact, FactStore

DECK = "ACME_FY2024_Review.pptx"
LOCATOR = "slide=2,table=1,row=REVENUE,col=FY2024"


def fact(**overrides: Any) -> Fact:
    fields: dict[str, Any] = {
        "metric_code": "REVENUE",
        "entity": "ACME_CN",
        "geography": "CN",
        "channel": "TOTAL",
        "period_type": "FY",
        "period": "2024",
        "value": 1320,
        "unit": "USD_M",
        "source_doc_id": DECK,
        "source_locator": LOCATOR,
    }
    fields.update(overrides)
    return Fact(**fields)


@pytest.fixture
def store(tmp_path: Path) -> Iterator[FactStore]:
    with FactStore(tmp_path / "facts.db") as db:
        db.init_schema()
        db.upsert_facts(
            [
                fact(),
                fact(
                    entity="ACME_HK", geography="HK", value=980.5, source_locator="sheet=HK,cell=C4"
                ),
                fact(entity="ACME_HK", geography="HK", period_type="H1", period="2025", value=510),
                fact(entity="ACME_HK", geography="HK", channel="AGENCY", value=600),
                fact(entity="ACME_HK", geography="HK", period="2025", value=1100),
                fact(metric_code="NBV", entity="ACME_MO", geography="MO", review_status="pending"),
                fact(metric_code="NBV", entity="ACME_HK", geography="HK", sensitivity="RESTRICTED"),
                fact(metric_code="ROE", unit="PCT", value=12.5, sensitivity="CONFIDENTIAL"),
            ]
        )
        yield db


def test_found_payload_is_exact(store: FactStore) -> None:
    assert execute_query_metric(store, "REVENUE", "ACME_CN", "FY2024") == {
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
    }


def test_not_found_payload_is_exact(store: FactStore) -> None:
    assert execute_query_metric(store, "REVENUE", "ACME_CN", "FY2025") == {
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
    assert execute_query_metric(store, *args) == {
        "status": "unrecognized_param",
        "param": param,
        "raw": raw,
    }


def test_metric_is_checked_first(store: FactStore) -> None:
    result = execute_query_metric(store, "bogus", "nowhere", "never")
    assert (result["status"], result["param"]) == (STATUS_UNRECOGNIZED, "metric")


def test_status_constants() -> None:
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
    result = execute_query_metric(store, metric, entity, period, channel)
    assert result["status"] == STATUS_FOUND
    assert result["value"] == value
    assert result["metric_code"] == "REVENUE" and result["entity"] == "ACME_HK"


def test_relative_period_uses_the_reference_date(store: FactStore) -> None:
    result = execute_query_metric(store, "收入", "香港", "去年", reference_date=date(2026, 11, 26))
    assert (result["status"], result["value"], result["period_label"]) == (
        STATUS_FOUND,
        1100,
        "FY2025",
    )


def test_pending_facts_are_not_found(store: FactStore) -> None:
    result = execute_query_metric(store, "NBV", "ACME_MO", "FY2024")
    assert result["status"] == STATUS_NOT_FOUND


def test_facts_above_the_clearance_are_not_found(store: FactStore) -> None:
    # RESTRICTED needs an explicit grant; CONFIDENTIAL is above INTERNAL.
    assert execute_query_metric(store, "NBV", "ACME_HK", "FY2024")["status"] == STATUS_NOT_FOUND
    restricted = execute_query_metric(
        store, "NBV", "ACME_HK", "FY2024", clearance=Sensitivity.RESTRICTED
    )
    assert restricted["status"] == STATUS_FOUND
    internal = execute_query_metric(
        store, "ROE", "ACME_CN", "FY2024", clearance=Sensitivity.INTERNAL
    )
    assert internal["status"] == STATUS_NOT_FOUND
    assert execute_query_metric(store, "ROE", "ACME_CN", "FY2024")["status"] == STATUS_FOUND


def test_not_found_never_borrows_a_neighbouring_row(store: FactStore) -> None:
    # FY2024 exists for HK, but not 2024H1, not the BANCA channel, not another entity.
    assert execute_query_metric(store, "收入", "香港", "2024H1")["status"] == STATUS_NOT_FOUND
    assert (
        execute_query_metric(store, "收入", "香港", "FY2024", "银保")["status"] == STATUS_NOT_FOUND
    )
    assert execute_query_metric(store, "收入", "澳门", "FY2024")["status"] == STATUS_NOT_FOUND


# --- tool schemas are generated from the profile

INITECH = """\
[company]
name = "Initech"
home_entity = "INI_WORLD"

[defaults]
channel = "DIRECT"

[[entities]]
code = "INI_WORLD"
name_zh = "全球"
name_en = "Worldwide"
geography = "GLOBAL"

[[entities]]
code = "INI_US"
name_zh = "美国"
name_en = "United States"
geography = "US"
aliases = ["US"]

[[metrics]]
code = "BOOKINGS"
name_zh = "订单额"
name_en = "Bookings"
unit = "USD_M"

[[channels]]
code = "DIRECT"

[[channels]]
code = "PARTNER"
"""


@pytest.fixture(scope="module")
def initech(tmp_path_factory: pytest.TempPathFactory) -> DomainProfile:
    path = tmp_path_factory.mktemp("profile") / "initech.toml"
    path.write_text(INITECH, encoding="utf-8")
    return load_profile(path)


def properties(schema: dict[str, Any]) -> dict[str, Any]:
    props: dict[str, Any] = schema["properties"]
    return props


def test_anthropic_tool_shape(initech: DomainProfile) -> None:
    tool: dict[str, Any] = build_query_metric_tool_anthropic(initech)
    assert set(tool) == {"name", "description", "input_schema"}
    assert tool["name"] == QUERY_METRIC_TOOL_NAME == "query_metric"
    schema = tool["input_schema"]
    assert schema["type"] == "object"
    assert schema["required"] == ["metric", "entity", "period"]
    assert set(properties(schema)) == {"metric", "entity", "period", "channel"}


def test_openai_tool_shape(initech: DomainProfile) -> None:
    tool: dict[str, Any] = build_query_metric_tool_openai(initech)
    assert tool["type"] == "function"
    function = tool["function"]
    assert function["name"] == "query_metric"
    assert function["parameters"] == build_query_metric_tool_anthropic(initech)["input_schema"]
    assert function["description"] == build_query_metric_tool_anthropic(initech)["description"]


def test_schemas_come_from_the_profile(initech: DomainProfile) -> None:
    spec: dict[str, Any] = query_metric_spec(initech)
    props = properties(spec["parameters"])
    assert "INI_WORLD" in props["entity"]["description"]
    assert "INI_US" in props["entity"]["description"]
    assert "BOOKINGS" in props["metric"]["description"]
    assert "DIRECT" in props["channel"]["description"]
    assert "PARTNER" in props["channel"]["description"]
    assert props["channel"]["default"] == "DIRECT"
    assert "Initech" in spec["description"]
    for tool in (
        build_query_metric_tool_anthropic(initech),
        build_query_metric_tool_openai(initech),
    ):
        text = json.dumps(tool, ensure_ascii=False)
        assert "INI_US" in text and "BOOKINGS" in text
        for word in ("ACME", "REVENUE", "TOTAL", "香港"):
            assert word not in text


def test_prebuilt_tools_describe_the_shipped_profile() -> None:
    profile = load_profile()
    for tool in (QUERY_METRIC_TOOL_ANTHROPIC, QUERY_METRIC_TOOL_OPENAI):
        text = json.dumps(tool, ensure_ascii=False)
        codes = [item.code for item in profile.entities]
        codes += [item.code for item in profile.metrics]
        codes += [item.code for item in profile.channels]
        for code in codes:
            assert code in text
    assert build_query_metric_tool_anthropic(profile) == QUERY_METRIC_TOOL_ANTHROPIC
    assert build_query_metric_tool_openai(profile) == QUERY_METRIC_TOOL_OPENAI


def test_execution_uses_the_given_profile(tmp_path: Path, initech: DomainProfile) -> None:
    with FactStore(tmp_path / "initech.db") as db:
        db.init_schema()
        db.upsert_facts(
            [
                fact(
                    metric_code="BOOKINGS",
                    entity="INI_US",
                    geography="US",
                    channel="DIRECT",
                    source_doc_id="initech.xlsx",
                    source_locator="sheet=US,cell=B2",
                )
            ]
        )
        found = execute_query_metric(db, "订单额", "US", "FY2024", None, profile=initech)
        assert found["status"] == STATUS_FOUND
        assert found["channel"] == "DIRECT"
        assert found["source"] == {"doc": "initech.xlsx", "locator": "sheet=US,cell=B2"}
        # The example profile's vocabulary is unknown here.
        unknown = execute_query_metric(db, "收入", "US", "FY2024", profile=initech)
        assert unknown == {"status": STATUS_UNRECOGNIZED, "param": "metric", "raw": "收入"}
        channel = execute_query_metric(db, "BOOKINGS", "US", "FY2024", "TOTAL", profile=initech)
        assert channel == {"status": STATUS_UNRECOGNIZED, "param": "channel", "raw": "TOTAL"}
