"""A draft profile built from what the documents show (``observe``): each proposal keeps
every place it was seen and why its names belong together.

Names are joined only on evidence: the same label (compared the way aliases are), an English
and a Chinese label of one row or one header, or the rows of two tables of one document that
hold the same figures in two languages. Two different labels are never merged otherwise; a
name another proposal already uses is left out with a note, so the draft always loads.
"""

from __future__ import annotations

import itertools
import re
from collections import Counter
from dataclasses import dataclass, field

from ragspine.errors import UsageError
from ragspine.ingestion.suggest.company import company_name_of, split_names, year_end
from ragspine.ingestion.suggest.names import has_cjk, has_latin, make_code, read_parts
from ragspine.ingestion.suggest.nature import settle_nature, table_natures
from ragspine.ingestion.suggest.observe import Line, Observations, Seen, TableView
from ragspine.ingestion.unit_words import Marker
from ragspine.profile.matching import alias_key
from ragspine.profile.metric_nature import MetricNature
from ragspine.profile.model import MetricKind
from ragspine.units import UnitKind

ENTITIES, CHANNELS, METRICS = "entities", "channels", "metrics"
DEFAULT_CHANNEL = "TOTAL"
_KINDS = {
    UnitKind.AMOUNT: MetricKind.AMOUNT,
    UnitKind.PERCENT: MetricKind.RATIO,
    UnitKind.COUNT: MetricKind.COUNT,
    UnitKind.PER_SHARE: MetricKind.PER_SHARE,
}


@dataclass
class Proposal:
    section: str
    code: str
    names: list[str]  # every spelling, first seen first
    seen: list[Seen] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    kinds: list[tuple[MetricKind, str | None]] = field(default_factory=list)
    nature: MetricNature | None = None  # an amount's or a count's, when the documents tell
    nature_why: str = ""

    @property
    def name_en(self) -> str:
        return next((n for n in self.names if not has_cjk(n)), "")

    @property
    def name_zh(self) -> str:
        return next((n for n in self.names if has_cjk(n)), "")

    @property
    def aliases(self) -> list[str]:
        return [n for n in self.names if n not in (self.name_en, self.name_zh)]


@dataclass
class Draft:
    docs: list[str]
    failed: list[tuple[str, str]]
    company: str
    company_seen: list[Seen]
    home: Proposal
    entities: list[Proposal]
    channels: list[Proposal]
    metrics: list[Proposal]
    reporting_currency: str | None
    currency_note: str
    year_end_month: int
    fiscal_note: str
    left_out: list[str]


class _Names:
    """Union-find over names compared as aliases: each group is one proposal's names."""

    def __init__(self) -> None:
        self.parent: dict[str, str] = {}
        self.spelling: dict[str, str] = {}
        self.order: dict[str, int] = {}
        self.seen: dict[str, list[Seen]] = {}
        self.links: dict[str, list[str]] = {}
        self.kinds: dict[str, list[tuple[MetricKind, str | None]]] = {}

    def add(self, name: str, seen: Seen) -> str:
        key = alias_key(name)
        if key not in self.parent:
            self.parent[key] = key
            self.spelling[key] = name
            self.order[key] = len(self.order)
        self.seen.setdefault(self.find(key), [])
        root = self.find(key)
        if seen not in self.seen[root]:
            self.seen[root].append(seen)
        return key

    def find(self, key: str) -> str:
        while self.parent[key] != key:
            self.parent[key] = self.parent[self.parent[key]]
            key = self.parent[key]
        return key

    def join(self, a: str, b: str, why: str) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra == rb:
            return
        first, second = sorted((ra, rb), key=self.order.__getitem__)
        self.parent[second] = first
        self.seen[first] = self.seen.get(first, []) + self.seen.pop(second, [])
        self.links[first] = [*self.links.get(first, []), *self.links.pop(second, []), why]
        self.kinds[first] = self.kinds.get(first, []) + self.kinds.pop(second, [])

    def note_kind(self, key: str, kind: tuple[MetricKind, str | None]) -> None:
        self.kinds.setdefault(self.find(key), []).append(kind)

    def groups(
        self,
    ) -> list[tuple[list[str], list[Seen], list[str], list[tuple[MetricKind, str | None]]]]:
        members: dict[str, list[str]] = {}
        for key in sorted(self.parent, key=self.order.__getitem__):
            members.setdefault(self.find(key), []).append(key)
        return [
            (
                [self.spelling[k] for k in keys],
                self.seen.get(root, []),
                self.links.get(root, []),
                self.kinds.get(root, []),
            )
            for root, keys in sorted(members.items(), key=lambda item: self.order[item[0]])
        ]


