"""Names and units a person reads, on the wire: ``*_display`` fields beside the codes of
``/v1/ask``, and ``/v1/profile/examples`` drawn from the workspace's own profile."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from ragspine.service.http.app import create_app
from ragspine.service.settings import ServiceSettings
from tests.service_workspace import INTERNAL, ServiceKeys

REF = "2026-11-26"


@pytest.fixture(scope="module")
def client(service_workspace: Path, service_keys: ServiceKeys) -> Iterator[TestClient]:
    with TestClient(create_app(ServiceSettings(workspace=service_workspace))) as test_client:
        yield test_client


def ask(client: TestClient, question: str) -> Any:
    response = client.post(
        "/v1/ask", json={"question": question, "reference_date": REF}, headers=INTERNAL
    )
    assert response.status_code == 200, response.text
    return response.json()


def test_a_found_value_carries_its_display_fields_beside_its_codes(client: TestClient) -> None:
    zh = ask(client, "中国内地FY2024的收入是多少")
    (fact,) = zh["tool_results"]
    assert zh["language"] == "zh"
    # The codes a caller already reads stay as they were.
    assert (fact["metric_code"], fact["entity"], fact["channel"], fact["unit"]) == (
        "REVENUE",
        "ACME_CN",
        "TOTAL",
        "USD_M",
    )
    assert fact["value"] == 1320.0
    assert (fact["unit_kind"], fact["currency"], fact["scale"]) == ("amount", "USD", 6)
    assert (fact["entity_display"], fact["metric_display"], fact["channel_display"]) == (
        "中国内地",
        "收入",
        "合计",
    )
    assert (fact["value_display"], fact["unit_display"]) == ("1,320 百万美元", "百万美元")
    assert fact["value_display"] in zh["answer"]
    en = ask(client, "What was Mainland China revenue in FY2024?")
    (fact,) = en["tool_results"]
    assert (fact["value_display"], fact["unit_display"]) == ("US$ 1,320 m", "US$ m")
    assert (fact["entity_display"], fact["metric_display"]) == ("Mainland China", "Revenue")


def test_a_percent_has_no_currency_and_shows_two_decimals(client: TestClient) -> None:
    result = ask(client, "What was Hong Kong NBV margin in FY2025?")
    facts = [r for r in result["tool_results"] if r["status"] == "found"]
    assert facts, result["answer"]
    fact = facts[0]
    assert (fact["unit_kind"], fact["currency"], fact["scale"], fact["unit_display"]) == (
        "percent",
        None,
        0,
        "%",
    )
    assert fact["value_display"] == f"{fact['value']:.2f}%"


def test_a_not_found_result_names_what_was_asked(client: TestClient) -> None:
    result = ask(client, "中国内地FY2019的收入是多少")
    (missing,) = result["tool_results"]
    assert missing["status"] == "not_found"
    normalized = missing["normalized"]
    assert normalized["entity"] == "ACME_CN" and normalized["entity_display"] == "中国内地"
    assert normalized["metric_display"] == "收入"


def test_question_examples_are_made_of_the_profiles_names(client: TestClient) -> None:
    response = client.get("/v1/profile/examples", headers=INTERNAL)
    assert response.status_code == 200, response.text
    examples = response.json()
    assert examples["zh"][0] == "香港收入是多少"
    assert examples["en"][0] == "What was Hong Kong Revenue?"
    for question in (examples["zh"][0], examples["en"][0]):
        asked = ask(client, question)
        assert asked["answer_kind"] == "found", asked["answer"]


def test_question_examples_need_a_key(client: TestClient) -> None:
    assert client.get("/v1/profile/examples").status_code == 401
