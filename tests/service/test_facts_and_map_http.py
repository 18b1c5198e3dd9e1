"""GET /v1/facts and the label-mapping review endpoints over real workspaces and PostgreSQL."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from openpyxl import load_workbook

from ragspine.ingestion.pipeline import ingest
from ragspine.profile.sensitivity import Sensitivity
from ragspine.service.http.app import create_app
from ragspine.service.keys.store import KeyStore
from ragspine.service.settings import ServiceSettings
from ragspine.workspace import Workspace
from tests.profiles import INITECH_PATH, initech

LABEL = "营业收入（港币百万元）"
REPORT = (
    "# 全球 年报\n\n| 项目 | FY2025 | FY2024 |\n| --- | --- | --- |\n"
    f"| 订单额 | 100 | 90 |\n| {LABEL} | 300 | 250 |\n"
)
SECRET = "# 美国 董事会\n\n| 项目 | FY2025 |\n| --- | --- |\n| 订单额 | 77 |\n| 秘密项目 | 5 |\n"


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[TestClient, dict[str, str], dict[str, str]]]:
    """A workspace of two documents (one RESTRICTED), its app and an INTERNAL and a
    RESTRICTED key's headers."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "report.md").write_text(REPORT, encoding="utf-8")
    (docs / "board.md").write_text(SECRET, encoding="utf-8")
    (docs / "board.md.meta.json").write_text('{"sensitivity": "RESTRICTED"}', encoding="utf-8")
    ws = Workspace.create(tmp_path / "ws")
    ws.install_profile(INITECH_PATH)
    with ws.fact_store() as store:
        ingest([docs], store, initech())
    with KeyStore(ws) as keys:
        _, internal = keys.create("analyst", Sensitivity.INTERNAL)
        _, restricted = keys.create("board", Sensitivity.RESTRICTED)
    with TestClient(create_app(ServiceSettings(workspace=ws.root))) as client:
        yield (
            client,
            {"Authorization": f"Bearer {internal}"},
            {"Authorization": f"Bearer {restricted}"},
        )


def test_facts_are_listed_within_the_keys_clearance(
    served: tuple[TestClient, dict[str, str], dict[str, str]],
) -> None:
    client, internal, restricted = served
    assert client.get("/v1/facts").status_code == 401
    seen = client.get("/v1/facts", headers=internal).json()
    assert {(f["document"], f["value"], f["row_label"]) for f in seen["facts"]} == {
        ("report.md", 100, "订单额"),
        ("report.md", 90, "订单额"),
    }
    everything = client.get("/v1/facts", headers=restricted).json()
    assert ("board.md", 77) in {(f["document"], f["value"]) for f in everything["facts"]}
    one = client.get("/v1/facts", params={"document": "board.md"}, headers=internal).json()
    assert one["facts"] == [] and one["total"] == 0


def test_facts_page_and_export(served: tuple[TestClient, dict[str, str], dict[str, str]]) -> None:
    client, internal, _ = served
    first = client.get("/v1/facts", params={"limit": 1}, headers=internal)
    assert first.headers["X-Total-Count"] == "2" and first.headers["X-Next-Offset"] == "1"
    body = first.json()
    assert body["next_offset"] == 1 and len(body["facts"]) == 1
    last = client.get("/v1/facts", params={"limit": 1, "offset": 1}, headers=internal).json()
    assert last["next_offset"] is None and last["facts"] != body["facts"]
    exported = client.get("/v1/facts", params={"format": "csv"}, headers=internal)
    assert exported.headers["content-type"].startswith("text/csv")
    rows = list(csv.DictReader(io.StringIO(exported.text)))
    assert {(r["locator"], r["value"], r["row_label"]) for r in rows} == {
        ("section=1,table=1,row=2,col=2", "100.0", "订单额"),
        ("section=1,table=1,row=2,col=3", "90.0", "订单额"),
    }
    book = client.get("/v1/facts", params={"format": "xlsx"}, headers=internal)
    sheet = load_workbook(io.BytesIO(book.content)).active
    assert sheet is not None and sheet.max_row == 3
    cells = list(sheet.iter_rows(values_only=True))
    assert cells[0][-1] == "row_label" and {row[-1] for row in cells[1:]} == {"订单额"}
    assert client.get("/v1/facts", params={"limit": 0}, headers=internal).status_code == 422
    assert client.get("/v1/facts", params={"format": "pdf"}, headers=internal).status_code == 422


