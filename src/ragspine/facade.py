"""One object for newcomers: open a workspace, ask questions, close it.

``RAGSpine`` wires the pieces a question needs — the store, the profile, the trace file, a
provider and a clearance — so callers need not know the orchestrator's arguments. Everything
it returns is the orchestrator's own ``AgentResult``.

``RAGSpine.open`` opens a workspace folder (the embedded default); ``RAGSpine.open_server``
opens a PostgreSQL schema instead, with a search index of this process's own that follows the
database (``retrieval/follower.py``).
"""

from __future__ import annotations

import tempfile
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from datetime import date
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any, Self

from ragspine.agent.agent import answer_question
from ragspine.agent.llm_provider import LLMProvider, MockProvider
from ragspine.agent.types import AgentResult
from ragspine.errors import UsageError
from ragspine.ingestion.pipeline import IngestReport, ingest
from ragspine.observability.trace import JsonlTraceSink, NullTraceSink, TraceSink
from ragspine.profile.loader import load_profile
from ragspine.profile.model import DomainProfile
from ragspine.profile.sensitivity import DEFAULT_CLEARANCE, Sensitivity
from ragspine.retrieval.protocol import NarrativeRetriever, RetrievalFilters, Snippet
from ragspine.retrieval.rerank import LLMListwiseReranker, Reranker
from ragspine.storage.protocol import WorkspaceStoreProtocol
from ragspine.workspace import TRACE_NAME, Workspace

if TYPE_CHECKING:
    from ragspine.retrieval.follower import IndexFollower
    from ragspine.storage.ingest_store import SQLiteWorkspaceStore
    from ragspine.storage.postgres import PostgresWorkspaceStore

# The default schema of `open_server`, as in `ragspine db upgrade`.
DEFAULT_SCHEMA = "ragspine"


class _LazyRetriever:
    """Opens the search index on the first narrative question only, so structured questions
    never pay for loading it; ``opener`` builds the retriever (given the reranker)."""

    def __init__(self, opener: Callable[[], NarrativeRetriever]) -> None:
        self._opener = opener
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
            self._inner = self._opener()
        return self._inner.retrieve(query, top_k=top_k, filters=filters, clearance=clearance)

    def reset(self) -> None:
        """Forget the opened indexes (after an ingest) so the next question reopens them."""
        self._inner = None


class _FollowingRetriever:
    """Brings the followed index up to the database before each narrative question (one
    indexed lookup when nothing changed), so a process sees its own and others' writes."""

    def __init__(self, follower: IndexFollower, inner: NarrativeRetriever) -> None:
        self._follower = follower
        self._inner = inner

    def retrieve(
        self,
        query: str,
        *,
        top_k: int = 5,
        filters: RetrievalFilters | None = None,
        clearance: Sensitivity = DEFAULT_CLEARANCE,
    ) -> list[Snippet]:
        self._follower.catch_up()
        return self._inner.retrieve(query, top_k=top_k, filters=filters, clearance=clearance)


