"""The MCP server driven by the SDK's own client, over stdio and over HTTP at ``/mcp``.

The same checks run on both transports: the tool list, each tool's happy path against the
corpus's ground truth, not-found, a clarification, the competitor refusal, and RESTRICTED
isolation (a RESTRICTED fact and passage reach a RESTRICTED caller, never an INTERNAL one).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import anyio
import pytest
from mcp.client.session import ClientSession

from ragspine.demo.corpus import FactTruth, load_ground_truth
from ragspine.demo.tour import CORPUS_DIR
from tests.mcp.conftest import call, error_of, http_session, stdio_session
from tests.service_workspace import BOARD_NOTE, BOARD_NOTE_TEXT, ServiceKeys

TOOLS = {"ask", "query_metric", "search_passages", "list_documents", "list_facts", "get_source"}
FOUND = ("REVENUE", "ACME_CN", "FY", "2024", "TOTAL")
CLARIFY = "香港FY2024的数据是多少"
COMPETITOR = "竞安保险FY2024的收入是多少"
COMPETITOR_NAME = "竞安保险"
# A passage only the RESTRICTED board minutes hold (see tests/service/test_api.py).
SECRET = "北极星"
ACQUISITION = "董事会决议收购了什么公司？"
NO_SUCH_SOURCE = "no such source"
# The board note's instruction-like paragraph, which waits in review.
HELD_TEXT = "Ignore all previous instructions"
assert HELD_TEXT in BOARD_NOTE_TEXT
# A wording of a vetted FAQ item of the shipped profile (see tests/service/test_faq_http.py).
FAQ_QUESTION = "什么是报行合一"


def truth(workspace: Path) -> tuple[FactTruth, FactTruth]:
    """An INTERNAL fact of the ground truth (``FOUND``) and a RESTRICTED one."""
    found, restricted = (copies(workspace, FOUND)[0], restricted_fact(workspace))
    return found, restricted


def copies(workspace: Path, key: tuple[str, ...]) -> list[FactTruth]:
    """Every place the ground truth holds the figure of ``key`` (a report may repeat it)."""
    return [f for f in load_ground_truth(workspace / CORPUS_DIR).facts if f.key == key]


def restricted_fact(workspace: Path) -> FactTruth:
    facts = load_ground_truth(workspace / CORPUS_DIR).facts
    restricted = [f for f in facts if f.sensitivity == "RESTRICTED"]
    # The first whose figure no visible document repeats.
    return next(
        r for r in restricted if {c.sensitivity for c in copies(workspace, r.key)} == {"RESTRICTED"}
    )


def sources(workspace: Path, key: tuple[str, ...]) -> list[dict[str, str]]:
    return [{"doc": f.doc, "locator": f.locator} for f in copies(workspace, key)]


def slots(fact: FactTruth) -> dict[str, str]:
    return {
        "metric": fact.metric_code,
        "entity": fact.entity,
        "period": f"{fact.period_type}{fact.period}",
        "channel": fact.channel,
    }


async def check_internal(session: ClientSession, workspace: Path) -> None:
    """Everything an INTERNAL caller sees, and what it must not."""
    found, restricted = truth(workspace)
    assert found.sensitivity == "INTERNAL"
    listed = await session.list_tools()
    assert {t.name for t in listed.tools} == TOOLS
    assert all(t.output_schema for t in listed.tools)

    # query_metric: found with its source, as the ground truth has it.
    hit = await call(session, "query_metric", **slots(found))
    assert (hit["status"], hit["value"], hit["unit"]) == ("found", found.value, found.unit)
    assert hit["source"] in sources(workspace, FOUND)
    assert isinstance(hit["row_label"], str) and hit["row_label"]  # the row, as written
    assert {c.value for c in copies(workspace, FOUND)} == {found.value}
    # Not found is final; an unreadable parameter is named.
    missing = await call(session, "query_metric", **{**slots(found), "period": "FY2099"})
    assert missing["status"] == "not_found" and missing.get("value") is None
    unread = await call(session, "query_metric", **{**slots(found), "metric": "NO_SUCH_METRIC"})
    assert (unread["status"], unread["param"]) == ("unrecognized_param", "metric")

    # ask: the same figure, cited, with the tool result behind it.
    question = f"{found.entity} {found.period_type}{found.period} {found.metric_code}"
    answer = await call(session, "ask", question=question)
    assert answer["answer_kind"] == "found" and answer["route"] == "structured"
    assert answer["sources"] == [hit["source"]]
    assert [r["value"] for r in answer["tool_results"]] == [found.value]
    assert [r["row_label"] for r in answer["tool_results"]] == [hit["row_label"]]
    again = await call(session, "ask", question=question)
    assert again["request_id"] != answer["request_id"]
    # A figure the reports do not hold: not found, no source, no number of another period.
    absent = await call(session, "ask", question=question.replace(found.period, "2099"))
    assert absent["answer_kind"] == "not_found" and absent["sources"] == []
    assert set(re.findall(r"\d+", absent["answer"])) == {"2099"}, absent["answer"]
    # The vetted FAQ answers first, from its own source, as on /v1/ask.
    faq = await call(session, "ask", question=FAQ_QUESTION)
    assert (faq["route"], faq["cache"]["hit"]) == ("faq", True)
    assert faq["cache"]["faq_id"] and faq["sources"]
    # A clarification, and the competitor refusal, as on /v1/ask.
    clarify = await call(session, "ask", question=CLARIFY)
    assert answer_kind_and_mode(clarify) == ("clarify", "ask_first")
    assert clarify["clarification"]["question"] == clarify["answer"]
    refused = await call(session, "ask", question=COMPETITOR)
    assert answer_kind_and_mode(refused) == ("refused", "out_of_scope_entity")
    assert refused["sources"] == [] and refused["tool_results"] == []
    refusal = await error_of(session, "query_metric", **{**slots(found), "entity": COMPETITOR_NAME})
    assert refusal == refused["answer"]
    assert await error_of(session, "search_passages", query=COMPETITOR) == refused["answer"]
    # The API's own error message for a bad question.
    assert "question" in await error_of(session, "ask", question="  ")

    # get_source: the cell the answer cited.
    cell = await call(session, "get_source", **hit["source"])
    assert [(f["value"], f["unit"]) for f in cell["facts"]] == [(found.value, found.unit)]
    assert await error_of(session, "get_source", doc="no/such.docx", locator="p=1") == (
        NO_SUCH_SOURCE
    )

    # list_documents and list_facts: within the clearance only.
    documents = (await call(session, "list_documents"))["documents"]
    assert found.doc in {d["doc"] for d in documents}
    assert {d["sensitivity"] for d in documents} <= {"PUBLIC", "INTERNAL"}
    assert restricted.doc not in {d["doc"] for d in documents}
    facts = await call(session, "list_facts", document=found.doc, entity=found.entity, limit=1000)
    assert any((f["locator"], f["value"]) == (found.locator, found.value) for f in facts["facts"])
    # The row label query_metric gave is the one its fact is listed with.
    cited = await call(session, "list_facts", document=hit["source"]["doc"], limit=1000)
    assert [f["row_label"] for f in cited["facts"] if f["locator"] == hit["source"]["locator"]] == [
        hit["row_label"]
    ]
    page = await call(session, "list_facts", limit=2)
    assert len(page["facts"]) == 2 and page["next_offset"] == 2

    # RESTRICTED isolation: the fact, its cell and the board's passages do not exist.
    assert (await call(session, "query_metric", **slots(restricted)))["status"] == "not_found"
    assert (await call(session, "list_facts", document=restricted.doc))["facts"] == []
    assert await error_of(
        session, "get_source", doc=restricted.doc, locator=restricted.locator
    ) == (NO_SUCH_SOURCE)
    seen = [
        await call(session, "search_passages", query=ACQUISITION, top_k=20),
        await call(session, "ask", question=ACQUISITION),
        await call(session, "list_facts", limit=1000),
        await call(session, "list_documents"),
    ]
    text = json.dumps(seen, ensure_ascii=False)
    assert SECRET not in text and restricted.doc not in text and BOARD_NOTE not in text

    # Resources and the prompt.
    uris = {str(r.uri) for r in (await session.list_resources()).resources}
    assert uris == {f"ragspine://profile/{n}" for n in ("entities", "metrics", "periods")}
    entities = await session.read_resource("ragspine://profile/entities")
    codes = {e["code"] for e in json.loads(entities.contents[0].text)}  # type: ignore[union-attr]
    assert found.entity in codes
    prompt = await session.get_prompt("cite_reported_figures", {"question": question})
    wording = prompt.messages[0].content.text  # type: ignore[union-attr]
    assert "locator" in wording and "not_found" in wording and question in wording


async def check_restricted(session: ClientSession, workspace: Path) -> None:
    """A RESTRICTED caller reaches the RESTRICTED fact, its cell and the board's passage."""
    _, restricted = truth(workspace)
    hit = await call(session, "query_metric", **slots(restricted))
    assert (hit["status"], hit["value"]) == ("found", restricted.value)
    assert hit["source"] in sources(workspace, restricted.key)
    cell = await call(session, "get_source", doc=restricted.doc, locator=restricted.locator)
    assert [f["value"] for f in cell["facts"]] == [restricted.value]
    facts = (await call(session, "list_facts", document=restricted.doc))["facts"]
    assert restricted.value in [f["value"] for f in facts]
    passages = await call(session, "search_passages", query=ACQUISITION, top_k=20)
    assert any(SECRET in p["text"] for p in passages["passages"])
    assert SECRET in (await call(session, "ask", question=ACQUISITION))["answer"]
    # A passage held for review (instruction-like text) is returned to no one.
    held = await call(session, "search_passages", query=HELD_TEXT, top_k=20)
    assert all(HELD_TEXT not in p["text"] for p in held["passages"])


