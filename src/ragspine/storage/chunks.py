"""The chunk: one stored retrieval unit of a document's prose, with its locator and codes.

It lives in storage because the workspace store persists chunks; how documents are cut into
chunks is retrieval's business (``retrieval/chunking.py``).
"""

from __future__ import annotations

from dataclasses import dataclass


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

    @property
    def indexed_text(self) -> str:
        """What lexical and dense retrieval see: the title gives short chunks their topic."""
        return f"{self.title}\n{self.text}" if self.title else self.text
