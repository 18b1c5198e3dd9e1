"""Review that maps labels: an unmapped label becomes an answerable fact with its locator."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ragspine.cli import app
from ragspine.errors import ReviewError
from ragspine.facade import RAGSpine
from ragspine.ingestion.label_map import (
    MapTarget,
    alias_for,
    label_of,
    map_label,
    plan,
    review_actions,
)
from ragspine.profile.loader import load_profile
from ragspine.profile.metric_nature import MetricNature
from ragspine.profile.profile_edit import BACKUP_FOLDER, add_alias
from ragspine.storage.documents import ReviewItem, ReviewState
from ragspine.workspace import Workspace
from tests.profiles import INITECH_PATH, initech

runner = CliRunner(env={"COLUMNS": "250"})

# A table of the home entity: one row the profile knows (订单额), one it does not, its unit
# in full-width brackets — the label the documented manual remedy could not fix.
CHINESE_LABEL = "营业收入（港币百万元）"
REPORT = (
    "# 全球 年报\n\n"
    "| 项目 | FY2025 | FY2024 |\n| --- | --- | --- |\n"
    f"| 订单额 | 100 | 90 |\n| {CHINESE_LABEL} | 300 | 250 |\n"
)
SECOND = f"# 全球 季度摘要\n\n| 项目 | FY2026 |\n| --- | --- |\n| {CHINESE_LABEL} | 320 |\n"
UNTOUCHED = "# 全球 备忘\n\n| 项目 | FY2025 |\n| --- | --- |\n| 订单额 | 100 |\n"


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "report.md").write_text(REPORT, encoding="utf-8")
    (docs / "summary.md").write_text(SECOND, encoding="utf-8")
    (docs / "memo.md").write_text(UNTOUCHED, encoding="utf-8")
    ws = tmp_path / "ws"
    result = runner.invoke(
        app, ["ingest", str(docs), "--workspace", str(ws), "--profile", str(INITECH_PATH)]
    )
    assert result.exit_code == 0, result.output
    return ws


def _open_items(ws: Path) -> list[ReviewItem]:
    with Workspace.open(ws).fact_store() as store:
        return store.list_review(ReviewState.OPEN)


def _ask(ws: Path, question: str) -> tuple[str, list[tuple[str, str]]]:
    with RAGSpine.open(ws, read_only=True) as rag:
        answer = rag.ask(question)
    return answer.answer, [(s.doc, s.locator) for s in answer.sources]


def test_the_alias_leaves_out_what_is_read_apart() -> None:
    profile = initech()
    assert alias_for(CHINESE_LABEL, profile) == "营业收入"
    assert alias_for("Other income (US$ m)¹", profile) == "Other income"
    assert alias_for("营业收入 FY2024（%）", profile) == "营业收入"
    with pytest.raises(ReviewError, match="nothing but units"):
        alias_for("（港币百万元）", profile)


def test_the_full_label_as_an_alias_is_the_trap_the_manual_remedy_fell_into(
    workspace: Path,
) -> None:
    """The remedy the docs gave (add the label as an alias, ingest again) cannot work for a
    label holding its unit: units are read before aliases. Mapping adds the core instead."""
    from ragspine.ingestion.labels import read_label
    from ragspine.profile.glossary import glossary_for
    from ragspine.profile.profile_edit import add_metric, checked

    text = INITECH_PATH.read_text(encoding="utf-8")
    for alias, covered in ((CHINESE_LABEL, False), ("营业收入", True)):
        edited = add_metric(text, "SALES", "销售", alias, unit="HKD_M", kind=None)
        profile = checked(edited, workspace / "profile.toml")
        reading = read_label(CHINESE_LABEL, glossary_for(profile))
        assert reading.covered is covered
        assert reading.metrics == (("SALES",) if covered else ())


def test_mapping_a_chinese_label_makes_its_values_answerable_facts(workspace: Path) -> None:
    items = _open_items(workspace)
    unmapped = [i for i in items if label_of(i) == CHINESE_LABEL]
    assert sorted(i.doc_id for i in unmapped) == ["report.md", "summary.md"]
    assert all(review_actions(i) == ("map", "reject") for i in unmapped)
    before, _ = _ask(workspace, "全球FY2025的营业收入是多少")
    assert "300" not in before
    with Workspace.open(workspace).fact_store() as store:
        memo_version = store.get_document("memo.md")
    result = runner.invoke(
        app,
        [
            "review",
            "map",
            str(unmapped[0].item_id),
            "--workspace",
            str(workspace),
            "--new-metric",
            "SALES",
            "--name",
            "营业收入",
            "--unit",
            "HKD_M",
        ],
    )
    assert result.exit_code == 0, result.output
    assert "alias '营业收入' added" in result.output
    assert "read again: report.md (4 facts, 0 review items)" in result.output
    assert "read again: summary.md (1 facts, 0 review items)" in result.output
    # Only the documents holding the label were read again.
    assert "memo.md" not in result.output
    with Workspace.open(workspace).fact_store() as store:
        assert store.get_document("memo.md") == memo_version
        audit = store.audit_log(unmapped[0].item_id)
    assert [e.action for e in audit] == ["approved"]
    assert "mapped label '营业收入（港币百万元）' to new metric SALES" in audit[0].detail
    assert not [i for i in _open_items(workspace) if label_of(i) is not None]
    answer, sources = _ask(workspace, "全球FY2025的营业收入是多少")
    assert "300" in answer
    assert sources == [("report.md", "section=1,table=1,row=3,col=2")]
    listed = runner.invoke(
        app,
        ["facts", "list", "--workspace", str(workspace), "--metric", "SALES", "--format", "csv"],
    )
    assert listed.exit_code == 0, listed.output
    assert 'report.md,"section=1,table=1,row=3,col=2",SALES,INI_WORLD,DIRECT,FY2025,300.0' in (
        listed.output
    )
    backups = list((workspace / BACKUP_FOLDER).iterdir())
    assert len(backups) == 1
    assert backups[0].read_text(encoding="utf-8") == INITECH_PATH.read_text(encoding="utf-8")
    sales = load_profile(workspace / "profile.toml").metric("SALES")
    assert sales is not None and sales.nature is MetricNature.FLOW  # "收入" in its name
    assert 'SALES: nature = "flow"  # read from its name' in result.output


def test_mapping_to_an_existing_metric_adds_the_alias_in_place(workspace: Path) -> None:
    (item,) = [i for i in _open_items(workspace) if i.doc_id == "report.md"]
    with Workspace.open(workspace).fact_store() as store:
        result = map_label(
            store, workspace / "profile.toml", item.item_id, MapTarget("metric", "BOOKINGS")
        )
    assert result.alias == "营业收入"
    assert result.documents == ["report.md", "summary.md"]
    text = (workspace / "profile.toml").read_text(encoding="utf-8")
    # The file is kept byte for byte but for the one alias line; its comments stay.
    assert text.startswith("# A second, invented company for tests")
    assert load_profile(workspace / "profile.toml").metric("BOOKINGS").aliases == ("营业收入",)  # type: ignore[union-attr]


def test_a_clash_is_refused_and_nothing_is_written(workspace: Path) -> None:
    (item,) = [i for i in _open_items(workspace) if i.doc_id == "report.md"]
    profile_path = workspace / "profile.toml"
    profile_path.write_text(
        add_alias(profile_path.read_text(encoding="utf-8"), "entity", "INI_US", "营业收入"),
        encoding="utf-8",
    )
    before = profile_path.read_text(encoding="utf-8")
    result = runner.invoke(
        app,
        ["review", "map", str(item.item_id), "-w", str(workspace), "--metric", "BOOKINGS"],
    )
    assert result.exit_code == 2
    assert "alias '营业收入' is already used by entities" in result.output
    assert profile_path.read_text(encoding="utf-8") == before
    assert not (workspace / BACKUP_FOLDER).exists()
    assert item in _open_items(workspace)


def test_only_an_open_unmapped_label_can_be_mapped(workspace: Path, tmp_path: Path) -> None:
    missing = runner.invoke(app, ["review", "map", "999", "-w", str(workspace), "--metric", "X"])
    assert missing.exit_code == 2 and "no review item 999" in missing.output
    both = runner.invoke(
        app, ["review", "map", "1", "-w", str(workspace), "--metric", "A", "--entity", "B"]
    )
    assert both.exit_code == 2 and "exactly one of" in both.output
    unknown = runner.invoke(app, ["review", "map", "1", "-w", str(workspace), "--metric", "NOPE"])
    assert unknown.exit_code == 2 and "no metric 'NOPE'" in unknown.output
    conflict = ReviewItem("d.md", "sheet=A,cell=B2", "conflict", "x", proposed={"value": 1})
    assert review_actions(conflict) == ("approve", "reject")
    assert label_of(conflict) is None
    bulk = ReviewItem("d.md", "table=1", "unmapped_label", "1,200 more row labels are not …")
    assert label_of(bulk) is None and review_actions(bulk) == ("reject",)


def test_a_multi_line_alias_array_gets_the_alias_before_its_bracket(tmp_path: Path) -> None:
    text = shutil.copyfile(INITECH_PATH, tmp_path / "p.toml").read_text(encoding="utf-8")
    text = text.replace(
        'aliases = ["US", "America"]', 'aliases = [\n  "US",  # short\n  "Amer]ica",\n]'
    )
    edited = add_alias(text, "entity", "INI_US", "美利坚")
    (tmp_path / "p.toml").write_text(edited, encoding="utf-8")
    us = load_profile(tmp_path / "p.toml").entity("INI_US")
    assert us is not None and us.aliases == ("US", "Amer]ica", "美利坚")
    assert "# short" in edited


def test_a_label_whose_name_holds_full_width_brackets_keeps_them(tmp_path: Path) -> None:
    """ "营业收入（经调整）" is a name of its own, brackets and all: the alias keeps its closing
    bracket (trimming the label's edges once cut it to "营业收入(经调整"), and questions written
    with full-width or ASCII brackets get its row, not another's."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "adjusted.md").write_text(
        "# 全球 年报\n\n| 项目 | FY2025 |\n| --- | --- |\n| 订单额 | 100 |\n"
        "| 营业收入（经调整） | 310 |\n",
        encoding="utf-8",
    )
    ws = tmp_path / "ws"
    ingested = runner.invoke(
        app, ["ingest", str(docs), "--workspace", str(ws), "--profile", str(INITECH_PATH)]
    )
    assert ingested.exit_code == 0, ingested.output
    (item,) = _open_items(ws)
    assert label_of(item) == "营业收入（经调整）"
    assert alias_for("营业收入（经调整）", initech()) == "营业收入(经调整)"
    command = ["review", "map", str(item.item_id), "-w", str(ws), "--new-metric", "ADJ_SALES"]
    mapped = runner.invoke(app, [*command, "--name", "经调整营业收入", "--unit", "HKD_M"])
    assert mapped.exit_code == 0, mapped.output
    assert "alias '营业收入(经调整)' added" in mapped.output
    metric = load_profile(ws / "profile.toml").metric("ADJ_SALES")
    assert metric is not None and metric.aliases == ("营业收入(经调整)",)
    for question in ("全球FY2025的营业收入（经调整）是多少", "全球FY2025的营业收入(经调整)是多少"):
        answer, sources = _ask(ws, question)
        assert "310" in answer and "100" not in answer, question
        assert sources == [("adjusted.md", "section=1,table=1,row=3,col=2")], question


