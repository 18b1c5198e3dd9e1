"""Follow-up questions: the slots a question leaves out, carried over from the previous turn.

"And in FY2023?", "那毛利率呢？", "what about <another unit>?" name one slot and mean the rest of
the previous question. The previous turns are the user's own earlier questions (sent by the
client: the chat's message history, the web page's session, the ``ragspine chat`` REPL), each
parsed again by our rule parser, oldest first, each one inheriting from the one before it: what
the conversation has settled is read from what the user typed, deterministically, never from an
answer's text (an assistant message is never trusted as a fact). The merged question is then
answered like any other, under the current caller's clearance, so an earlier turn's RESTRICTED
figure is looked up again, and not shown, for a caller not cleared for it.

What a follow-up inherits: the metric (with the growth cue) when it names none, the entity when
it names none (nor an unknown or competitor name), the period when it names none, the channel
when it names none, a scale or currency asked for ("以亿元计") when it asks for none, and the
computation asked for (a ranking, total, exclusion, average, …) when it asks for none and
leaves out what that computation runs over: "and in FY2023?" after "which region had the
highest sales in FY2024?" is the same ranking for FY2023 ("那2023年呢？" too), while "what
about <one unit>?" names a unit of its own and asks for that unit's figure. A question naming
no metric that asks for a computation of its own ("and excluding <a unit>?", "除<某单位>以外呢？",
"and which region was highest?", "and the average?") is read again over the previous metric,
period and (when it names none) entity, and computed as that analysis: never answered with
the figure of the unit it leaves out. A slot it names
replaces only that slot. A question naming no metric that asks for what nothing here computes
("and its share?", "占比呢？", "那人均呢？", "and the median?") is the previous turn's figure
with that qualifier: it takes the metric, entity and period it leaves out, and is answered
"not computed", as the whole question asked at once would be (the answer computes nothing, so
its line names no slot). A question that asks for prose ("why …", "what is …",
"为什么占比这么高") and names no metric is not a follow-up; nor is a question when nothing was
settled before it. A competitor name or an unknown name of an earlier turn is inherited too,
so "and in FY2023?" after a refused question is refused (or asked about) again, never answered
for the home entity. A period named from the previous one ("上一年呢？", "and the previous
quarter?", "去年同期呢？", "and Q2?") is counted from it at its granularity
(``agent.period_shift``), and asked about when it has no such step. "The latest quarter" is
inherited as asked and looked up again (``agent.latest_period``): answered when it is the one
the previous question was answered for, else asked about, never the default full year.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from datetime import date
from functools import partial
from itertools import product

from ragspine.agent.follow_up_cues import asks_for_prose, asks_growth, computes_nothing
from ragspine.agent.follow_up_reading import breakdown_no_finer, computation_asked, left_out
from ragspine.agent.messages import for_language
from ragspine.agent.messages.analysis import analysis_messages
from ragspine.agent.normalize import normalize_question
from ragspine.agent.parse import RuleIntentParser
from ragspine.agent.period_shift import with_shifted_period
from ragspine.agent.types import (
    Analysis,
    AnalysisOp,
    ChangeBase,
    ClarificationResult,
    ClarifyMode,
    ClarifyReason,
    ParsedIntent,
    Route,
)
from ragspine.profile.display import Names
from ragspine.profile.model import DomainProfile
from ragspine.profile.periods import Period

__all__ = ["MAX_PREVIOUS_QUESTIONS", "Context", "FollowUp", "context_of", "follow_up"]

# Only the latest turns count: a follow-up refers to what was just asked, and a client may
# send a long history (each question in it costs one parse).
MAX_PREVIOUS_QUESTIONS = 20
# The slots in the order the note names them.
SLOT_NAMES = ("metric", "entity", "period", "channel", "analysis")


@dataclass(frozen=True)
class Context:
    """What the conversation has settled so far, read from the user's questions only."""

    metrics: tuple[str, ...] = ()
    entities: tuple[str, ...] = ()
    periods: tuple[Period, ...] = ()
    channels: tuple[str, ...] = ()
    growth: bool = False
    external_entity: str | None = None
    unknown_entities: tuple[str, ...] = ()
    unknown_periods: tuple[str, ...] = ()
    unknown_metrics: tuple[str, ...] = ()
    # A scale or currency asked for ("以亿元计"): kept until a question asks for another.
    unit_request: tuple[tuple[str, str], ...] = ()
    # The computation asked for (``Analysis``), without the derived metrics' rules: those are
    # read again from the follow-up's own metric (``analysis_cues.with_ratios``).
    analysis: Analysis | None = None
    # What a change asked was measured against (quarter-on-quarter stays so for "and <another
    # unit>?").
    change_base: ChangeBase = ChangeBase.YEAR
    # "the latest quarter / half" asked ("Q", "H"): the period the facts name, looked up again
    # for a follow-up naming none (``agent.latest_period``); ``periods`` is then empty.
    latest: str | None = None

    @property
    def empty(self) -> bool:
        return self == _NOTHING_SETTLED

    @staticmethod
    def of(intent: ParsedIntent) -> Context:
        return Context(
            intent.metrics,
            intent.entities,
            intent.periods,
            _channels(intent),
            intent.growth,
            intent.external_entity,
            intent.unknown_entities,
            intent.unknown_periods,
            intent.unknown_metrics,
            tuple(sorted(intent.extra.items())),
            _kept_analysis(intent.analysis),
            intent.change_base,
            intent.latest,
        )


