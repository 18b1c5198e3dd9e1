"""Conflicts between a document's facts and what it, or another document already stored,
states for the same key, resolved per the writer's clearance.

Visible content always beats hidden content (read only with ``include_hidden``): a figure
read from a hidden cell is set aside when a visible statement of its key says otherwise, and a
visible figure is never held back by one another document read from hidden content."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace

from ragspine.ingestion.model import read_from_hidden
from ragspine.ingestion.tables import CandidateFact, ReviewCandidate, ReviewReason
from ragspine.profile.sensitivity import Sensitivity
from ragspine.storage.facts import Fact
from ragspine.storage.protocol import WorkspaceStoreProtocol


def _same(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-9)


@dataclass(frozen=True)
class Conflict:
    candidate: ReviewCandidate
    mentions: Sensitivity  # the level of the statement it conflicts with
    # With a fact above the writer's clearance: the writer is told nothing of it.
    above: bool = False
    # The candidate was stored all the same (a ``clearance_conflict``).
    stored: bool = False


def set_aside_hidden(
    own: set[str],
    candidates: list[CandidateFact],
    store: WorkspaceStoreProtocol,
    clearance: Sensitivity = Sensitivity.RESTRICTED,
) -> tuple[list[CandidateFact], list[CandidateFact]]:
    """The candidates to check, visible ones first, and the hidden ones set aside.

    A candidate read from hidden content whose key a visible statement holds — in this
    document, or an approved fact another document read from visible content that the writer
    may see — is never a fact nor a conflict it could win: with the same value it adds nothing,
    with another it is set aside (the caller counts it). ``own`` is as in ``check_conflicts``.
    """
    visible = [c for c in candidates if not c.hidden]
    stated: dict[tuple[str, str, str, str, str], CandidateFact] = {}
    for fact in visible:
        stated.setdefault(fact.key, fact)
    kept, aside = list(visible), []
    for fact in candidates:
        if not fact.hidden:
            continue
        shown = stated.get(fact.key)
        if shown is not None:
            if not (_same(shown.value, fact.value) and shown.unit == fact.unit):
                aside.append(fact)
            continue
        others = [
            o
            for o in store.approved_values(fact.key, exclude_docs=own)
            if not read_from_hidden(o.extractor_version)
            and clearance.allows(Sensitivity.parse(o.sensitivity))
        ]
        if any(not (_same(o.value, fact.value) and o.unit == fact.unit) for o in others):
            aside.append(fact)
        elif not others:
            kept.append(fact)
    return kept, aside


def check_conflicts(
    own: set[str],
    candidates: list[CandidateFact],
    store: WorkspaceStoreProtocol,
    clearance: Sensitivity = Sensitivity.RESTRICTED,
    level: Sensitivity = Sensitivity.RESTRICTED,
) -> tuple[list[CandidateFact], list[Conflict]]:
    """Keep the first statement of each key; a different value later, here or in another
    document already stored, is a conflict for a reviewer — never a silent overwrite.

    ``own`` holds the document's id and the id it replaces (a rename): neither is "another".
    Another document's value is never quoted: that document may be (or become) more sensitive
    than this one, so the item names where the other statement is, not what it says.

    A fact above the writer's ``clearance`` is resolved per clearance instead, and the result
    tells the writer the same as if it did not exist (``_above``).
    """
    accepted: dict[tuple[str, str, str, str, str], CandidateFact] = {}
    conflicts: list[Conflict] = []
    for fact in candidates:
        earlier = accepted.get(fact.key)
        if earlier is not None:
            if not (_same(earlier.value, fact.value) and earlier.unit == fact.unit):
                detail = (
                    f"this document also states {earlier.value:g} {earlier.unit} at "
                    f"{earlier.locator}"
                )
                conflicts.append(
                    Conflict(
                        ReviewCandidate(fact.locator, ReviewReason.CONFLICT, detail, fact),
                        Sensitivity.PUBLIC,
                    )
                )
            continue
        others = [
            o
            for o in store.approved_values(fact.key, exclude_docs=own)
            if not (_same(o.value, fact.value) and o.unit == fact.unit)
            # What another document read from hidden content never holds a visible figure back.
            and (fact.hidden or not read_from_hidden(o.extractor_version))
        ]
        seen = [o for o in others if clearance.allows(Sensitivity.parse(o.sensitivity))]
        if seen:
            conflicts.append(_conflict(fact, seen[0]))
            continue
        held = [o for o in others if Sensitivity.parse(o.sensitivity) == level]
        if held:
            conflicts.append(replace(_conflict(fact, held[0]), above=True))
            continue
        accepted[fact.key] = fact
        conflicts += _above(fact, others)
    return list(accepted.values()), conflicts


def _conflict(fact: CandidateFact, other: Fact) -> Conflict:
    detail = f"{other.source_doc_id} states a different value at {other.source_locator}"
    candidate = ReviewCandidate(fact.locator, ReviewReason.CONFLICT, detail, fact)
    return Conflict(candidate, Sensitivity.parse(other.sensitivity))


def _above(fact: CandidateFact, hidden: Sequence[Fact]) -> list[Conflict]:
    """One ``clearance_conflict`` item per level of the ``hidden`` facts ``fact`` disagrees
    with: ``fact`` is stored all the same, at its document's level, and each caller is answered
    from the most sensitive fact it may see.

    A hidden fact at the document's own level cannot be kept apart so: that conflict holds
    ``fact`` back as usual (``check_conflicts``), and is reported to the writer, who cannot
    read that level, as a stored fact, since whether it was held is the secret.
    """
    by_level: dict[Sensitivity, list[Fact]] = {}
    for other in hidden:
        by_level.setdefault(Sensitivity.parse(other.sensitivity), []).append(other)
    conflicts: list[Conflict] = []
    for level in sorted(by_level, key=lambda s: s.rank):
        where = "; ".join(f"{o.source_doc_id} at {o.source_locator}" for o in by_level[level])
        detail = (
            f"stored all the same (kept apart by clearance); a different value at "
            f"{level.value}: {where}"
        )
        candidate = ReviewCandidate(fact.locator, ReviewReason.CONFLICT, detail, fact)
        conflicts.append(Conflict(candidate, level, above=True, stored=True))
    return conflicts
