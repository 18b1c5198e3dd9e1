"""``ragspine ask``: one question over a workspace, answered with its sources."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from ragspine.agent.response import to_response
from ragspine.agent.types import AgentResult, AnswerKind
from ragspine.cli.common import (
    ServerTarget,
    TargetDatabaseOption,
    TargetIndexOption,
    TargetSchemaOption,
    TargetWorkspaceOption,
    choose_target,
    parse_clearance,
    parse_reference_date,
)
from ragspine.errors import UsageError
from ragspine.facade import RAGSpine, ServerRAGSpine
from ragspine.llm.factory import ProviderName, build_provider
from ragspine.profile.model import DomainProfile
from ragspine.profile.sensitivity import DEFAULT_CLEARANCE
from ragspine.retrieval.embedding import check_backend
from ragspine.terminal import plain, plain_json

# The options `ask` and `chat` share (one question, or a conversation of them).
ProfileOption = Annotated[
    Path | None,
    typer.Option(
        help="With --database-url: the domain profile TOML (the shipped example if omitted)."
    ),
]
ProviderOption = Annotated[
    ProviderName, typer.Option(help="LLM provider; mock is offline and deterministic.")
]
ModelOption = Annotated[str | None, typer.Option(help="Model name for openai or anthropic.")]
BaseUrlOption = Annotated[
    str | None,
    typer.Option(help="Endpoint of an OpenAI-compatible server (vLLM, llama.cpp, Ollama)."),
]
ReferenceDateOption = Annotated[
    str | None, typer.Option(help="Today's date for 'latest year' questions, YYYY-MM-DD.")
]
DenseOption = Annotated[
    str | None,
    typer.Option(help="Add dense retrieval: 'hashing', 'minilm' or a model path/name."),
]
RerankOption = Annotated[
    bool, typer.Option("--rerank", help="Let the provider reorder retrieved passages.")
]


def ask(
    question: Annotated[str, typer.Argument(help="The question, in Chinese or English.")],
    workspace: TargetWorkspaceOption = None,
    database_url: TargetDatabaseOption = None,
    schema: TargetSchemaOption = None,
    index_dir: TargetIndexOption = None,
    profile: ProfileOption = None,
    json_output: Annotated[
        bool, typer.Option("--json", help="Print one JSON object (the HTTP AskResponse shape).")
    ] = False,
    provider: ProviderOption = ProviderName.MOCK,
    model: ModelOption = None,
    base_url: BaseUrlOption = None,
    reference_date: ReferenceDateOption = None,
    clearance: Annotated[
        str, typer.Option(help="Highest sensitivity the answer may use.")
    ] = DEFAULT_CLEARANCE.value,
    dense: DenseOption = None,
    rerank: RerankOption = False,
) -> None:
    """Answer one question from a workspace's (or a PostgreSQL database's) facts and
    documents, and list the sources."""
    if not question.strip():
        raise UsageError('the question is empty; write it in quotes: ragspine ask "<question>"')
    target = choose_target(workspace, database_url, schema, index_dir)
    day = parse_reference_date(reference_date)
    with open_engine(target, profile, provider, model, base_url, clearance, dense, rerank) as rag:
        result = rag.ask(question, reference_date=day)
    print_answer(result, json_output, rag.profile)
    if result.answer_kind is AnswerKind.DEGRADED:
        raise typer.Exit(1)


def open_engine(
    target: Path | ServerTarget,
    profile: Path | None,
    provider: ProviderName,
    model: str | None,
    base_url: str | None,
    clearance: str,
    dense: str | None,
    rerank: bool,
) -> RAGSpine | ServerRAGSpine:
    """A read-only engine over ``target`` answering at ``clearance`` (``ask`` and ``chat``).

    Raises ``UsageError`` for options that do not go with the target."""
    if isinstance(target, Path) and profile is not None:
        raise UsageError("--profile only goes with --database-url: a workspace has its own")
    if not isinstance(target, Path) and dense is not None:
        raise UsageError("--dense is not available with --database-url yet; use --workspace")
    level = parse_clearance(clearance)
    if dense is not None:
        check_backend(dense)
    llm = build_provider(provider, model=model, base_url=base_url)
    # Read-only: an ask never writes the workspace (bar its trace line), so any number of
    # them run beside an ingest.
    if isinstance(target, Path):
        return RAGSpine.open(
            target, provider=llm, clearance=level, dense=dense, rerank=rerank, read_only=True
        )
    return RAGSpine.open_server(
        target.url,
        schema=target.schema,
        index_dir=target.index_dir,
        profile=profile,
        provider=llm,
        clearance=level,
        rerank=rerank,
        read_only=True,
    )


def print_answer(result: AgentResult, json_output: bool, profile: DomainProfile) -> None:
    if json_output:
        typer.echo(
            plain_json(json.dumps(to_response(result, profile).model_dump(), ensure_ascii=False))
        )
    else:
        typer.echo(plain(result.answer))
        typer.echo(plain(_plain_sources(result)))


def _plain_sources(result: AgentResult) -> str:
    if not result.sources:
        return "\nSources: none"
    lines = [f"  - {s.doc} · {s.locator}" for s in result.sources]
    return "\n".join(["", "Sources:", *lines])
