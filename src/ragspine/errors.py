"""The project's exception hierarchy and how each error maps to a CLI exit code and HTTP status.

One table (``ERROR_MAP``) is the single place where an error class meets the outside world, so
the CLI and the HTTP service cannot disagree about what a failure means; ``withheld`` is how
a log shows a failure whose message may quote its input.
"""

from __future__ import annotations

import traceback
from dataclasses import dataclass


class RagSpineError(Exception):
    """Root of every error RAGSpine raises on purpose."""


class ProfileError(RagSpineError):
    """The domain profile is missing or malformed (the message names file, key and reason)."""


class StoreError(RagSpineError):
    """A fact store could not be opened or written."""


class UnavailableError(StoreError):
    """Something the request needs (the ingestion queue) does not answer now; nothing was
    done, and the same request may succeed later. Its message is written for the caller."""


class SchemaVersionError(StoreError):
    """A database's schema is at another version than this ragspine's (upgrade one of them)."""


class WorkspaceNotFoundError(RagSpineError):
    """A workspace or database that must already exist does not."""


class IngestError(RagSpineError):
    """A document could not be ingested (the message names the file and the reason)."""


class ProviderError(RagSpineError):
    """An LLM provider failed for a network, API or timeout reason (never a program error)."""


class ReviewError(RagSpineError):
    """A review decision cannot be applied (unknown item, already decided the other way...)."""


class UsageError(RagSpineError):
    """The caller asked for something malformed (bad option, bad date, bad value)."""


@dataclass(frozen=True)
class ErrorMapping:
    exit_code: int
    http_status: int
    type: str


ERROR_MAP: dict[type[RagSpineError], ErrorMapping] = {
    ProfileError: ErrorMapping(exit_code=2, http_status=500, type="profile_error"),
    StoreError: ErrorMapping(exit_code=1, http_status=503, type="store_error"),
    UnavailableError: ErrorMapping(exit_code=1, http_status=503, type="unavailable"),
    WorkspaceNotFoundError: ErrorMapping(exit_code=2, http_status=404, type="not_found"),
    IngestError: ErrorMapping(exit_code=1, http_status=422, type="ingest_error"),
    ProviderError: ErrorMapping(exit_code=1, http_status=502, type="provider_error"),
    ReviewError: ErrorMapping(exit_code=2, http_status=409, type="review_conflict"),
    UsageError: ErrorMapping(exit_code=2, http_status=400, type="bad_request"),
}


def mapping_for(error: RagSpineError) -> ErrorMapping:
    """Return the mapping of the nearest registered class in ``error``'s MRO."""
    for cls in type(error).__mro__:
        if cls in ERROR_MAP:
            return ERROR_MAP[cls]
    return ErrorMapping(exit_code=1, http_status=500, type="internal_error")


def withheld(exc: BaseException) -> str:
    """A failure as the error log shows it: the class and frames of the exception and of what
    caused it, without their messages. A message may quote the question or a stored value (a
    bug's ``ValueError(f"cannot parse {text!r}")``); where it was raised is enough to find it,
    and the request id ties it to the access log."""
    parts: list[str] = []
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        frames = "".join(traceback.format_list(traceback.extract_tb(current.__traceback__)))
        parts.append(f"{type(current).__qualname__} (message withheld)\n{frames}")
        current = current.__cause__ or current.__context__
    return "\ncaused by ".join(parts).rstrip()
