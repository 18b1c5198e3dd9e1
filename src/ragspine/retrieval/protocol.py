"""The seam between the agent and any narrative retriever."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

from ragspine.profile.sensitivity import DEFAULT_CLEARANCE, Sensitivity


@dataclass(frozen=True)
class Snippet:
    """One retrieved passage with its lineage (document + locator) and sensitivity."""

    chunk_id: str
    doc: str
    locator: str
    text: str
    sensitivity: str = "INTERNAL"
    score: float = 0.0


@dataclass(frozen=True)
class RetrievalFilters:
    """Metadata pre-filters, applied before scoring. Empty tuples mean "any"."""

    entities: tuple[str, ...] = ()
    periods: tuple[str, ...] = ()
    topics: tuple[str, ...] = ()
    languages: tuple[str, ...] = ()
    extra: dict[str, str] = field(default_factory=dict)


class NarrativeRetriever(Protocol):
    def retrieve(
        self,
        query: str,
        *,
        top_k: int = 5,
        filters: RetrievalFilters | None = None,
        clearance: Sensitivity = DEFAULT_CLEARANCE,
    ) -> list[Snippet]: ...