def build_draft(found: Observations, company: str | None, currency: str | None) -> Draft:
    company_name, company_seen = company_name_of(found, company)
    company_key = alias_key(company_name)
    entities, channels = _Names(), _Names()
    sheet_names = _sheet_entities(found, entities, company_key)
    _column_groups(found, entities, channels, sheet_names, company_key)
    taken = set(entities.parent) | set(channels.parent) | {company_key}
    metrics = _Names()
    skipped: list[str] = []
    for view in found.tables:
        for line in view.lines:
            skipped += _add_line(line, metrics, taken)
    _twin_tables(found, metrics, entities, taken)
    currencies = Counter(c for _, _, _, kinds in metrics.groups() for k, c in kinds if c)
    reporting = currency or (currencies.most_common(1)[0][0] if currencies else None)
    currency_note = ", ".join(f"{c}: {n} line(s)" for c, n in currencies.most_common())
    registry = _Registry()
    home = registry.place(
        Proposal(ENTITIES, make_code(company_name, "E"), [company_name], list(company_seen))
    )
    assert home is not None
    placed_entities = _place(registry, ENTITIES, "E", entities)
    total = registry.place(Proposal(CHANNELS, DEFAULT_CHANNEL, ["Total", "合计"]))
    assert total is not None
    placed_channels = [total, *_place(registry, CHANNELS, "C", channels)]
    placed_metrics = _place(registry, METRICS, "M", metrics)
    by_table = table_natures(found.tables)
    for metric in placed_metrics:
        _settle_kind(metric, reporting)
        if metric.kinds[0][0] in (MetricKind.AMOUNT, MetricKind.COUNT):
            metric.nature, metric.nature_why = settle_nature(metric.names, metric.seen, by_table)
    if reporting is None and any(
        m.kinds and m.kinds[0][0] == MetricKind.AMOUNT for m in placed_metrics
    ):
        raise UsageError(
            "no table states a currency, so amounts have none: give --currency (e.g. USD)"
        )
    month, fiscal_note = year_end(found)
    return Draft(
        docs=found.docs,
        failed=found.failed,
        company=company_name,
        company_seen=company_seen,
        home=home,
        entities=placed_entities,
        channels=placed_channels,
        metrics=placed_metrics,
        reporting_currency=reporting,
        currency_note=currency_note,
        year_end_month=month,
        fiscal_note=fiscal_note,
        left_out=skipped + registry.left_out,
    )


# --------------------------------------------------------------------------- entities


def _sheet_entities(found: Observations, entities: _Names, company_key: str) -> set[str]:
    """Sheet names as units of the company — unless the sheet's own title lines name the
    company ("<company> — summary"): that sheet speaks for the company, not for a unit."""
    keys: set[str] = set()
    for view in found.tables:
        if not view.sheet or any(
            company_key in alias_key(line) for line in (view.table.title, *view.table.context)
        ):
            continue
        seen = Seen(view.doc, view.table.locator_prefix)
        for key in _add_names(
            split_names(read_parts(view.sheet).name), entities, seen, "sheet name"
        ):
            keys.add(key)
    return {k for k in keys if k != company_key}