_NOTHING_SETTLED = Context()


@dataclass(frozen=True)
class FollowUp:
    """A question merged with the previous turn: the merged intent, the slots it inherited
    (``SLOT_NAMES``) and, when the entity inherited is a competitor's, that name."""

    intent: ParsedIntent
    inherited: tuple[str, ...]
    refused_entity: str | None = None
    # The entities the previous turn named, when the merged intent looks up more (the units a
    # computation runs over): the note names what was inherited, not every unit looked up.
    entities_named: tuple[str, ...] = ()
    # A period named from the previous one that it has no step for ("上个季度" after FY2025):
    # the words, and the periods they were counted from, for the gateway's question.
    unshifted: str | None = None
    counted_from: tuple[Period, ...] = ()
    # The previous turn's (metric, unit) pairs when the period inherited is "the latest
    # quarter / half": the follow-up is answered for their latest period only when its own
    # is the same one, else asked (``agent.latest_period``), never for another one silently.
    latest_of: tuple[tuple[str, str], ...] = ()

    def note(self, profile: DomainProfile, periods: tuple[Period, ...] = ()) -> str:
        """The assumption line naming every inherited slot by the profile's names, or "";
        ``periods`` are the ones answered for when the period inherited is the latest one
        (looked up after the merge)."""
        inherited = self.inherited
        if self.intent.analysis is not None and self.intent.analysis.op is AnalysisOp.UNSUPPORTED:
            # an answer computing nothing uses no slot: only the cue kept is named
            inherited = tuple(slot for slot in inherited if slot == "analysis")
        if not inherited:
            return ""
        zh = self.intent.language == "zh"
        named, periods = self.entities_named or self.intent.entities, self.intent.periods or periods
        shown = replace(self.intent, entities=named, periods=periods)
        parts = [_slot_text(shown, slot, profile, zh) for slot in inherited]
        return for_language(self.intent.language).inherited(parts)

    def gateway(
        self, clarification: ClarificationResult, profile: DomainProfile
    ) -> ClarificationResult:
        """The gateway's decision, turned into a refusal when the inherited entity is a
        competitor's (the gate screens only the follow-up's own text), and its question about
        a period named from a previous one it cannot be counted from said as such."""
        if self.refused_entity is None or clarification.mode is ClarifyMode.OUT_OF_SCOPE_ENTITY:
            if self.unshifted is None or clarification.reason is not ClarifyReason.UNKNOWN_PERIOD:
                return clarification
            asked = for_language(self.intent.language).ask_shifted_period(
                self.unshifted,
                [p.label for p in self.counted_from],
                list(clarification.narrowing_options),
            )
            return replace(clarification, question=asked)
        home = profile.home_company_name
        return ClarificationResult(
            mode=ClarifyMode.OUT_OF_SCOPE_ENTITY,
            narrowing_options=(home,),
            question=for_language(self.intent.language).refusal(self.refused_entity, home),
            reason=ClarifyReason.COMPETITOR,
        )


