"""``ragspine chat``: a conversation over a workspace, one question per line.

Each line is answered like ``ragspine ask``; a follow-up ("and in FY2023?", "那毛利率呢？")
takes the slots it leaves out from the conversation's earlier questions and says so
(``agent.conversation``). ``/new`` starts a new conversation; an empty line, ``/quit`` or the
end of input ends the session. Questions come from standard input, so the REPL also reads a
scripted conversation from a pipe.
"""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from ragspine.agent.conversation import MAX_PREVIOUS_QUESTIONS
from ragspine.agent.types import AnswerKind
from ragspine.cli.ask import (
    BaseUrlOption,
    DenseOption,
    ModelOption,
    ProfileOption,
    ProviderOption,
    ReferenceDateOption,
    RerankOption,
    open_engine,
    print_answer,
)
from ragspine.cli.common import (
    TargetDatabaseOption,
    TargetIndexOption,
    TargetSchemaOption,
    TargetWorkspaceOption,
    choose_target,
    parse_reference_date,
)
from ragspine.errors import UsageError
from ragspine.llm.factory import ProviderName
from ragspine.profile.sensitivity import DEFAULT_CLEARANCE
from ragspine.terminal import plain

NEW_CONVERSATION = "/new"
QUIT = "/quit"
PROMPT = "> "


def chat(
    workspace: TargetWorkspaceOption = None,
    database_url: TargetDatabaseOption = None,
    schema: TargetSchemaOption = None,
    index_dir: TargetIndexOption = None,
    profile: ProfileOption = None,
    json_output: Annotated[
        bool,
        typer.Option("--json", help="Print one JSON object per answer (the AskResponse shape)."),
    ] = False,
    provider: ProviderOption = ProviderName.MOCK,
    model: ModelOption = None,
    base_url: BaseUrlOption = None,
    reference_date: ReferenceDateOption = None,
    clearance: Annotated[
        str, typer.Option(help="Highest sensitivity the answers may use.")
    ] = DEFAULT_CLEARANCE.value,
    dense: DenseOption = None,
    rerank: RerankOption = False,
) -> None:
    """Ask questions one per line; a follow-up ("and in FY2023?") keeps the previous
    question's entity, metric, period and channel unless it names its own. /new starts over,
    an empty line or /quit ends."""
    target = choose_target(workspace, database_url, schema, index_dir)
    day = parse_reference_date(reference_date)
    interactive = sys.stdin.isatty()
    previous: list[str] = []
    with open_engine(target, profile, provider, model, base_url, clearance, dense, rerank) as rag:
        while True:
            if interactive:
                typer.echo(PROMPT, nl=False)
            line = sys.stdin.readline()
            question = line.strip()
            if not question or question == QUIT:
                break
            if question == NEW_CONVERSATION:
                previous.clear()
                continue
            try:
                result = rag.ask(question, reference_date=day, previous=previous)
            except UsageError as error:  # an over-long line: say so, keep the conversation
                typer.echo(plain(f"error: {error}"), err=True)
                continue
            print_answer(result, json_output, rag.profile)
            if not json_output:
                typer.echo("")
            if result.answer_kind is AnswerKind.DEGRADED:
                typer.echo(plain("error: the model provider is unavailable"), err=True)
            previous = [*previous, question][-MAX_PREVIOUS_QUESTIONS:]