def test_trimming_keeps_only_brackets_that_pair_inside_the_label() -> None:
    profile = initech()
    assert alias_for("(Loss)/profit before tax", profile) == "(Loss)/profit before tax"
    assert alias_for("Revenue (adjusted) (HK$ million)", profile) == "Revenue (adjusted)"
    assert alias_for("- Revenue (net) -", profile) == "Revenue (net)"
    assert alias_for("Revenue)", profile) == "Revenue"


def mapped_metric(tmp_path: Path, label: str, code: str, name: str, kind: str | None) -> str:
    """The profile text mapping an unmapped ``label`` to a new metric gives."""
    item = ReviewItem(
        "d.md", "table=1", "unmapped_label", f"row label {label!r} is not in the glossary"
    )
    target = MapTarget("metric", code, name=name, metric_kind=kind)
    _, _, edited, _ = plan(
        item, target, INITECH_PATH.read_text(encoding="utf-8"), tmp_path / "p.toml"
    )
    (tmp_path / "p.toml").write_text(edited, encoding="utf-8")
    return edited


def test_a_new_amount_or_count_gets_the_nature_its_names_tell_or_says_it_has_none(
    tmp_path: Path,
) -> None:
    """As in a drafted profile: a balance-sheet name is a balance; a name that tells neither
    leaves ``nature`` unset, with a comment saying its periods are never summed until set; a
    ratio gets no ``nature`` line at all."""
    mapped_metric(tmp_path, "Total assets (HK$ m)", "TOTAL_ASSETS", "Total assets", None)
    assets = load_profile(tmp_path / "p.toml").metric("TOTAL_ASSETS")
    assert assets is not None and assets.nature is MetricNature.BALANCE
    edited = mapped_metric(tmp_path, "Agents", "AGENTS", "Agents", "count")
    agents = load_profile(tmp_path / "p.toml").metric("AGENTS")
    assert agents is not None and agents.nature is None
    assert (
        '# nature = "flow" or "balance": its name does not tell; until it is set, its periods '
        "are never summed" in edited
    )
    edited = mapped_metric(tmp_path, "Churn rate", "CHURN", "Churn rate", "ratio")
    assert "nature" not in edited.split('code = "CHURN"')[1]
