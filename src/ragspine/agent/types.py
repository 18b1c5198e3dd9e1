"""The agent's typed vocabulary: closed sets as enums, slots, tool results, sources and answers.

Everything inside the engine passes these types; JSON appears only at the edges (the LLM tool
messages, ``ask --json``, HTTP). ``to_dict`` gives each value's wire form, which is exactly the
dict shape earlier versions passed around, and the read-only ``get``/``[]`` view keeps the seeds'
dict-style examples (``r.get("status") == "found"``, ``source["doc"]``) working.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from typing import Any, ClassVar, NamedTuple, Protocol

from ragspine.enums import ParseableEnum
from ragspine.profile.periods import Period
from ragspine.profile.sensitivity import Sensitivity
from ragspine.storage.documents import PendingValue


class Route(ParseableEnum, label="route"):
    """Which channel answers: facts, passages, or facts then the passages that explain them."""

    STRUCTURED = "structured"
    NARRATIVE = "narrative"
    COMPOSITE = "composite"


class ClarifyMode(ParseableEnum, label="clarification mode"):
    """The clarification gateway's decision, in the order it is checked."""

    OUT_OF_SCOPE_ENTITY = "out_of_scope_entity"
    ASK_FIRST = "ask_first"
    ANSWER_WITH_ASSUMPTIONS = "answer_with_assumptions"
    NONE = "none"


class ClarifyReason(ParseableEnum, label="clarification reason"):
    """Why the gateway refused or asked; empty when it did neither."""

    NONE = ""
    COMPETITOR = "competitor"
    UNKNOWN_ENTITY = "unknown_entity"
    MISSING_METRIC = "missing_metric"
    PERIOD_RANGE = "period_range"
    UNKNOWN_PERIOD = "unknown_period"


class AnswerKind(ParseableEnum, label="answer kind"):
    """What kind of answer a user got; the refusal kinds give no value at all."""

    FOUND = "found"
    PARTIAL = "partial"
    NOT_FOUND = "not_found"
    UNRECOGNIZED = "unrecognized"
    REFUSED = "refused"
    CLARIFY = "clarify"
    DEGRADED = "degraded"
    NARRATIVE = "narrative"
    NO_CONTEXT = "no_context"

    @property
    def refuses(self) -> bool:
        """True when the answer states no value: refused, not found, asked back, nothing found."""
        return self in _REFUSAL_KINDS


_REFUSAL_KINDS = frozenset(
    {
        AnswerKind.REFUSED,
        AnswerKind.NOT_FOUND,
        AnswerKind.UNRECOGNIZED,
        AnswerKind.CLARIFY,
        AnswerKind.NO_CONTEXT,
    }
)


class ToolStatus(ParseableEnum, label="tool status"):
    """``query_metric``'s tri-state, plus ``error`` for a call to a tool that does not exist."""

    FOUND = "found"
    NOT_FOUND = "not_found"
    UNRECOGNIZED = "unrecognized_param"
    ERROR = "error"


class GuardOverride(ParseableEnum, label="guard override"):
    """Why the agent ran the parsed query itself instead of trusting the model's tool calls."""

    NO_TOOL_CALL = "no_tool_call"
    SLOT_MISMATCH = "slot_mismatch"
    ITERATION_CAP = "iteration_cap"


class AnalysisOp(ParseableEnum, label="analysis"):
    """A question computed over several facts (``agent.analyst``), or one it cannot compute."""

    RANK = "rank"
    TOTAL = "total"
    EXCLUDE = "exclude"
    AVERAGE = "average"
    CAGR = "cagr"
    CUMULATIVE = "cumulative"
    SPAN = "span"
    DERIVED = "derived"
    UNSUPPORTED = "unsupported"


class ChangeBase(ParseableEnum, label="change base"):
    """What the change of one figure is measured against."""

    YEAR = "year"  # the same period a year earlier (year-on-year, 同比): the default
    PRECEDING = "preceding"  # the period just before (quarter-on-quarter, 环比, sequential)
    BOTH = "both"  # both asked ("同比和环比")


class Ratio(NamedTuple):
    """A derived metric the question asks for and the two metrics it divides (the profile's
    ``[[derived]]`` rule), carried by the intent so a checker needs no profile to know them."""

    code: str
    numerator: str
    denominator: str


@dataclass(frozen=True)
class Analysis:
    """What to compute and over which units: ``population`` are the units ranked or summed,
    ``whole`` the entity whose figure they add up to (None when the profile names none),
    ``excluded`` the units left out; ``unsupported`` the cue words nothing computes;
    ``ratios`` the derived metrics asked for (``AnalysisOp.DERIVED`` when nothing else is
    computed), each computed per unit and period from its two operands."""

    op: AnalysisOp
    population: tuple[str, ...] = ()
    whole: str | None = None
    excluded: tuple[str, ...] = ()
    descending: bool = True
    top: int | None = None
    by_growth: bool = False
    unsupported: tuple[str, ...] = ()
    ratios: tuple[Ratio, ...] = ()


