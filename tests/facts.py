"""One builder for the facts tests store: sensible ACME defaults, any field overridable.

Positional for the key the agent tests read at a glance
(``fact("REVENUE", "ACME_HK", "FY", "2025", 2480)``), keywords for everything else under the
names ``Fact`` itself uses (``fact(entity="ACME_HK", source_locator="sheet=HK,cell=C4")``).
What a field is not given is derived from the key: the geography from the entity code, the unit
from the metric, and a review-deck name and slide locator from the period and entity.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from ragspine.storage.facts import Fact

# The review deck puts each region on its own slide.
_SLIDES = {"ACME_CN": 2, "ACME_HK": 3, "ACME_MO": 4}
_PENDING = "-"


def fact(
    metric_code: str = "REVENUE",
    entity: str = "ACME_CN",
    period_type: str = "FY",
    period: str = "2024",
    value: float = 1320,
    **fields: Any,
) -> Fact:
    """A valid, approved fact; with no arguments, Mainland China's FY2024 revenue of 1320."""
    derived: dict[str, Any] = {
        "geography": entity.split("_", 1)[-1],
        "channel": "TOTAL",
        "unit": "PCT" if metric_code.endswith("MARGIN") else "USD_M",
        "source_doc_id": _PENDING,
        "source_locator": _PENDING,
    }
    # Fact validates the fields first (so a bad one fails with Fact's own message); the
    # lineage is then derived from its period label.
    built = Fact(
        metric_code=metric_code,
        entity=entity,
        period_type=period_type,
        period=period,
        value=value,
        **{**derived, **fields},
    )
    label = built.period_label
    lineage = {
        "source_doc_id": f"ACME_{label}_Review.pptx",
        "source_locator": f"slide={_SLIDES.get(entity, 1)},table=1,row={metric_code},col={label}",
    }
    return dataclasses.replace(built, **{k: v for k, v in lineage.items() if k not in fields})
