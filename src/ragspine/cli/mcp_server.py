"""``ragspine mcp``: the MCP server on stdio over one workspace or one PostgreSQL deployment
(the ``mcp`` extra; see docs/mcp.md)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from ragspine.cli.common import (
    DEFAULT_SCHEMA,
    TargetDatabaseOption,
    TargetIndexOption,
    TargetWorkspaceOption,
    choose_target,
    parse_clearance,
)
from ragspine.errors import UsageError
from ragspine.llm.factory import ProviderName
from ragspine.optional import import_optional
from ragspine.profile.sensitivity import Sensitivity

MCP_EXTRA = "mcp"
# A local agent reads at INTERNAL unless the command line clears it for more.
STDIO_CLEARANCE = Sensitivity.INTERNAL


def mcp(
    workspace: TargetWorkspaceOption = None,
    database_url: TargetDatabaseOption = None,
    schema: Annotated[
        str | None,
        typer.Option(
            help=f"With --database-url: the schema holding the tables [{DEFAULT_SCHEMA}]."
        ),
    ] = None,
    index_dir: TargetIndexOption = None,
    profile: Annotated[
        Path | None,
        typer.Option(
            help="With --database-url: domain profile TOML, as the workers' "
            "[default: the bundled example profile]."
        ),
    ] = None,
    clearance: Annotated[
        str, typer.Option(help="Highest sensitivity any tool may return.")
    ] = STDIO_CLEARANCE.value,
    provider: Annotated[
        ProviderName, typer.Option(help="LLM provider; mock is offline and deterministic.")
    ] = ProviderName.MOCK,
    model: Annotated[str | None, typer.Option(help="Model name for openai or anthropic.")] = None,
    base_url: Annotated[
        str | None,
        typer.Option(help="Endpoint of an OpenAI-compatible server (vLLM, llama.cpp, Ollama)."),
    ] = None,
) -> None:
    """Serve the guarded answers, facts and passages as MCP tools on stdin/stdout, for a
    local agent (desktop assistant, IDE); the HTTP service serves the same at /mcp."""
    level = parse_clearance(clearance)
    target = choose_target(workspace, database_url, schema, index_dir)
    if isinstance(target, Path) and profile is not None:
        raise UsageError("--profile only goes with --database-url, not --workspace")
    import_optional("mcp.server.mcpserver", extra=MCP_EXTRA)
    from ragspine.service.mcp_server.stdio import serve_stdio
    from ragspine.service.settings import ServiceSettings

    # The service's settings from these flags alone. Built without the service's checks:
    # MCP takes no uploads, so a deployment needs no Redis queue here.
    backend: dict[str, Any] = (
        {"workspace": target}
        if isinstance(target, Path)
        else {
            "database_url": target.url,
            "database_schema": target.schema,
            "index_dir": target.index_dir,
            "profile": profile,
        }
    )
    settings = ServiceSettings.model_construct(
        **backend, provider=provider, model=model, base_url=base_url
    )
    serve_stdio(settings, level)