def context_of(
    previous: Sequence[str],
    profile: DomainProfile,
    day: date,
    *,
    max_chars: int,
    latest: Callable[[Context], tuple[Period, ...]] | None = None,
) -> Context:
    """What the previous user questions settled, oldest first, each inheriting from the turns
    before it (``latest`` as for ``follow_up``). Empty entries and ones longer than
    ``max_chars`` are skipped."""
    parser: RuleIntentParser = profile.compiled("rule-intent-parser", RuleIntentParser)
    context = _NOTHING_SETTLED
    for question in previous[-MAX_PREVIOUS_QUESTIONS:]:
        text = normalize_question(question) if len(question) <= max_chars else ""
        if not text.strip():
            continue
        intent = parser.parse(text, day)
        merged = follow_up(intent, context, profile=profile, day=day, latest=latest)
        if merged is not None:
            intent = merged.intent
        # A question asking only for prose settles nothing: the figure asked before stays.
        if intent.route is not Route.NARRATIVE or intent.metrics:
            context = Context.of(intent)
    return context


def follow_up(
    intent: ParsedIntent,
    context: Context,
    *,
    profile: DomainProfile | None = None,
    day: date | None = None,
    latest: Callable[[Context], tuple[Period, ...]] | None = None,
) -> FollowUp | None:
    """``intent`` with the slots it leaves out taken from ``context``; ``None`` when it is not
    a follow-up or takes nothing from it. With ``profile`` (and ``day``), a follow-up naming
    no metric that asks for a computation ("and excluding <a unit>?", "哪个地区最高？") is read
    again over the inherited metric, entity and period, and computed. ``latest`` gives the
    period a turn asking for "the latest quarter" was answered for ("and the previous
    quarter?" is counted from it)."""
    if context.empty:
        return None
    asked = intent.raw_question
    # "上一年呢？", "and the previous quarter?": the period counted from the previous one, read
    # over the question without those words (``raw_question`` until the merge is returned)
    moved = (
        None
        if profile is None
        else with_shifted_period(
            intent,
            context.periods,
            profile,
            day or date.today(),
            previous_latest=(
                partial(latest, context)
                if latest is not None and context.latest is not None
                else None
            ),
        )
    )
    intent = moved or intent
    inherited: list[str] = []
    carried = False  # an unknown name or a competitor's carried over: the gateway asks/refuses
    computed = computation_asked(intent, context, profile, day)
    # "and quarterly?" after a quarter's figure: a breakdown no finer than the inherited
    # period asks for nothing more, so it is that figure again (as the whole question is)
    plain = breakdown_no_finer(intent, context, profile, day)
    if plain:
        intent = replace(intent, analysis=None)
    if not intent.metrics:
        if intent.route is Route.NARRATIVE and (
            not (
                _names_a_slot(intent)
                or computes_nothing(intent, profile)
                or computed is not None
                or plain
            )
            or asks_for_prose(intent.raw_question)
        ):
            return None
        if intent.unknown_metrics:
            pass  # a metric the profile lacks was named: the gateway asks which one
        elif context.metrics:
            intent = replace(
                intent,
                route=_figure_route(intent.route),
                metric=context.metrics[0],
                metrics=context.metrics,
                growth=intent.growth or context.growth or asks_growth(intent.raw_question),
                change_base=(
                    intent.change_base if asks_growth(intent.raw_question) else context.change_base
                ),
            )
            inherited.append("metric")
        elif context.unknown_metrics:
            intent = replace(
                intent, route=_figure_route(intent.route), unknown_metrics=context.unknown_metrics
            )
            carried = True
    elif intent.route is Route.NARRATIVE:  # what a metric is, or its target: no figure asked
        return None
    if computed is not None and "metric" in inherited:
        # the units it runs over (the population, the whole, the units left out) and the
        # periods, as read over the inherited slots
        inherited += [slot for slot in ("entity", "period") if left_out(intent, slot, context)]
        intent = replace(
            intent,
            analysis=computed.analysis,
            growth=intent.growth or computed.growth,
            entity=computed.entity,
            entities=computed.entities,
            period=computed.period,
            periods=computed.periods,
        )
    refused = None
    latest_of: tuple[tuple[str, str], ...] = ()
    if not (intent.entities or intent.unknown_entities or intent.external_entity):
        if context.entities:
            intent = replace(intent, entity=context.entities[0], entities=context.entities)
            inherited.append("entity")
        elif context.unknown_entities:
            intent = replace(intent, unknown_entities=context.unknown_entities)
            carried = True
        elif context.external_entity is not None:
            intent = replace(intent, external_entity=context.external_entity)
            refused = context.external_entity
    if moved is not None and moved.periods:
        inherited.append("period")  # derived from the previous period: the note names it
    elif not (intent.periods or intent.unknown_periods or intent.long_range or intent.latest):
        if context.periods:
            intent = replace(intent, period=context.periods[0], periods=context.periods)
            inherited.append("period")
        elif context.latest is not None:  # "And <another unit>?" after "the latest quarter"
            intent = replace(intent, latest=context.latest)
            inherited.append("period")
            latest_of = tuple(product(context.metrics, context.entities))
        elif context.unknown_periods:
            intent = replace(intent, unknown_periods=context.unknown_periods)
            carried = True
    if not _channels(intent) and context.channels:
        intent = replace(intent, channel=context.channels[0], channels=context.channels)
        inherited.append("channel")
    if not intent.extra and context.unit_request and inherited:
        intent = replace(intent, extra=dict(context.unit_request))
    if intent.analysis is None and context.analysis is not None and inherited:
        # A computation over units goes on while the units are the previous ones; one over
        # periods while the periods are. A cue nothing computes (a median) is asked again.
        over = "entity" if context.analysis.population else "period"
        if over in inherited or context.analysis.op is AnalysisOp.UNSUPPORTED:
            intent = replace(intent, analysis=context.analysis)
            inherited.append("analysis")
    if not inherited and not carried and refused is None:
        return None
    named = context.entities if computed is not None and "entity" in inherited else ()
    unshifted = moved.unknown_periods[0] if moved is not None and not moved.periods else None
    return FollowUp(
        replace(intent, raw_question=asked),
        tuple(inherited),
        refused,
        named,
        unshifted,
        context.periods if unshifted is not None else (),
        latest_of,
    )


