"""Questions answered for HTTP callers: the FAQ short-circuit first, then the agent, on a small
pool of threads that each keep their own read-only engine per clearance level — or, when a
question needs no I/O at all (``Answerer.inline``), on the event loop's own thread.

Each pool thread opens its own engine from the :class:`~ragspine.service.backends.Backend`
the first time it answers for a level, and keeps it. Over a workspace that is a ``RAGSpine``
(so its own SQLite connection, WAL mode): no connection is shared between threads and none is
opened per request. Over PostgreSQL the engines share the process's pooled store and followed
index, which keeps itself current. Facts are read live from the store, so an ingest's commit is
seen by the next question; a workspace's search index is reopened when the writer's last commit
of it or the store's documents changed (a stat of its metadata file and the store's document
versions, per question), so a re-ingest needs no restart. A question runs in one read
transaction of the store, the freshness check included, so all its facts and passages are of one
commit: between an ingest's commit and its index refresh the passages come from an in-memory
copy of the store's (``retriever.open_retriever``), and an answer is the old or the new
version's, never a mix or the new figures without the new passages.

Why answer on the event loop: over a workspace, with the offline provider and neither dense
retrieval nor reranking, a question is a few hundred microseconds of pure Python. Handing it
to a pool thread and back costs more than that (two thread switches, each waiting for the GIL
held by the loop), and a thread buys no parallelism for work that holds the GIL throughout.
Where a question waits on something — a model, PostgreSQL, an embedding — the pool keeps the
loop free meanwhile.
"""

from __future__ import annotations

import asyncio
import gc
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import date
from typing import TypeVar

from ragspine.agent.agent import FIRST_REFERENCE_DATE, LAST_REFERENCE_DATE
from ragspine.agent.response import ClarificationOut, SourceRef, as_model
from ragspine.agent.types import AgentResult, AnswerKind, ClarifyMode
from ragspine.errors import UsageError
from ragspine.llm.mock import MockProvider
from ragspine.llm.protocol import LLMProvider
from ragspine.profile.sensitivity import Sensitivity
from ragspine.retrieval.skew import in_one_version
from ragspine.service.backends import Backend, Engine
from ragspine.service.faq.faq_cache import FaqHit, FaqLookup
from ragspine.service.http.chat_history import usable_previous
from ragspine.service.http.schemas import NO_CACHE, CacheInfo, ServiceAskResponse
from ragspine.service.keys.store import Caller
from ragspine.service.settings import ServiceSettings

T = TypeVar("T")

# A FAQ hit's route: the vetted answer served at the edge, before the agent's own routes.
FAQ_ROUTE = "faq"
# How often idle engines are told to end what they keep open (``Backend.rest``).
REST_SECONDS = 1.0


@dataclass
class _Opened:
    rag: Engine
    index_stamp: object
    profile_generation: int = 0


