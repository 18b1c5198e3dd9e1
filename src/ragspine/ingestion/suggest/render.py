"""The draft written as commented TOML: each proposal with the places it was seen, the
evidence that joined its names, and what was left out and why. The same documents give the
same bytes."""

from __future__ import annotations

import json
import re

from ragspine.ingestion.suggest.draft import Draft, Proposal
from ragspine.ingestion.suggest.nature import nature_line
from ragspine.ingestion.suggest.observe import Seen

MAX_PLACES = 3  # places listed per proposal; the rest are counted
_CONTROL = re.compile(r"[\x00-\x1f\x7f\u2028\u2029]+")


def render(draft: Draft) -> str:
    out: list[str] = [
        "# Draft profile written by `ragspine profile suggest` from "
        f"{len(draft.docs)} document(s):",
        *(f"#   {_plain(doc)}" for doc in draft.docs),
        *(f"# not read: {_plain(doc)}: {_plain(why)}" for doc, why in draft.failed),
        "# Every proposal says where it was seen. Check the names, merge or split what the",
        "# documents could not tell apart, then ingest with it:",
        "#   ragspine ingest DOCS --workspace ws --profile THIS_FILE",
        "# Labels still unmapped after ingesting are listed by `ragspine review list`.",
        "",
        "[company]",
        *_places("name", draft.company_seen),
        f"name = {_string(draft.company)}",
        'name_zh = ""  # the Chinese name, if it has one',
        f"home_entity = {_string(draft.home.code)}",
    ]
    if draft.reporting_currency is not None:
        out.append(f"# the currency most tables state ({_plain(draft.currency_note) or 'given'})")
        out.append(f"reporting_currency = {_string(draft.reporting_currency)}")
    out += [
        "",
        "[fiscal]",
        f"# {_plain(draft.fiscal_note)}",
        f"year_end_month = {draft.year_end_month}",
        "",
        "[defaults]",
        f"channel = {_string(draft.channels[0].code)}",
    ]
    out += _entity(draft.home, home=True)
    for entity in draft.entities:
        out += _entity(entity, home=False)
    for metric in draft.metrics:
        out += _metric(metric)
    for channel in draft.channels:
        out += _channel(channel)
    if draft.left_out:
        out += ["", "# Not proposed (a name another proposal already has):"]
        out += [f"#   {_plain(line)}" for line in draft.left_out]
    return "\n".join(out) + "\n"


def _entity(entity: Proposal, *, home: bool) -> list[str]:
    head = "the company itself" if home else "a unit of the company"
    return [
        "",
        "[[entities]]",
        f"# {head}",
        *_places("seen", entity.seen),
        *_notes(entity),
        f"code = {_string(entity.code)}",
        f"name_zh = {_string(entity.name_zh)}",
        f"name_en = {_string(entity.name_en)}",
        'geography = "UNSPECIFIED"  # where it operates (a region code), if you filter by it',
        f"aliases = {_list(entity.aliases)}",
    ]


def _metric(metric: Proposal) -> list[str]:
    kind, currency = metric.kinds[0]
    lines = [
        "",
        "[[metrics]]",
        *_places("seen", metric.seen),
        *_notes(metric),
        f"code = {_string(metric.code)}",
        f"name_zh = {_string(metric.name_zh)}",
        f"name_en = {_string(metric.name_en)}",
        f"kind = {_string(kind.value)}",
    ]
    if currency is not None:
        lines.append(f"currency = {_string(currency)}")
    if metric.nature is not None or metric.nature_why:
        lines.append(nature_line(metric.nature, metric.nature_why))
    lines.append(f"aliases = {_list(metric.aliases)}")
    return lines


def _channel(channel: Proposal) -> list[str]:
    head = "the default: a figure no column names a channel for" if not channel.seen else ""
    return [
        "",
        "[[channels]]",
        *([f"# {head}"] if head else []),
        *_places("seen", channel.seen),
        *_notes(channel),
        f"code = {_string(channel.code)}",
        f"name_zh = {_string(channel.name_zh)}",
        f"name_en = {_string(channel.name_en)}",
        f"aliases = {_list(channel.aliases)}",
    ]


def _places(what: str, seen: list[Seen]) -> list[str]:
    seen = sorted(set(seen))
    shown = seen[:MAX_PLACES]
    lines = [f"# {what}: {_plain(str(s))}" for s in shown]
    if len(seen) > MAX_PLACES:
        lines.append(f"#   … and {len(seen) - MAX_PLACES} more place(s)")
    return lines


def _notes(proposal: Proposal) -> list[str]:
    return [f"# note: {_plain(note)}" for note in proposal.notes]


def _plain(text: str) -> str:
    """Text from a document, made safe for a comment line."""
    return _CONTROL.sub(" ", text).strip()


def _string(text: str) -> str:
    # A JSON string is a TOML basic string: the same quotes and escapes — save DEL, which JSON
    # leaves raw and TOML refuses.
    return json.dumps(text, ensure_ascii=False).replace("\x7f", "\\u007f")


def _list(names: list[str]) -> str:
    return "[" + ", ".join(_string(n) for n in names) + "]"
