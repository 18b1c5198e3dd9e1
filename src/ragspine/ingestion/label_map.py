"""Review that maps labels: an ``unmapped_label`` item resolved by teaching the profile its label.

``ragspine review map ITEM --metric CODE`` (and ``POST /v1/review/{id}/map``) turns the item's
label into an alias of an existing metric, entity or channel, or of a new metric. The alias is
the label without what the engine reads already — unit markers ("（人民币百万元）", "(US$ m)"),
periods and footnote marks — because those are masked before aliases are matched: an alias
that kept them could never match (the trap the manual remedy fell into). The edited profile
must still load (an alias another code holds is refused, naming both) and must now read the
label as the chosen code, or nothing is written. A new amount or count gets the ``nature`` its
names tell, as a drafted profile's does (``suggest.nature``), else a comment saying it is left
unset: its periods are then never summed. Then the previous profile is kept as a backup, every
open item of that label is closed with an audit entry, and only the documents holding the label
are read again.
"""

from __future__ import annotations

import ast
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path

from ragspine.errors import ProfileError, ReviewError, UsageError
from ragspine.ingestion.discovery import SourceFile
from ragspine.ingestion.labels import _FOOTNOTE_MARKS as FOOTNOTE_MARKS
from ragspine.ingestion.labels import read_label
from ragspine.ingestion.pipeline import IngestReport, ingest
from ragspine.ingestion.suggest.nature import nature_by_name, nature_line
from ragspine.ingestion.table_results import ReviewReason
from ragspine.ingestion.unit_markers import read_units
from ragspine.profile.glossary import glossary_for
from ragspine.profile.loader import example_profile_path
from ragspine.profile.matching import mask
from ragspine.profile.model import DomainProfile, MetricKind
from ragspine.profile.periods import find_periods, find_relative_years
from ragspine.profile.profile_edit import SECTIONS, add_alias, add_metric, checked, replace_profile
from ragspine.storage.documents import ReviewItem, ReviewState
from ragspine.storage.protocol import WorkspaceStoreProtocol
from ragspine.units import UnitKind

_DETAIL = re.compile(r"^(row|column) label (.+) is not in the glossary$", re.DOTALL)
# What may stand at either end of the core once markers are removed.
_EDGES = " \t\r\n-–—_:：/|()（）[]【】,，.。;；、&+*#"
# Brackets that close one opened inside the label are part of its name: "客房净额（经调整）" keeps
# its closing bracket, which trimming the edges alone would cut off.
_PAIRS = {")": "(", "）": "（", "]": "[", "】": "【"}
_EMPTY_BRACKETS = re.compile(r"\(\s*\)|（\s*）|\[\s*\]|【\s*】")
_ANY_DAY = date(2000, 1, 1)


@dataclass(frozen=True)
class MapTarget:
    """Where the label goes: an existing code of ``kind``, or a new metric (``name`` set)."""

    kind: str  # metric, entity or channel
    code: str
    name: str | None = None  # a new metric's name
    unit: str | None = None  # a new metric's unit code
    metric_kind: str | None = None  # a new metric's kind (amount, ratio, count, per_share)

    def __post_init__(self) -> None:
        if self.kind not in SECTIONS:
            raise UsageError(f"a label maps to a metric, an entity or a channel, not {self.kind}")
        if self.name is not None and self.kind != "metric":
            raise UsageError("only a new metric can be created while mapping a label")

    @property
    def new(self) -> bool:
        return self.name is not None


def choose_map_target(
    metric: str | None,
    new_metric: str | None,
    name: str | None,
    unit: str | None,
    kind: str | None,
    entity: str | None,
    channel: str | None,
) -> MapTarget:
    """The one target the options name (``UsageError`` for none or several)."""
    given = [
        (k, v)
        for k, v in (
            ("metric", metric),
            ("new-metric", new_metric),
            ("entity", entity),
            ("channel", channel),
        )
        if v
    ]
    if len(given) != 1:
        raise UsageError("give exactly one of --metric, --new-metric, --entity or --channel")
    option, code = given[0]
    if option == "new-metric":
        if not name:
            raise UsageError("--new-metric needs --name (the metric's name)")
        return MapTarget("metric", code.strip().upper(), name=name, unit=unit, metric_kind=kind)
    if name or unit or kind:
        raise UsageError("--name, --unit and --kind only go with --new-metric")
    return MapTarget(option, code.strip())


