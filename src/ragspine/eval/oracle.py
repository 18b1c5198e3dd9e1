"""The eval's judge of numbers: what the hand-written ground truth lets one answer state.

The fabrication count must not be graded against the engine's own lookups (an engine that
serves last year's value under this year's label would grade itself right), so the values an
answer may state come from the demo generator's truth table (``demo.corpus_truth``), computed
from the generation spec, never from the store or the answer's tool results:

- **the keys a question is about**: the case's expected ``values`` when it lists any (plus the
  year before each series' latest period when the parsed question asks for a change, and the
  slots a computed answer — a ranking, total, exclusion, average, CAGR — looked up), else
  the slots the engine's parsed intent asked after its surfaced assumptions
  (``fabrication.asked_slots``) — the intent says *which* keys, never what their values are;
- **their values**: every ground-truth fact of those keys the case's clearance may see, and
  the values the ground truth holds pending review for them (a document stating a key's value
  differently, which ingestion sends to review as a ``conflict``; the restatement an answer
  discloses); a difference or percentage change of two such values is recomputed here, and for
  a computed answer its sums, means and rates (``eval.computed``) — a sum over several
  periods only of a metric the profile makes a flow (``profile.metric_nature``: a balance's
  or an unknown's period ends never add up) — and a derived metric's figure from the truth
  of its numerator's and denominator's keys (``computed.ratio_values``);
- **narrative contradictions**: a narrative sentence naming one metric, one entity and one
  period (by the profile's aliases and period expressions) whose ground truth holds values
  the caller may see, and stating amounts none of which equals one of them at a plausible
  unit scale, has all its amounts counted.

A corpus of another company (``one_entity``: Kestrel Mutual, ``demo.kestrel``) is judged
against its own hand-written truth and read with its own profile (its aliases, its fiscal
year end, its default channel), whatever profile the oracle was given for the demo's.

Limits: the truth covers the tables of the demo corpus (``trust`` adds prose only); a value is
judged, not its label, so in a change both years' values pass whichever label they carry; a
case without expected values is judged on the keys the engine parsed, so a question parsed as
the wrong key and answered with that key's true value is left to the other gates; narrative
numbers are judged against the passage text the answer cites.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import date
from functools import cache, lru_cache

from ragspine.agent.types import AgentResult, ParsedIntent, Slots
from ragspine.demo import kestrel
from ragspine.demo.corpora import Corpus
from ragspine.demo.corpus import demo_documents
from ragspine.demo.corpus_truth import (
    DocumentTruth,
    FactTruth,
    compute_ground_truth,
    split_period,
    table_outcomes,
)
from ragspine.eval.cases import GoldenCase
from ragspine.eval.computed import ratio_values, sum_groups
from ragspine.eval.fabrication import (
    Fabrication,
    asked_slots,
    asks_base_year,
    fabricated_numbers,
    profile_names,
)
from ragspine.profile.loader import load_profile
from ragspine.profile.metric_nature import MetricNature, nature_of
from ragspine.profile.model import DomainProfile, MetricKind
from ragspine.profile.periods import FiscalCalendar, find_periods
from ragspine.profile.sensitivity import Sensitivity

# metric, entity, period label, channel: how a case's expected value names a key
TruthKey = tuple[str, str, str, str]

_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
_CITATION = re.compile(r"\[\d+\]")
_PERCENT_AFTER = re.compile(r"\s*(?:%|个百分点|百分点|percentage points?|pp\b|bps\b)", re.I)
# A report may write an amount stored in millions as is, in 亿 (x100), billions (x1000),
# thousands, 万, or in plain units; a stated amount agrees when one scale matches its rounding.
_SCALES = (1.0, 100.0, 1000.0, 0.001, 0.01, 1e6, 1e-6)


@dataclass(frozen=True)
class TruthValue:
    """One value the ground truth gives a key, and who may see it."""

    value: float
    sensitivity: Sensitivity


@dataclass(frozen=True)
class TruthTable:
    """Ground-truth facts and pending values by key."""

    facts: Mapping[TruthKey, tuple[TruthValue, ...]]
    pending: Mapping[TruthKey, tuple[TruthValue, ...]]
    # Each document's level, when the truth knows it: a source above the caller's clearance
    # is a leak whatever it says.
    documents: Mapping[str, Sensitivity] = field(default_factory=dict)

    @classmethod
    def of(
        cls,
        facts: Iterable[FactTruth],
        pending: Iterable[FactTruth] = (),
        documents: Iterable[DocumentTruth] = (),
    ) -> TruthTable:
        """A table from ground-truth records (a test corpus may write its own)."""
        levels = {d.doc: Sensitivity.parse(d.sensitivity) for d in documents}
        return cls(_by_key(facts), _by_key(pending), levels)

    def values(self, key: TruthKey, clearance: Sensitivity) -> list[float]:
        """The key's fact values ``clearance`` may see."""
        return [v.value for v in self.facts.get(key, ()) if clearance.allows(v.sensitivity)]

    def pending_values(self, key: TruthKey, clearance: Sensitivity) -> list[float]:
        """The key's values pending review that ``clearance`` may see."""
        return [v.value for v in self.pending.get(key, ()) if clearance.allows(v.sensitivity)]


