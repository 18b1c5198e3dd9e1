"""One object for newcomers: open a workspace, ask questions, close it.

``RAGSpine`` wires the pieces a question needs — the workspace's fact store, its profile, its
trace file, a provider and a clearance — so callers need not know the orchestrator's
arguments. Everything it returns is the orchestrator's own ``AgentResult``.
"""

from __future__ import annotations

from datetime import date
from pathlib import Path
from types import TracebackType
from typing import Self

from ragspine.agent.agent import answer_question
from ragspine.agent.llm_provider import LLMProvider, MockProvider
from ragspine.agent.types import AgentResult
from ragspine.errors import UsageError
from ragspine.ingestion.pipeline import IngestReport, ingest
from ragspine.observability.trace import TraceSink
from ragspine.profile.model import DomainProfile
from ragspine.profile.sensitivity import DEFAULT_CLEARANCE, Sensitivity
from ragspine.retrieval.protocol import NarrativeRetriever, RetrievalFilters, Snippet
from ragspine.retrieval.rerank import LLMListwiseReranker, Reranker
from ragspine.storage.ingest_store import SQLiteWorkspaceStore
from ragspine.workspace import Workspace


class _LazyRetriever:
    """Opens the workspace's indexes (read-only) on the first narrative question only, so
    structured questions never pay for loading the search index."""

    def __init__(
        self,
        workspace: Workspace,
        store: SQLiteWorkspaceStore,
        dense: str | None,
        reranker: Reranker | None,
    ) -> None:
        self._workspace = workspace
        self._store = store
        self._dense = dense
        self._reranker = reranker
        self._inner: NarrativeRetriever | None = None

    def retrieve(
        self,
        query: str,
        *,
        top_k: int = 5,
        filters: RetrievalFilters | None = None,
        clearance: Sensitivity = DEFAULT_CLEARANCE,
    ) -> list[Snippet]:
        if self._inner is None:
            from ragspine.retrieval.retriever import open_retriever

            self._inner = open_retriever(
                self._workspace, store=self._store, dense=self._dense, reranker=self._reranker
            )
        return self._inner.retrieve(query, top_k=top_k, filters=filters, clearance=clearance)

    def reset(self) -> None:
        """Forget the opened indexes (after an ingest) so the next question reopens them."""
        self._inner = None


class RAGSpine:
    """Questions answered over one workspace; use :meth:`open` to build one."""

    def __init__(
        self,
        workspace: Workspace,
        store: SQLiteWorkspaceStore,
        profile: DomainProfile,
        provider: LLMProvider,
        clearance: Sensitivity,
        trace_sink: TraceSink,
        dense: str | None = None,
        rerank: bool = False,
    ) -> None:
        self.workspace = workspace
        reranker = LLMListwiseReranker(provider) if rerank else None
        self.retriever = _LazyRetriever(workspace, store, dense, reranker)
        self.store = store
        self.profile = profile
        self.provider = provider
        self.clearance = clearance
        self._trace_sink = trace_sink

    @classmethod
    def open(
        cls,
        workspace: str | Path | Workspace,
        *,
        provider: LLMProvider | None = None,
        clearance: Sensitivity | str = DEFAULT_CLEARANCE,
        create: bool = False,
        dense: str | None = None,
        rerank: bool = False,
        read_only: bool = False,
    ) -> Self:
        """Open a workspace; it is created only when ``create`` is true.

        Raises ``WorkspaceNotFoundError`` when the folder or its database is missing,
        ``ProfileError`` when the workspace's ``profile.toml`` is malformed and ``ValueError``
        for an unknown clearance. ``provider`` defaults to the offline ``MockProvider``;
        ``dense`` names an embedding backend ("hashing", "minilm", a model path) to add the
        dense channel to narrative retrieval; ``rerank`` lets the provider reorder retrieved
        passages (any failure keeps the fused order). ``read_only`` opens the store for
        questions only (what ``ragspine ask`` does): nothing in the workspace but the trace
        file is written, a store without RAGSpine tables is a ``WorkspaceNotFoundError``,
        and ``ingest`` is refused.
        """
        level = Sensitivity.parse(clearance)
        root = workspace.root if isinstance(workspace, Workspace) else Path(workspace)
        ws = Workspace.create(root) if create else Workspace.open(root)
        profile = ws.profile()
        store = ws.fact_store(read_only=read_only)
        return cls(
            ws, store, profile, provider or MockProvider(), level, ws.trace_sink(), dense, rerank
        )

    def ingest(self, *paths: str | Path, dry_run: bool = False) -> IngestReport:
        """Ingest files or folders into this workspace (unchanged files are skipped).

        Holds the workspace's write lock (waiting for another writer to finish) and updates
        the search index before returning, as ``ragspine ingest`` does.
        """
        if self.store.read_only:
            raise UsageError(f"workspace {self.workspace.root} was opened read-only")
        sources = [Path(p) for p in paths]
        if dry_run:
            return ingest(sources, self.store, self.profile, dry_run=True)
        from ragspine.retrieval.refresh import refresh_indexes

        with self.workspace.write_lock():
            report = ingest(sources, self.store, self.profile)
            refresh_indexes(self.workspace, self.store)
        self.retriever.reset()
        return report

    def ask(
        self, question: str, *, reference_date: date | None = None, request_id: str | None = None
    ) -> AgentResult:
        """Answer one question; its privacy-aware trace is appended to the workspace.

        ``request_id`` names the request in the trace (the HTTP service passes its own, so the
        response, the trace and the access log agree); a fresh one is made when it is omitted.
        """
        return answer_question(
            question,
            self.store,
            self.provider,
            reference_date=reference_date,
            narrative_retriever=self.retriever,
            profile=self.profile,
            clearance=self.clearance,
            trace_sink=self._trace_sink,
            request_id=request_id,
        )

    def close(self) -> None:
        self.store.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()
