"""Answer one question from a fact-store file and print only the answer text.

    python scripts/ask.py --provider mock --db data/fact_metric.db "中国内地FY2025的REVENUE是多少"

The store must already exist (``scripts/load_fixtures.py`` makes one with the ACME example
facts); a missing file is reported, never silently created empty. For workspaces, sources and
JSON output use ``ragspine ask`` instead.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ragspine.agent.agent import answer_question
from ragspine.cli import guarded, parse_reference_date, use_utf8_output
from ragspine.errors import WorkspaceNotFoundError
from ragspine.llm.factory import ProviderName, build_provider
from ragspine.storage.fact_store import FactStore


@guarded
def ask(
    question: Annotated[str, typer.Argument(help="The question, in Chinese or English.")],
    db: Annotated[Path, typer.Option(help="An existing SQLite fact store.")],
    provider: Annotated[ProviderName, typer.Option(help="LLM provider.")] = ProviderName.MOCK,
    model: Annotated[str | None, typer.Option(help="Model for openai or anthropic.")] = None,
    base_url: Annotated[str | None, typer.Option(help="OpenAI-compatible endpoint.")] = None,
    reference_date: Annotated[str | None, typer.Option(help="YYYY-MM-DD.")] = None,
) -> None:
    """Print the answer to QUESTION from the facts in --db."""
    if not db.is_file():
        raise WorkspaceNotFoundError(
            f"fact store {db} does not exist; create it with: "
            f"python scripts/load_fixtures.py --db {db}"
        )
    day = parse_reference_date(reference_date)
    llm = build_provider(provider, model=model, base_url=base_url)
    with FactStore(db) as store:
        result = answer_question(question, store, llm, reference_date=day)
    typer.echo(result.answer)


if __name__ == "__main__":
    use_utf8_output()
    typer.run(ask)
