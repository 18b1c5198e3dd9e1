"""The seam between the agent and any narrative retriever."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Protocol

from ragspine.profile.period_spans import PeriodSpan, spans_of_labels
from ragspine.profile.sensitivity import DEFAULT_CLEARANCE, Sensitivity


@dataclass(frozen=True)
class Snippet:
    """One retrieved passage with its lineage (document + locator) and sensitivity.

    ``title`` is the slide title or heading the passage sits under: context for judging what
    it is about, never quoted or shown to the model as passage text. ``held`` marks a passage
    held for review (instruction-like text): no prompt may carry it, whatever the retriever.
    ``copies`` are lower-ranked passages with the same text (another file or version), folded
    into this one so they take no place of their own in a ranking.
    """

    chunk_id: str
    doc: str
    locator: str
    text: str
    sensitivity: str = "INTERNAL"
    score: float = 0.0
    title: str = ""
    held: bool = False
    copies: tuple[Snippet, ...] = ()


@dataclass(frozen=True)
class RetrievalFilters:
    """Metadata pre-filters, applied before scoring. Empty tuples mean "any".

    ``periods`` holds period labels; a chunk passes when one of its periods lies inside one of
    them (``FY2024`` admits ``2024Q4``, ``2024H2`` and ``2024M11``; ``2024Q4`` admits neither
    ``FY2024`` nor ``2024Q1``). ``comparison_periods`` are admitted the same way but rank after
    the chunks of ``periods``: the base year of a growth question explains it, second.
    """

    entities: tuple[str, ...] = ()
    periods: tuple[str, ...] = ()
    topics: tuple[str, ...] = ()
    languages: tuple[str, ...] = ()
    extra: dict[str, str] = field(default_factory=dict)
    comparison_periods: tuple[str, ...] = ()

    @cached_property
    def asked_spans(self) -> tuple[PeriodSpan, ...]:
        return spans_of_labels(self.periods)

    @cached_property
    def period_spans(self) -> tuple[PeriodSpan, ...]:
        """Every admitted period: the asked ones and the comparison ones."""
        return spans_of_labels((*self.periods, *self.comparison_periods))


class NarrativeRetriever(Protocol):
    def retrieve(
        self,
        query: str,
        *,
        top_k: int = 5,
        filters: RetrievalFilters | None = None,
        clearance: Sensitivity = DEFAULT_CLEARANCE,
    ) -> list[Snippet]: ...
