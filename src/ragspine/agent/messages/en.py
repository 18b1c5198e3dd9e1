"""User-facing English wording (used when the question is in English)."""

from __future__ import annotations

NARRATIVE_HEADING = "Attribution analysis:"
PROVIDER_UNAVAILABLE = (
    "The AI service is temporarily unavailable, so no answer was generated. "
    "No figure is given to avoid misleading you; please try again later."
)


def refusal(entity: str, home_company: str) -> str:
    return (
        f'Sorry, I cannot provide any information about "{entity}": I only answer questions '
        f"about {home_company}'s own data. You can ask about {home_company}'s metrics instead."
    )


def ask_metric(options: list[str]) -> str:
    return f"Which metric would you like to look up? Available: {', '.join(options)}."


def ask_unknown_metric(unknown: list[str], options: list[str]) -> str:
    names = ", ".join(f'"{u}"' for u in unknown)
    return (
        f"I do not recognise the metric {names}, so I will not answer with another metric's "
        f"figure. Which metric do you mean? Available: {', '.join(options)}."
    )


def ask_which_metric(asked: str, options: list[str]) -> str:
    return (
        f'"{asked}" is part of the name of more than one metric, so I will not pick one. '
        f"Which metric do you mean: {', '.join(options)}?"
    )


def did_you_mean(guesses: list[tuple[str, list[str]]]) -> str:
    """``guesses``: each word as typed, with the names it is one typo away from."""
    typed = ", ".join(f'"{word}"' for word, _ in guesses)
    if len(guesses) == 1:
        asked = _either(guesses[0][1])
    else:
        asked = "; ".join(f'{_either(names)} for "{word}"' for word, names in guesses)
    return f"I do not recognise {typed}, so I will not answer with a guess. Did you mean {asked}?"


def _either(names: list[str]) -> str:
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} or {names[-1]}"


def range_too_long(first: str, last: str, limit: int, option: str) -> str:
    return (
        f"The range {first} to {last} is longer than {limit} fiscal years, so it is not looked "
        f"up year by year. Please ask for {limit} years or fewer, for example {option}."
    )


def ask_period(unknown: list[str], year_end_month: int, options: list[str]) -> str:
    names = ", ".join(f'"{u}"' for u in unknown)
    month = _MONTH_NAMES_EN[year_end_month - 1]
    return (
        f"{names} does not name a fiscal period here: fiscal years end in {month}, so I will "
        f"not answer for a different period. Which period do you mean? For example: "
        f"{', '.join(options)}."
    )


def ask_shifted_period(words: str, counted_from: list[str], options: list[str]) -> str:
    base = (
        f"the previous question's period ({' / '.join(counted_from)}) has no such step"
        if counted_from
        else "the previous question named no period"
    )
    return (
        f'"{words}" is counted from the previous question\'s period, and {base}, so I will not '
        f"answer for a different period. Which period do you mean? For example: "
        f"{', '.join(options)}."
    )


_MONTH_NAMES_EN = (
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
)


def ask_entity(unknown: list[str], options: list[str]) -> str:
    names = ", ".join(f'"{u}"' for u in unknown)
    return (
        f"I do not recognise the entity {names}, so I will not answer for a default entity. "
        f"Which entity do you mean? Available: {', '.join(options)}."
    )


def assumption(entity: str | None, period: str | None, options: list[str]) -> str:
    parts = []
    if entity:
        parts.append(f"no entity given, answering for {entity}")
    if period:
        parts.append(f"no period given, using the latest complete fiscal year {period}")
    return f"[Assumption] {'; '.join(parts)} (to narrow: {' / '.join(options)})"


def inherited(slots: list[str]) -> str:
    return f"[Assumption] {', '.join(slots)}, from your previous question"


_KIND_EN = {"Q": "quarter", "H": "half year"}


def latest_assumed(kind: str, label: str) -> str:
    word = _KIND_EN[kind]
    return f"[Assumption] the latest {word} with reported figures for this question: {label}"


def ask_latest(kind: str, latest: list[str]) -> str:
    word = _KIND_EN[kind]
    if not latest:
        return (
            f"No {word}'s figures for this question are in the documents, so there is no "
            f"latest {word} to answer for, and no other period's figure is given. Which period "
            "do you mean?"
        )
    return (
        f"The latest {word} with reported figures is not the same for everything asked "
        f"({'; '.join(latest)}), so none is chosen for you. Which period do you mean?"
    )


def rescaled(subject: str, scale: str, value: str, stated: str, doc: str, locator: str) -> str:
    return (
        f"{subject} in {scale.split(' ', 1)[-1]}: {value} (= {stated}, source: {doc} · {locator})"
    )


