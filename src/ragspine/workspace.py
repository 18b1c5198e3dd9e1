"""A workspace: one folder holding a deployment's fact store, traces and optional profile.

Layout (embedded default):
    DIR/ragspine.db       SQLite: facts, document manifest, text blocks, review queue
    DIR/traces.jsonl      one privacy-aware trace event per request
    DIR/profile.toml      optional domain profile; the shipped example profile otherwise
    DIR/index/            derived search indexes, written by the writing commands only
    DIR/write.lock        held by the one process writing the workspace (ingest, review...)
    DIR/service.db        SQLite, the HTTP service's own: API key hashes and ingestion jobs
    DIR/uploads/          files uploaded for ingestion jobs, one folder per upload batch
    DIR/queues/           one lock file per live job queue, so a restart finds orphaned jobs

Opening a workspace that does not exist is an error: a silently created empty store would
answer every question with "not found". Readers open the store read-only; writers take
``write_lock`` first, so two of them never interleave their batches.
"""

from __future__ import annotations

import fcntl
import os
import shutil
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from ragspine.errors import UsageError, WorkspaceNotFoundError
from ragspine.observability.trace import JsonlTraceSink
from ragspine.profile.loader import load_profile
from ragspine.profile.model import DomainProfile
from ragspine.storage.ingest_schema import SCHEMA_VERSION as INGEST_SCHEMA
from ragspine.storage.ingest_store import SQLiteWorkspaceStore
from ragspine.storage.sqlite_store import SCHEMA_VERSION as FACT_SCHEMA

DB_NAME = "ragspine.db"
TRACE_NAME = "traces.jsonl"
PROFILE_NAME = "profile.toml"
LOCK_NAME = "write.lock"
# Apart from DB_NAME, so the service's tables never touch the ingest store's versioned schema.
SERVICE_DB_NAME = "service.db"
UPLOADS_NAME = "uploads"
QUEUES_NAME = "queues"
# The schema components a store must record to be a workspace (facts, then ingestion's tables).
_COMPONENTS = ("fact_metric", "ingest")
# The schema version of each component this version reads.
_NEEDED = {"fact_metric": FACT_SCHEMA, "ingest": INGEST_SCHEMA}


@dataclass(frozen=True)
class Workspace:
    root: Path

    def __post_init__(self) -> None:
        # Checked on construction, so a dry run refuses a file as early as `init` does.
        if self.root.exists() and not self.root.is_dir():
            raise UsageError(f"workspace {self.root} is a file, not a folder; give a folder path")

    @property
    def db_path(self) -> Path:
        return self.root / DB_NAME

    @property
    def trace_path(self) -> Path:
        return self.root / TRACE_NAME

    @property
    def service_db_path(self) -> Path:
        return self.root / SERVICE_DB_NAME

    @property
    def uploads_path(self) -> Path:
        return self.root / UPLOADS_NAME

    @property
    def profile_path(self) -> Path:
        return self.root / PROFILE_NAME

    @classmethod
    def open(cls, root: str | Path) -> Workspace:
        path = Path(root)
        workspace = cls(path)
        if not path.is_dir():
            raise WorkspaceNotFoundError(
                f"workspace {path} does not exist; "
                f"create it with `ragspine init --workspace {path}`"
            )
        if not (path / DB_NAME).is_file():
            raise WorkspaceNotFoundError(
                f"workspace {path} has no {DB_NAME}; "
                f"create it with `ragspine init --workspace {path}`"
            )
        return workspace

    @classmethod
    def create(cls, root: str | Path, on_wait: Callable[[], None] | None = None) -> Workspace:
        """Create the folder and an empty, initialised store (idempotent).

        The store is initialised under the write lock (``on_wait`` as for :meth:`write_lock`):
        another command may be writing an existing workspace, and its transactions can last
        longer than SQLite's busy timeout.
        """
        workspace = cls(Path(root))
        try:
            workspace.root.mkdir(parents=True, exist_ok=True)
        except (FileExistsError, NotADirectoryError):
            raise UsageError(
                f"cannot create workspace {workspace.root}: a file is in the way on its path"
            ) from None
        with workspace.write_lock(on_wait), SQLiteWorkspaceStore(workspace.db_path) as store:
            store.init_schema()
        return workspace

    def install_profile(self, source: str | Path) -> DomainProfile:
        """Validate ``source`` and make it this workspace's profile (a copy, so it cannot drift).

        The FAQ file it names by a relative path is copied too, to the same place relative to
        the workspace, so the copy still finds it; one named by an absolute path stays put.
        """
        profile = load_profile(source)
        self.profile_path.write_text(Path(source).read_text(encoding="utf-8"), encoding="utf-8")
        faq, named = profile.faq_path, profile.defaults.faq_file
        if faq is not None and named is not None and not Path(named).is_absolute():
            target = (self.root / named).resolve()
            inside = target.is_relative_to(self.root.resolve())
            if faq.is_file() and inside and target != faq.resolve():
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(faq, target)
        return profile

    def profile(self) -> DomainProfile:
        return load_profile(self.profile_path if self.profile_path.is_file() else None)

    def fact_store(self, *, read_only: bool = False) -> SQLiteWorkspaceStore:
        """The workspace's store (facts, manifest, text blocks, review queue), schema ensured.

        ``read_only`` opens it for questions: nothing is created or changed, and a file that
        holds no RAGSpine schema (a 0-byte ``ragspine.db``, say) is a
        ``WorkspaceNotFoundError``.
        """
        if not read_only:
            store = SQLiteWorkspaceStore(self.db_path)
            store.init_schema()
            return store
        store = SQLiteWorkspaceStore(self.db_path, read_only=True)
        if not set(_COMPONENTS) <= store.schema_components().keys():
            store.close()
            raise WorkspaceNotFoundError(
                f"{self.db_path} is not a RAGSpine workspace (it holds no RAGSpine tables); "
                f"create one with `ragspine init --workspace {self.root}` or ingest into it"
            )
        old = [
            f"{name} {have} (this version needs {_NEEDED[name]})"
            for name, have in store.schema_components().items()
            if name in _NEEDED and have < _NEEDED[name]
        ]
        if old:
            store.close()
            # Reading must not upgrade the file: any writing command (ingest) migrates it.
            raise UsageError(
                f"{self.db_path} was written by an older ragspine (schema {', '.join(old)}); "
                f"run `ragspine ingest` into it once to upgrade it"
            )
        return store

    @contextmanager
    def write_lock(self, on_wait: Callable[[], None] | None = None) -> Iterator[None]:
        """Hold the workspace's write lock for the block, waiting for another holder first.

        ``on_wait`` is called once if the lock is busy. The lock is an ``flock`` on
        ``write.lock``: the system releases it when its process ends, even on ``kill -9``.
        """
        fd = os.open(self.root / LOCK_NAME, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                if on_wait is not None:
                    on_wait()
                fcntl.flock(fd, fcntl.LOCK_EX)
            yield
        finally:
            os.close(fd)

    def trace_sink(self) -> JsonlTraceSink:
        return JsonlTraceSink(self.trace_path)
