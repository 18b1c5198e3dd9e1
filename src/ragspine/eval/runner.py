"""Running the golden set: ask every case against a workspace and score the answers.

``run_golden_eval`` takes the asking as a callable, so the same set runs against any workspace
and provider; ``ask_with`` builds that callable for a workspace folder, opening it once per
clearance level the cases need. The folder holds the demo corpus; a case over another corpus
(``demo.corpora``) is asked in a workspace built for that corpus in a temporary folder the
first time a case needs it, and kept for the rest of the run. ``ServerAsker`` asks the demo
corpus's cases over a PostgreSQL schema instead. ``run_splits`` scores the shipped splits.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Iterable
from pathlib import Path
from types import TracebackType
from typing import Self

from ragspine.agent.types import AgentResult
from ragspine.demo.corpora import Corpus, build_corpus_workspace
from ragspine.errors import UsageError
from ragspine.eval.cases import GoldenCase, Split, load_golden
from ragspine.eval.oracle import Oracle
from ragspine.eval.report import EvalRun, GoldenReport, build_report
from ragspine.eval.scoring import NARRATIVE_K, score_case
from ragspine.facade import RAGSpine, ServerRAGSpine
from ragspine.llm.protocol import LLMProvider
from ragspine.profile.loader import load_profile
from ragspine.profile.model import DomainProfile
from ragspine.profile.sensitivity import Sensitivity
from ragspine.storage.facts import DEFAULT_CHANNEL
from ragspine.workspace import Workspace

Asker = Callable[[GoldenCase], AgentResult]


def run_golden_eval(
    ask: Asker,
    cases: Iterable[GoldenCase],
    *,
    k: int = NARRATIVE_K,
    default_channel: str | None = None,
) -> GoldenReport:
    """Ask every case (known issues included) and score the answers; see ``scoring``.

    ``default_channel`` is the profile's (what a question naming no channel asks for); by
    default the asker's, when it knows one. Numbers are judged against the ground truth of
    each case's corpus (``eval.oracle``), read with the asker's profile when it has one.
    """
    if k < 1:
        raise UsageError(f"k must be at least 1, got {k}")
    known = getattr(ask, "default_channel", None)
    channel = default_channel or (known if isinstance(known, str) else DEFAULT_CHANNEL)
    profile = getattr(ask, "profile", None)
    if not isinstance(profile, DomainProfile):
        profile = load_profile()
    oracle = Oracle(profile, channel)
    scores = []
    for case in cases:
        result = ask(case)
        scores.append(score_case(case, result, k=k, default_channel=channel, oracle=oracle))
    if not scores:
        raise UsageError("no golden cases to evaluate")
    return build_report(scores, k=k)


class WorkspaceAsker:
    """Asks each case against its corpus's workspace, opened once per clearance level needed.

    ``workspace`` holds the demo corpus; the workspace of another corpus is built in a
    temporary folder when a case first needs it. Use as a context manager (or call ``close``)
    so the stores are closed and the temporary workspaces removed.
    """

    def __init__(self, workspace: str | Path, provider: LLMProvider | None = None) -> None:
        self._workspace = Path(workspace)
        self._provider = provider
        self._workspaces = {Corpus.DEMO: self._workspace}
        self._scratch: tempfile.TemporaryDirectory[str] | None = None
        self._open: dict[tuple[Corpus, Sensitivity], RAGSpine | ServerRAGSpine] = {}

    @property
    def profile(self) -> DomainProfile:
        """The workspace's profile (its aliases read a narrative sentence's key)."""
        return Workspace.open(self._workspace).profile()

    @property
    def default_channel(self) -> str:
        """The workspace profile's default channel (what a question naming none asks for)."""
        return self.profile.defaults.channel

    def __call__(self, case: GoldenCase) -> AgentResult:
        return self._rag(case).ask(
            case.question, reference_date=case.reference_date, previous=case.previous
        )

    def _rag(self, case: GoldenCase) -> RAGSpine | ServerRAGSpine:
        return self.engine(case.corpus, case.clearance)

    def engine(self, corpus: Corpus, clearance: Sensitivity) -> RAGSpine | ServerRAGSpine:
        """The engine over ``corpus``'s workspace at ``clearance``, opened on first use."""
        key = (corpus, clearance)
        rag = self._open.get(key)
        if rag is None:
            rag = self._open_rag(corpus, clearance)
            self._open[key] = rag
        return rag

    def _open_rag(self, corpus: Corpus, clearance: Sensitivity) -> RAGSpine | ServerRAGSpine:
        workspace = self._workspace_for(corpus)
        return RAGSpine.open(workspace, provider=self._provider, clearance=clearance)

    def _workspace_for(self, corpus: Corpus) -> Path:
        workspace = self._workspaces.get(corpus)
        if workspace is None:
            if self._scratch is None:
                self._scratch = tempfile.TemporaryDirectory(prefix="ragspine-eval-")
            workspace = build_corpus_workspace(corpus, Path(self._scratch.name) / corpus.value).root
            self._workspaces[corpus] = workspace
        return workspace

    def close(self) -> None:
        for rag in self._open.values():
            rag.close()
        self._open.clear()
        if self._scratch is not None:
            self._scratch.cleanup()
            self._scratch = None
            self._workspaces = {Corpus.DEMO: self._workspace}

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()


class ServerAsker(WorkspaceAsker):
    """A ``WorkspaceAsker`` whose demo-corpus cases are asked over a PostgreSQL schema that
    holds the demo corpus (cases over another corpus still get a temporary workspace).

    Each clearance level opens its own facade, with its own followed index in a subfolder
    of ``index_dir`` (temporary folders without it): one index folder serves one follower.
    """

    def __init__(
        self,
        database_url: str,
        *,
        schema: str,
        index_dir: Path | None = None,
        provider: LLMProvider | None = None,
    ) -> None:
        # The demo entry is never opened as a workspace: _open_rag answers it from PostgreSQL.
        super().__init__(Path(), provider)
        self._url = database_url
        self._schema = schema
        self._index_dir = index_dir

    @property
    def profile(self) -> DomainProfile:
        return load_profile()

    @property
    def default_channel(self) -> str:
        return self.profile.defaults.channel

    def _open_rag(self, corpus: Corpus, clearance: Sensitivity) -> RAGSpine | ServerRAGSpine:
        if corpus is not Corpus.DEMO:
            return super()._open_rag(corpus, clearance)
        folder = self._index_dir / clearance.value.lower() if self._index_dir else None
        return RAGSpine.open_server(
            self._url,
            schema=self._schema,
            index_dir=folder,
            provider=self._provider,
            clearance=clearance,
            read_only=True,
        )


def ask_with(workspace: str | Path, provider: LLMProvider | None = None) -> WorkspaceAsker:
    """An ``Asker`` for ``run_golden_eval`` over ``workspace``; ``provider`` defaults to the mock.

    Each case is asked with its own reference date and clearance.
    """
    return WorkspaceAsker(workspace, provider)


def run_splits(
    ask: Asker, splits: Iterable[Split] = tuple(Split), *, k: int = NARRATIVE_K
) -> EvalRun:
    """Score each shipped split with the same asker; the reports stay apart."""
    return EvalRun(
        {split.value: run_golden_eval(ask, load_golden(split=split), k=k) for split in splits}
    )