def _column_groups(
    found: Observations,
    entities: _Names,
    channels: _Names,
    sheets: set[str],
    company_key: str,
) -> None:
    """A value column headed by more than a period and a unit is a unit of the company — or,
    under a table whose title or sheet already names one, a channel of it. A header that heads
    rows in at least as many tables as it heads columns names a metric (a table laid out with
    metrics across), unless a sheet is named after it."""
    as_row = Counter(
        key
        for view in found.tables
        for key in {alias_key(n) for line in view.lines for n in _line_names(line)}
    )
    as_column = Counter(
        key
        for view in found.tables
        for key in {alias_key(n) for column in view.columns for n in split_names(column.parts.name)}
    )
    for view in found.tables:
        owner = _names_an_entity(view, entities, sheets)
        for column in view.columns:
            names = split_names(column.parts.name)
            keys = {alias_key(n) for n in names}
            if not names or company_key in keys:
                continue
            if not keys & sheets and any(as_row[k] >= as_column[k] for k in keys):
                continue
            target = entities if keys & sheets or not owner else channels
            _add_names(names, target, column.seen, "column header")


def _names_an_entity(view: TableView, entities: _Names, sheets: set[str]) -> bool:
    title = alias_key(" ".join([view.sheet, view.table.title]))
    return any(key in title for key in sheets if entities.parent.get(key) is not None)


# --------------------------------------------------------------------------- metrics


def _line_names(line: Line) -> list[str]:
    """The names a row's label gives: two label cells in two languages are one name each."""
    if len(line.cells) == 2:
        first, second = (read_parts(c).name for c in line.cells)
        if _one_script(first) and _one_script(second) and has_cjk(first) != has_cjk(second):
            return [first, second]
    return split_names(line.parts.name)


def _add_line(line: Line, metrics: _Names, taken: set[str]) -> list[str]:
    """Propose the row's names as a metric; a name that already names a unit or a channel (a
    section heading, a unit's own row) is not, and the note saying so is returned."""
    names = _line_names(line)
    kept = [n for n in names if alias_key(n) not in taken]
    keys = _add_names(kept, metrics, line.seen, "row label")
    for key in keys[:1]:
        metrics.note_kind(key, _line_kind(line))
    return [
        f"row label {n!r} at {line.seen}: the name of a unit or channel, not a metric"
        for n in names
        if n not in kept
    ]


# A figure per share ("Basic earnings per share (A$)", "每股股息") is written in units of its
# currency: read as an amount it would take the table's or the usual scale (A$1.25 million).
_PER_SHARE = re.compile(r"\bper\s+(?:[a-z]+\s+)?share\b|\b(?:EPS|DPS)\b|每股", re.IGNORECASE)


def _line_kind(line: Line) -> tuple[MetricKind, str | None]:
    kind, currency = _marked_kind(line)
    if kind in (MetricKind.AMOUNT, MetricKind.COUNT) and _PER_SHARE.search(line.parts.name):
        return MetricKind.PER_SHARE, currency
    return kind, currency


def _marked_kind(line: Line) -> tuple[MetricKind, str | None]:
    own, table = line.parts.marker, line.table_marker
    if own is not None and (own.kind or own.currency):
        return _marker_kind(own)
    if line.percent_cells:
        return MetricKind.RATIO, None
    if table is not None and (table.kind or table.currency):
        return _marker_kind(table)
    if own is not None or table is not None:  # a scale alone: an amount in the usual currency
        return MetricKind.AMOUNT, None
    return MetricKind.COUNT, None


def _marker_kind(marker: Marker) -> tuple[MetricKind, str | None]:
    kind = _KINDS[marker.kind] if marker.kind else MetricKind.AMOUNT
    return kind, marker.currency if kind in (MetricKind.AMOUNT, MetricKind.PER_SHARE) else None


