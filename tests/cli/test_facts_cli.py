"""`ragspine facts list` over a workspace and over PostgreSQL, and `documents list` counts."""

from __future__ import annotations

import io
import json
from pathlib import Path

from openpyxl import load_workbook
from typer.testing import CliRunner

from ragspine.cli import app
from ragspine.ingestion.pipeline import ingest
from tests.profiles import INITECH_PATH, initech

runner = CliRunner(env={"COLUMNS": "250"})
REPORT = (
    "# 全球 年报\n\n| 项目 | FY2025 | FY2024 |\n| --- | --- | --- |\n"
    "| 订单额 | 100 | 90 |\n| 未知项目 | 7 | 6 |\n"
)
US = "# 美国 年报\n\n| 项目 | FY2025 |\n| --- | --- |\n| 订单额 | 40 |\n"


def _docs(tmp_path: Path) -> Path:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "world.md").write_text(REPORT, encoding="utf-8")
    (docs / "us.md").write_text(US, encoding="utf-8")
    secret = US.replace("40", "41").replace("FY2025", "FY2024").replace("年报", "董事会")
    (docs / "secret.md").write_text(secret, encoding="utf-8")
    (docs / "secret.md.meta.json").write_text('{"sensitivity": "RESTRICTED"}', encoding="utf-8")
    return docs


def _workspace(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    result = runner.invoke(
        app, ["ingest", str(_docs(tmp_path)), "-w", str(ws), "--profile", str(INITECH_PATH)]
    )
    assert result.exit_code == 0, result.output
    return ws


def test_facts_list_formats_and_filters(tmp_path: Path) -> None:
    ws = _workspace(tmp_path)
    table = runner.invoke(app, ["facts", "list", "-w", str(ws)])
    assert table.exit_code == 0, table.output
    assert "section=1,table=1,row=2,col=2" in table.output and "3 facts" in table.output
    assert "row_label" in table.output and "订单额" in table.output
    everything = runner.invoke(app, ["facts", "list", "-w", str(ws), "--clearance", "RESTRICTED"])
    assert "4 facts" in everything.output
    listed = runner.invoke(
        app, ["facts", "list", "-w", str(ws), "--entity", "INI_US", "--format", "json"]
    )
    body = json.loads(listed.stdout)
    assert [(f["document"], f["value"], f["locator"], f["row_label"]) for f in body["facts"]] == [
        ("us.md", 40, "section=1,table=1,row=2,col=2", "订单额")
    ]
    out = tmp_path / "facts.xlsx"
    book = runner.invoke(
        app, ["facts", "list", "-w", str(ws), "--format", "xlsx", "--out", str(out)]
    )
    assert book.exit_code == 0, book.output
    sheet = load_workbook(io.BytesIO(out.read_bytes())).active
    assert sheet is not None and sheet.max_row == 4
    refused = runner.invoke(app, ["facts", "list", "-w", str(ws), "--out", str(out)])
    assert refused.exit_code == 2 and "--out goes with" in refused.output


def test_documents_list_shows_facts_review_and_hidden(tmp_path: Path) -> None:
    ws = _workspace(tmp_path)
    listed = runner.invoke(app, ["documents", "list", "-w", str(ws)])
    assert listed.exit_code == 0, listed.output
    header = next(line for line in listed.output.splitlines() if "document" in line)
    for column in ("facts", "open review", "hidden"):
        assert column in header
    rows = json.loads(runner.invoke(app, ["documents", "list", "-w", str(ws), "--json"]).output)
    world = next(r for r in rows if r["doc_id"] == "world.md")
    assert (world["facts"], world["open_review"], world["hidden"]) == (2, 1, 0)


def test_facts_list_over_postgres(postgres_database: tuple[str, str], tmp_path: Path) -> None:
    from ragspine.storage.postgres import PostgresWorkspaceStore

    url, schema = postgres_database
    with PostgresWorkspaceStore(url, schema=schema) as store:
        ingest([_docs(tmp_path)], store, initech())
    listed = runner.invoke(
        app,
        ["facts", "list", "--database-url", url, "--schema", schema, "--format", "csv"],
    )
    assert listed.exit_code == 0, listed.output
    lines = listed.stdout.splitlines()
    assert lines[0] == (
        "document,locator,metric,entity,channel,period,value,unit,sensitivity,row_label"
    )
    assert {line.split(",")[-1] for line in lines[1:]} == {"订单额"}
    assert sorted(line.split(",")[0] for line in lines[1:]) == ["us.md", "world.md", "world.md"]


def test_review_map_over_postgres_edits_the_deployments_profile_file(
    postgres_database: tuple[str, str], tmp_path: Path
) -> None:
    from ragspine.storage.postgres import PostgresWorkspaceStore

    url, schema = postgres_database
    with PostgresWorkspaceStore(url, schema=schema) as store:
        ingest([_docs(tmp_path)], store, initech())
        (item,) = [i for i in store.list_review() if "未知项目" in i.detail]
    database = ["--database-url", url, "--schema", schema]
    target = ["--new-metric", "MYSTERY", "--name", "未知项目", "--unit", "USD_M"]
    command = ["review", "map", str(item.item_id), *database, *target]
    # Which file the deployment runs with is the operator's to say.
    unnamed = runner.invoke(app, command)
    assert unnamed.exit_code == 2 and "give --profile FILE" in unnamed.output
    profile = tmp_path / "deploy" / "initech.toml"
    profile.parent.mkdir()
    profile.write_bytes(INITECH_PATH.read_bytes())

    mapped = runner.invoke(app, [*command, "--profile", str(profile)])

    assert mapped.exit_code == 0, mapped.output
    assert "read again: world.md" in mapped.output
    assert f"restart `ragspine serve` and `ragspine worker` with --profile {profile}" in (
        mapped.output
    )
    assert 'code = "MYSTERY"' in profile.read_text(encoding="utf-8")
    assert [b.read_bytes() for b in (profile.parent / "profile-backups").iterdir()] == [
        INITECH_PATH.read_bytes()
    ]
    listed = runner.invoke(
        app, ["facts", "list", *database, "--metric", "MYSTERY", "--format", "json"]
    )
    body = json.loads(listed.stdout)
    assert [(f["document"], f["value"], f["row_label"]) for f in body["facts"]] == [
        ("world.md", 7, "未知项目"),
        ("world.md", 6, "未知项目"),
    ]
    with PostgresWorkspaceStore(url, schema=schema) as store:
        assert not [i for i in store.list_review() if "未知项目" in i.detail]
        recorded = [e.detail for e in store.audit_log(item.item_id)]
    assert any("mapped label '未知项目' to new metric MYSTERY" in d for d in recorded)
