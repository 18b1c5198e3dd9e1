"""The ``ragspine faq`` group: check the vetted answers the HTTP service may serve first."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ragspine.cli.common import command_in
from ragspine.errors import UsageError
from ragspine.profile.loader import load_profile
from ragspine.profile.model import DomainProfile
from ragspine.service.faq.check import check_faq_file
from ragspine.terminal import plain
from ragspine.workspace import Workspace

faq_app = typer.Typer(
    help="Check the FAQ file of vetted answers the HTTP service serves.", no_args_is_help=True
)


@command_in(faq_app, "check")
def faq_check(
    file: Annotated[
        Path | None,
        typer.Argument(help="The FAQ file to check; the profile's faq_file when omitted."),
    ] = None,
    profile: Annotated[
        Path | None,
        typer.Option(
            "--profile", help="Domain profile to check against (default: the shipped example)."
        ),
    ] = None,
    workspace: Annotated[
        Path | None,
        typer.Option("--workspace", "-w", help="Check against this workspace's profile."),
    ] = None,
) -> None:
    """Print each problem as FILE:LINE: message (exit 1), or a one-line summary (exit 0)."""
    prof = _profile(profile, workspace)
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
    enabled = sum(item.enabled for item in checked.items)
    typer.echo(plain(f"{path}: {len(checked.items)} items, {enabled} enabled, no problems"))


def _profile(profile: Path | None, workspace: Path | None) -> DomainProfile:
    if profile is not None and workspace is not None:
        raise UsageError("give --profile or --workspace, not both")
    if workspace is not None:
        return Workspace.open(workspace).profile()
    return load_profile(profile)
