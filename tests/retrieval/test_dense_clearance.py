"""The dense channel's clearance filter at every boundary: each caller gets the passages at
its level and below, never one above, when the vectors alone rank the corpus.

The lexical channel filters by clearance on its own (``lexical._query``), so a test through
both channels could pass with the dense filter broken whenever BM25 happens to rank the same
passages. Here the lexical index knows every document's version (so the retriever admits the
chunks) but holds no postings: every hit comes from the vectors. The vector index holds the
RESTRICTED passage as well (``include_restricted``), so the CONFIDENTIAL/RESTRICTED boundary
is held by the filter, not only by the rule that keeps RESTRICTED text out of stored vectors.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ragspine.ingestion.pipeline import ingest
from ragspine.profile.glossary import glossary_for
from ragspine.profile.sensitivity import Sensitivity
from ragspine.retrieval.embedding import load_backend
from ragspine.retrieval.lexical import LexicalIndex
from ragspine.retrieval.retriever import (
    DenseChannel,
    HybridRetriever,
    document_versions,
    open_retriever,
)
from ragspine.retrieval.vectors import VectorIndex
from ragspine.workspace import Workspace

QUERY = "quokka census on the island"
# One note per level; the sidecar sets the level (PUBLIC needs the audited override, because
# the profile's default is higher). No marking words in the text: the sidecar alone decides.
NOTES = {
    Sensitivity.PUBLIC: ("note_a.md", {"sensitivity": "PUBLIC", "sensitivity_override": True}),
    Sensitivity.INTERNAL: ("note_b.md", {"sensitivity": "INTERNAL"}),
    Sensitivity.CONFIDENTIAL: ("note_c.md", {"sensitivity": "CONFIDENTIAL"}),
    Sensitivity.RESTRICTED: ("note_d.md", {"sensitivity": "RESTRICTED"}),
}
# Hand-written: what each caller may read.
VISIBLE = {
    Sensitivity.PUBLIC: {"note_a.md"},
    Sensitivity.INTERNAL: {"note_a.md", "note_b.md"},
    Sensitivity.CONFIDENTIAL: {"note_a.md", "note_b.md", "note_c.md"},
    Sensitivity.RESTRICTED: {"note_a.md", "note_b.md", "note_c.md", "note_d.md"},
}


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Workspace:
    root = tmp_path_factory.mktemp("levels")
    corpus = root / "corpus"
    corpus.mkdir()
    for n, (name, sidecar) in enumerate(NOTES.values()):
        (corpus / name).write_text(
            f"# Field note {n}\n\nThe quokka census on the island counted {n + 3} families "
            f"near site {n}.\n",
            encoding="utf-8",
        )
        (corpus / f"{name}.meta.json").write_text(json.dumps(sidecar), encoding="utf-8")
    ws = Workspace.create(root / "ws")
    with ws.fact_store() as store:
        ingest([corpus], store, ws.profile())
        stored = {Path(c.doc_id).name: c.sensitivity for c in store.list_chunks()}
    # The setup itself: one passage per note, at the level its sidecar names.
    assert stored == {name: level.value for level, (name, _) in NOTES.items()}
    return ws


def dense_only(ws: Workspace) -> HybridRetriever:
    """A retriever whose every hit comes from the vector index (see the module docstring)."""
    store = ws.fact_store(read_only=True)
    lexical = LexicalIndex.open(None)
    lexical.set_doc_versions(document_versions(store))
    lexical.commit()
    backend = load_backend("hashing")
    vectors = VectorIndex.open(None, backend.name, backend.dimension)
    vectors.embed_and_add(store.list_chunks(), backend, include_restricted=True)
    assert len(vectors) == len(NOTES)
    return HybridRetriever(
        store, lexical, glossary_for(ws.profile()), DenseChannel(backend, vectors)
    )


@pytest.mark.parametrize("caller", list(Sensitivity), ids=lambda level: level.value)
def test_the_dense_channel_admits_the_callers_level_and_below_only(
    workspace: Workspace, caller: Sensitivity
) -> None:
    retriever = dense_only(workspace)
    # Nothing the lexical channel could contribute: it ranks no passage for anyone.
    assert retriever.lexical.search(QUERY, top_k=50, clearance=Sensitivity.RESTRICTED) == []
    hits = retriever.retrieve(QUERY, top_k=10, clearance=caller)
    assert {Path(h.doc).name for h in hits} == VISIBLE[caller]
    assert all(caller.allows(Sensitivity.parse(h.sensitivity)) for h in hits)


@pytest.mark.parametrize("caller", list(Sensitivity), ids=lambda level: level.value)
def test_both_channels_together_admit_the_callers_level_and_below_only(
    workspace: Workspace, caller: Sensitivity
) -> None:
    # The retriever as the service opens it: BM25 plus the stored-vector rule (no RESTRICTED
    # vector), so a dense filter one level too loose shows at the two lower boundaries.
    retriever = open_retriever(workspace, dense="hashing", notify=lambda _: None)
    hits = retriever.retrieve(QUERY, top_k=10, clearance=caller)
    assert {Path(h.doc).name for h in hits} == VISIBLE[caller]
