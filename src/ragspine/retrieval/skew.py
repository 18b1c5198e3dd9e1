"""When the search index and a question's read snapshot hold different versions of a document.

A question reads its facts and passages in one read transaction of the store, but the search
index is not in that transaction: a replica's index follows the database's change log
(``follower.py``) and can move past the snapshot while the question runs — a re-ingest that
commits after the question read its facts is applied before the question searches. The
retriever then finds passages ranked by text the snapshot does not hold; it leaves them out
(``retriever.same_content``), and the answer would show the old figures without their
passages: neither version's answer.

A caller that can start the question again in a fresh snapshot runs it through
:func:`in_one_version`: inside, the retriever raises :class:`IndexSkew` instead of leaving
those passages out, and the question runs once more in a new snapshot (the index has caught up
by then). The last of :data:`ATTEMPTS` leaves them out, as a caller outside it always does.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from contextlib import AbstractContextManager, contextmanager
from contextvars import ContextVar
from typing import TypeVar

T = TypeVar("T")

# How many snapshots a question may take while the index keeps moving past them.
ATTEMPTS = 3

_RETRYING: ContextVar[bool] = ContextVar("ragspine_retrying_on_skew", default=False)


class IndexSkew(Exception):
    """The index ranked a version of these documents that the read snapshot does not hold."""

    def __init__(self, doc_ids: Iterable[str]) -> None:
        self.doc_ids = tuple(sorted(set(doc_ids)))
        super().__init__(f"the search index and the read snapshot differ on {self.doc_ids}")


@contextmanager
def retrying_on_skew(enabled: bool = True) -> Iterator[None]:
    """Within the block, a skewed retrieval raises :class:`IndexSkew` (when ``enabled``)."""
    token = _RETRYING.set(enabled)
    try:
        yield
    finally:
        _RETRYING.reset(token)


def report_skew(doc_ids: Iterable[str]) -> None:
    """Called by the retriever with the documents whose indexed version the snapshot lacks:
    raises :class:`IndexSkew` when the caller retries, else returns (they are left out)."""
    skewed = tuple(doc_ids)
    if skewed and _RETRYING.get():
        raise IndexSkew(skewed)


def in_one_version(
    snapshot: Callable[[], AbstractContextManager[object]], work: Callable[[], T]
) -> T:
    """``work()`` inside ``snapshot()``, started again in a fresh snapshot when the index
    ranked versions the snapshot does not hold (up to :data:`ATTEMPTS` times)."""
    # The flag is set here rather than with ``retrying_on_skew``: a question's every call
    # counts in the service, and a generator-based context manager is several.
    token = _RETRYING.set(True)
    try:
        for _ in range(1, ATTEMPTS):
            try:
                with snapshot():
                    return work()
            except IndexSkew:
                continue
    finally:
        _RETRYING.reset(token)
    with snapshot(), retrying_on_skew(False):
        return work()
