"""Create (or top up) a SQLite fact store with the quickstart ACME facts.

    python scripts/load_fixtures.py --db data/fact_metric.db

Running it twice leaves one copy of each fact.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ragspine.cli import guarded, use_utf8_output
from ragspine.demo.fixtures import load_quickstart_facts
from ragspine.storage.fact_store import FactStore


@guarded
def load(db: Annotated[Path, typer.Option(help="SQLite fact store to create or update.")]) -> None:
    """Load the ACME example facts into --db."""
    with FactStore(db) as store:
        count = load_quickstart_facts(store)
    typer.echo(f"Loaded {count} ACME example facts into {db}.")


if __name__ == "__main__":
    use_utf8_output()
    typer.run(load)