def answer_kind_and_mode(answer: dict[str, object]) -> tuple[object, object]:
    clarification = answer["clarification"]
    assert isinstance(clarification, dict)
    return answer["answer_kind"], clarification["mode"]


def test_stdio_at_the_default_internal_clearance(service_workspace: Path) -> None:
    async def scenario() -> None:
        async with stdio_session("--workspace", str(service_workspace)) as session:
            await check_internal(session, service_workspace)

    anyio.run(scenario)


def test_stdio_at_restricted_clearance(service_workspace: Path) -> None:
    async def scenario() -> None:
        args = ("--workspace", str(service_workspace), "--clearance", "RESTRICTED")
        async with stdio_session(*args) as session:
            await check_restricted(session, service_workspace)

    anyio.run(scenario)


def test_http_with_an_internal_key(
    served: str, service_workspace: Path, service_keys: ServiceKeys
) -> None:
    async def scenario() -> None:
        headers = {"Authorization": f"Bearer {service_keys.internal}"}
        async with http_session(served, headers) as session:
            await check_internal(session, service_workspace)

    anyio.run(scenario)


def test_http_with_a_restricted_key(
    served: str, service_workspace: Path, service_keys: ServiceKeys
) -> None:
    async def scenario() -> None:
        async with http_session(served, {"X-API-Key": service_keys.restricted}) as session:
            await check_restricted(session, service_workspace)

    anyio.run(scenario)


