"""Draft a domain profile from a company's own documents (``ragspine profile suggest``).

``suggest_profile(paths)`` reads the documents with the ingestion readers, proposes the
company, its units, metrics (with kinds and currencies from the unit markers), channels and
fiscal year end, and returns commented TOML that the profile loader accepts as it is.
"""

from __future__ import annotations

import tomllib
from collections.abc import Sequence
from pathlib import Path

from pydantic import ValidationError

from ragspine.errors import UsageError
from ragspine.ingestion.suggest.draft import Draft, build_draft
from ragspine.ingestion.suggest.observe import observe
from ragspine.ingestion.suggest.render import render
from ragspine.profile.model import DomainProfile
from ragspine.units import is_currency

__all__ = ["Draft", "draft_profile", "suggest_profile"]


def draft_profile(
    paths: Sequence[Path], *, company: str | None = None, currency: str | None = None
) -> Draft:
    if currency is not None and not is_currency(currency):
        raise UsageError(f"--currency {currency!r} is not an ISO 4217 code (e.g. USD, HKD, CNY)")
    found = observe(paths)
    if not found.docs:
        raise UsageError("no document could be read: nothing to draft a profile from")
    return build_draft(found, company, currency)


def suggest_profile(
    paths: Sequence[Path], *, company: str | None = None, currency: str | None = None
) -> tuple[str, Draft]:
    """The draft's TOML text (checked to load as a profile) and the draft itself."""
    draft = draft_profile(paths, company=company, currency=currency)
    text = render(draft)
    try:
        DomainProfile.model_validate(tomllib.loads(text))
    except (ValidationError, tomllib.TOMLDecodeError) as exc:  # a bug here, never the user's
        raise AssertionError(f"the drafted profile does not load: {exc}") from exc
    return text, draft
