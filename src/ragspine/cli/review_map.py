"""``ragspine review map ITEM``: an ``unmapped_label`` item resolved by mapping its label.

Over a workspace the profile edited is the workspace's ``profile.toml``. Over PostgreSQL
(``--database-url``) the deployment's profile is the file its API processes and workers were
started with, which only the operator knows: ``--profile FILE`` names it, the alias is added to
that file (a backup kept beside it), the label's items are closed in the database and the
documents holding the label whose files are still where they were ingested from are read
again into it. The running processes read the edited file when restarted with it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ragspine.cli.common import (
    ServerTarget,
    TargetDatabaseOption,
    TargetSchemaOption,
    TargetWorkspaceOption,
    choose_target,
)
from ragspine.errors import UsageError
from ragspine.ingestion.label_map import MapResult, choose_map_target, map_label
from ragspine.retrieval.refresh import writing
from ragspine.terminal import plain
from ragspine.workspace import Workspace


def review_map(
    item_id: Annotated[int, typer.Argument(help="The unmapped_label review item's id.")],
    workspace: TargetWorkspaceOption = None,
    database_url: TargetDatabaseOption = None,
    metric: Annotated[
        str | None, typer.Option(help="Map the label to this existing metric code.")
    ] = None,
    new_metric: Annotated[
        str | None, typer.Option(help="Create this metric code (with --name) for the label.")
    ] = None,
    name: Annotated[str | None, typer.Option(help="The new metric's name.")] = None,
    unit: Annotated[
        str | None, typer.Option(help="The new metric's unit code (e.g. USD_M, PCT).")
    ] = None,
    kind: Annotated[
        str | None, typer.Option(help="The new metric's kind: amount, ratio, count, per_share.")
    ] = None,
    entity: Annotated[str | None, typer.Option(help="Map the label to this entity code.")] = None,
    channel: Annotated[str | None, typer.Option(help="Map the label to this channel code.")] = None,
    schema: TargetSchemaOption = None,
    profile: Annotated[
        Path | None,
        typer.Option(
            help="With --database-url: the deployment's profile TOML (the file `serve` and "
            "`worker` run with), which gains the alias."
        ),
    ] = None,
) -> None:
    """Map an unmapped label: add it as an alias (to the workspace profile, or with
    --database-url to --profile FILE; the previous one kept in profile-backups/), close the
    label's open items and read its documents again."""
    target_store = choose_target(workspace, database_url, schema)
    target = choose_map_target(metric, new_metric, name, unit, kind, entity, channel)
    if isinstance(target_store, ServerTarget):
        if profile is None:
            raise UsageError(
                "with --database-url give --profile FILE: the profile TOML the deployment's "
                "`ragspine serve` and `ragspine worker` run with, which gains the alias"
            )
        if not profile.is_file():
            raise UsageError(f"--profile {profile}: no such file")
        from ragspine.storage.postgres import PostgresWorkspaceStore

        with PostgresWorkspaceStore(target_store.url, schema=target_store.schema) as server:
            result = map_label(server, profile, item_id, target)
        typer.echo(plain(describe(result, profile)))
        typer.echo(
            plain(
                f"restart `ragspine serve` and `ragspine worker` with --profile {profile} so "
                "that they read the label too"
            )
        )
        return
    if profile is not None:
        raise UsageError(
            "--profile goes with --database-url; a workspace's own profile.toml is the one edited"
        )
    ws = Workspace.open(target_store)
    with writing(ws) as store:
        result = map_label(store, ws.profile_path, item_id, target)
    typer.echo(plain(describe(result, ws.profile_path)))


def describe(result: MapResult, profile: Path) -> str:
    what = (
        f"new metric {result.target.code}"
        if result.target.new
        else (f"{result.target.kind} {result.target.code}")
    )
    lines = [
        f"item {result.item_id}: label {result.label!r} mapped to {what}; alias "
        f"{result.alias!r} added to {profile}"
    ]
    if result.nature:
        lines.append(f"{result.target.code}: {result.nature}")
    if result.backup is not None:
        lines.append(f"previous profile kept as {result.backup}")
    if len(result.closed) > 1:
        lines.append(f"closed {len(result.closed)} open items of this label")
    for r in result.report.results:
        lines.append(f"read again: {r.doc_id} ({r.facts} facts, {r.review} review items)")
    for doc_id in result.missing:
        lines.append(f"not read again: {doc_id} (its file is gone: ingest or upload it again)")
    return "\n".join(lines)