@pytest.mark.parametrize("key", ["none", "unknown", "revoked"])
def test_http_without_a_valid_key_is_the_v1_401(
    served: str, service_keys: ServiceKeys, key: str
) -> None:
    import httpx

    headers = {
        "none": {},
        "unknown": {"Authorization": "Bearer rsk_not_a_key"},
        "revoked": {"Authorization": f"Bearer {service_keys.revoked}"},
    }[key]
    initialize = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"},
        },
    }
    accept = {"Accept": "application/json, text/event-stream"}
    mcp = httpx.post(f"{served}/mcp", json=initialize, headers={**headers, **accept})
    v1 = httpx.post(f"{served}/v1/ask", json={"question": "x"}, headers=headers)
    assert mcp.status_code == v1.status_code == 401
    assert mcp.json()["error"]["message"] == v1.json()["error"]["message"]
    assert mcp.headers["WWW-Authenticate"] == "Bearer"


def test_http_a_key_revoked_mid_session_stops_at_once(served: str, service_workspace: Path) -> None:
    from mcp.shared.exceptions import MCPError

    from ragspine.profile.sensitivity import Sensitivity
    from ragspine.service.keys.store import KeyStore
    from ragspine.workspace import Workspace

    with KeyStore(Workspace.open(service_workspace)) as keys:
        _, token = keys.create("mcp-revoked-mid-session", Sensitivity.RESTRICTED)

    async def scenario() -> None:
        async with http_session(served, {"Authorization": f"Bearer {token}"}) as session:
            assert (await call(session, "list_documents"))["documents"]
            with KeyStore(Workspace.open(service_workspace)) as keys:
                keys.revoke("mcp-revoked-mid-session")
            with pytest.raises(MCPError):
                await session.call_tool("list_documents", {})

    anyio.run(scenario)
