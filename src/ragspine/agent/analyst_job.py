"""The state of one computed answer in the making (``agent.analyst``): its lookups, its
lines, and the checks every computed kind shares."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from ragspine.agent.consistency import pending_values
from ragspine.agent.conversion import Computed
from ragspine.agent.guard import ToolContext
from ragspine.agent.messages import Messages
from ragspine.agent.messages.analysis import AnalysisMessages
from ragspine.agent.render import render_pending, render_result
from ragspine.agent.types import (
    FactNotFound,
    FoundFact,
    Slots,
    ToolResult,
)
from ragspine.profile.display import Names
from ragspine.profile.model import MetricKind
from ragspine.storage.documents import PendingValue
from ragspine.units import Unit, UnitKind


@dataclass
class Job:
    """One computed answer in the making: every lookup, every line, what fell short."""

    tools: ToolContext
    msgs: Messages
    text: AnalysisMessages
    language: str
    names: Names
    results: list[ToolResult] = field(default_factory=list)
    lines: list[str] = field(default_factory=list)
    pending: list[PendingValue] = field(default_factory=list)
    short: bool = False
    shown: set[Slots] = field(default_factory=set)
    # The figures computed (totals, means, changes) with their inputs: a currency asked for
    # converts each once (``agent.conversion``).
    computed: list[Computed] = field(default_factory=list)

    def fetch(self, slots: Slots) -> ToolResult:
        resolved = self.tools.resolve(slots)
        result = self.tools.run(resolved) if isinstance(resolved, Slots) else resolved
        self.results.append(result)
        return result

    def show(self, result: ToolResult, indent: str = "", lead: str = "") -> None:
        """The input's own line (value and source, or not found; ``lead`` before it) and any
        value pending review for it."""
        default = self.tools.profile.defaults.channel
        line = render_result(result, self.msgs, default, self.names)
        self.lines.append(f"{indent}{lead}{line}")
        if isinstance(result, FoundFact):
            waiting = pending_values(self.tools.store, result.slots, self.tools.clearance)
            self.pending += waiting
            self.lines += [
                indent + render_pending(result, p, self.msgs, default, self.names) for p in waiting
            ]

    def show_once(self, result: ToolResult, indent: str = "") -> None:
        """``show``, unless a line for the same slots was already shown this way (a figure
        asked for beside a derived metric it is an input of)."""
        slots = result.slots if isinstance(result, FoundFact | FactNotFound) else None
        if slots is not None and slots in self.shown:
            return
        if slots is not None:
            self.shown.add(slots)
        self.show(result, indent)

    @property
    def default_channel(self) -> str:
        return self.tools.profile.defaults.channel

    def ratio(self, metric: str) -> bool:
        definition = self.tools.profile.metric(metric)
        return definition is not None and definition.kind == MetricKind.RATIO

    def subject(self, metric: str, entity: str | None, channel: str) -> str:
        name = self.names.metric(metric)
        head = f"{self.names.entity(entity)} {name}" if entity else name
        if channel != self.tools.profile.defaults.channel:
            shown = self.names.channel(channel)
            head += f"（{shown}）" if self.language == "zh" else f" ({shown})"
        return head

    def value(self, value: float, unit: str, *, signed: bool = False) -> str:
        return self.names.value(value, unit, signed=signed)

    def computed_value(
        self, value: float, unit: str, inputs: list[FoundFact], *, signed: bool = False
    ) -> str:
        """``value`` as shown, remembered as a figure computed from ``inputs``."""
        self.computed.append(Computed(value, unit, tuple(inputs)))
        return self.value(value, unit, signed=signed)

    def mean_value(self, inputs: list[FoundFact], unit: str) -> str:
        """The mean of ``inputs`` as shown, remembered like ``computed_value``: an amount or a
        count to one decimal, a percent to the two decimals every percent is shown with (one
        decimal, padded, would print 12.633% as "12.60%")."""
        mean = math.fsum(f.value for f in inputs) / len(inputs)
        self.computed.append(Computed(mean, unit, tuple(inputs)))
        decimals = 2 if Unit.parse(unit).kind is UnitKind.PERCENT else 1
        return self.value(round(mean, decimals), unit)

    def entities(self, codes: list[str]) -> list[str]:
        return [self.names.entity(code) for code in codes]


def facts_of(results: dict[str, ToolResult]) -> dict[str, FoundFact]:
    return {code: r for code, r in results.items() if isinstance(r, FoundFact)}


def one_unit(job: Job, found: list[FoundFact]) -> bool:
    """True when every figure is in one unit; else the line saying why nothing is computed."""
    units = {f.unit for f in found}
    if len(units) <= 1:
        return True
    job.lines.append(
        job.text.mixed_units(
            [
                f"{job.names.entity(f.slots.entity)} {f.slots.period.label}: "
                f"{job.names.unit(f.unit)}"
                for f in found
            ]
        )
    )
    job.short = True
    return False


def positions(ordered: list[str], scored: dict[str, float]) -> list[int]:
    """The ranking position of each code of ``ordered`` (sorted by ``scored``): tied codes
    share the position of the first of them."""
    found: list[int] = []
    for index, code in enumerate(ordered):
        tied = index > 0 and scored[code] == scored[ordered[index - 1]]
        found.append(found[-1] if tied else index + 1)
    return found


def ties_and_unranked(
    job: Job, ordered: list[str], scored: dict[str, float], population: tuple[str, ...]
) -> list[str]:
    """State each tie among the ranked units and, when some units have no figure, name them
    (the answer is then partial); returns those units, for the caller to show why."""
    for value in dict.fromkeys(scored.values()):
        tied = [e for e in ordered if scored[e] == value]
        if len(tied) > 1:
            job.lines.append(job.text.tie(job.entities(tied)))
    unranked = [e for e in population if e not in scored]
    if unranked:
        job.lines.append(job.text.unranked(job.entities(unranked)))
        job.short = True
    return unranked


def missing(job: Job, names: list[str]) -> None:
    job.lines.append(job.text.missing(names))
    job.short = True
