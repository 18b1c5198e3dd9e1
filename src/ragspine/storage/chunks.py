"""The chunk: one stored retrieval unit of a document's prose, with its locator and codes.

Periods are stored as their labels (``FY2024``, ``2024Q4``), which are canonical, so the
SQLite schema is unchanged; ``period_spans`` gives the typed fiscal-month spans that period
filters compare.

It lives in storage because the workspace store persists chunks; how documents are cut into
chunks is retrieval's business (``retrieval/chunking.py``).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from ragspine.profile.period_spans import PeriodSpan, spans_of_labels


@dataclass(frozen=True)
class Chunk:
    chunk_id: str
    doc_id: str
    locator: str
    title: str
    text: str
    entities: tuple[str, ...]
    periods: tuple[str, ...]
    language: str
    sensitivity: str
    version: str = ""
    # Held out of retrieval: an open or rejected ``suspicious_instruction`` review item names
    # the chunk's passage. Derived from the review queue when the store reads the chunk.
    held: bool = False

    @cached_property
    def period_spans(self) -> tuple[PeriodSpan, ...]:
        """The periods as fiscal-month spans, for containment tests (labels that are no
        period are skipped; a chunk with none is untagged)."""
        return spans_of_labels(self.periods)

    @property
    def indexed_text(self) -> str:
        """What lexical and dense retrieval see: the title gives short chunks their topic."""
        return f"{self.title}\n{self.text}" if self.title else self.text
