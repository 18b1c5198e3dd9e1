"""Chunks: retrieval units cut along the document's own structure.

A slide's body and its speaker notes are separate chunks (``slide=5,body``, ``slide=5,notes``)
carrying the slide title; consecutive paragraphs under one page or section merge up to a size
cap (``page=3,para=2-4``); a block longer than the cap splits at sentence ends (a sentence
longer than the cap at its spaces, or at the cap) and every part keeps the block's locator.
Titles and headings are context, not chunks of their own. A chunk's locator therefore always
points at a slide, page or section — never at an offset in concatenated text.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence

# Re-exported for importers outside this change (tests/eval); new code imports storage.chunks.
from ragspine.storage.chunks import Chunk as Chunk
from ragspine.storage.documents import TextBlockRow

CHUNK_CHARS = 600
_SENTENCE_END = re.compile(r"(?<=[。！？!?])|(?<=\.)(?=\s)")
_PARA = re.compile(r"^(?P<head>.*),para=(?P<first>\d+)(?:-(?P<last>\d+))?$")


def chunk_blocks(
    blocks: Sequence[TextBlockRow],
    *,
    version: str = "",
    cap: int = CHUNK_CHARS,
    document_entities: tuple[str, ...] = (),
    isolated: frozenset[str] = frozenset(),
) -> list[Chunk]:
    """Chunks of one document, in reading order, with ids ``<doc_id>#<n>``.

    A chunk that names no entity inherits ``document_entities`` (those of the document's
    title): a section of a memo about one region is about that region even when it does not
    say so. A block whose locator is in ``isolated`` (a passage held for review) merges with
    no neighbour, so its chunks carry exactly its locator and holding them holds nothing else.
    """
    groups = list(_groups(blocks, cap, isolated))
    chunks: list[Chunk] = []
    for group in groups:
        for text in _split(" ".join(b.text.strip() for b in group), cap):
            first = group[0]
            chunks.append(
                Chunk(
                    chunk_id=f"{first.doc_id}#{len(chunks) + 1}",
                    doc_id=first.doc_id,
                    locator=_locator(group),
                    title=first.title,
                    text=text,
                    entities=_union(b.entities for b in group) or document_entities,
                    periods=_union(b.periods for b in group),
                    language=first.language,
                    sensitivity=first.sensitivity,
                    version=version,
                )
            )
    return chunks


def _groups(
    blocks: Sequence[TextBlockRow], cap: int, isolated: frozenset[str] = frozenset()
) -> Iterator[list[TextBlockRow]]:
    """Merge neighbouring paragraphs of one page/section; everything else stands alone."""
    current: list[TextBlockRow] = []
    for block in blocks:
        if block.kind in ("title", "heading") or not block.text.strip():
            continue
        alone = block.locator in isolated or (bool(current) and current[-1].locator in isolated)
        if current and not alone and _mergeable(current, block, cap):
            current.append(block)
            continue
        if current:
            yield current
        current = [block]
    if current:
        yield current


def _mergeable(current: list[TextBlockRow], block: TextBlockRow, cap: int) -> bool:
    last = current[-1]
    here, there = _PARA.match(last.locator), _PARA.match(block.locator)
    if not (here and there) or here["head"] != there["head"] or last.title != block.title:
        return False
    if int(there["first"]) != int(here["last"] or here["first"]) + 1:
        return False
    return sum(len(b.text) for b in current) + len(block.text) <= cap


def _locator(group: list[TextBlockRow]) -> str:
    if len(group) == 1:
        return group[0].locator
    first, last = _PARA.match(group[0].locator), _PARA.match(group[-1].locator)
    assert first and last
    return f"{first['head']},para={first['first']}-{last['last'] or last['first']}"


def _split(text: str, cap: int) -> list[str]:
    if len(text) <= cap:
        return [text]
    parts: list[str] = []
    current = ""
    for sentence in (piece for s in _SENTENCE_END.split(text) for piece in _cut(s, cap)):
        if current and len(current) + len(sentence) > cap:
            parts.append(current.strip())
            current = ""
        current += sentence
    if current.strip():
        parts.append(current.strip())
    return parts


def _cut(sentence: str, cap: int) -> Iterator[str]:
    """A sentence longer than ``cap`` in pieces of at most ``cap`` characters, cut at the last
    whitespace of each piece where there is one (a paragraph with no sentence end, or a
    1 MB run of text, must not become one chunk that floods every prompt it reaches)."""
    while len(sentence) > cap:
        space = sentence.rfind(" ", cap // 2, cap)
        end = space + 1 if space > 0 else cap
        yield sentence[:end]
        sentence = sentence[end:]
    yield sentence


def _union(values: Iterable[tuple[str, ...]]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(v for group in values for v in group))


def locator_covers(chunk_locator: str, block_locator: str) -> bool:
    """True when a chunk's locator includes a block's (``page=3,para=2-4`` covers ``para=3``)."""
    if chunk_locator == block_locator:
        return True
    chunk, block = _PARA.match(chunk_locator), _PARA.match(block_locator)
    if not (chunk and block) or chunk["head"] != block["head"]:
        return False
    low, high = int(chunk["first"]), int(chunk["last"] or chunk["first"])
    return low <= int(block["first"]) <= high
