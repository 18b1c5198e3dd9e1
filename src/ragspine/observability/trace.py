"""Privacy-aware request traces: one structured event per request, codes and counts only.

An event never holds the question, the answer, a fact value or chunk text — only the route,
controlled codes, counts, timings and guard flags (docs/architecture.md, invariant 5).
``TRACE_FIELDS`` is the exact schema; a test pins it so a new field is a deliberate, reviewed
change.
"""

from __future__ import annotations

import atexit
import collections
import itertools
import json
import logging
import os
import secrets
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

_LOG = logging.getLogger("ragspine.service")

TRACE_FIELDS = (
    "event",
    "request_id",
    "ts",
    "duration_ms",
    "language",
    "route",
    "clarification_mode",
    "clarification_reason",
    "answer_kind",
    "metric_codes",
    "entity_codes",
    "period_labels",
    "channel_codes",
    "assumed_slots",
    "inherited_slots",
    "subtasks",
    "llm_calls",
    "tool_calls",
    "tool_statuses",
    "fabrication_guard_triggered",
    "guard_override",
    "guard_override_reason",
    "model_text_discarded",
    "provider_error",
    "security_refused",
    "chunk_ids",
    "numbers_stripped",
    "facts_contradicted",
    "citations_appended",
    "sources_count",
)


# One encoder for every line: ``json.dumps`` with options builds a new encoder per call, which
# cost a quarter of a trace line's encoding.
_ENCODE = json.JSONEncoder(ensure_ascii=False, sort_keys=True).encode


def trace_line(event: Mapping[str, object]) -> str:
    """``event`` as its JSONL line: keys sorted, text as it is (not escaped), a newline."""
    return _ENCODE(event) + "\n"


class TraceSink(Protocol):
    def emit(self, event: Mapping[str, object]) -> None: ...


class NullTraceSink:
    def emit(self, event: Mapping[str, object]) -> None:
        del event


class MemoryTraceSink:
    """Keeps events in a list (tests, the CLI's --json output)."""

    def __init__(self) -> None:
        self.events: list[dict[str, object]] = []

    def emit(self, event: Mapping[str, object]) -> None:
        self.events.append(dict(event))


class JsonlTraceSink:
    """Appends one JSON object per line; safe to share between threads and processes.

    Each line is one ``write`` on a descriptor opened with ``O_APPEND``, so lines from
    concurrent ``ask`` processes land whole, one after another, never interleaved.
    """

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()

    def emit(self, event: Mapping[str, object]) -> None:
        line = trace_line(event)
        with self._lock:
            fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
            try:
                os.write(fd, line.encode("utf-8"))
            finally:
                os.close(fd)


class BatchedTraceSink:
    """Appends events like :class:`JsonlTraceSink`, from a writer thread, in batches.

    ``emit`` only queues the event (a ``deque.append``, safe from any thread); the writer
    turns what is queued into lines and appends them with one ``O_APPEND`` write every
    ``interval`` seconds, or sooner once ``batch`` events wait. ``close`` writes what is left
    before it returns (the service closes its sink on shutdown, and ``atexit`` covers a clean
    interpreter exit); a crash loses at most the events of the last ``interval``. One write
    holds whole lines, so lines of concurrent processes still never interleave.

    The service answers many questions a second: an open, a write and a close each (three
    system calls) and the JSON encoding cost about a tenth of a structured answer's time
    there.
    """

    def __init__(self, path: str | Path, *, interval: float = 0.25, batch: int = 512) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._interval = interval
        self._batch = batch
        self._queued: collections.deque[Mapping[str, object]] = collections.deque()
        self._wake = threading.Event()
        self._closed = False
        self._write_lock = threading.Lock()
        self._thread = threading.Thread(
            target=self._run, name=f"ragspine-trace-{self.path.name}", daemon=True
        )
        self._thread.start()
        atexit.register(self.close)

    def emit(self, event: Mapping[str, object]) -> None:
        if self._closed:  # a straggler after shutdown: written at once, never dropped
            self._write([event])
            return
        self._queued.append(event)
        if len(self._queued) >= self._batch:
            self._wake.set()

    def flush(self) -> None:
        """Write every event queued so far, now, from the calling thread."""
        events = []
        while self._queued:
            events.append(self._queued.popleft())
        self._write(events)

    def _run(self) -> None:
        while not self._closed:
            self._wake.wait(self._interval)
            self._wake.clear()
            try:
                self.flush()
            except (OSError, TypeError, ValueError) as exc:
                # The trace file cannot be written (a folder, a full disk) or an event is not
                # JSON: say so and go on; a request never fails for its trace.
                _LOG.error("cannot append traces to %s: %s; those lines are lost", self.path, exc)

    def _write(self, events: list[Mapping[str, object]]) -> None:
        if not events:
            return
        text = "".join(map(trace_line, events))
        with self._write_lock:
            fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
            try:
                data = memoryview(text.encode("utf-8"))
                while data:  # a regular file takes it whole, short of a full disk
                    data = data[os.write(fd, data) :]
            finally:
                os.close(fd)

    def close(self) -> None:
        """Stop the writer and write what is still queued (idempotent)."""
        if self._closed:
            return
        self._closed = True
        self._wake.set()
        if self._thread is not threading.current_thread():
            self._thread.join()
        self.flush()
        atexit.unregister(self.close)