@dataclass(frozen=True)
class MapResult:
    item_id: int
    label: str
    alias: str
    target: MapTarget
    closed: list[int]  # the open items of this label, closed with an audit entry
    documents: list[str]  # the documents read again
    missing: list[str]  # documents holding the label whose file is gone (not read again)
    backup: Path | None
    report: IngestReport = field(default_factory=IngestReport)
    nature: str = ""  # a new amount's or count's nature line, as written to the profile


def label_of(item: ReviewItem) -> str | None:
    """The label an ``unmapped_label`` item names; ``None`` for any other item (and for the
    one item counting labels past the per-table limit)."""
    if item.reason != ReviewReason.UNMAPPED_LABEL:
        return None
    found = _DETAIL.match(item.detail)
    if found is None:
        return None
    try:
        label = ast.literal_eval(found[2])
    except (ValueError, SyntaxError):
        return None
    return label if isinstance(label, str) and label.strip() else None


def review_actions(item: ReviewItem) -> tuple[str, ...]:
    """What a reviewer can do with an open item: approve where approving can work (a proposed
    fact, a held passage), map where the item names a label, and always reject."""
    if item.state is not ReviewState.OPEN:
        return ()
    actions: list[str] = []
    if item.proposed is not None or item.reason == ReviewReason.SUSPICIOUS_INSTRUCTION:
        actions.append("approve")
    if label_of(item) is not None:
        actions.append("map")
    actions.append("reject")
    return tuple(actions)


def alias_for(label: str, profile: DomainProfile) -> str:
    """The part of ``label`` an alias must hold: the label without its unit markers, periods,
    relative years and footnote marks (all read apart from aliases), trimmed."""
    clean = unicodedata.normalize("NFKC", FOOTNOTE_MARKS.sub(" ", label))
    spans = list(read_units(clean, profile.company.reporting_currency, prose=False).spans)
    calendar = glossary_for(profile).calendar
    spans += [(p.start, p.end) for p in find_periods(clean, _ANY_DAY, calendar) if not p.relative]
    spans += [(r.start, r.end) for r in find_relative_years(mask(clean, spans))]
    core = mask(clean, spans, fill="\0")
    core = re.sub(r"\0+", " ", core)
    while (shorter := _EMPTY_BRACKETS.sub(" ", core)) != core:
        core = shorter
    core = _trim(" ".join(core.split()))
    if not core:
        raise ReviewError(
            f"label {label!r} holds nothing but units or periods: there is no name to map"
        )
    return core


def _trim(core: str) -> str:
    """``core`` without the punctuation at its edges, except brackets that pair with one
    inside it: "客房净额(经调整)" and "(Loss)/profit" keep theirs."""
    kept = core.strip(_EDGES)
    if not kept:
        return kept
    start = core.index(kept)
    head, tail = core[:start], core[start + len(kept) :]
    for char in tail.lstrip(" "):
        opener = _PAIRS.get(char)
        if opener is None or kept.count(opener) <= kept.count(char):
            break
        kept += char
    for char in reversed(head.rstrip(" ")):
        closer = next((c for c, o in _PAIRS.items() if o == char), None)
        if closer is None or kept.count(closer) <= kept.count(char):
            break
        kept = char + kept
    return kept


# The metric kind a label's unit marker calls for.
_KINDS = {
    UnitKind.AMOUNT: "amount",
    UnitKind.PERCENT: "ratio",
    UnitKind.COUNT: "count",
    UnitKind.PER_SHARE: "per_share",
}


def _unit_of(label: str, profile: DomainProfile) -> tuple[str | None, str | None]:
    """(kind, currency) a new metric takes from its label's unit marker ("（人民币百万元）":
    an amount in CNY); (None, None) when the label states none."""
    clean = unicodedata.normalize("NFKC", label)
    marker = read_units(clean, profile.company.reporting_currency, prose=False).marker
    if marker is None or marker.kind is None:
        return None, None
    return _KINDS[marker.kind], marker.currency


def profile_text(path: Path) -> str:
    """The workspace profile's text; the shipped example's when it has none yet."""
    source = path if path.is_file() else example_profile_path()
    return source.read_text(encoding="utf-8")