class Answerer:
    """Answers questions and runs store reads off the event loop, one engine per
    (thread, clearance level)."""

    def __init__(
        self,
        settings: ServiceSettings,
        provider: LLMProvider,
        faq: FaqLookup | None,
        backend: Backend,
    ) -> None:
        self._settings = settings
        self.backend = backend
        self._provider = provider
        self._faq = faq
        self._local = threading.local()
        self._all: list[Engine] = []
        self._lock = threading.Lock()
        self._pool = ThreadPoolExecutor(
            max_workers=settings.ask_threads, thread_name_prefix="ragspine-ask"
        )
        # Work submitted and not yet finished, bounded so a burst is refused at once (503)
        # instead of queueing without limit while every client times out.
        self._pending = 0
        self._pending_lock = threading.Lock()
        # Bumped when the profile changes (a label mapped): each thread opens new engines.
        self._profile_generation = 0
        self.inline = (
            settings.ask_inline and backend.cpu_only and isinstance(provider, MockProvider)
        )
        # Every second, what an idle engine's store keeps open between questions is ended.
        self._closing = threading.Event()
        self._rester = threading.Thread(target=self._rest, name="ragspine-rest", daemon=True)
        self._rester.start()

    async def run(self, func: Callable[[], T]) -> T:
        """Run ``func`` on the pool (blocking store or agent work) and await its result.

        Raises :class:`Overloaded` when ``settings.max_pending`` calls are already waiting or
        running in this process."""
        with self._pending_lock:
            if self._pending >= self._settings.max_pending:
                raise Overloaded(self._pending)
            self._pending += 1
        try:
            future = self._pool.submit(func)
        except BaseException:
            self._done()
            raise
        future.add_done_callback(lambda _: self._done())
        return await asyncio.wrap_future(future)

    async def answer_now(
        self,
        question: str,
        caller: Caller,
        *,
        reference_date: date | None,
        request_id: str,
        previous: Sequence[str] = (),
    ) -> ServiceAskResponse:
        """:meth:`answer`, on the event loop when the question needs no I/O (:attr:`inline`),
        else on the pool (:meth:`run`)."""

        def work() -> ServiceAskResponse:
            return self.answer(
                question,
                caller,
                reference_date=reference_date,
                request_id=request_id,
                previous=previous,
            )

        return work() if self.inline else await self.run(work)

    def _done(self) -> None:
        with self._pending_lock:
            self._pending -= 1

    def answer(
        self,
        question: str,
        caller: Caller,
        *,
        reference_date: date | None,
        request_id: str,
        previous: Sequence[str] = (),
    ) -> ServiceAskResponse:
        """The answer for ``caller``: a vetted FAQ item when one matches, else the agent's.

        ``previous`` are the conversation's earlier user questions (``chat_history``); a FAQ
        item never matches a follow-up, which names a slot or asks for a figure.

        Raises ``UsageError`` for an empty or over-long question and an unsupported date.
        """
        check_question(question, self._settings.max_question_chars)
        check_reference_date(reference_date)
        # Today read once: the FAQ's validity and the agent's relative periods agree on it.
        day = reference_date or date.today()
        if self._faq is not None:
            hit = self._faq.lookup(question, clearance=caller.clearance, today=day)
            if hit is not None:
                return faq_response(hit, request_id)
        entry = self._opened(caller.clearance)
        rag = entry.rag
        earlier = usable_previous(previous, self._settings.max_question_chars)
        # One read transaction for the whole question, the index's freshness checked in it:
        # every fact and passage it reads is of the same commit, so a re-ingest landing
        # meanwhile is not half seen. A followed index can still move past the snapshot while
        # the question runs; the question then starts again in a fresh one (``skew.py``).

        def ask() -> AgentResult:
            self._follow(entry)
            return rag.ask(question, reference_date=day, request_id=request_id, previous=earlier)

        result = in_one_version(rag.store.snapshot, ask)
        return as_model(ServiceAskResponse, result, rag.profile, cache=NO_CACHE)

    def engine_for(self, clearance: Sensitivity) -> Engine:
        """This thread's read-only engine for ``clearance``, its search index reopened when
        the backend says a writer has committed a newer one. Call on a pool thread (see
        :meth:`run`)."""
        entry = self._opened(clearance)
        self._follow(entry)
        return entry.rag

    def _opened(self, clearance: Sensitivity) -> _Opened:
        opened: dict[Sensitivity, _Opened] = self._local.__dict__.setdefault("opened", {})
        entry = opened.get(clearance)
        if entry is None or entry.profile_generation != self._profile_generation:
            rag = self.backend.open(clearance, self._provider)
            settle_heap()
            with self._lock:
                self._all.append(rag)
            entry = opened[clearance] = _Opened(
                rag, self.backend.index_stamp(rag.store), self._profile_generation
            )
        return entry

    def profile_changed(self) -> None:
        """The backend's profile was replaced: every thread opens engines reading it."""
        self._profile_generation += 1

    def _follow(self, entry: _Opened) -> None:
        """Reopen the engine's search index when the backend's stamp moved."""
        stamp = self.backend.index_stamp(entry.rag.store)
        if entry.index_stamp != stamp:
            entry.rag.retriever.reset()
            entry.index_stamp = stamp

    def _rest(self) -> None:
        while not self._closing.wait(REST_SECONDS):
            with self._lock:
                engines = list(self._all)
            for rag in engines:
                self.backend.rest(rag.store)

    def close(self) -> None:
        """Wait for running questions, then close every thread's engine (not the backend)."""
        self._closing.set()
        self._rester.join()
        self._pool.shutdown(wait=True)
        with self._lock:
            for rag in self._all:
                rag.close()
            self._all.clear()


def settle_heap(*, collect: bool = False) -> None:
    """Leave what exists now — modules, the profile and its matchers, an engine just opened —
    out of the garbage collector's full passes (``gc.freeze``), after collecting first when
    ``collect``. Those objects live as long as the process, yet each full pass walked all of
    them: over the demo workspace a pass took up to 100 ms, a pause every few thousand
    questions that set the service's p99."""
    if collect:
        gc.collect()
    gc.freeze()


class Overloaded(Exception):
    """More work is waiting in this process than ``max_pending`` allows (answered 503 with
    ``Retry-After``)."""

    def __init__(self, pending: int) -> None:
        super().__init__(f"the service is busy ({pending} requests in progress); retry shortly")


def check_question(question: str, limit: int) -> None:
    if not question.strip():
        raise UsageError("the question is empty: ask about a metric, an entity or a period")
    if len(question) > limit:
        raise UsageError(
            f"the question is {len(question):,} characters long; the limit is {limit:,}"
        )
    if not question.isascii():
        try:
            question.encode("utf-8")
        except UnicodeEncodeError:
            # Lone surrogates: JSON's "\ud800" escapes (or raw bytes Python's JSON decoder
            # lets through) that no text is made of and nothing downstream can encode.
            raise UsageError(
                "the question holds invalid characters (unpaired surrogates); send UTF-8 text"
            ) from None


def check_reference_date(day: date | None) -> None:
    if day is not None and not FIRST_REFERENCE_DATE <= day <= LAST_REFERENCE_DATE:
        raise UsageError(
            f"reference_date {day.isoformat()} is out of range; use a date from "
            f"{FIRST_REFERENCE_DATE.isoformat()} to {LAST_REFERENCE_DATE.isoformat()}"
        )


def faq_response(hit: FaqHit, request_id: str) -> ServiceAskResponse:
    """A vetted FAQ answer in the ``/v1/ask`` shape: its own source, the cache block filled."""
    return ServiceAskResponse(
        answer=hit.answer,
        route=FAQ_ROUTE,
        # A vetted answer states what it states: found, in the agent's vocabulary.
        answer_kind=AnswerKind.FOUND.value,
        clarification=ClarificationOut(mode=ClarifyMode.NONE.value),
        sources=[SourceRef(doc=hit.doc, locator=hit.locator)],
        request_id=request_id,
        cache=CacheInfo(hit=True, faq_id=hit.faq_id, version=hit.version),
    )


def paragraphs(answer: str) -> list[str]:
    """The answer cut at its blank lines; joining them with a blank line gives it back."""
    return answer.split("\n\n")
