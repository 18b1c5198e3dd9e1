"""`ragspine profile suggest`: a draft profile read from the documents loads as it is, names
where each proposal was seen, joins two labels only on evidence, and is the same on every run."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ragspine.cli import app
from ragspine.demo import lotus
from ragspine.errors import UsageError
from ragspine.ingestion.pipeline import ingest
from ragspine.ingestion.suggest import suggest_profile
from ragspine.profile.loader import load_profile
from ragspine.profile.metric_nature import MetricNature
from ragspine.profile.model import DomainProfile, MetricKind
from ragspine.workspace import Workspace


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return lotus.build(tmp_path_factory.mktemp("lotus"))


@pytest.fixture(scope="module")
def drafted(corpus: Path) -> str:
    return suggest_profile([corpus])[0]


@pytest.fixture(scope="module")
def profile(drafted: str, tmp_path_factory: pytest.TempPathFactory) -> DomainProfile:
    path = tmp_path_factory.mktemp("draft") / "profile.toml"
    path.write_text(drafted, encoding="utf-8")
    return load_profile(path)


def write_md(folder: Path, name: str, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_text(text, encoding="utf-8")
    return folder


def names(profile: DomainProfile, section: str) -> dict[str, set[str]]:
    return {
        item.code: {item.name_en, item.name_zh, *item.aliases} - {""}
        for item in getattr(profile, section)
    }


# --------------------------------------------------------------------------- the draft


def test_the_draft_is_the_same_bytes_on_every_run_and_in_every_folder(
    corpus: Path, drafted: str, tmp_path: Path
) -> None:
    again = lotus.build(tmp_path / "elsewhere")
    assert suggest_profile([corpus])[0] == drafted
    assert suggest_profile([again])[0] == drafted


def test_the_company_its_units_currency_and_year_end_come_from_the_documents(
    profile: DomainProfile,
) -> None:
    assert profile.company.name == lotus.COMPANY
    assert profile.company.reporting_currency == "HKD"  # 8 HK$ lines to 4 RMB ones
    assert profile.fiscal.year_end_month == 3  # "Year ended 31 March 2025"
    units = {frozenset(n) for code, n in names(profile, "entities").items()}
    assert {frozenset(lotus.HOTELS), frozenset(lotus.CRUISES), frozenset(lotus.PARKS)} <= units
    assert profile.home_entity.name_en == lotus.COMPANY
    assert [c.code for c in profile.channels] == ["TOTAL"]


def test_labels_of_one_row_or_of_twin_tables_become_one_metric(profile: DomainProfile) -> None:
    metrics = {frozenset(n) for n in names(profile, "metrics").values()}
    assert frozenset({"Turnover", "营业额"}) in metrics  # two label cells of one row
    assert frozenset({"Passengers", "乘客人次"}) in metrics  # one cell in two languages
    assert frozenset({"Depreciation", "折旧"}) in metrics  # the report's twin tables
    assert frozenset({"Capital expenditure", "资本开支"}) in metrics


def test_different_labels_are_never_merged(profile: DomainProfile) -> None:
    metrics = list(names(profile, "metrics").values())
    for a, b in (("Operating profit", "Operating margin"), ("门票收入", "餐饮收入")):
        assert not [n for n in metrics if {a, b} <= n]
    assert len(metrics) == 9


def test_kinds_and_currencies_come_from_the_unit_markers(profile: DomainProfile) -> None:
    by_name = {m.name_en or m.name_zh: m for m in profile.metrics}
    assert by_name["Operating margin"].kind == MetricKind.RATIO  # "(%)" and 0.0% cells
    assert by_name["Passengers"].kind == MetricKind.COUNT  # no marker anywhere
    assert by_name["Turnover"].kind == MetricKind.AMOUNT
    assert by_name["Turnover"].currency is None  # HK$ and RMB tables: each states its own
    assert by_name["门票收入"].currency == "CNY"  # 单位：人民币百万元, never the reporting HKD


def test_every_proposal_says_where_it_was_seen(drafted: str) -> None:
    docs = (lotus.WORKBOOK, lotus.DECK, lotus.REPORT, lotus.MEMO)
    blocks = re.split(r"\n(?=\[\[)", drafted)[1:]
    assert len(blocks) == 4 + 9 + 1
    for block in blocks:
        if block.startswith("[[channels]]") and '"TOTAL"' in block:
            continue  # the default channel is the profile's, not the documents'
        seen = [line for line in block.splitlines() if line.startswith("# seen: ")]
        assert seen, block
        assert all(any(doc in line for doc in docs) for line in seen), block


def test_a_name_that_is_already_a_unit_is_not_proposed_twice_and_the_draft_says_so(
    tmp_path: Path,
) -> None:
    folder = write_md(
        tmp_path,
        "segments.md",
        "# Kestrel Works annual review\n\nFor the year ended 31 December 2024.\n\n"
        "| US$ million | Rail | Ports |\n|---|---|---|\n| Sales | 10 | 20 |\n| Rail | 1 | 2 |\n\n"
        "## Costs\n\n| US$ million | Rail | Ports |\n|---|---|---|\n| Sales | 10 | 20 |\n",
    )
    write_md(folder, "notes.md", "# Kestrel Works notes\n\nNothing in a table.\n")
    text, _ = suggest_profile([folder])
    draft = DomainProfile.model_validate(tomllib.loads(text))
    assert draft.company.name == "Kestrel Works"
    assert draft.fiscal.year_end_month == 12
    assert {e.name_en for e in draft.entities} == {"Kestrel Works", "Rail", "Ports"}
    assert [m.name_en for m in draft.metrics] == ["Sales"]
    assert "row label 'Rail' at segments.md" in text  # named as not proposed, not dropped


def test_a_header_that_heads_rows_more_often_than_columns_names_a_metric(tmp_path: Path) -> None:
    folder = write_md(
        tmp_path,
        "figures.md",
        "# Kestrel Works review\n\n| US$ million | Sales | Costs |\n|---|---|---|\n"
        "| Rail | 10 | 7 |\n| Ports | 20 | 12 |\n\n## Trend\n\n| US$ million | FY2024 | FY2025 |\n"
        "|---|---|---|\n| Sales | 25 | 30 |\n| Costs | 15 | 19 |\n",
    )
    draft = DomainProfile.model_validate(tomllib.loads(suggest_profile([folder])[0]))
    assert {m.name_en for m in draft.metrics} >= {"Sales", "Costs"}
    assert "Sales" not in {e.name_en for e in draft.entities}


def test_a_file_that_cannot_be_read_is_named_and_the_rest_is_drafted(tmp_path: Path) -> None:
    folder = write_md(
        tmp_path, "figures.md", "# Wren Ltd\n\n| HK$ m | FY2024 |\n|---|---|\n| Fees | 5 |\n"
    )
    (folder / "broken.xlsx").write_bytes(b"not a workbook")
    text, draft = suggest_profile([folder], company="Wren Ltd")
    assert draft.failed and draft.failed[0][0] == "broken.xlsx"
    assert "# not read: broken.xlsx" in text
    assert [m.name_en for m in DomainProfile.model_validate(tomllib.loads(text)).metrics] == [
        "Fees"
    ]


# --------------------------------------------------------------------------- the CLI


def test_profile_suggest_prints_the_draft_or_writes_it_once(
    corpus: Path, drafted: str, tmp_path: Path
) -> None:
    runner = CliRunner()
    printed = runner.invoke(app, ["profile", "suggest", str(corpus)])
    assert printed.exit_code == 0, printed.output
    assert printed.stdout == drafted
    out = tmp_path / "profile.toml"
    written = runner.invoke(app, ["profile", "suggest", str(corpus), "--out", str(out)])
    assert written.exit_code == 0, written.output
    assert out.read_text(encoding="utf-8") == drafted
    assert "4 entities, 9 metrics" in written.stdout
    again = runner.invoke(app, ["profile", "suggest", str(corpus), "--out", str(out)])
    assert again.exit_code == 2
    assert "already exists" in again.stderr


def test_init_from_drafts_the_workspace_profile_and_keeps_an_existing_one(
    corpus: Path, drafted: str, tmp_path: Path
) -> None:
    runner = CliRunner()
    ws = tmp_path / "ws"
    done = runner.invoke(app, ["init", "--workspace", str(ws), "--from", str(corpus)])
    assert done.exit_code == 0, done.output
    assert (ws / "profile.toml").read_text(encoding="utf-8") == drafted
    again = runner.invoke(app, ["init", "--workspace", str(ws), "--from", str(corpus)])
    assert again.exit_code == 2
    assert (ws / "profile.toml").read_text(encoding="utf-8") == drafted


def test_nothing_readable_or_no_currency_is_a_usage_error_naming_the_option(
    tmp_path: Path,
) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(UsageError, match="no document could be read"):
        suggest_profile([empty])
    folder = write_md(
        tmp_path / "plain",
        "fees.md",
        "# Wren Ltd\n\n| (in millions) | FY2024 |\n|---|---|\n| Fees | 5 |\n",
    )
    with pytest.raises(UsageError, match="--currency"):
        suggest_profile([folder])
    with pytest.raises(UsageError, match="ISO 4217"):
        suggest_profile([folder], currency="Dollars")
    text, _ = suggest_profile([folder], currency="SGD")
    draft = DomainProfile.model_validate(tomllib.loads(text))
    assert draft.company.reporting_currency == "SGD"
    assert draft.metrics[0].kind == MetricKind.AMOUNT


def test_labels_with_quotes_backslashes_and_control_characters_still_load(tmp_path: Path) -> None:
    odd = 'Fees "net" \\ of\x7f tax'
    folder = write_md(
        tmp_path, "odd.md", f"# Wren Ltd\n\n| HK$ m | FY2024 |\n|---|---|\n| {odd} | 5 |\n"
    )
    text, _ = suggest_profile([folder])
    draft = DomainProfile.model_validate(tomllib.loads(text))
    assert [m.name_en for m in draft.metrics] == [odd]


def test_column_headers_under_a_units_sheet_are_its_channels(tmp_path: Path) -> None:
    from openpyxl import Workbook

    book = Workbook()
    sheet = book.active
    assert sheet is not None
    sheet.title = "Rail"
    for row in (
        ["(US$ million)"],
        ["", "Stores FY2024", "Web FY2024"],
        ["Sales", 10, 4],
        ["Returns", 1, 2],
    ):
        sheet.append(row)
    folder = tmp_path / "docs"
    folder.mkdir()
    book.save(folder / "rail.xlsx")
    text, _ = suggest_profile([folder], company="Kestrel Works")
    draft = DomainProfile.model_validate(tomllib.loads(text))
    assert {e.name_en for e in draft.entities} == {"Kestrel Works", "Rail"}
    assert [c.name_en for c in draft.channels] == ["Total", "Stores", "Web"]
    assert "# seen: rail.xlsx (sheet=Rail,cell=B2)" in text


def test_an_amount_is_drafted_a_flow_or_a_balance_when_its_name_or_its_table_tells(
    tmp_path: Path,
) -> None:
    """A name says it ("Total assets", "销售额"), else the columns of its table: dated alone is
    a point in time, "year ended" a period. When neither tells, or they disagree, the draft
    leaves the field unset and says so: such an amount is never summed."""
    folder = write_md(
        tmp_path,
        "review.md",
        "# Wren Ltd review\n\n## Position\n\n| US$ million | 31 December 2024 | 31 December 2025 |"
        "\n|---|---|---|\n| Total assets | 90 | 95 |\n| Policy float | 40 | 42 |\n"
        "| Fees | 3 | 4 |\n\n## Results\n\n"
        "| US$ million | Year ended 31 December 2024 | Year ended 31 December 2025 |\n"
        "|---|---|---|\n| 销售额 | 10 | 12 |\n| Bonus pool | 2 | 3 |\n\n## Other\n\n"
        "| US$ million | FY2024 | FY2025 |\n|---|---|---|\n| Retained float | 5 | 6 |\n",
    )
    text, _ = suggest_profile([folder], company="Wren Ltd")
    natures = {
        m.name_en or m.name_zh: m.nature
        for m in DomainProfile.model_validate(tomllib.loads(text)).metrics
    }
    assert natures == {
        "Total assets": MetricNature.BALANCE,  # its name
        "Policy float": MetricNature.BALANCE,  # its table's dated columns
        "Fees": None,  # a flow word in a table dated at a point in time: asked to check
        "销售额": MetricNature.FLOW,
        "Bonus pool": MetricNature.FLOW,  # its table's "year ended" columns
        "Retained float": None,  # nothing tells
    }
    assert '# nature = "flow" or "balance": neither its name nor' in text
    assert "its name reads as a flow but its tables' columns as a balance" in text


def test_a_figure_per_share_is_drafted_per_share_and_stored_in_units_of_its_currency(
    tmp_path: Path,
) -> None:
    """Drafted as an amount, "(HK$)" with no scale took the usual millions: HK$1.25 per share
    was stored as HK$1.25 million."""
    folder = write_md(
        tmp_path / "docs",
        "results.md",
        "# Wren Holdings results\n\n| | FY2025 | FY2024 |\n|---|---|---|\n"
        "| Turnover (HK$ m) | 1,410 | 1,250 |\n| Basic earnings per share (HK$) | 1.25 | 1.18 |\n"
        "| 每股股息（港元） | 0.42 | 0.40 |\n",
    )
    text, _ = suggest_profile([folder])
    draft = DomainProfile.model_validate(tomllib.loads(text))
    kinds = {m.name_en or m.name_zh: m.kind for m in draft.metrics}
    assert kinds == {
        "Turnover": MetricKind.AMOUNT,
        "Basic earnings per share": MetricKind.PER_SHARE,
        "每股股息": MetricKind.PER_SHARE,
    }
    workspace = Workspace.create(tmp_path / "ws")
    (tmp_path / "ws" / "profile.toml").write_text(text, encoding="utf-8")
    with workspace.fact_store() as store:
        ingest([folder], store, workspace.profile())
        stored = {(f.period, f.value, f.unit) for f in store.list_facts()}
    assert stored == {
        ("2025", 1410.0, "HKD_M"),
        ("2024", 1250.0, "HKD_M"),
        ("2025", 1.25, "HKD_PS"),
        ("2024", 1.18, "HKD_PS"),
        ("2025", 0.42, "HKD_PS"),
        ("2024", 0.4, "HKD_PS"),
    }


def test_a_figure_in_cents_goes_to_review_never_to_a_whole_currency(tmp_path: Path) -> None:
    """38.5 HK cents is HK$0.385: read as HK$ it would be a hundred times too much."""
    folder = write_md(
        tmp_path / "docs",
        "dividends.md",
        "# Wren Holdings dividends\n\n| | FY2025 |\n|---|---|\n"
        "| Basic earnings per share (HK$) | 1.25 |\n| Dividend per share (HK cents) | 38.5 |\n"
        "| 每股股息（港仙） | 38.5 |\n",
    )
    workspace = Workspace.create(tmp_path / "ws")
    (tmp_path / "ws" / "profile.toml").write_text(suggest_profile([folder])[0], encoding="utf-8")
    with workspace.fact_store() as store:
        ingest([folder], store, workspace.profile())
        stored = {(f.value, f.unit) for f in store.list_facts()}
        review = {(r.locator, r.reason) for r in store.list_review()}
    assert stored == {(1.25, "HKD_PS")}
    assert review == {
        ("section=1,table=1,row=3,col=1", "unit_unknown"),
        ("section=1,table=1,row=4,col=1", "unit_unknown"),
    }