def plan(item: ReviewItem, target: MapTarget, text: str, where: Path) -> tuple[str, str, str, str]:
    """(label, alias, new profile text, a new metric's nature line or "") for mapping ``item``
    to ``target``; ``ReviewError`` when it cannot be done, saying why."""
    label = label_of(item)
    if label is None:
        raise ReviewError(
            f"review item {item.item_id} ({item.reason}) names no label to map; "
            "only an unmapped_label item can be mapped"
        )
    if item.state is not ReviewState.OPEN:
        raise ReviewError(f"review item {item.item_id} was {item.state.value}; it cannot be mapped")
    current = checked(text, where)
    alias = alias_for(label, current)
    known = getattr(current, target.kind)(target.code)
    try:
        if target.new:
            if known is not None:
                raise ReviewError(f"metric {target.code} exists already; map with --metric")
            assert target.name is not None
            kind, currency = target.metric_kind, None
            if target.unit is None and kind is None:
                kind, currency = _unit_of(label, current)
            nature = _nature(target, alias, kind)
            edited = add_metric(
                text,
                target.code,
                target.name,
                alias,
                unit=target.unit,
                kind=kind,
                currency=currency,
                lines=(nature,) if nature else (),
            )
        else:
            nature = ""
            if known is None:
                codes = ", ".join(x.code for x in getattr(current, SECTIONS[target.kind]))
                raise UsageError(f"no {target.kind} {target.code!r}; the codes are {codes}")
            edited = add_alias(text, target.kind, target.code, alias)
        updated = checked(edited, where)
    except ProfileError as exc:
        raise ReviewError(f"cannot map {label!r} to {target.code}: {exc}") from None
    reading = read_label(label, glossary_for(updated))
    named = {"metric": reading.metrics, "entity": reading.entities, "channel": reading.channels}
    if not reading.covered or named[target.kind][:1] != (target.code,):
        raise ReviewError(
            f"cannot map {label!r} to {target.code}: with the alias {alias!r} the label still "
            "does not read as that code alone (it names something else too); fix the profile "
            "by hand"
        )
    return label, alias, edited, nature


def _nature(target: MapTarget, alias: str, kind: str | None) -> str:
    """The nature line of a new metric of ``kind`` (an amount when none is given): read from
    its names as the draft reads them; "" for a ratio or a per-share figure."""
    if (kind or MetricKind.AMOUNT) not in (MetricKind.AMOUNT, MetricKind.COUNT):
        return ""
    assert target.name is not None
    return nature_line(*nature_by_name([target.code, target.name, alias]))


def map_label(
    store: WorkspaceStoreProtocol,
    profile_path: Path,
    item_id: int,
    target: MapTarget,
    *,
    reviewer: str = "",
) -> MapResult:
    """Map an ``unmapped_label`` item's label (see the module docstring); the caller holds the
    workspace's write lock and refreshes its indexes afterwards."""
    item = store.get_review(item_id)
    if item is None:
        raise ReviewError(f"no review item {item_id}")
    label, alias, edited, nature = plan(item, target, profile_text(profile_path), profile_path)
    profile, backup = replace_profile(profile_path, edited)
    same = [i for i in store.list_review(ReviewState.OPEN) if label_of(i) == label]
    what = f"new metric {target.code}" if target.new else f"{target.kind} {target.code}"
    note = f"mapped label {label!r} to {what}: alias {alias!r} added to {profile_path.name}"
    if backup is not None:
        note += f" (previous profile kept as {backup.parent.name}/{backup.name})"
    if reviewer:
        note += f" by {reviewer}"
    for open_item in same:
        store.resolve_review(open_item.item_id, ReviewState.APPROVED, note=note)
    documents = sorted({i.doc_id for i in same})
    files, missing = _files(store, documents)
    report = ingest([f.path for f in files], store, profile, files=files)
    return MapResult(
        item_id,
        label,
        alias,
        target,
        [i.item_id for i in same],
        [f.doc_id for f in files],
        missing,
        backup,
        report,
        nature,
    )


def _files(
    store: WorkspaceStoreProtocol, documents: Sequence[str]
) -> tuple[list[SourceFile], list[str]]:
    files: list[SourceFile] = []
    missing: list[str] = []
    for doc_id in documents:
        record = store.get_document(doc_id)
        path = Path(record.source_path) if record is not None else None
        if path is None or not path.is_file():
            missing.append(doc_id)
        else:
            files.append(SourceFile(doc_id, path))
    return files, missing
