"""The ``ragspine facts`` group: what the documents produced, fact by fact, with locators."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from ragspine.cli.common import (
    ServerTarget,
    TargetDatabaseOption,
    TargetSchemaOption,
    TargetWorkspaceOption,
    choose_target,
    command_in,
    parse_clearance,
)
from ragspine.errors import UsageError
from ragspine.profile.sensitivity import DEFAULT_CLEARANCE
from ragspine.storage.fact_listing import (
    COLUMNS,
    MAX_PAGE,
    FactPage,
    FactQuery,
    fact_row,
    list_fact_page,
    to_csv,
    to_json,
    to_xlsx,
)
from ragspine.storage.facts import Fact
from ragspine.storage.protocol import WorkspaceStoreProtocol
from ragspine.terminal import plain, plain_json, plain_text
from ragspine.workspace import Workspace

facts_app = typer.Typer(help="List or export the stored facts with their locators.")


class FactFormat(StrEnum):
    TABLE = "table"
    CSV = "csv"
    XLSX = "xlsx"
    JSON = "json"


@contextmanager
def _reading(target: Path | ServerTarget) -> Iterator[WorkspaceStoreProtocol]:
    if isinstance(target, Path):
        with Workspace.open(target).fact_store(read_only=True) as store:
            yield store
        return
    from ragspine.storage.postgres import PostgresWorkspaceStore

    with PostgresWorkspaceStore(target.url, schema=target.schema, read_only=True) as server:
        yield server


@command_in(facts_app, "list")
def facts_list(
    workspace: TargetWorkspaceOption = None,
    database_url: TargetDatabaseOption = None,
    schema: TargetSchemaOption = None,
    document: Annotated[
        str | None, typer.Option(help="Only this document (its id, as `documents list` shows).")
    ] = None,
    entity: Annotated[str | None, typer.Option(help="Only this entity code.")] = None,
    metric: Annotated[str | None, typer.Option(help="Only this metric code.")] = None,
    format_: Annotated[
        FactFormat, typer.Option("--format", help="table, csv, xlsx or json.")
    ] = FactFormat.TABLE,
    out: Annotated[
        Path | None,
        typer.Option(help="Write the export to this file (required for xlsx on a terminal)."),
    ] = None,
    clearance: Annotated[
        str, typer.Option(help="Highest sensitivity listed.")
    ] = DEFAULT_CLEARANCE.value,
) -> None:
    """List the approved facts (all of them, or of one document, entity or metric), each with
    its document and locator; export them as CSV, xlsx or JSON."""
    level = parse_clearance(clearance)
    target = choose_target(workspace, database_url, schema)
    if format_ is FactFormat.XLSX and out is None and sys.stdout.isatty():
        raise UsageError("an xlsx export is binary: give --out FILE.xlsx (or redirect stdout)")
    facts: list[Fact] = []
    with _reading(target) as store, store.snapshot():
        offset: int | None = 0
        while offset is not None:
            query = FactQuery(level, document, entity, metric, offset=offset, limit=MAX_PAGE)
            page = list_fact_page(store, query)
            facts += page.facts
            offset = page.next_offset
    _emit(facts, format_, out)


def _emit(facts: list[Fact], format_: FactFormat, out: Path | None) -> None:
    if format_ is FactFormat.XLSX:
        data = to_xlsx(facts)
        if out is not None:
            out.write_bytes(data)
        else:
            sys.stdout.buffer.write(data)
            sys.stdout.flush()
        return
    if format_ is FactFormat.TABLE:
        if out is not None:
            raise UsageError("--out goes with --format csv, xlsx or json, not table")
        _print_table(facts, Console(highlight=False))
        return
    whole = FactPage(facts, len(facts), 0, max(len(facts), 1))
    text = to_csv(facts) if format_ is FactFormat.CSV else to_json(whole) + "\n"
    if out is not None:
        out.write_text(text, encoding="utf-8")
    else:
        typer.echo(plain_json(text) if format_ is FactFormat.JSON else plain(text), nl=False)


def _cell(column: str, value: object) -> str:
    if value is None:  # a fact stored before row labels were kept
        return ""
    return f"{value:g}" if column == "value" and isinstance(value, float) else str(value)


def _print_table(facts: list[Fact], console: Console) -> None:
    table = Table(show_header=True, header_style="bold")
    for name in COLUMNS:
        folded = name in ("document", "locator", "row_label")
        table.add_column(
            name,
            justify="right" if name == "value" else "left",
            overflow="fold" if folded else "ellipsis",
            no_wrap=not folded,
        )
    for fact in facts:
        row = fact_row(fact)
        table.add_row(*(plain_text(_cell(c, row[c])) for c in COLUMNS))
    console.print(table)
    console.print(f"{len(facts)} fact{'s' if len(facts) != 1 else ''}")
