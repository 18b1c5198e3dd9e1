"""The sweep's calendar templates: dates ("year ended …", "as at …", "six months ended …", a
year end the calendar does not have), a month name, parts of a year that are no fiscal
period (the first nine months, Q1-Q3, the year to date), breakdowns finer than the period asked
and quarters no year has. See ``eval.sweep_grid``.
"""

from __future__ import annotations

import calendar
from collections.abc import Iterator

from ragspine.eval.oracle import TruthKey
from ragspine.eval.sweep_grid import Grid, SweepQuestion
from ragspine.profile.fiscal_calendar import Period

_MONTHS = tuple(calendar.month_name)


def calendar_questions(grid: Grid) -> list[SweepQuestion]:
    """The templates of this module over ``grid``, in a fixed order."""
    return [*_dates(grid), *_month(grid), *_part_year(grid), *_breakdown(grid)]


def _ends(grid: Grid, p: Period) -> tuple[int, int, int]:
    """The calendar year, month and last day on which fiscal period ``p`` ends."""
    months_before_year_end = {"FY": 0, "H1": 6, "H2": 0, "Q1": 9, "Q2": 6, "Q3": 3, "Q4": 0}
    total = p.year * 12 + grid.profile.fiscal.year_end_month - 1
    total -= months_before_year_end[p.type]
    year, month = divmod(total, 12)
    return year, month + 1, calendar.monthrange(year, month + 1)[1]


def _dates(grid: Grid) -> Iterator[SweepQuestion]:
    for e in grid.profile.entities:
        for m in grid.profile.metrics:
            for y in grid.years():
                fy, h1 = Period(y, "FY"), Period(y, "H1")
                yy, mm, dd = _ends(grid, fy)
                hy, hm, hd = _ends(grid, h1)
                off = (mm + 2) % 12 + 1  # a month no fiscal year of this calendar ends in
                od = calendar.monthrange(yy, off)[1]
                for lang in ("en", "zh"):
                    s = f"date{lang}{y}"
                    en, mn = grid.entity(e.code, lang, s), grid.metric(m.code, lang, s)
                    forms: tuple[tuple[str, set[Period]], ...]
                    if lang == "en":
                        forms = (
                            (f"for the year ended {dd} {_MONTHS[mm]} {yy}", {fy}),
                            (f"as at {_MONTHS[mm]} {dd}, {yy}", {fy}),
                            (f"for the six months ended {hd} {_MONTHS[hm]} {hy}", {h1}),
                            (f"for the year ended {od} {_MONTHS[off]} {yy}", set()),
                        )
                        texts = [(f"What was {en} {mn} {f}?", ps) for f, ps in forms]
                    else:
                        forms = (
                            (f"截至{yy}年{mm}月{dd}日止年度", {fy}),
                            (f"于{yy}年{mm}月{dd}日", {fy}),
                            (f"截至{hy}年{hm}月{hd}日止六个月", {h1}),
                            (f"截至{yy}年{off}月{od}日止年度", set()),
                        )
                        texts = [(f"{en}{f}的{mn}是多少", ps) for f, ps in forms]
                    for q, ps in texts:
                        keys = {grid.key(m.code, e.code, p) for p in ps}
                        yield grid.ask("dates", lang, q, keys)


def _month(grid: Grid) -> Iterator[SweepQuestion]:
    """A month name beside a year names no entity; the year is the period."""
    for e in grid.profile.entities:
        for m in grid.profile.metrics:
            for y in grid.years():
                fy = Period(y, "FY")
                month = (y % 12) + 1
                for lang in ("en", "zh"):
                    s = f"month{lang}{y}"
                    en, mn = grid.entity(e.code, lang, s), grid.metric(m.code, lang, s)
                    q = (
                        f"What was {en} {mn} in {_MONTHS[month]} {y}?"
                        if lang == "en"
                        else f"{en}{y}年{month}月的{mn}是多少"
                    )
                    yield grid.ask("month", lang, q, {grid.key(m.code, e.code, fy)})


def _part_year(grid: Grid) -> Iterator[SweepQuestion]:
    """A part of a year that is no fiscal period (the first nine months, Q1-Q3, the year to
    date): its figure is none of the truth's, so the answer may state only the quarters in it
    (or ask back); the year around it is another key."""
    for e in grid.profile.entities:
        for m in grid.profile.metrics:
            for y in grid.years()[-2:]:
                keys = {grid.key(m.code, e.code, Period(y, f"Q{n}")) for n in (1, 2, 3)}
                forms = (
                    ("en", f"What was {{e}} {{m}} for the first nine months of {y}?"),
                    ("en", f"{{e}} {{m}} for the first three quarters of FY{y}"),
                    ("en", f"{{e}} {{m}} 9M{y}"),
                    ("en", f"{{e}} {{m}} Q1-Q3 {y}"),
                    ("zh", f"{{e}}{y}年前三季度{{m}}是多少"),
                    ("zh", f"{{e}}{y}年1-9月{{m}}"),
                    ("zh", f"{{e}}{y}年第一至第三季度{{m}}"),
                )
                for i, (lang, form) in enumerate(forms):
                    s = f"py{lang}{y}{i}"
                    q = form.format(e=grid.entity(e.code, lang, s), m=grid.metric(m.code, lang, s))
                    yield grid.ask("part_year", lang, q, keys)
            for lang, form in (("en", "{e} {m} year to date"), ("zh", "{e}年初至今的{m}")):
                s = f"ytd{lang}"
                q = form.format(e=grid.entity(e.code, lang, s), m=grid.metric(m.code, lang, s))
                yield grid.ask("part_year", lang, q, set())


def _breakdown(grid: Grid) -> Iterator[SweepQuestion]:
    """A year asked per quarter, month, week or day, or a fifth quarter: no figure of the
    truth answers it (the year's is another question's); a quarter asked "quarterly" is that
    quarter's own key (docs/analyst.md)."""
    quarters = [p for p in grid.periods() if p.type.startswith("Q")]
    y = grid.years()[-2]  # the latest year the truth holds (the last is one after it)
    for e in grid.profile.entities:
        for m in grid.profile.metrics:
            forms: list[tuple[str, str, Period | None]] = [
                ("en", f"What was {{e}} {{m}} per quarter in FY{y}?", None),
                ("en", f"{{e}} monthly {{m}} for {y}", None),
                ("en", f"{{e}} average daily {{m}} in FY{y}", None),
                ("en", f"{{e}} {{m}} Q5 {y}", None),
                ("zh", f"{{e}}FY{y}每季度{{m}}是多少", None),
                ("zh", f"{{e}}{y}年每周{{m}}", None),
                ("zh", f"{{e}}{y}年第五季度{{m}}", None),
            ]
            for q in quarters:
                n = q.type[1]
                forms += [
                    ("en", f"{{e}} quarterly {{m}} in Q{n} {q.year}", q),
                    ("zh", f"{{e}}FY{q.year}第{n}季度{{m}}", q),
                ]
            for i, (lang, form, period) in enumerate(forms):
                s = f"bd{lang}{i}"
                text = form.format(e=grid.entity(e.code, lang, s), m=grid.metric(m.code, lang, s))
                keys = {grid.key(m.code, e.code, period)} if period is not None else set[TruthKey]()
                yield grid.ask("breakdown", lang, text, keys)