class SourceKind(ParseableEnum, label="source kind"):
    """A stored fact's cell, or a retrieved passage."""

    FACT = "fact"
    PASSAGE = "passage"


class _DictView:
    """Read-only dict-style access to ``to_dict()``, for the seeds' dict-shaped examples."""

    def to_dict(self) -> dict[str, Any]:
        raise NotImplementedError

    def __getitem__(self, key: str) -> Any:
        return self.to_dict()[key]

    def get(self, key: str, default: Any = None) -> Any:
        return self.to_dict().get(key, default)


@dataclass(frozen=True)
class Source(_DictView):
    """Where a stated fact or passage came from: document and cell- or paragraph-precise locator."""

    doc: str
    locator: str
    sensitivity: Sensitivity = Sensitivity.INTERNAL
    kind: SourceKind = SourceKind.FACT

    def to_dict(self) -> dict[str, str]:
        """The wire form: document and locator (the level and kind stay on the server)."""
        return {"doc": self.doc, "locator": self.locator}

    def __repr__(self) -> str:
        # Printed as its wire form, which is what the seeds' examples show for result.sources.
        return repr(self.to_dict())


@dataclass(frozen=True)
class Slots:
    """One fully normalised question for the fact table: metric × entity × period × channel."""

    metric: str
    entity: str
    period: Period
    channel: str

    def to_dict(self) -> dict[str, str]:
        return {
            "metric_code": self.metric,
            "entity": self.entity,
            "period_type": self.period.type,
            "period": self.period.period,
            "period_label": self.period.label,
            "channel": self.channel,
        }


@dataclass(frozen=True)
class FoundFact(_DictView):
    """``query_metric`` found a fact: its value and unit, for exactly these slots, with lineage."""

    slots: Slots
    value: float
    unit: str
    source: Source
    # The label of the row the value was read from, as the document writes it; ``None`` for
    # a fact stored without one (before row labels were kept, or loaded from a fixture).
    row_label: str | None = None
    status: ClassVar[ToolStatus] = ToolStatus.FOUND

    def answers(self, slots: Slots) -> bool:
        """True when this result is for exactly ``slots``."""
        return self.slots == slots

    def to_dict(self) -> dict[str, Any]:
        """The tool message the model reads and the ``tool_results`` entry on the wire."""
        return {
            "status": self.status.value,
            "value": self.value,
            "unit": self.unit,
            **self.slots.to_dict(),
            "source": self.source.to_dict(),
            "row_label": self.row_label,
        }


@dataclass(frozen=True)
class FactNotFound(_DictView):
    """Every parameter was understood and normalised, and no visible fact has those slots."""

    slots: Slots
    status: ClassVar[ToolStatus] = ToolStatus.NOT_FOUND

    def answers(self, slots: Slots) -> bool:
        return self.slots == slots

    def to_dict(self) -> dict[str, Any]:
        return {"status": self.status.value, "normalized": self.slots.to_dict()}


@dataclass(frozen=True)
class UnrecognizedParam(_DictView):
    """The glossary could not read one parameter (``metric``, ``entity``, ``period``, …)."""

    param: str
    raw: str
    status: ClassVar[ToolStatus] = ToolStatus.UNRECOGNIZED

    def answers(self, slots: Slots) -> bool:
        return False

    def to_dict(self) -> dict[str, Any]:
        return {"status": self.status.value, "param": self.param, "raw": self.raw}


@dataclass(frozen=True)
class ToolError(_DictView):
    """The model called something that is not a tool of ours; it gets this message back."""

    message: str
    status: ClassVar[ToolStatus] = ToolStatus.ERROR

    def answers(self, slots: Slots) -> bool:
        return False

    def to_dict(self) -> dict[str, Any]:
        return {"status": self.status.value, "message": self.message}


# One ``query_metric`` outcome: exactly one of the tri-state payloads (or a tool-name error).
ToolResult = FoundFact | FactNotFound | UnrecognizedParam | ToolError


class NearMiss(NamedTuple):
    """Words of a question one typo away from the names of a metric or an entity
    (``agent.spelling``): the gateway asks whether one of them was meant, never answers."""

    typed: str
    kind: str  # "metric" or "entity"
    codes: tuple[str, ...]  # the close names' codes, in the profile's order
    span: tuple[int, int]  # in the normalized question