def _twin_tables(found: Observations, metrics: _Names, entities: _Names, taken: set[str]) -> None:
    """Two tables of one document holding the same figures, one in English and one in
    Chinese: their rows (and column headers) name the same things."""
    paired: set[int] = set()
    for i, first in enumerate(found.tables):
        for j in range(i + 1, len(found.tables)):
            second = found.tables[j]
            if i in paired or j in paired or first.doc != second.doc:
                continue
            if not first.values or first.values != second.values:
                continue
            if len(first.lines) != len(second.lines) or len(first.columns) != len(second.columns):
                continue
            paired |= {i, j}
            why = (
                f"the same figures in {second.doc} {first.table.locator_prefix} and "
                f"{second.table.locator_prefix}"
            )
            for a, b in zip(first.lines, second.lines, strict=True):
                _pair(_line_names(a), _line_names(b), metrics, taken, why)
            for ca, cb in zip(first.columns, second.columns, strict=True):
                names_a, names_b = split_names(ca.parts.name), split_names(cb.parts.name)
                keys = {alias_key(n) for n in names_a + names_b}
                if keys <= set(entities.parent) and len(names_a) == len(names_b) == 1:
                    _pair(names_a, names_b, entities, set(), why)


def _pair(a: list[str], b: list[str], into: _Names, taken: set[str], why: str) -> None:
    if len(a) != 1 or len(b) != 1 or has_cjk(a[0]) == has_cjk(b[0]):
        return
    ka, kb = alias_key(a[0]), alias_key(b[0])
    if ka in taken or kb in taken or ka not in into.parent or kb not in into.parent:
        return
    into.join(ka, kb, f"{a[0]!r} and {b[0]!r}: {why}")


# --------------------------------------------------------------------------- shared


def _one_script(name: str) -> bool:
    return bool(name) and has_cjk(name) != has_latin(name)


def _add_names(names: list[str], into: _Names, seen: Seen, what: str) -> list[str]:
    keys = [into.add(n, seen) for n in names]
    for a, b in itertools.pairwise(keys):
        into.join(a, b, f"{names[0]!r} and {names[1]!r} label one {what} at {seen}")
    return keys


def _settle_kind(metric: Proposal, reporting: str | None) -> None:
    counts = Counter(kind for kind, _ in metric.kinds)
    if not counts:
        metric.kinds = [(MetricKind.AMOUNT, None)]
        return
    kind = counts.most_common(1)[0][0]
    if len(counts) > 1:
        seen = ", ".join(f"{k.value} {n}x" for k, n in counts.most_common())
        metric.notes.append(f"its lines read as different kinds ({seen}): check `kind`")
    if kind == MetricKind.COUNT and all(k == MetricKind.COUNT for k, _ in metric.kinds):
        metric.notes.append("no unit marker on its lines or tables: read as a count")
    currencies = sorted({c for k, c in metric.kinds if k == kind and c})
    currency = currencies[0] if len(currencies) == 1 and currencies[0] != reporting else None
    if len(currencies) > 1:
        metric.notes.append(f"seen in {', '.join(currencies)}: each table states its own")
    metric.kinds = [(kind, currency)]


class _Registry:
    """Every name and code already proposed (compared as aliases), so none is used twice."""

    def __init__(self) -> None:
        self.owner: dict[str, str] = {}
        self.left_out: list[str] = []

    def place(self, proposal: Proposal) -> Proposal | None:
        kept = []
        for name in proposal.names:
            owner = self.owner.get(alias_key(name))
            if owner is None or owner == proposal.code:
                kept.append(name)
            else:
                proposal.notes.append(f"{name!r} left out: {owner} already has that name")
        if not kept:
            self.left_out.append(
                f"{proposal.section} {proposal.names[0]!r} (seen at {proposal.seen[0]}): "
                f"every name of it already names {self.owner[alias_key(proposal.names[0])]}"
            )
            return None
        proposal.names = kept
        base, n = proposal.code, 1
        while alias_key(proposal.code) in self.owner:
            n += 1
            proposal.code = f"{base}_{n}"
        for name in [proposal.code, *kept]:
            self.owner.setdefault(alias_key(name), proposal.code)
        return proposal


def _place(registry: _Registry, section: str, prefix: str, names: _Names) -> list[Proposal]:
    placed = []
    for spellings, seen, links, kinds in names.groups():
        english = next((n for n in spellings if not has_cjk(n)), spellings[0])
        proposal = Proposal(
            section, make_code(english, prefix), spellings, seen, list(links), kinds
        )
        if registry.place(proposal) is not None:
            placed.append(proposal)
    return placed