def not_rescalable(units: list[str]) -> str:
    return f"Not rescaled: {', '.join(units)} is not an amount of money, so it has no scale."


def no_conversion(asked: str, reported: list[str]) -> str:
    return (
        f"Not converted into {asked}: no exchange rate is declared in the profile, so the "
        f"figures stay in {', '.join(reported)} as reported."
    )


def no_currency(units: list[str]) -> str:
    return f"Not converted: {', '.join(units)} is not an amount of money, so it has no currency."


def converted(
    subject: str,
    label: str,
    value: str,
    stated: str,
    rate: str,
    source: str,
    target: str,
    as_of: str,
    reference: str,
    doc: str,
    locator: str,
) -> str:
    return (
        f"{subject} in {label}: {value} (= {stated} × {rate} {target} per {source}, rate as of "
        f"{as_of}, rate source: {reference}; figure source: {doc} · {locator})"
    )


def rate_post_dated(asked: str, reported: str, periods: list[str], earliest: str) -> str:
    return (
        f"Not converted into {asked}: every {reported}→{asked} rate declared in the profile is "
        f"dated after the end of {', '.join(periods)} (the earliest is of {earliest}), so "
        f"those figures stay in {reported} as reported."
    )


def computed_converted(
    label: str,
    value: str,
    stated: str,
    rate: str,
    source: str,
    target: str,
    as_of: str,
    reference: str,
) -> str:
    return (
        f"Computed figure in {label}: {value} (= {stated} × {rate} {target} per {source}, rate "
        f"as of {as_of}, rate source: {reference}; converted once from the computed figure)"
    )


def computed_not_converted(stated: str, source: str, asked: str, dates: list[str]) -> str:
    return (
        f"Computed figure {stated} not converted into {asked}: its inputs take different "
        f"{source}→{asked} rates (as of {', '.join(dates)}), so no one rate converts it; each "
        "input is converted on its own line."
    )


def found(subject: str, value: str, doc: str, locator: str) -> str:
    return f"{subject}: {value} (source: {doc} · {locator})"


def row_labelled(subject: str, label: str) -> str:
    return f'{subject} (row "{label}")'


def not_found(metric: str, entity: str, period: str, channel: str) -> str:
    return (
        f"Not found: {metric} / {entity} / {period} (channel {channel}) is not in the fact table.\n"
        "To avoid misleading you, no estimated figure is given; try another period or entity."
    )


def unrecognized(param: str, raw: str) -> str:
    return (
        f'Unrecognised parameter {param}: "{raw}" is not in the glossary. '
        "To avoid misleading you, no estimated figure is given."
    )


# A percentage change from a loss or from nothing has no meaning ("-45 to 38" is no "+184%").
PERCENT_NOT_MEANINGFUL = "percentage change not meaningful: the base is zero or negative"


def change(later: str, earlier: str, diff: str, pct: str | None) -> str:
    return f"Change ({later} vs {earlier}): {diff} ({pct or PERCENT_NOT_MEANINGFUL})"


def change_pp(later: str, earlier: str, diff: str) -> str:
    return f"Change ({later} vs {earlier}): {diff} percentage points"


def difference(first: str, second: str, diff: str, pct: str | None) -> str:
    relative = (
        f"{pct} relative to {second}"
        if pct
        else f"no relative difference: {second} is zero or negative"
    )
    return f"Difference ({first} minus {second}): {diff} ({relative})"


def difference_pp(first: str, second: str, diff: str) -> str:
    return f"Difference ({first} minus {second}): {diff} percentage points"


def incomparable(first: str, first_unit: str, second: str, second_unit: str) -> str:
    return (
        f"No change is computed: {first} is in {first_unit or 'units'}, {second} in "
        f"{second_unit or 'units'}; no conversion is given."
    )


def incomparable_currency(
    first: str, first_currency: str, second: str, second_currency: str
) -> str:
    return (
        f"No change is computed: {first} is in {first_currency}, {second} in "
        f"{second_currency}; no exchange rate is given."
    )


def of_series(series: str, line: str) -> str:
    return f"{series} — {line}"


def growth_missing(base: str) -> str:
    return f"Cannot compute the year-on-year change: no data for the base period {base}."


def preceding_missing(base: str) -> str:
    return (
        f"Cannot compute the change over the preceding period: no data for {base}; no other "
        "period is used in its place."
    )


def pending_value(subject: str, value: str, doc: str, locator: str) -> str:
    return (
        f"Note: {subject} has a different value pending review, {value} (source: "
        f"{doc} · {locator}, e.g. a restatement); the confirmed value above stands until then."
    )


def provisional(line: str) -> str:
    return f"{line} (provisional: a figure it uses is pending review)"