# Not frozen: a frozen dataclass sets each of these 18 fields through object.__setattr__,
# which cost 7% of a question's parse. Nothing mutates an intent; ``dataclasses.replace``
# makes the changed copies the agent needs.
@dataclass(slots=True)
class ParsedIntent:
    """What the rule parser read from a question: slots (single and listed), route, cues."""

    raw_question: str
    route: Route
    metric: str | None = None
    entity: str | None = None
    period: Period | None = None
    channel: str | None = None
    metrics: tuple[str, ...] = ()
    entities: tuple[str, ...] = ()
    periods: tuple[Period, ...] = ()
    external_entity: str | None = None
    unknown_entities: tuple[str, ...] = ()
    growth: bool = False
    language: str = "zh"
    extra: dict[str, str] = field(default_factory=dict)
    # Listed channels ("代理人渠道和银保渠道"), or every channel of the profile for "by channel".
    channels: tuple[str, ...] = ()
    # Names that read as metrics the profile does not define ("综合成本率"): asked about, never
    # answered with another metric's figure.
    unknown_metrics: tuple[str, ...] = ()
    # A range of fiscal years longer than ``MAX_RANGE_YEARS`` (first, last): not expanded into
    # ``periods``; the gateway asks for a shorter one.
    long_range: tuple[Period, Period] | None = None
    # Period expressions that name no period of the profile's calendar ("year ended 31
    # December 2019" when fiscal years end in March, "FY2024/25" when they end in December):
    # the gateway asks which period is meant instead of assuming one.
    unknown_periods: tuple[str, ...] = ()
    # A ranking, total, exclusion, average, CAGR or change over a span (``agent.analyst``).
    analysis: Analysis | None = None
    # "the latest quarter" / "最近半年" with no other period: the kind of period ("Q", "H")
    # whose latest one with figures is looked up (``agent.latest_period``), never a default.
    latest: str | None = None
    # What a change asked of one figure (``growth``) is measured against.
    change_base: ChangeBase = ChangeBase.YEAR
    # Words one typo away from a metric's or an entity's name ("revnue", "营运利闰"), also kept
    # in ``unknown_metrics`` / ``unknown_entities``: the gateway asks "did you mean …?".
    near_misses: tuple[NearMiss, ...] = ()


class IntentParser(Protocol):
    """Turns a question into a ParsedIntent. Implementations must fill ``raw_question``."""

    def parse(self, question: str, reference_date: date | None = None) -> ParsedIntent: ...


@dataclass(frozen=True)
class ClarificationResult:
    """The gateway's decision; ``question`` is the clarifying question or refusal shown."""

    mode: ClarifyMode
    assumed_entity: str | None = None
    assumed_period: Period | None = None
    assumption_note: str = ""
    narrowing_options: tuple[str, ...] = ()
    question: str = ""
    reason: ClarifyReason = ClarifyReason.NONE

    @property
    def assumed_slots(self) -> dict[str, str]:
        """The filled slots as the wire shows them: ``{"entity": code, "period": "FY2025"}``."""
        slots: dict[str, str] = {}
        if self.assumed_entity is not None:
            slots["entity"] = self.assumed_entity
        if self.assumed_period is not None:
            slots["period"] = self.assumed_period.label
        return slots


@dataclass(frozen=True)
class Citation:
    """A numbered passage the narrative answer cites as ``[number]``, with the passage's text
    (kept server-side: the wire shows only the source)."""

    number: int
    source: Source
    passage: str = ""


@dataclass(frozen=True)
class NarrativeSection:
    """The narrative channel's part of an answer: its text (``body`` plus the sources footer),
    the passages it cites and how it ended (``narrative``, ``no_context`` or ``degraded``)."""

    text: str
    citations: tuple[Citation, ...] = ()
    kind: AnswerKind = AnswerKind.NARRATIVE
    body: str = ""

    @property
    def sources(self) -> list[Source]:
        return [c.source for c in self.citations]


@dataclass
class AgentResult:
    """One answer: its text, route and kind, the gateway's decision, every tool result, every
    source, the narrative section when there is one, and the privacy-safe trace event."""

    answer: str
    route: Route
    clarification: ClarificationResult
    tool_results: list[ToolResult] = field(default_factory=list)
    sources: list[Source] = field(default_factory=list)
    answer_kind: AnswerKind = AnswerKind.FOUND
    request_id: str = ""
    intent: ParsedIntent | None = None
    trace: dict[str, object] = field(default_factory=dict)
    narrative: NarrativeSection | None = None
    guard_override: GuardOverride | None = None
    # Values other than a found fact's that wait in review (a restatement, a conflicting
    # document), disclosed in the answer with their source.
    pending: list[PendingValue] = field(default_factory=list)
