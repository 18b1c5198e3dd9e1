"""The ``ragspine profile`` group: draft a domain profile from a company's own documents."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ragspine.cli.common import command_in
from ragspine.errors import UsageError
from ragspine.ingestion.suggest import Draft, suggest_profile
from ragspine.terminal import plain
from ragspine.workspace import Workspace

profile_app = typer.Typer(
    help="Draft a domain profile from your own documents.", no_args_is_help=True
)

DocsArgument = Annotated[
    list[Path],
    typer.Argument(help="Documents or folders to read (the same ones you will ingest)."),
]
CompanyOption = Annotated[
    str | None,
    typer.Option(help="The company's name, when the documents' titles do not settle it."),
]
CurrencyOption = Annotated[
    str | None,
    typer.Option(help="The reporting currency (ISO code), when no table states one."),
]


@command_in(profile_app, "suggest")
def profile_suggest(
    docs: DocsArgument,
    out: Annotated[
        Path | None,
        typer.Option(help="Write the draft here instead of printing it (never overwrites)."),
    ] = None,
    company: CompanyOption = None,
    currency: CurrencyOption = None,
) -> None:
    """Read the documents and draft a commented profile: company, units, metrics, channels,
    currencies and fiscal year end, each with where it was seen."""
    if out is not None and out.exists():
        raise UsageError(f"{out} already exists; choose another --out or remove it first")
    text, draft = suggest_profile(docs, company=company, currency=currency)
    if out is None:
        typer.echo(text, nl=False)
        return
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text, encoding="utf-8")
    typer.echo(plain(f"wrote {out}: {summary(draft)}"))


def summary(draft: Draft) -> str:
    """One line: what the draft proposes and from how many documents."""
    failed = f", {len(draft.failed)} not read" if draft.failed else ""
    return (
        f"{len(draft.entities) + 1} entities, {len(draft.metrics)} metrics, "
        f"{len(draft.channels)} channel(s), year end month {draft.year_end_month}, "
        f"from {len(draft.docs)} document(s){failed}; check it, then ingest with --profile"
    )


def draft_into(workspace: Workspace, docs: list[Path]) -> None:
    """Draft a profile from ``docs`` as the workspace's own (``init --from``); a workspace that
    already has a profile keeps it."""
    if workspace.profile_path.exists():
        raise UsageError(
            f"{workspace.profile_path} already exists; draft to another file with "
            "`ragspine profile suggest DOCS --out FILE` and compare"
        )
    text, draft = suggest_profile(docs)
    workspace.profile_path.write_text(text, encoding="utf-8")
    typer.echo(plain(f"wrote {workspace.profile_path}: {summary(draft)}"))
