"""The quickstart fact set: a small ACME table shipped as package data, loadable into any store."""

from __future__ import annotations

import json
from importlib import resources

from ragspine.storage.fact_store import Fact, FactStoreProtocol

QUICKSTART_FACTS_NAME = "quickstart_facts.json"


def quickstart_facts() -> list[Fact]:
    """The ACME facts behind the quickstart, each with its document and cell-precise locator."""
    text = resources.files("ragspine.demo").joinpath(QUICKSTART_FACTS_NAME).read_text("utf-8")
    return [Fact(**row) for row in json.loads(text)["facts"]]


def load_quickstart_facts(store: FactStoreProtocol) -> int:
    """Create the schema if needed and upsert the quickstart facts; returns the rows written.

    Loading twice leaves one copy of each fact: rows are keyed by fact and source document.
    """
    store.init_schema()
    return store.upsert_facts(quickstart_facts())
