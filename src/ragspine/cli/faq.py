"""The ``ragspine faq`` group: check the vetted answers the HTTP service may serve first, and
publish them to a scale-out deployment's API processes."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ragspine.cli.common import command_in, deployment
from ragspine.cli.db import DatabaseUrlOption, OptionalDatabaseUrlOption, SchemaOption
from ragspine.errors import UsageError
from ragspine.profile.loader import load_profile
from ragspine.profile.model import DomainProfile
from ragspine.service.faq.check import check_faq_file
from ragspine.service.faq.items import FaqItem
from ragspine.terminal import plain
from ragspine.workspace import Workspace

faq_app = typer.Typer(
    help="Check the FAQ file of vetted answers the HTTP service serves; publish it to a "
    "deployment.",
    no_args_is_help=True,
)

FaqFileArgument = Annotated[
    Path | None,
    typer.Argument(help="The FAQ file; the profile's faq_file when omitted."),
]
FaqProfileOption = Annotated[
    Path | None,
    typer.Option(
        "--profile", help="Domain profile to check against (default: the shipped example)."
    ),
]


@command_in(faq_app, "check")
def faq_check(
    file: FaqFileArgument = None,
    profile: FaqProfileOption = None,
    workspace: Annotated[
        Path | None,
        typer.Option("--workspace", "-w", help="Check against this workspace's profile."),
    ] = None,
    database_url: OptionalDatabaseUrlOption = None,
    schema: SchemaOption = None,
) -> None:
    """Print each problem as FILE:LINE: message (exit 1), or a one-line summary (exit 0).
    With --database-url, also whether the deployment serves that file (exit 1 if not)."""
    if workspace is not None and database_url is not None:
        raise UsageError("give --workspace or --database-url, not both")
    path, items = _checked(file, _profile(profile, workspace))
    enabled = sum(item.enabled for item in items)
    typer.echo(plain(f"{path}: {len(items)} items, {enabled} enabled, no problems"))
    if database_url is None:
        return
    from ragspine.service.faq.pg_faq import PostgresFaqStore, item_to_json

    url, name = deployment(database_url, schema)
    with PostgresFaqStore(url, schema=name) as store:
        publication = store.publication()
        published = store.items()
        where = store.describe()
    if publication is None:
        typer.echo(plain(f"{where}: no FAQ published (run `ragspine faq publish`)"))
        raise typer.Exit(1)
    source, count, when = publication
    same = [item_to_json(i) for i in published] == [item_to_json(i) for i in items]
    state = "the same items" if same else "other items (run `ragspine faq publish`)"
    typer.echo(plain(f"{where}: {count} items published from {source} at {when}: {state}"))
    if not same:
        raise typer.Exit(1)


@command_in(faq_app, "publish")
def faq_publish(
    file: FaqFileArgument = None,
    database_url: DatabaseUrlOption = None,
    profile: FaqProfileOption = None,
    schema: SchemaOption = None,
) -> None:
    """Check the FAQ file and make its items the ones every API process of the deployment
    serves (within a second, without a restart); a file with problems publishes nothing."""
    from ragspine.service.faq.pg_faq import PostgresFaqStore

    prof = _profile(profile, None)
    path, items = _checked(file, prof)
    url, name = deployment(database_url, schema)
    with PostgresFaqStore(url, schema=name) as store:
        store.publish(items, source=path.name)
        where = store.describe()
    enabled = sum(item.enabled for item in items)
    typer.echo(plain(f"published {len(items)} items ({enabled} enabled) from {path} to {where}"))


def _checked(file: Path | None, prof: DomainProfile) -> tuple[Path, tuple[FaqItem, ...]]:
    """The FAQ file's path and items; its problems printed and exit 1 when it has any."""
    path = file or prof.faq_path
    if path is None:
        named_in = prof.source_path or "the profile"
        raise UsageError(
            f"{named_in} names no FAQ file (defaults.faq_file); give the FAQ file to check"
        )
    checked = check_faq_file(path, prof)
    for problem in checked.problems:
        typer.echo(plain(str(problem)))
    if checked.problems:
        raise typer.Exit(1)
    return path, checked.items


def _profile(profile: Path | None, workspace: Path | None) -> DomainProfile:
    if profile is not None and workspace is not None:
        raise UsageError("give --profile or --workspace, not both")
    if workspace is not None:
        return Workspace.open(workspace).profile()
    return load_profile(profile)