class _Engine(ABC):
    """What both facades share: ask, ingest and close over a store of either backend."""

    def __init__(
        self,
        store: WorkspaceStoreProtocol,
        profile: DomainProfile,
        provider: LLMProvider,
        clearance: Sensitivity,
        trace_sink: TraceSink,
        retriever: Callable[[Reranker | None], NarrativeRetriever],
        *,
        rerank: bool = False,
        read_only: bool = False,
        cleanup: Callable[[], None] | None = None,
    ) -> None:
        reranker = LLMListwiseReranker(provider) if rerank else None
        self.retriever = _LazyRetriever(lambda: retriever(reranker))
        self._store = store
        self.profile = profile
        self.provider = provider
        self.clearance = clearance
        self.read_only = read_only
        self._trace_sink = trace_sink
        self._cleanup = cleanup

    def ingest(
        self, *paths: str | Path, dry_run: bool = False, include_hidden: bool = False
    ) -> IngestReport:
        """Ingest files or folders (unchanged files are skipped); the search index is up to
        date when it returns. Hidden sheets, rows, columns, slides and text are skipped and
        counted (``FileResult.hidden``) unless ``include_hidden``.

        Into a workspace it holds the write lock (waiting for another writer to finish), as
        ``ragspine ingest`` does. Into PostgreSQL each document is one transaction and this
        process's index applies the new changes before returning; other processes' indexes
        follow by themselves.
        """
        if self.read_only:
            raise UsageError(f"{self.describe()} was opened read-only")
        sources = [Path(p) for p in paths]
        if dry_run:
            return self._dry_run(sources, include_hidden)
        return self._write(sources, include_hidden)

    @abstractmethod
    def describe(self) -> str:
        """What this answers over, for messages."""

    def _dry_run(self, sources: list[Path], include_hidden: bool) -> IngestReport:
        raise UsageError(f"a dry run needs a workspace; {self.describe()} has no scratch copy")

    @abstractmethod
    def _write(self, sources: list[Path], include_hidden: bool) -> IngestReport: ...

    def ask(
        self,
        question: str,
        *,
        reference_date: date | None = None,
        request_id: str | None = None,
        previous: Sequence[str] = (),
    ) -> AgentResult:
        """Answer one question; its privacy-aware trace is appended to the trace file.

        ``previous`` are the conversation's earlier user questions, oldest first: a follow-up
        ("and in FY2023?") takes the slots it leaves out from them, and the answer says so.

        ``request_id`` names the request in the trace (the HTTP service passes its own, so the
        response, the trace and the access log agree); a fresh one is made when it is omitted.
        """
        return answer_question(
            question,
            self._store,
            self.provider,
            reference_date=reference_date,
            narrative_retriever=self.retriever,
            profile=self.profile,
            clearance=self.clearance,
            trace_sink=self._trace_sink,
            request_id=request_id,
            previous=previous,
        )

    def close(self) -> None:
        if self._cleanup is not None:
            self._cleanup()
        self._store.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()


