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

from ragspine.agent.agent import AgentResult, answer_question
from ragspine.agent.llm_provider import LLMProvider, MockProvider
from ragspine.observability.trace import TraceSink
from ragspine.profile.model import DomainProfile
from ragspine.profile.sensitivity import DEFAULT_CLEARANCE, Sensitivity
from ragspine.storage.fact_store import FactStore
from ragspine.workspace import Workspace


class RAGSpine:
    """Questions answered over one workspace; use :meth:`open` to build one."""

    def __init__(
        self,
        workspace: Workspace,
        store: FactStore,
        profile: DomainProfile,
        provider: LLMProvider,
        clearance: Sensitivity,
        trace_sink: TraceSink,
    ) -> None:
        self.workspace = workspace
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
    ) -> Self:
        """Open an existing workspace; it is never created here.

        Raises ``WorkspaceNotFoundError`` when the folder or its database is missing,
        ``ProfileError`` when the workspace's ``profile.toml`` is malformed and ``ValueError``
        for an unknown clearance. ``provider`` defaults to the offline ``MockProvider``.
        """
        level = Sensitivity.parse(clearance)
        ws = Workspace.open(workspace.root if isinstance(workspace, Workspace) else workspace)
        profile = ws.profile()
        store = ws.fact_store()
        return cls(ws, store, profile, provider or MockProvider(), level, ws.trace_sink())

    def ask(self, question: str, *, reference_date: date | None = None) -> AgentResult:
        """Answer one question; its privacy-aware trace is appended to the workspace."""
        return answer_question(
            question,
            self.store,
            self.provider,
            reference_date=reference_date,
            profile=self.profile,
            clearance=self.clearance,
            trace_sink=self._trace_sink,
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
