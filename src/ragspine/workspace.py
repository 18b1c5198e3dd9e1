"""A workspace: one folder holding a deployment's fact store, traces and optional profile.

Layout (embedded default):
    DIR/ragspine.db       SQLite: facts, document manifest, text blocks, review queue
    DIR/traces.jsonl      one privacy-aware trace event per request
    DIR/profile.toml      optional domain profile; the shipped example profile otherwise

Opening a workspace that does not exist is an error: a silently created empty store would
answer every question with "not found".
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ragspine.errors import UsageError, WorkspaceNotFoundError
from ragspine.observability.trace import JsonlTraceSink
from ragspine.profile.loader import load_profile
from ragspine.profile.model import DomainProfile
from ragspine.storage.ingest_store import SQLiteWorkspaceStore

DB_NAME = "ragspine.db"
TRACE_NAME = "traces.jsonl"
PROFILE_NAME = "profile.toml"


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
    def create(cls, root: str | Path) -> Workspace:
        """Create the folder and an empty, initialised store (idempotent)."""
        workspace = cls(Path(root))
        try:
            workspace.root.mkdir(parents=True, exist_ok=True)
        except (FileExistsError, NotADirectoryError):
            raise UsageError(
                f"cannot create workspace {workspace.root}: a file is in the way on its path"
            ) from None
        with SQLiteWorkspaceStore(workspace.db_path) as store:
            store.init_schema()
        return workspace

    def install_profile(self, source: str | Path) -> DomainProfile:
        """Validate ``source`` and make it this workspace's profile (a copy, so it cannot drift)."""
        profile = load_profile(source)
        self.profile_path.write_text(Path(source).read_text(encoding="utf-8"), encoding="utf-8")
        return profile

    def profile(self) -> DomainProfile:
        return load_profile(self.profile_path if self.profile_path.is_file() else None)

    def fact_store(self) -> SQLiteWorkspaceStore:
        """The workspace's store (facts, manifest, text blocks, review queue), schema ensured."""
        store = SQLiteWorkspaceStore(self.db_path)
        store.init_schema()
        return store

    def trace_sink(self) -> JsonlTraceSink:
        return JsonlTraceSink(self.trace_path)