def _by_key(records: Iterable[FactTruth]) -> dict[TruthKey, tuple[TruthValue, ...]]:
    table: dict[TruthKey, list[TruthValue]] = defaultdict(list)
    for f in records:
        label = f"FY{f.period}" if f.period_type == "FY" else f"{f.period}{f.period_type}"
        key = (f.metric_code, f.entity, label, f.channel)
        table[key].append(TruthValue(f.value, Sensitivity.parse(f.sensitivity)))
    return {key: tuple(values) for key, values in table.items()}


@lru_cache(maxsize=1)
def demo_truth() -> TruthTable:
    """The demo corpus's truth, from the generator's spec (no file is read back).

    The conflict review items of the ground truth name the cell that restates a key; the
    value and key of that cell come from the same table rules.
    """
    specs = [document.placed_tables() for document in demo_documents()]
    truth = compute_ground_truth(specs)
    conflicts = {(r.doc, r.locator) for r in truth.review_items if r.reason == "conflict"}
    restated = [
        outcome
        for spec in specs
        for placed in spec.tables
        for outcome in table_outcomes(spec, placed)
        if isinstance(outcome, FactTruth) and (outcome.doc, outcome.locator) in conflicts
    ]
    return TruthTable.of(truth.facts, restated, truth.documents)


@lru_cache(maxsize=1)
def kestrel_truth() -> TruthTable:
    """The one-entity corpus's truth: Kestrel Mutual's hand-written table values."""
    facts = [
        FactTruth(
            metric_code=f.metric,
            entity=f.entity,
            channel=f.channel,
            period_type=split_period(f.period)[0],
            period=split_period(f.period)[1],
            value=f.value,
            unit=f.unit,
            doc=f.doc,
            locator=f.locator,
            sensitivity=kestrel.SENSITIVITY,
        )
        for f in kestrel.EXPECTED_FACTS
    ]
    documents = {DocumentTruth(f.doc, f.sensitivity, f.doc.rsplit(".", 1)[-1]) for f in facts}
    return TruthTable.of(facts, documents=documents)


def corpus_truth(corpus: Corpus) -> TruthTable:
    """The truth of a case's corpus: ``trust`` adds prose only, so it is the demo's."""
    if corpus in (Corpus.DEMO, Corpus.TRUST):
        return demo_truth()
    if corpus is Corpus.ONE_ENTITY:
        return kestrel_truth()
    raise ValueError(f"no ground truth is written for the corpus {corpus.value!r}")


@cache
def _own_profile(path: str) -> DomainProfile:
    return load_profile(path)


