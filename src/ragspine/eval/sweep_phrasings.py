"""More of the sweep's templates: scales and currencies on request, relative periods, missing
slots, several metrics or periods at once, rankings by growth and top N, cumulative totals,
exclusions of a channel, halves and quarters compared, why-questions and a figure planted in
the question (``eval.sweep_grid`` has the rest and the rules they follow).
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import pairwise

from ragspine.demo.corpora import Corpus
from ragspine.eval.oracle import TruthKey
from ragspine.eval.sweep_grid import Grid, SweepQuestion
from ragspine.profile.fiscal_calendar import Period
from ragspine.profile.model import MetricKind

# (English, Chinese) requests of another scale or currency.
_REQUESTS = (
    ("in thousands", "以千元计"),
    ("in millions", "以百万元计"),
    ("in euros", "换算成欧元"),
    ("in RMB", "以万元计"),
    ("in US$ billions", "以亿美元计"),
)


def more_questions(grid: Grid) -> list[SweepQuestion]:
    """The templates of this module over ``grid``, in a fixed order."""
    out: list[SweepQuestion] = []
    for build in (
        _requests,
        _relative,
        _missing_slot,
        _two_metrics,
        _two_periods,
        _rank_growth,
        _top_n,
        _cumulative,
        _exclude_channel,
        _sub_year_change,
        _why,
        _planted,
        _mixed,
        _ranges,
        _by_channel,
        _latest,
        _drivers,
        _not_computed,
    ):
        out += build(grid)
    return out


def _fy(grid: Grid) -> list[Period]:
    return [Period(y, "FY") for y in grid.years()]


def _requests(grid: Grid) -> Iterator[SweepQuestion]:
    for e in grid.profile.entities:
        for m in grid.profile.metrics:
            for i, p in enumerate(grid.periods()):
                en_req, zh_req = _REQUESTS[i % len(_REQUESTS)]
                for lang in ("en", "zh"):
                    s = f"req{lang}{p.label}"
                    en, mn, pn = (
                        grid.entity(e.code, lang, s),
                        grid.metric(m.code, lang, s),
                        grid.period(p, lang, s),
                    )
                    q = f"{en} {mn} {pn} {en_req}" if lang == "en" else f"{en}{pn}{mn}{zh_req}"
                    yield grid.ask("scale_request", lang, q, {grid.key(m.code, e.code, p)})


def _relative(grid: Grid) -> Iterator[SweepQuestion]:
    """Years named relative to the reference date (its fiscal year under a December year end
    is the calendar year; the sweep asks at the eval's reference date)."""
    this_year = grid.reference_fiscal_year()
    words = (
        ("last year", "去年", 1),
        ("the year before last", "前年", 2),
        ("the previous fiscal year", "上一财年", 1),
    )
    for e in grid.profile.entities:
        for m in grid.profile.metrics:
            for word_en, word_zh, back in words:
                p = Period(this_year - back, "FY")
                for lang in ("en", "zh"):
                    s = f"rel{lang}{back}"
                    en, mn = grid.entity(e.code, lang, s), grid.metric(m.code, lang, s)
                    q = (
                        f"What was {en} {mn} {word_en}?"
                        if lang == "en"
                        else f"{en}{word_zh}{mn}是多少"
                    )
                    yield grid.ask("relative", lang, q, {grid.key(m.code, e.code, p)})


def _missing_slot(grid: Grid) -> Iterator[SweepQuestion]:
    """No period (the latest may be assumed) or no entity (the home entity may be)."""
    periods = grid.periods()
    for e in grid.profile.entities:
        for m in grid.profile.metrics:
            keys = {grid.key(m.code, e.code, p) for p in periods}
            for lang in ("en", "zh"):
                s = f"nop{lang}"
                en, mn = grid.entity(e.code, lang, s), grid.metric(m.code, lang, s)
                q = f"What was {en} {mn}?" if lang == "en" else f"{en}{mn}是多少"
                yield grid.ask("missing_period", lang, q, keys)
    for m in grid.profile.metrics:
        for p in periods:
            keys = {grid.key(m.code, x.code, p) for x in grid.profile.entities}
            for lang in ("en", "zh"):
                s = f"noe{lang}"
                mn, pn = grid.metric(m.code, lang, s), grid.period(p, lang, s)
                q = f"What was {mn} in {pn}?" if lang == "en" else f"{pn}{mn}是多少"
                yield grid.ask("missing_entity", lang, q, keys)


def _two_metrics(grid: Grid) -> Iterator[SweepQuestion]:
    metrics = [m.code for m in grid.profile.metrics]
    for e in grid.profile.entities:
        for a, b in pairwise([*metrics, metrics[0]]):
            for p in _fy(grid):
                for lang in ("en", "zh"):
                    s = f"2m{lang}{p.label}"
                    en, pn = grid.entity(e.code, lang, s), grid.period(p, lang, s)
                    an, bn = grid.metric(a, lang, s), grid.metric(b, lang, s + "b")
                    q = (
                        f"What were {en} {an} and {bn} in {pn}?"
                        if lang == "en"
                        else f"{en}{pn}的{an}和{bn}分别是多少"
                    )
                    keys = {grid.key(a, e.code, p), grid.key(b, e.code, p)}
                    yield grid.ask("two_metrics", lang, q, keys)


def _two_periods(grid: Grid) -> Iterator[SweepQuestion]:
    for e in grid.profile.entities:
        for m in grid.profile.metrics:
            for a, b in pairwise(grid.periods()):
                if a.type != b.type and "FY" in (a.type, b.type):
                    continue
                for lang in ("en", "zh"):
                    s = f"2p{lang}{a.label}"
                    en, mn = grid.entity(e.code, lang, s), grid.metric(m.code, lang, s)
                    pa, pb = grid.period(a, lang, s), grid.period(b, lang, s + "b")
                    q = f"{en} {mn} {pa} vs {pb}" if lang == "en" else f"{en}{pa}和{pb}{mn}对比"
                    keys = {grid.key(m.code, e.code, a), grid.key(m.code, e.code, b)}
                    yield grid.ask("two_periods", lang, q, keys)


def _population_with_bases(grid: Grid, metric: str, p: Period) -> set[TruthKey]:
    keys = grid.population(metric, p)
    return keys | grid.population(metric, p.previous_year())


def _rank_growth(grid: Grid) -> Iterator[SweepQuestion]:
    for m in grid.profile.metrics:
        for p in grid.periods():
            for lang in ("en", "zh"):
                s = f"rg{lang}"
                mn, pn = grid.metric(m.code, lang, s), grid.period(p, lang, s)
                q = (
                    f"Which region's {mn} grew fastest in {pn}?"
                    if lang == "en"
                    else f"{pn}哪个地区{mn}增长最快"
                )
                yield grid.ask("rank_growth", lang, q, _population_with_bases(grid, m.code, p))


def _top_n(grid: Grid) -> Iterator[SweepQuestion]:
    for m in grid.profile.metrics:
        for p in grid.periods():
            for n in (1, 2):
                for lang in ("en", "zh"):
                    s = f"top{lang}{n}"
                    mn, pn = grid.metric(m.code, lang, s), grid.period(p, lang, s)
                    q = (
                        f"Top {n} regions by {mn} in {pn}"
                        if lang == "en"
                        else f"{pn}{mn}排名前{n}的地区"
                    )
                    yield grid.ask("top_n", lang, q, grid.population(m.code, p))


def _cumulative(grid: Grid) -> Iterator[SweepQuestion]:
    years = grid.years()
    for e in grid.profile.entities:
        for m in grid.profile.metrics:
            for a, b in zip(years, years[2:], strict=False):
                for lang in ("en", "zh"):
                    s = f"cum{lang}{a}"
                    en, mn = grid.entity(e.code, lang, s), grid.metric(m.code, lang, s)
                    q = (
                        f"What was the cumulative {en} {mn} from FY{a} to FY{b}?"
                        if lang == "en"
                        else f"{en}{a}年至{b}年累计{mn}是多少"
                    )
                    keys = {grid.key(m.code, e.code, Period(y, "FY")) for y in range(a, b + 1)}
                    yield grid.ask("cumulative", lang, q, keys)


def _exclude_channel(grid: Grid) -> Iterator[SweepQuestion]:
    channels = [c.code for c in grid.profile.channels if c.code != grid.channel]
    for e in grid.profile.entities:
        for m in grid.profile.metrics:
            for p in _fy(grid):
                for c in channels:
                    keys = {grid.key(m.code, e.code, p, x.code) for x in grid.profile.channels}
                    for lang in ("en", "zh"):
                        s = f"xc{lang}{p.label}"
                        en, mn = grid.entity(e.code, lang, s), grid.metric(m.code, lang, s)
                        cn, pn = grid.channel_name(c, lang, s), grid.period(p, lang, s)
                        q = (
                            f"What was {en} {mn} excluding {cn} in {pn}?"
                            if lang == "en"
                            else f"{en}{pn}不包括{cn}的{mn}是多少"
                        )
                        yield grid.ask("exclude_channel", lang, q, keys)


def _sub_year_change(grid: Grid) -> Iterator[SweepQuestion]:
    subs = [p for p in grid.periods() if p.type != "FY"]
    for e in grid.profile.entities:
        for m in grid.profile.metrics:
            for p in subs:
                base = p.previous_year()
                for lang in ("en", "zh"):
                    s = f"sub{lang}{p.label}"
                    en, mn = grid.entity(e.code, lang, s), grid.metric(m.code, lang, s)
                    pa, pb = grid.period(base, lang, s), grid.period(p, lang, s + "b")
                    q = (
                        f"How did {en} {mn} change from {pa} to {pb}?"
                        if lang == "en"
                        else f"{en}{mn}从{pa}到{pb}的变化"
                    )
                    keys = {grid.key(m.code, e.code, p), grid.key(m.code, e.code, base)}
                    yield grid.ask("sub_year_change", lang, q, keys)


def _why(grid: Grid) -> Iterator[SweepQuestion]:
    """Why-questions over the demo corpus and over the corpus of misleading prose."""
    for corpus in (Corpus.DEMO, Corpus.TRUST):
        for e in grid.profile.entities:
            for m in grid.profile.metrics:
                for p in _fy(grid)[-3:]:
                    base = p.previous_year()
                    keys = {grid.key(m.code, e.code, p), grid.key(m.code, e.code, base)}
                    for lang in ("en", "zh"):
                        s = f"why{lang}{p.label}{corpus.value}"
                        en, mn, pn = (
                            grid.entity(e.code, lang, s),
                            grid.metric(m.code, lang, s),
                            grid.period(p, lang, s),
                        )
                        q = (
                            f"Why did {en} {mn} change in {pn}?"
                            if lang == "en"
                            else f"为什么{en}{pn}{mn}变化"
                        )
                        yield grid.ask(f"why_{corpus.value}", lang, q, keys, corpus=corpus)


def _drivers(grid: Grid) -> Iterator[SweepQuestion]:
    """Prose questions naming a figure without asking for it, over both corpora."""
    for corpus in (Corpus.DEMO, Corpus.TRUST):
        for e in grid.profile.entities:
            for m in grid.profile.metrics:
                p = _fy(grid)[-2]
                for lang in ("en", "zh"):
                    s = f"drv{lang}{corpus.value}"
                    en, mn, pn = (
                        grid.entity(e.code, lang, s),
                        grid.metric(m.code, lang, s),
                        grid.period(p, lang, s),
                    )
                    q = (
                        f"What drove {en} {mn} in {pn}, and what did management say about it?"
                        if lang == "en"
                        else f"{en}{pn}{mn}的主要驱动因素是什么？管理层怎么说"
                    )
                    keys = {
                        grid.key(m.code, e.code, p),
                        grid.key(m.code, e.code, p.previous_year()),
                    }
                    yield grid.ask(f"drivers_{corpus.value}", lang, q, keys, corpus=corpus)


def _mixed(grid: Grid) -> Iterator[SweepQuestion]:
    """English names with a Chinese period, and the other way round."""
    for e in grid.profile.entities:
        for m in grid.profile.metrics:
            for p in grid.periods():
                s = f"mix{p.label}"
                en, mn = grid.entity(e.code, "en", s), grid.metric(m.code, "en", s)
                q = f"{en} {grid.period(p, 'zh', s)} {mn}"
                yield grid.ask("mixed", "mixed", q, {grid.key(m.code, e.code, p)})
                q = f"{grid.entity(e.code, 'zh', s)} {grid.period(p, 'en', s)} {mn} 是多少"
                yield grid.ask("mixed", "mixed", q, {grid.key(m.code, e.code, p)})


def _ranges(grid: Grid) -> Iterator[SweepQuestion]:
    """A run of years: "FY2022 through FY2024", "2022年至2024年各年"."""
    years = grid.years()
    for e in grid.profile.entities:
        for m in grid.profile.metrics:
            for a, b in zip(years, years[2:], strict=False):
                keys = {grid.key(m.code, e.code, Period(y, "FY")) for y in range(a, b + 1)}
                for lang in ("en", "zh"):
                    s = f"rng{lang}{a}"
                    en, mn = grid.entity(e.code, lang, s), grid.metric(m.code, lang, s)
                    q = (
                        f"{en} {mn} for FY{a} through FY{b}"
                        if lang == "en"
                        else f"{en}{a}年至{b}年各年的{mn}"
                    )
                    yield grid.ask("range", lang, q, keys)


def _by_channel(grid: Grid) -> Iterator[SweepQuestion]:
    for e in grid.profile.entities:
        for m in grid.profile.metrics:
            for p in grid.periods():
                keys = {grid.key(m.code, e.code, p, c.code) for c in grid.profile.channels}
                for lang in ("en", "zh"):
                    s = f"bych{lang}"
                    en, mn, pn = (
                        grid.entity(e.code, lang, s),
                        grid.metric(m.code, lang, s),
                        grid.period(p, lang, s),
                    )
                    q = (
                        f"{en} {mn} in {pn} by channel"
                        if lang == "en"
                        else f"{en}{pn}各渠道{mn}分别是多少"
                    )
                    yield grid.ask("by_channel", lang, q, keys)


def _latest(grid: Grid) -> Iterator[SweepQuestion]:
    """The latest figure: any period of the key may be the one reported."""
    for e in grid.profile.entities:
        for m in grid.profile.metrics:
            keys = {grid.key(m.code, e.code, p) for p in grid.periods()}
            for lang in ("en", "zh"):
                s = f"lat{lang}"
                en, mn = grid.entity(e.code, lang, s), grid.metric(m.code, lang, s)
                q = f"What is the latest {en} {mn}?" if lang == "en" else f"{en}最新的{mn}是多少"
                yield grid.ask("latest", lang, q, keys)


def _planted(grid: Grid) -> Iterator[SweepQuestion]:
    """A figure the user states that is not the truth: never echoed as a value."""
    for e in grid.profile.entities:
        for m in grid.profile.metrics:
            if m.kind is not MetricKind.AMOUNT:
                continue
            for p in _fy(grid):
                key = grid.key(m.code, e.code, p)
                true = grid.truth.values(key, grid.clearance_max)
                planted = f"{int(true[0] * 1.5) + 7:,}" if true else "9,871"
                for lang in ("en", "zh"):
                    s = f"pl{lang}{p.label}"
                    en, mn, pn = (
                        grid.entity(e.code, lang, s),
                        grid.metric(m.code, lang, s),
                        grid.period(p, lang, s),
                    )
                    q = (
                        f"{en} {mn} in {pn} was {planted}, right?"
                        if lang == "en"
                        else f"{en}{pn}{mn}是{planted}吧？"
                    )
                    yield grid.ask("planted", lang, q, {key})


def _not_computed(grid: Grid) -> Iterator[SweepQuestion]:
    """Something no code computes (a share, a per-head figure, a median): said so, never
    answered with a plain figure (docs/analyst.md) — no key is asked."""
    home = grid.profile.company.home_entity
    for u in grid.units():
        for m in grid.profile.metrics:
            p = _fy(grid)[-2]
            for lang in ("en", "zh"):
                s = f"nc{lang}"
                un, mn, pn = (
                    grid.entity(u, lang, s),
                    grid.metric(m.code, lang, s),
                    grid.period(p, lang, s),
                )
                hn = grid.entity(home, lang, s)
                forms = (
                    (
                        f"What share of {hn} {mn} came from {un} in {pn}?",
                        f"{pn}{un}{mn}占{hn}的比例",
                    ),
                    (f"What was {un} {mn} per agent in {pn}?", f"{un}{pn}人均{mn}是多少"),
                    (
                        f"What was the median {mn} across regions in {pn}?",
                        f"{pn}各地区{mn}的中位数",
                    ),
                )
                for en_form, zh_form in forms:
                    q = en_form if lang == "en" else zh_form
                    yield grid.ask("not_computed", lang, q, set())
