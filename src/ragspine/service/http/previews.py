"""The cells and passages stored at one source, within a clearance: ``/v1/sources/preview``
and the MCP server's ``get_source``."""

from __future__ import annotations

from ragspine.profile.display import Names
from ragspine.profile.sensitivity import Sensitivity
from ragspine.service.http.display_routes import fact_display
from ragspine.service.http.schemas import FactPreview, PassagePreview, SourcePreview
from ragspine.storage.facts import ReviewStatus
from ragspine.storage.protocol import WorkspaceStoreProtocol


def preview(
    store: WorkspaceStoreProtocol,
    doc: str,
    locator: str,
    clearance: Sensitivity,
    names: Names | None = None,
) -> SourcePreview | None:
    """The approved facts and the admitted passages at ``doc`` · ``locator`` that
    ``clearance`` covers, facts with their display fields when ``names`` is given; ``None``
    when there is none."""

    def visible(level: str) -> bool:
        return clearance.allows(Sensitivity.parse(level))

    facts = [
        FactPreview(
            doc=f.source_doc_id,
            locator=f.source_locator,
            value=f.value,
            unit=f.unit,
            metric=f.metric_code,
            entity=f.entity,
            period=f.period,
            period_type=f.period_type,
            channel=f.channel,
            **(fact_display(f, names) if names is not None else {}),
        )
        for f in store.list_facts(doc_id=doc, review_status=ReviewStatus.APPROVED)
        if f.source_locator == locator and visible(f.sensitivity)
    ]
    held = set(store.held_locators().get(doc, ()))
    passages = [
        PassagePreview(doc=c.doc_id, locator=c.locator, title=c.title, text=c.text)
        for c in store.list_chunks(doc)
        if c.locator == locator and not c.held and visible(c.sensitivity)
    ]
    if not passages and locator not in held:
        # A single block (a paragraph of a multi-paragraph passage, a table caption...).
        passages = [
            PassagePreview(doc=b.doc_id, locator=b.locator, title=b.title, text=b.text)
            for b in store.list_blocks(doc)
            if b.locator == locator and visible(b.sensitivity)
        ]
    if not facts and not passages:
        return None
    return SourcePreview(doc=doc, locator=locator, facts=facts, passages=passages)
