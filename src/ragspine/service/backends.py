"""Where the service's answers come from: one workspace folder, or a PostgreSQL deployment
searched through this process's own followed index. The answerer and the app reach either
through :class:`Backend`, so every endpoint has one code path.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, TypeVar

from ragspine.errors import StoreError
from ragspine.facade import RAGSpine, ServerRAGSpine
from ragspine.llm.protocol import LLMProvider
from ragspine.observability.trace import BatchedTraceSink
from ragspine.profile.loader import load_profile
from ragspine.profile.model import DomainProfile
from ragspine.profile.sensitivity import Sensitivity
from ragspine.retrieval.lexical import META_FILE
from ragspine.retrieval.refresh import writing
from ragspine.retrieval.retriever import lexical_path
from ragspine.service.settings import ServiceSettings
from ragspine.storage.protocol import WorkspaceStoreProtocol
from ragspine.storage.sqlite_store import KEPT_SECONDS, SQLiteFactStore
from ragspine.workspace import TRACE_NAME, Workspace

if TYPE_CHECKING:
    from ragspine.retrieval.follower import IndexFollower
    from ragspine.storage.postgres import PostgresDatabase, PostgresWorkspaceStore

T = TypeVar("T")

Engine = RAGSpine | ServerRAGSpine


class Backend(Protocol):
    """What the answerer and the endpoints need from where the documents are stored."""

    profile: DomainProfile
    uploads_folder: Path
    # Whether a question's reads and retrieval are CPU work in this process (no database
    # server, no embedding or rerank model): see ``Answerer.inline``.
    cpu_only: bool
    # Where every engine of the process writes its traces, in batches.
    traces: BatchedTraceSink

    def open(self, clearance: Sensitivity, provider: LLMProvider) -> Engine:
        """A read-only engine answering at ``clearance``, for one pool thread."""

    def index_stamp(self, store: WorkspaceStoreProtocol) -> object:
        """Changes when an engine's search index must be reopened (see ``Answerer``); read
        through the engine's ``store``, in the question's read transaction."""

    def readiness(self) -> dict[str, str]:
        """The ``store`` and ``index`` checks of ``/readyz``: "ok" or why not."""

    def rest(self, store: WorkspaceStoreProtocol) -> None:
        """End what an engine's ``store`` keeps open between questions once it has been idle
        for a while (a workspace's kept read transaction); a busy store is left alone."""

    def decide(self, decision: Callable[[WorkspaceStoreProtocol], T]) -> T:
        """Run a review decision on a writable store; the search indexes follow."""

    def submitted(self, batch: Path) -> None:
        """The job queue has taken the uploads in ``batch`` (a folder of ``uploads_folder``)."""

    def close(self) -> None: ...


class WorkspaceBackend:
    """One workspace folder: its SQLite store and the index its writers refresh."""

    def __init__(self, settings: ServiceSettings, workspace: Workspace) -> None:
        self._settings = settings
        self.workspace = workspace
        self.profile = workspace.profile()
        self.uploads_folder = workspace.uploads_path
        self.cpu_only = not settings.dense and not settings.rerank
        # One trace writer for every engine of the process, written in batches off the
        # request's path; closed (and so flushed) with the backend.
        self.traces = BatchedTraceSink(workspace.trace_path)
        self._meta_path = str(lexical_path(workspace) / META_FILE)

    def open(self, clearance: Sensitivity, provider: LLMProvider) -> Engine:
        rag = RAGSpine.open(
            self.workspace,
            provider=provider,
            clearance=clearance,
            dense=self._settings.dense,
            rerank=self._settings.rerank,
            read_only=True,
            trace_sink=self.traces,
        )
        if isinstance(rag.store, SQLiteFactStore):
            # A question reuses the last one's read transaction while nothing was committed.
            rag.store.keep_snapshots = True
        return rag

    def rest(self, store: WorkspaceStoreProtocol) -> None:
        if isinstance(store, SQLiteFactStore):
            store.release_kept(idle=KEPT_SECONDS)

    def index_stamp(self, store: WorkspaceStoreProtocol) -> tuple[object, str]:
        """When and how large the lexical index's metadata was last written, and the
        store's document versions: a writer's commit of either changes it. Between an
        ingest's commit and its index refresh the engine then answers from an in-memory copy
        of the store's passages (``retriever.open_retriever``), so a question sees the new
        version of a document whole, its facts and its passages."""
        return self._index_meta(), store.chunk_state()

    def _index_meta(self) -> tuple[int, int] | None:
        try:
            info = os.stat(self._meta_path)  # asked before every question: no pathlib
        except OSError:
            return None
        return info.st_mtime_ns, info.st_size

    def readiness(self) -> dict[str, str]:
        checks: dict[str, str] = {}
        empty = False
        try:
            with Workspace.open(self.workspace.root).fact_store(read_only=True) as store:
                store.count_facts()
                empty = not store.list_documents()
            checks["store"] = "ok"
        except Exception as exc:  # any failure to open or read is "not ready", named
            checks["store"] = f"failed: {type(exc).__name__}"
        # A workspace without documents has nothing to index yet: its first upload makes the
        # index, so it must be ready to take that upload.
        checks["index"] = "ok" if empty or self._index_meta() is not None else "missing"
        return checks

    def decide(self, decision: Callable[[WorkspaceStoreProtocol], T]) -> T:
        with writing(self.workspace) as writable:
            return decision(writable)

    def submitted(self, batch: Path) -> None:
        """Nothing to do: the in-process queue ingests the files from the workspace."""

    def close(self) -> None:
        """Write the queued traces; each engine holds its own connection."""
        self.traces.close()


class PostgresBackend:
    """A PostgreSQL deployment: one read-only store and one followed index for the whole
    process (both thread-safe), shared by every thread's and clearance's engine, and a
    writable store for review decisions, whose pool (:attr:`database`) the process's API keys,
    FAQ and job rows share."""

    def __init__(self, settings: ServiceSettings) -> None:
        from ragspine.storage.postgres import PostgresWorkspaceStore

        assert settings.database_url is not None  # ServiceSettings checks one backend is named
        self._settings = settings
        self.profile = load_profile(settings.profile)
        self._scratch = tempfile.TemporaryDirectory(prefix="ragspine-serve-")
        # Uploads wait here only until the job queue has read their bytes into PostgreSQL.
        self.uploads_folder = Path(self._scratch.name) / "uploads"
        self.cpu_only = False  # every read waits on the database server
        url, schema = settings.database_url, settings.database_schema
        self._store: PostgresWorkspaceStore | None = None
        self._writer: PostgresWorkspaceStore | None = None
        try:
            self._store = PostgresWorkspaceStore(url, schema=schema, read_only=True)
            self.follower = _follower(self._store, settings, Path(self._scratch.name))
            self._writer = PostgresWorkspaceStore(url, schema=schema)
        except BaseException:
            self.close()
            raise
        self.follower.start()
        self.traces = BatchedTraceSink(self.follower.folder / TRACE_NAME)

    def open(self, clearance: Sensitivity, provider: LLMProvider) -> Engine:
        assert self._settings.database_url is not None
        return ServerRAGSpine.open(
            self._settings.database_url,
            follower=self.follower,
            profile=self.profile,
            provider=provider,
            clearance=clearance,
            rerank=self._settings.rerank,
            read_only=True,
            trace_sink=self.traces,
        )

    @property
    def database(self) -> PostgresDatabase:
        """The process's read-write pool on the deployment's schema (closed with the backend)."""
        assert self._writer is not None
        return self._writer.database

    def index_stamp(self, store: WorkspaceStoreProtocol) -> None:
        """Always ``None``: the follower keeps the one index current by itself."""

    def rest(self, store: WorkspaceStoreProtocol) -> None:
        """Nothing is kept open between questions: each takes a pooled connection."""

    def readiness(self) -> dict[str, str]:
        checks: dict[str, str] = {}
        checks_to_run: tuple[tuple[str, Callable[[], object]], ...] = (
            ("store", self.follower.store.count_facts),
            # A catch-up reads the change log: cheap when nothing changed, and it proves the
            # index applies what the database holds.
            ("index", self.follower.catch_up),
        )
        for name, check in checks_to_run:
            if checks and checks["store"] != "ok":
                # The database does not answer: the catch-up would wait for it once more.
                checks[name] = "not checked (the store failed)"
                continue
            try:
                check()
                checks[name] = "ok"
            except Exception as exc:  # any failure is "not ready", named
                checks[name] = f"failed: {type(exc).__name__}"
        return checks

    def decide(self, decision: Callable[[WorkspaceStoreProtocol], T]) -> T:
        assert self._writer is not None
        result = decision(self._writer)
        # The change log carries the decision to every replica; this one applies it now.
        self.follower.catch_up()
        return result

    def remove_document(self, doc_id: str, clearance: Sensitivity, audit: str) -> bool:
        """Retire a document the ``clearance`` covers (``False``: none such it may see), with
        an audit entry; this process's index drops it now, the others' through the log."""
        assert self._writer is not None
        record = self._writer.get_document(doc_id)
        if record is None or not clearance.allows(Sensitivity.parse(record.sensitivity)):
            return False
        removed = self._writer.remove_document(doc_id, audit=audit)
        self.follower.catch_up()
        return removed

    def submitted(self, batch: Path) -> None:
        # The job's rows hold the bytes now; the workers never read this folder.
        shutil.rmtree(batch, ignore_errors=True)

    def close(self) -> None:
        traces: BatchedTraceSink | None = getattr(self, "traces", None)
        if traces is not None:
            traces.close()
        follower: IndexFollower | None = getattr(self, "follower", None)
        if follower is not None:
            follower.stop()
            follower.close()
        for store in (self._store, self._writer):
            if store is not None:
                store.close()
        self._scratch.cleanup()


def _follower(
    store: PostgresWorkspaceStore, settings: ServiceSettings, scratch: Path
) -> IndexFollower:
    """This process's index: in ``--index-dir``, or a fresh folder of its own. Processes
    sharing an ``--index-dir`` (``--workers N``) each take the first ``process-N`` subfolder
    no other holds, so a restarted process resumes one instead of building from zero."""
    from ragspine.retrieval.follower import IndexFollower

    if settings.index_dir is None:
        return IndexFollower(store, scratch / "index")
    if settings.workers == 1:
        return IndexFollower(store, settings.index_dir)
    for number in range(1, settings.workers + 1):
        try:
            return IndexFollower(store, settings.index_dir / f"process-{number}")
        except StoreError:  # held by another worker process
            continue
    raise StoreError(f"every index folder under {settings.index_dir} is in use by another process")