def test_an_unmapped_label_is_mapped_over_http_and_answers(
    served: tuple[TestClient, dict[str, str], dict[str, str]],
) -> None:
    client, internal, restricted = served
    items = client.get("/v1/review", headers=internal).json()["items"]
    (item,) = [i for i in items if i["label"] == LABEL]
    assert item["actions"] == ["map", "reject"]
    # The RESTRICTED document's label does not exist for the INTERNAL key.
    secret = [i for i in client.get("/v1/review", headers=restricted).json()["items"]]
    (hidden,) = [i for i in secret if i["doc"] == "board.md"]
    refused = client.post(
        f"/v1/review/{hidden['item_id']}/map", json={"metric": "BOOKINGS"}, headers=internal
    )
    assert refused.status_code == 404
    codes = client.get("/v1/profile/codes", headers=internal).json()
    assert [m["code"] for m in codes["metrics"]] == ["BOOKINGS"]
    bad = client.post(
        f"/v1/review/{item['item_id']}/map",
        json={"metric": "BOOKINGS", "entity": "INI_US"},
        headers=internal,
    )
    assert bad.status_code == 400 and "exactly one of" in bad.json()["error"]["message"]
    mapped = client.post(
        f"/v1/review/{item['item_id']}/map",
        json={"new_metric": "SALES", "name": "营业收入", "unit": "HKD_M"},
        headers=internal,
    )
    assert mapped.status_code == 200, mapped.text
    out = mapped.json()
    assert (out["alias"], out["code"], out["documents"]) == ("营业收入", "SALES", ["report.md"])
    again = client.post(
        f"/v1/review/{item['item_id']}/map", json={"metric": "SALES"}, headers=internal
    )
    assert again.status_code == 404  # the item was closed and its document read again
    answer = client.post(
        "/v1/ask", json={"question": "全球FY2025的营业收入是多少"}, headers=internal
    ).json()
    assert "300" in answer["answer"]
    assert answer["sources"] == [{"doc": "report.md", "locator": "section=1,table=1,row=3,col=2"}]
    facts = client.get("/v1/facts", params={"metric": "SALES"}, headers=internal).json()
    assert {(f["locator"], f["value"]) for f in facts["facts"]} == {
        ("section=1,table=1,row=3,col=2", 300),
        ("section=1,table=1,row=3,col=3", 250),
    }
    codes = client.get("/v1/profile/codes", headers=internal).json()
    assert [m["code"] for m in codes["metrics"]] == ["BOOKINGS", "SALES"]


def test_facts_over_postgres(
    postgres_database: tuple[str, str],
    redis_url: str,
    redis_queue_cleanup: list[str],
    tmp_path: Path,
) -> None:
    from ragspine.service.keys.pg_keys import PostgresKeyStore
    from ragspine.storage.postgres import PostgresWorkspaceStore

    url, schema = postgres_database
    redis_queue_cleanup.append(f"ragspine-ingest-{schema}")
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "report.md").write_text(REPORT, encoding="utf-8")
    (docs / "board.md").write_text(SECRET, encoding="utf-8")
    (docs / "board.md.meta.json").write_text('{"sensitivity": "RESTRICTED"}', encoding="utf-8")
    with PostgresWorkspaceStore(url, schema=schema) as store:
        ingest([docs], store, initech())
    with PostgresKeyStore(url, schema=schema) as keys:
        _, token = keys.create("portal", "INTERNAL")
    settings = ServiceSettings(
        database_url=url, database_schema=schema, redis_url=redis_url, profile=INITECH_PATH
    )
    with TestClient(create_app(settings)) as client:
        client.headers["Authorization"] = f"Bearer {token}"
        body = client.get("/v1/facts").json()
        assert {(f["document"], f["value"]) for f in body["facts"]} == {
            ("report.md", 100),
            ("report.md", 90),
        }
        exported = client.get("/v1/facts", params={"format": "csv", "entity": "INI_WORLD"})
        assert len(list(csv.DictReader(io.StringIO(exported.text)))) == 2
        items = client.get("/v1/review").json()["items"]
        (item,) = [i for i in items if i["label"] == LABEL]
        # The profile is each process's own file: the page offers no "map" that cannot work,
        # and the endpoint names the command that maps the label from that file.
        assert item["actions"] == ["reject"]
        refused = client.post(f"/v1/review/{item['item_id']}/map", json={"metric": "BOOKINGS"})
        assert refused.status_code == 409
        message = refused.json()["error"]["message"]
        assert (
            f"`ragspine review map {item['item_id']} --metric BOOKINGS --database-url URL "
            "--schema SCHEMA --profile FILE`"
        ) in message
        assert url not in message and schema not in message