@dataclass(frozen=True)
class Oracle:
    """Judges the numbers of answers over one profile against a truth table per corpus."""

    profile: DomainProfile
    default_channel: str
    truth: Mapping[Corpus, TruthTable] | None = None

    def table(self, corpus: Corpus) -> TruthTable:
        return self.truth[corpus] if self.truth is not None else corpus_truth(corpus)

    def reader(self, corpus: Corpus) -> tuple[DomainProfile, str]:
        """The profile ``corpus``'s answers are read with, and its default channel: the
        oracle's own for the demo's corpora, a company's own for its corpus."""
        own = corpus.own_profile
        if own is None:
            return self.profile, self.default_channel
        profile = _own_profile(str(own))
        return profile, profile.defaults.channel

    def fabrications(
        self, case: GoldenCase, result: AgentResult, *, keys: Iterable[TruthKey] | None = None
    ) -> list[Fabrication]:
        """Every number of ``result`` the ground truth of ``case``'s corpus does not allow.

        ``keys`` replaces the keys the case is about (``keys_about``) when the caller knows
        them exactly (the sweep, which generated the question): then nothing the engine parsed
        widens them, so an answer for another key than asked counts.
        """
        table = self.table(case.corpus)
        profile, channel = self.reader(case.corpus)
        keys = self.keys_about(case, result.intent) if keys is None else set(keys)
        keyed = [(key, v) for key in keys for v in table.values(key, case.clearance)]
        values = [v for _, v in keyed]
        pending = [v for key in keys for v in table.pending_values(key, case.clearance)]
        check = TruthContradictions(table, profile, case.reference_date, case.clearance, channel)
        asked = asked_slots(result.intent, channel) if result.intent else set()
        ratios = ratio_values(
            result.intent, asked, lambda slots: table.values(_key(slots), case.clearance)
        )
        return fabricated_numbers(
            result,
            allowed_values=values,
            pending_values=pending,
            default_channel=channel,
            contradicting=check.contradicting,
            names=profile_names(profile),
            ratios=ratios,
            year_end_month=profile.fiscal.year_end_month,
            exchange_rates=profile.exchange_rates,
            sum_groups=sum_groups(
                ((key[0], key[2], v) for key, v in keyed), lambda m: _is_flow(profile, m)
            ),
        )

    def keys_about(self, case: GoldenCase, intent: ParsedIntent | None) -> set[TruthKey]:
        """The case's expected keys (with base years for a change), else the parsed slots."""
        _, channel = self.reader(case.corpus)
        if case.expect.values:
            keys = {(v.metric, v.entity, v.period_label, v.channel) for v in case.expect.values}
            if intent is not None and asks_base_year(intent):
                keys |= _base_years(keys)
            if intent is not None and intent.analysis is not None:
                # A computed answer shows every input it used (the whole, the units left
                # out, each year of a span), each judged by its own truth value.
                keys |= {_key(s) for s in asked_slots(intent, channel)}
            return keys
        if intent is None:
            return set()
        return {_key(s) for s in asked_slots(intent, channel)}


def _is_flow(profile: DomainProfile, metric: str) -> bool:
    """Whether the profile makes ``metric`` a flow (declared, or read from its names): only a
    flow's values at several period ends add up to a figure an answer may state."""
    definition = profile.metric(metric)
    return definition is not None and nature_of(definition) is MetricNature.FLOW


def _key(slots: Slots) -> TruthKey:
    return (slots.metric, slots.entity, slots.period.label, slots.channel)


def _base_years(keys: set[TruthKey]) -> set[TruthKey]:
    """The year before the latest period of each series (metric, entity, channel): a change
    compares that period with it. Only the latest: the base year's own base was not asked."""
    latest: dict[tuple[str, str, str], str] = {}
    for metric, entity, label, channel in sorted(keys, key=lambda k: _sortable(k[2])):
        latest[(metric, entity, channel)] = label
    return {(m, e, _previous(label), c) for (m, e, c), label in latest.items()}


def _sortable(label: str) -> tuple[int, str]:
    """FY2024 -> (2024, "FY"); 2025H1 -> (2025, "H1"): years order, grains apart."""
    return (int(label[2:]), "FY") if label.startswith("FY") else (int(label[:4]), label[4:])


def _previous(label: str) -> str:
    if label.startswith("FY"):
        return f"FY{int(label[2:]) - 1}"
    return f"{int(label[:4]) - 1}{label[4:]}"


# --------------------------------------------------------------------------- contradictions


