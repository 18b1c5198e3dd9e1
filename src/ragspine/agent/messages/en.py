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


def range_too_long(first: str, last: str, limit: int, option: str) -> str:
    return (
        f"The range {first} to {last} is longer than {limit} fiscal years, so it is not looked "
        f"up year by year. Please ask for {limit} years or fewer, for example {option}."
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


def found(subject: str, value: str, unit: str, doc: str, locator: str) -> str:
    return f"{subject}: {value} {unit} (source: {doc} · {locator})"


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


def change(later: str, earlier: str, diff: str, pct: str | None, unit: str) -> str:
    tail = f" ({pct})" if pct else ""
    return f"Change ({later} vs {earlier}): {diff} {unit}{tail}"


def change_pp(later: str, earlier: str, diff: str) -> str:
    return f"Change ({later} vs {earlier}): {diff} percentage points"


def difference(first: str, second: str, diff: str, pct: str | None, unit: str) -> str:
    tail = f" ({pct})" if pct else ""
    return f"Difference ({first} minus {second}): {diff} {unit}{tail}"


def difference_pp(first: str, second: str, diff: str) -> str:
    return f"Difference ({first} minus {second}): {diff} percentage points"


def growth_missing(base: str) -> str:
    return f"Cannot compute the year-on-year change: no data for the base period {base}."


def pending_value(subject: str, value: str, unit: str, doc: str, locator: str) -> str:
    return (
        f"Note: {subject} has a different value pending review, {value} {unit} (source: "
        f"{doc} · {locator}, e.g. a restatement); the confirmed value above stands until then."
    )


def provisional(line: str) -> str:
    return f"{line} (provisional: a figure it uses is pending review)"