@dataclass
class RequestTrace:
    """Mutable collector for one request; ``to_event`` freezes it into the schema above."""

    request_id: str
    language: str = ""
    route: str = ""
    clarification_mode: str = ""
    clarification_reason: str = ""
    answer_kind: str = ""
    metric_codes: list[str] = field(default_factory=list)
    entity_codes: list[str] = field(default_factory=list)
    period_labels: list[str] = field(default_factory=list)
    channel_codes: list[str] = field(default_factory=list)
    assumed_slots: list[str] = field(default_factory=list)
    # The slots a follow-up took from the conversation's previous questions.
    inherited_slots: list[str] = field(default_factory=list)
    subtasks: int = 0
    llm_calls: int = 0
    tool_calls: int = 0
    tool_statuses: dict[str, int] = field(default_factory=dict)
    fabrication_guard_triggered: bool = False
    guard_override: bool = False
    guard_override_reason: str = ""
    model_text_discarded: bool = False
    provider_error: bool = False
    security_refused: bool = False
    chunk_ids: list[str] = field(default_factory=list)
    numbers_stripped: int = 0
    # Narrative sentences dropped for stating a value the fact table holds differently.
    facts_contradicted: int = 0
    citations_appended: int = 0
    sources_count: int = 0
    started: float = field(default_factory=time.perf_counter)

    def count_status(self, status: str) -> None:
        self.tool_statuses[status] = self.tool_statuses.get(status, 0) + 1

    def to_event(self) -> dict[str, object]:
        event: dict[str, object] = {
            "event": "ragspine.request",
            "request_id": self.request_id,
            "ts": _timestamp(),
            "duration_ms": round((time.perf_counter() - self.started) * 1000, 3),
        }
        # The instance's fields in declaration order, which is the schema's (a test pins both);
        # a key already present keeps its place.
        event.update(self.__dict__)
        del event["started"]
        return event


def new_request_id() -> str:
    """32 hex digits naming one request: 16 random to this process (drawn again in a forked
    child), then a counter. Unique without a system call per question (``secrets.token_hex``
    asked the kernel each time); an id names a request in traces and logs, it grants nothing."""
    return f"{_id_prefix}{next(_id_counter):016x}"


def _new_id_prefix() -> None:
    global _id_prefix, _id_counter  # per process: set at import and after a fork
    _id_prefix = secrets.token_hex(8)
    _id_counter = itertools.count()


_id_prefix = ""
_id_counter = itertools.count()
_new_id_prefix()
os.register_at_fork(after_in_child=_new_id_prefix)


def _timestamp() -> str:
    """Now in UTC as ISO 8601 with milliseconds, as ``datetime.isoformat`` writes it; the part
    up to the second is formatted once per second (it was 2% of a structured answer)."""
    global _second  # a one-entry cache of the formatted second
    now = time.time()
    whole = int(now)
    if _second[0] != whole:
        _second = (whole, time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(whole)))
    return f"{_second[1]}.{int((now - whole) * 1000):03d}+00:00"


_second: tuple[int, str] = (-1, "")
