"""A file's metadata sidecar (``<name>.meta.json``) and the sensitivity level decided from it.

The sidecar's ``sensitivity`` is combined with the level the content itself calls for; a lower
one applies only with ``sensitivity_override``, and the override is written to the audit log.
"""

from __future__ import annotations

import json
from pathlib import Path

from ragspine.errors import IngestError
from ragspine.ingestion.sensitivity import SensitivityDecision, decide_sensitivity
from ragspine.profile.sensitivity import Sensitivity
from ragspine.storage.documents import DocumentRecord
from ragspine.storage.protocol import WorkspaceStoreProtocol

METADATA_SUFFIX = ".meta.json"


def read_metadata(path: Path) -> dict[str, object]:
    sidecar = _sidecar(path)
    if not sidecar.is_file():
        return {}
    try:
        data = json.loads(sidecar.read_text(encoding="utf-8"))
    except (ValueError, UnicodeDecodeError) as exc:
        raise IngestError(f"{sidecar}: metadata is not valid JSON: {exc}") from None
    except RecursionError:
        raise IngestError(f"{sidecar}: metadata is nested too deeply to be read") from None
    if not isinstance(data, dict):
        raise IngestError(f"{sidecar}: metadata must be a JSON object")
    if "sensitivity" in data:
        try:
            Sensitivity.parse(str(data["sensitivity"]))
        except ValueError as exc:
            raise IngestError(f"{sidecar}: {exc}") from None
    if not isinstance(data.get("sensitivity_override", False), bool):
        raise IngestError(f"{sidecar}: sensitivity_override must be true or false")
    return data


def _sidecar(path: Path) -> Path:
    return path.with_name(path.name + METADATA_SUFFIX)


def decide(content: Sensitivity, metadata: dict[str, object]) -> SensitivityDecision:
    """The content's level combined with the sidecar's ``sensitivity`` (validated earlier)."""
    value = metadata.get("sensitivity")
    requested = Sensitivity.parse(str(value)) if value else None
    return decide_sensitivity(
        content, requested, override=metadata.get("sensitivity_override") is True
    )


def override_note(path: Path, decision: SensitivityDecision) -> str:
    """The audit log's line for an applied override, or "" when there is none."""
    if not decision.overridden:
        return ""
    return (
        f"{_sidecar(path).name}: sensitivity_override {decision.content.value} -> "
        f"{decision.level.value}"
    )


def update_metadata(
    doc_id: str,
    path: Path,
    previous: DocumentRecord,
    metadata: dict[str, object],
    metadata_hash: str,
    store: WorkspaceStoreProtocol,
    dry_run: bool,
) -> tuple[str, str]:
    """Same bytes, new sidecar: combine the stored content level with it (no re-read), so the
    level comes from the same complete inputs — text blocks and table cells — as a full read.

    Returns the level stored and the note on it (``stored_level``)."""
    decision = decide(Sensitivity.parse(previous.content_sensitivity), metadata)
    if not dry_run:
        store.update_document_metadata(
            doc_id,
            metadata_hash,
            decision.level.value,
            override_note=override_note(path, decision),
        )
    return stored_level(store, doc_id, decision, dry_run)


def stored_level(
    store: WorkspaceStoreProtocol, doc_id: str, decision: SensitivityDecision, dry_run: bool
) -> tuple[str, str]:
    """The level the document was stored at, and the note on it: the decision's own, unless
    a copy of the same content holds a higher level, which the store gave this one too."""
    stored = None if dry_run else store.get_document(doc_id)
    if stored is None or stored.sensitivity == decision.level.value:
        return decision.level.value, decision.note()
    return stored.sensitivity, f"raised to {stored.sensitivity}: a copy of this content holds it"
