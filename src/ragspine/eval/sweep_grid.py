"""The sweep's questions: a grid generated from a profile and a truth table, never from cases.

Every (entity, metric, period, channel) the profile names, over every period the truth holds
(plus one year before and after), is asked in English and Chinese through phrasing templates
written from the docs (``docs/analyst.md``, ``docs/profile.md``, the README): a plain
question, a change on the year before, a change from A to B, a ranking, a total of a named
population, an exclusion, an average and a CAGR over a span, a figure in billions (以亿元计),
a follow-up pair, dates ("year ended …", "as at …", "six months ended …", a year end the
calendar does not have), a month name, a comparison of two units, a unit the profile lacks and
a competitor. Names rotate through each item's aliases, periods through their written forms.

Each question carries the ground-truth keys it is about (``keys``): what the answer may state
values of. A key the truth lacks stays in the set (the answer should say it is not found). A
template that names nothing the profile has (an unknown unit, a competitor, a period the
calendar does not have) has no keys: any amount in its answer is untraceable.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from itertools import combinations

from ragspine.demo.corpora import Corpus
from ragspine.eval.cases import DEFAULT_REFERENCE_DATE
from ragspine.eval.oracle import TruthKey, TruthTable
from ragspine.profile.fiscal_calendar import FiscalCalendar, Period
from ragspine.profile.model import DomainProfile, MetricKind
from ragspine.profile.sensitivity import Sensitivity

_CLEARANCES = (
    Sensitivity.PUBLIC,
    Sensitivity.INTERNAL,
    Sensitivity.CONFIDENTIAL,
    Sensitivity.RESTRICTED,
)
# Names no profile is likely to hold: a unit the profile lacks.
_UNKNOWN_UNITS = (("Singapore", "新加坡"), ("Atlantis division", "亚特兰蒂斯事业部"))
_ZH_NUMERALS = "零一二三四"


@dataclass(frozen=True)
class SweepQuestion:
    """One generated question, the truth keys it is about and how it is asked."""

    template: str
    lang: str
    question: str
    keys: frozenset[TruthKey]
    clearance: Sensitivity
    previous: tuple[str, ...] = ()
    corpus: Corpus = Corpus.DEMO


def period_of(label: str) -> Period:
    """``FY2024`` -> Period(2024, "FY"); ``2025H1`` -> Period(2025, "H1")."""
    if label.startswith("FY"):
        return Period(int(label[2:]), "FY")
    return Period(int(label[:4]), label[4:])


@dataclass(frozen=True)
class Grid:
    """Builds the sweep over one profile and truth table."""

    profile: DomainProfile
    truth: TruthTable

    # ------------------------------------------------------------------ axes

    @property
    def channel(self) -> str:
        return self.profile.defaults.channel

    def periods(self) -> list[Period]:
        """Every period the truth holds, and fiscal years one before and one after."""
        held = {period_of(key[2]) for key in self.truth.facts}
        years = sorted({p.year for p in held})
        extra = {Period(years[0] - 1, "FY"), Period(years[-1] + 1, "FY")} if years else set()
        return sorted(held | extra, key=lambda p: (p.year, p.type))

    def years(self) -> list[int]:
        return sorted({p.year for p in self.periods() if p.type == "FY"})

    def units(self) -> list[str]:
        """The home entity's children (what a ranking, total or exclusion covers)."""
        return list(self.profile.children(self.profile.company.home_entity))

    # ------------------------------------------------------------------ names

    def _pick(self, names: Sequence[str], salt: str) -> str:
        return names[zlib.crc32(salt.encode()) % len(names)]

    def entity(self, code: str, lang: str, salt: str) -> str:
        e = self.profile.entity(code)
        assert e is not None
        return self._pick(_names(e.name_en, e.name_zh, e.aliases, lang), salt + code)

    def metric(self, code: str, lang: str, salt: str) -> str:
        m = self.profile.metric(code)
        assert m is not None
        return self._pick(_names(m.name_en, m.name_zh, m.aliases, lang), salt + code)

    def channel_name(self, code: str, lang: str, salt: str) -> str:
        c = self.profile.channel(code)
        assert c is not None
        return self._pick(_names(c.name_en, c.name_zh, c.aliases, lang), salt + code)

    def period(self, p: Period, lang: str, salt: str) -> str:
        return self._pick(_period_forms(p, lang), salt + p.label)

    def reference_fiscal_year(self) -> int:
        """The fiscal year holding the eval's reference date (what "last year" counts from)."""
        return FiscalCalendar(self.profile.fiscal.year_end_month).fiscal_year(
            DEFAULT_REFERENCE_DATE
        )

    @property
    def clearance_max(self) -> Sensitivity:
        return _CLEARANCES[-1]

    def clearance(self, question: str) -> Sensitivity:
        return _CLEARANCES[zlib.crc32(question.encode()) % len(_CLEARANCES)]

    def key(self, metric: str, entity: str, p: Period, channel: str | None = None) -> TruthKey:
        return (metric, entity, p.label, channel or self.channel)

    # ------------------------------------------------------------------ the grid

    def questions(self) -> list[SweepQuestion]:
        """The whole grid, in a fixed order."""
        out: list[SweepQuestion] = []
        for build in (
            self._plain,
            self._growth,
            self._from_to,
            self._ranking,
            self._total,
            self._excluding,
            self._average,
            self._cagr,
            self._billions,
            self._follow_up,
            self._compare,
            self._unknown_unit,
            self._competitor,
        ):
            out += build()
        return out

    def ask(
        self,
        template: str,
        lang: str,
        question: str,
        keys: set[TruthKey],
        previous: tuple[str, ...] = (),
        corpus: Corpus = Corpus.DEMO,
    ) -> SweepQuestion:
        return SweepQuestion(
            template, lang, question, frozenset(keys), self.clearance(question), previous, corpus
        )

    def _plain(self) -> Iterator[SweepQuestion]:
        for e in self.profile.entities:
            for m in self.profile.metrics:
                for p in self.periods():
                    for c in self.profile.channels:
                        for lang in ("en", "zh"):
                            s = f"plain{lang}{p.label}{c.code}"
                            en, mn, pn = (
                                self.entity(e.code, lang, s),
                                self.metric(m.code, lang, s),
                                self.period(p, lang, s),
                            )
                            cn = (
                                "" if c.code == self.channel else self.channel_name(c.code, lang, s)
                            )
                            if lang == "en":
                                q = f"What was {en} {cn} {mn} in {pn}?".replace("  ", " ")
                            else:
                                q = f"{en}{pn}{cn}{mn}是多少"
                            yield self.ask("plain", lang, q, {self.key(m.code, e.code, p, c.code)})

    def _growth(self) -> Iterator[SweepQuestion]:
        for e in self.profile.entities:
            for m in self.profile.metrics:
                for p in self.periods():
                    keys = {
                        self.key(m.code, e.code, p),
                        self.key(m.code, e.code, p.previous_year()),
                    }
                    for lang in ("en", "zh"):
                        s = f"growth{lang}{p.label}"
                        en, mn, pn = (
                            self.entity(e.code, lang, s),
                            self.metric(m.code, lang, s),
                            self.period(p, lang, s),
                        )
                        q = (
                            f"How much did {en} {mn} grow year on year in {pn}?"
                            if lang == "en"
                            else f"{en}{pn}{mn}同比增长多少"
                        )
                        yield self.ask("growth", lang, q, keys)

    def _spans(self) -> Iterator[tuple[int, int]]:
        yield from combinations(self.years(), 2)

    def _from_to(self) -> Iterator[SweepQuestion]:
        for e in self.profile.entities:
            for m in self.profile.metrics:
                for a, b in self._spans():
                    for first, last in ((a, b), (b, a)) if b - a == 1 else ((a, b),):
                        keys = {
                            self.key(m.code, e.code, Period(y, "FY"))
                            for y in range(min(a, b), max(a, b) + 1)
                        }
                        for lang in ("en", "zh"):
                            s = f"fromto{lang}{first}{last}"
                            en, mn = self.entity(e.code, lang, s), self.metric(m.code, lang, s)
                            pa = self.period(Period(first, "FY"), lang, s)
                            pb = self.period(Period(last, "FY"), lang, s + "b")
                            q = (
                                f"How much did {en} {mn} change from {pa} to {pb}?"
                                if lang == "en"
                                else f"{en}{mn}从{pa}到{pb}变化了多少"
                            )
                            yield self.ask("from_to", lang, q, keys)

    def population(self, m: str, p: Period) -> set[TruthKey]:
        home = self.profile.company.home_entity
        return {self.key(m, u, p) for u in (*self.units(), home)}

    def _group_name(self, lang: str, salt: str) -> str:
        groups = self.profile.groups
        if not groups:
            return "all units" if lang == "en" else "各单位"
        g = groups[0]
        return self._pick(_names(g.name_en, g.name_zh, g.aliases, lang), salt)

    def _ranking(self) -> Iterator[SweepQuestion]:
        for m in self.profile.metrics:
            for p in self.periods():
                for word_en, word_zh in (("highest", "最高"), ("lowest", "最低")):
                    for lang in ("en", "zh"):
                        s = f"rank{lang}{word_en}"
                        mn, pn = self.metric(m.code, lang, s), self.period(p, lang, s)
                        q = (
                            f"Which region had the {word_en} {mn} in {pn}?"
                            if lang == "en"
                            else f"{pn}哪个地区{mn}{word_zh}"
                        )
                        yield self.ask("ranking", lang, q, self.population(m.code, p))

    def _total(self) -> Iterator[SweepQuestion]:
        for m in self.profile.metrics:
            for p in self.periods():
                for lang in ("en", "zh"):
                    s = f"total{lang}"
                    mn, pn, gn = (
                        self.metric(m.code, lang, s),
                        self.period(p, lang, s),
                        self._group_name(lang, s + m.code + p.label),
                    )
                    q = (
                        f"What was the total {mn} of {gn} in {pn}?"
                        if lang == "en"
                        else f"{pn}{gn}{mn}合计是多少"
                    )
                    yield self.ask("total", lang, q, self.population(m.code, p))

    def _excluding(self) -> Iterator[SweepQuestion]:
        for u in self.units():
            for m in self.profile.metrics:
                for p in self.periods():
                    for lang in ("en", "zh"):
                        s = f"excl{lang}"
                        un, mn, pn = (
                            self.entity(u, lang, s),
                            self.metric(m.code, lang, s),
                            self.period(p, lang, s),
                        )
                        q = (
                            f"What was {mn} excluding {un} in {pn}?"
                            if lang == "en"
                            else f"{pn}除{un}以外的{mn}是多少"
                        )
                        yield self.ask("excluding", lang, q, self.population(m.code, p))

    def _span_keys(self, m: str, e: str, a: int, b: int) -> set[TruthKey]:
        return {self.key(m, e, Period(y, "FY")) for y in range(a, b + 1)}

    def _average(self) -> Iterator[SweepQuestion]:
        for e in self.profile.entities:
            for m in self.profile.metrics:
                for a, b in self._spans():
                    for lang in ("en", "zh"):
                        s = f"avg{lang}{a}{b}"
                        en, mn = self.entity(e.code, lang, s), self.metric(m.code, lang, s)
                        q = (
                            f"What was the average {en} {mn} from FY{a} to FY{b}?"
                            if lang == "en"
                            else f"{en}{a}年至{b}年平均{mn}是多少"
                        )
                        yield self.ask("average", lang, q, self._span_keys(m.code, e.code, a, b))

    def _cagr(self) -> Iterator[SweepQuestion]:
        for e in self.profile.entities:
            for m in self.profile.metrics:
                for a, b in self._spans():
                    for lang in ("en", "zh"):
                        s = f"cagr{lang}{a}{b}"
                        en, mn = self.entity(e.code, lang, s), self.metric(m.code, lang, s)
                        q = (
                            f"What was the CAGR of {en} {mn} from FY{a} to FY{b}?"
                            if lang == "en"
                            else f"{en}{mn}从{a}年到{b}年的复合增长率是多少"
                        )
                        yield self.ask("cagr", lang, q, self._span_keys(m.code, e.code, a, b))

    def _billions(self) -> Iterator[SweepQuestion]:
        for e in self.profile.entities:
            for m in self.profile.metrics:
                if m.kind is not MetricKind.AMOUNT:
                    continue
                for p in self.periods():
                    for lang in ("en", "zh"):
                        s = f"bn{lang}"
                        en, mn, pn = (
                            self.entity(e.code, lang, s),
                            self.metric(m.code, lang, s),
                            self.period(p, lang, s),
                        )
                        q = (
                            f"What was {en} {mn} in {pn}, in billions?"
                            if lang == "en"
                            else f"{en}{pn}{mn}是多少，以亿元计"
                        )
                        yield self.ask("billions", lang, q, {self.key(m.code, e.code, p)})

    def _follow_up(self) -> Iterator[SweepQuestion]:
        """A plain question, then one naming a single other slot."""
        entities = [e.code for e in self.profile.entities]
        metrics = [m.code for m in self.profile.metrics]
        years = [y for y in self.years()]
        for i, e in enumerate(entities):
            for j, m in enumerate(metrics):
                for k, y in enumerate(years[1:], start=1):
                    p, before = Period(y, "FY"), Period(years[k - 1], "FY")
                    other_e = entities[(i + 1) % len(entities)]
                    other_m = metrics[(j + 1) % len(metrics)]
                    for lang in ("en", "zh"):
                        s = f"fu{lang}{y}"
                        first = (
                            f"What was {self.entity(e, lang, s)} {self.metric(m, lang, s)} "
                            f"in {self.period(p, lang, s)}?"
                            if lang == "en"
                            else f"{self.entity(e, lang, s)}{self.period(p, lang, s)}"
                            f"{self.metric(m, lang, s)}是多少"
                        )
                        turns = (
                            (self.period(before, lang, s), self.key(m, e, before)),
                            (self.entity(other_e, lang, s), self.key(m, other_e, p)),
                            (self.metric(other_m, lang, s), self.key(other_m, e, p)),
                        )
                        for slot, key in turns:
                            q = f"And {slot}?" if lang == "en" else f"那{slot}呢？"
                            yield self.ask("follow_up", lang, q, {key}, (first,))

    def _compare(self) -> Iterator[SweepQuestion]:
        for a, b in combinations([e.code for e in self.profile.entities], 2):
            for m in self.profile.metrics:
                for y in self.years():
                    p = Period(y, "FY")
                    for lang in ("en", "zh"):
                        s = f"cmp{lang}{y}"
                        an, bn = self.entity(a, lang, s), self.entity(b, lang, s + "b")
                        mn, pn = self.metric(m.code, lang, s), self.period(p, lang, s)
                        q = (
                            f"Compare {an} and {bn} {mn} in {pn}"
                            if lang == "en"
                            else f"对比{an}和{bn}{pn}的{mn}"
                        )
                        keys = {self.key(m.code, a, p), self.key(m.code, b, p)}
                        yield self.ask("compare", lang, q, keys)

    def _unknown_unit(self) -> Iterator[SweepQuestion]:
        for name_en, name_zh in _UNKNOWN_UNITS:
            for m in self.profile.metrics:
                for y in self.years()[-3:]:
                    for lang in ("en", "zh"):
                        s = f"unk{lang}{y}"
                        mn, pn = self.metric(m.code, lang, s), self.period(Period(y, "FY"), lang, s)
                        q = (
                            f"What was {name_en} {mn} in {pn}?"
                            if lang == "en"
                            else f"{name_zh}{pn}{mn}是多少"
                        )
                        yield self.ask("unknown_unit", lang, q, set())

    def _competitor(self) -> Iterator[SweepQuestion]:
        for c in self.profile.competitors:
            for m in self.profile.metrics:
                for y in self.years()[-2:]:
                    for lang in ("en", "zh"):
                        s = f"comp{lang}{y}"
                        names = [a for a in (c.name, *c.aliases) if a.isascii() == (lang == "en")]
                        cn = self._pick(names or [c.name], s + c.name)
                        mn, pn = self.metric(m.code, lang, s), self.period(Period(y, "FY"), lang, s)
                        q = (
                            f"What was {cn} {mn} in {pn}?"
                            if lang == "en"
                            else f"{cn}{pn}{mn}是多少"
                        )
                        yield self.ask("competitor", lang, q, set())


def _names(name_en: str, name_zh: str, aliases: Sequence[str], lang: str) -> list[str]:
    """An item's names in one language: ASCII ones for English, the others for Chinese."""
    english = lang == "en"
    names = [n for n in (name_en, *aliases) if n and n.isascii()] if english else []
    if not english:
        names = [n for n in (name_zh, *aliases) if n and not n.isascii()]
    return names or [name_en or name_zh]


def _period_forms(p: Period, lang: str) -> list[str]:
    y = p.year
    if p.type == "FY":
        return [f"FY{y}", f"{y}", f"fiscal year {y}"] if lang == "en" else [f"{y}年", f"FY{y}"]
    if p.type in ("H1", "H2"):
        n = p.type[1]
        if lang == "en":
            word = "first" if n == "1" else "second"
            return [f"H{n} {y}", f"{y}H{n}", f"the {word} half of {y}"]
        return [f"{y}年{'上' if n == '1' else '下'}半年", f"{y}H{n}"]
    q = int(p.type[1])
    if lang == "en":
        return [f"Q{q} {y}", f"{y}Q{q}"]
    return [f"{y}年第{_ZH_NUMERALS[q]}季度", f"{y}Q{q}"]