def _kept_analysis(analysis: Analysis | None) -> Analysis | None:
    """What a follow-up may inherit of ``analysis``: none of a derived metric alone (the
    follow-up's metric says whether one is asked), and never the derived rules themselves."""
    if analysis is None or analysis.op is AnalysisOp.DERIVED:
        return None
    return replace(analysis, ratios=()) if analysis.ratios else analysis


def _figure_route(route: Route) -> Route:
    """A follow-up that names no metric asks for the previous turn's figure."""
    return Route.STRUCTURED if route is Route.NARRATIVE else route


def _channels(intent: ParsedIntent) -> tuple[str, ...]:
    return intent.channels or ((intent.channel,) if intent.channel else ())


def _names_a_slot(intent: ParsedIntent) -> bool:
    """Whether the question names anything a figure is asked by: a slot, a name the profile
    lacks, or a scale or currency ("and in billions?")."""
    return bool(
        intent.extra
        or intent.entities
        or intent.periods
        or _channels(intent)
        or intent.unknown_entities
        or intent.unknown_periods
        or intent.long_range
        or intent.latest
    )


def _slot_text(intent: ParsedIntent, slot: str, profile: DomainProfile, zh: bool) -> str:
    """The inherited slot's values by the profile's names in the question's language."""
    if slot == "period":
        return " / ".join(p.label for p in intent.periods)
    if slot == "analysis" and intent.analysis is not None:
        kept = analysis_messages(intent.language).kept
        said = kept(intent.analysis.op.value, intent.analysis.descending)
        words = [w for w in intent.analysis.unsupported if ":" not in w]  # not "group:…"
        if not words:
            return said
        return (
            f"{said}（{'、'.join(f'「{w}」' for w in words)}）" if zh else f"{said} ({words[0]!r})"
        )
    shown = Names(profile, "zh" if zh else "en")
    name_of = {"metric": shown.metric, "entity": shown.entity}.get(slot, shown.channel)
    codes = {"metric": intent.metrics, "entity": intent.entities}.get(slot, _channels(intent))
    names = [name_of(code) for code in codes]
    return " / ".join(names)