@dataclass(frozen=True)
class TruthContradictions:
    """Finds narrative sentences that state a ground-truth key's value differently."""

    table: TruthTable
    profile: DomainProfile
    day: date
    clearance: Sensitivity
    default_channel: str

    def contradicting(self, sentence: str) -> list[str]:
        """The amounts of ``sentence`` when it names one key and states none of its values."""
        text = unicodedata.normalize("NFKC", _CITATION.sub(" ", sentence))
        matches = find_periods(text, self.day, self._calendar)
        spans = [(p.start, p.end) for p in matches]
        periods = {p for m in matches for p in m.periods}
        metrics, entities, channels = _named(text, self.profile)
        if len(metrics) != 1 or len(entities) != 1 or len(periods) != 1 or len(channels) > 1:
            return []
        (metric,) = metrics
        channel = next(iter(channels), self.default_channel)
        key = (metric, next(iter(entities)), next(iter(periods)).label, channel)
        known = self.table.values(key, self.clearance)
        if not known:
            return []
        known += self.table.pending_values(key, self.clearance)
        definition = self.profile.metric(metric)
        ratio = definition is not None and definition.kind == MetricKind.RATIO
        stated = _amounts(text, spans, percentages=ratio)
        if not stated or any(_agrees(n, v) for n in stated for v in known):
            return []
        return stated

    @property
    def _calendar(self) -> FiscalCalendar:
        return FiscalCalendar(self.profile.fiscal.year_end_month)


def _named(text: str, profile: DomainProfile) -> tuple[set[str], set[str], set[str]]:
    """The metrics, entities and channels ``text`` names by a profile alias (longest wins)."""
    folded = text.casefold()
    hits = [
        (m.start(), m.end(), kind, code)
        for pattern, kind, code in profile.compiled("eval_oracle_aliases", _alias_patterns)
        for m in pattern.finditer(folded)
    ]
    # A hit inside a longer one (a metric alias inside "other <alias>", itself an alias) names
    # nothing.
    kept = sorted(
        h for h in hits if not any(o != h and o[0] <= h[0] and h[1] <= o[1] for o in hits)
    )
    home = profile.company.home_entity
    named: dict[str, set[str]] = {"metric": set(), "entity": set(), "channel": set()}
    for i, (_, end, kind, code) in enumerate(kept):
        following = kept[i + 1] if i + 1 < len(kept) else None
        if (
            code == home
            and following is not None
            and following[2] == "entity"
            and not folded[end : following[0]].strip()
        ):
            continue  # "<company> <region>" names the region alone
        named[kind].add(code)
    return named["metric"], named["entity"], named["channel"]


def _alias_patterns(profile: DomainProfile) -> list[tuple[re.Pattern[str], str, str]]:
    """One pattern per alias: ASCII ones on word boundaries, CJK ones anywhere."""
    patterns = []
    for kind, items in (
        ("metric", profile.all_metrics),
        ("entity", profile.entities),
        ("channel", profile.channels),
    ):
        for item in items:
            for alias in {item.code, item.name_zh, item.name_en, *item.aliases} - {""}:
                needle = re.escape(alias.casefold())
                if alias.isascii():
                    needle = rf"(?<![a-z0-9]){needle}(?![a-z0-9])"
                patterns.append((re.compile(needle), kind, item.code))
    return patterns


def _amounts(text: str, periods: list[tuple[int, int]], *, percentages: bool) -> list[str]:
    """Numbers of ``text`` outside its periods, not glued to a letter, percentages only for a
    ratio metric."""
    found = []
    for match in _NUMBER.finditer(text):
        start, end = match.span()
        if any(a <= start < b for a, b in periods):
            continue
        if start and text[start - 1].isascii() and text[start - 1].isalpha():
            continue
        if bool(_PERCENT_AFTER.match(text, end)) != percentages:
            continue
        found.append(match.group())
    return found


def _agrees(number: str, value: float) -> bool:
    plain = number.replace(",", "")
    decimals = len(plain.split(".")[1]) if "." in plain else 0
    stated, half = float(plain), 0.5 * 10.0**-decimals
    return any(
        math.isclose(stated * k, value, rel_tol=1e-9, abs_tol=half * k + 1e-9) for k in _SCALES
    )