class RAGSpine(_Engine):
    """Questions answered over one workspace; use :meth:`open` to build one (or
    :meth:`open_server` for a PostgreSQL schema)."""

    def __init__(
        self, workspace: Workspace, store: SQLiteWorkspaceStore, *args: Any, **kwargs: Any
    ) -> None:
        super().__init__(store, *args, **kwargs)
        self.workspace = workspace
        self._sqlite = store

    @property
    def store(self) -> SQLiteWorkspaceStore:
        return self._sqlite

    def describe(self) -> str:
        return f"workspace {self.workspace.root}"

    def _dry_run(self, sources: list[Path], include_hidden: bool) -> IngestReport:
        return ingest(
            sources, self.store, self.profile, dry_run=True, include_hidden=include_hidden
        )

    def _write(self, sources: list[Path], include_hidden: bool) -> IngestReport:
        from ragspine.retrieval.refresh import refresh_indexes

        with self.workspace.write_lock():
            report = ingest(sources, self.store, self.profile, include_hidden=include_hidden)
            refresh_indexes(self.workspace, self.store)
        self.retriever.reset()
        return report

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
        trace_sink: TraceSink | None = None,
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
        and ``ingest`` is refused. ``trace_sink`` receives the traces instead of the
        workspace's trace file (the service shares one ``BatchedTraceSink`` between its
        engines).
        """
        level = Sensitivity.parse(clearance)
        root = workspace.root if isinstance(workspace, Workspace) else Path(workspace)
        ws = Workspace.create(root) if create else Workspace.open(root)
        profile = ws.profile()
        store = ws.fact_store(read_only=read_only)

        def retriever(reranker: Reranker | None) -> NarrativeRetriever:
            from ragspine.retrieval.retriever import open_retriever

            return open_retriever(ws, store=store, dense=dense, reranker=reranker)

        return cls(
            ws,
            store,
            profile,
            provider or MockProvider(),
            level,
            ws.trace_sink() if trace_sink is None else trace_sink,
            retriever,
            rerank=rerank,
            read_only=read_only,
        )

    @staticmethod
    def open_server(database_url: str, **options: Any) -> ServerRAGSpine:
        """The same over a PostgreSQL schema: see :meth:`ServerRAGSpine.open`."""
        return ServerRAGSpine.open(database_url, **options)


class ServerRAGSpine(_Engine):
    """Questions answered over a PostgreSQL schema, searched through this process's own
    followed index; use :meth:`open` (or ``RAGSpine.open_server``) to build one."""

    def __init__(
        self, store: PostgresWorkspaceStore, follower: IndexFollower, *args: Any, **kwargs: Any
    ) -> None:
        super().__init__(store, *args, **kwargs)
        self._postgres = store
        self.follower = follower
        self._shared = False

    @property
    def store(self) -> PostgresWorkspaceStore:
        return self._postgres

    def describe(self) -> str:
        return f"PostgreSQL database {self.store.describe()}"

    def _write(self, sources: list[Path], include_hidden: bool) -> IngestReport:
        report = ingest(sources, self.store, self.profile, include_hidden=include_hidden)
        self.follower.catch_up()
        return report

    @classmethod
    def open(
        cls,
        database_url: str,
        *,
        schema: str = DEFAULT_SCHEMA,
        index_dir: str | Path | None = None,
        profile: str | Path | DomainProfile | None = None,
        provider: LLMProvider | None = None,
        clearance: Sensitivity | str = DEFAULT_CLEARANCE,
        rerank: bool = False,
        read_only: bool = False,
        follow: bool = False,
        follower: IndexFollower | None = None,
        trace_sink: TraceSink | None = None,
    ) -> Self:
        """Open a PostgreSQL schema upgraded by ``ragspine db upgrade``.

        The search index is this process's own, in ``index_dir``: built from the database the
        first time, then brought up to date from the last change it applied (see
        ``retrieval/follower.py``); without ``index_dir`` it is built in a temporary folder
        removed at ``close``. Before each narrative question the index applies the changes
        committed since the last one; ``follow`` also applies them in a background thread as
        soon as PostgreSQL announces them (what a long-running API process wants). Traces go to
        ``index_dir/traces.jsonl`` (nowhere without ``index_dir``). ``profile`` is a TOML path
        or a loaded profile (the shipped example by default). Raises ``StoreError`` when the
        server cannot be reached or ``SchemaVersionError`` when the schema is not this
        ragspine's version.

        ``follower`` shares an index this process already follows, with its store: the engine
        answers through them (tracing to the follower's folder) and leaves both open at
        ``close``, so several engines of one process (a thread's, a clearance's) keep one
        index between them; ``database_url``, ``schema``, ``index_dir`` and ``follow`` are
        then the follower's own. ``trace_sink`` receives the traces instead (as in
        ``RAGSpine.open``).
        """
        from ragspine.profile.glossary import glossary_for
        from ragspine.retrieval.follower import IndexFollower
        from ragspine.retrieval.retriever import HybridRetriever
        from ragspine.storage.postgres import PostgresWorkspaceStore

        level = Sensitivity.parse(clearance)
        prof = profile if isinstance(profile, DomainProfile) else load_profile(profile)
        if follower is not None:
            sink = trace_sink or JsonlTraceSink(follower.folder / TRACE_NAME)
            return cls._sharing(follower, prof, provider, level, rerank, read_only, sink)
        scratch = tempfile.TemporaryDirectory(prefix="ragspine-index-") if not index_dir else None
        folder = Path(index_dir) if index_dir else Path(scratch.name if scratch else "")
        store = PostgresWorkspaceStore(database_url, schema=schema, read_only=read_only)
        try:
            follower = IndexFollower(store, folder)
        except BaseException:
            store.close()
            raise
        if follow:
            follower.start()

        def retriever(reranker: Reranker | None) -> NarrativeRetriever:
            inner = HybridRetriever(store, follower, glossary_for(prof), reranker=reranker)
            return _FollowingRetriever(follower, inner)

        def cleanup() -> None:
            follower.close()
            if scratch is not None:
                scratch.cleanup()

        sink = trace_sink or (JsonlTraceSink(folder / TRACE_NAME) if index_dir else NullTraceSink())
        return cls(
            store,
            follower,
            prof,
            provider or MockProvider(),
            level,
            sink,
            retriever,
            rerank=rerank,
            read_only=read_only,
            cleanup=cleanup,
        )

    @classmethod
    def _sharing(
        cls,
        follower: IndexFollower,
        profile: DomainProfile,
        provider: LLMProvider | None,
        clearance: Sensitivity,
        rerank: bool,
        read_only: bool,
        trace_sink: TraceSink,
    ) -> Self:
        from ragspine.profile.glossary import glossary_for
        from ragspine.retrieval.retriever import HybridRetriever

        def retriever(reranker: Reranker | None) -> NarrativeRetriever:
            inner = HybridRetriever(
                follower.store, follower, glossary_for(profile), reranker=reranker
            )
            return _FollowingRetriever(follower, inner)

        engine = cls(
            follower.store,
            follower,
            profile,
            provider or MockProvider(),
            clearance,
            trace_sink,
            retriever,
            rerank=rerank,
            read_only=read_only,
        )
        engine._shared = True
        return engine

    def close(self) -> None:
        # A shared follower and its store belong to whoever opened them.
        if not self._shared:
            super().close()
