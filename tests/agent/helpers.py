"""Test doubles for the agent (scripted LLM providers, a counting store) and the number oracle.

Only the LLM is faked; the fact store is a real SQLite store (wrapped to count calls). The
oracle knows the right numbers before the agent runs: the visible facts in ``STANDARD_FACTS``
for the slots a test says its question asks.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from datetime import date
from pathlib import Path

from ragspine.agent.llm_provider import ProviderResponse, ToolCall
from ragspine.agent.types import AgentResult, Slots
from ragspine.errors import ProviderError
from ragspine.eval.fabrication import fabricated_numbers
from ragspine.profile.sensitivity import DEFAULT_CLEARANCE, Sensitivity
from ragspine.storage.fact_store import Fact, FactStore, ReviewStatus
from tests.facts import fact

Turn = Callable[[list[dict[str, object]]], ProviderResponse]


STANDARD_FACTS = [
    fact("REVENUE", "ACME_CN", "FY", "2024", 1320),
    fact("REVENUE", "ACME_HK", "FY", "2024", 2210.5),
    fact("REVENUE", "ACME_HK", "FY", "2025", 2480),
    fact("REVENUE", "ACME_GROUP", "FY", "2025", 6120),
    fact("OPERATING_PROFIT", "ACME_HK", "FY", "2024", 610),
    fact("OPERATING_PROFIT", "ACME_CN", "FY", "2024", 402),
    fact(
        "NBV_MARGIN",
        "ACME_HK",
        "FY",
        "2024",
        52.0,
        source_doc_id="ACME_5Y.xlsx",
        source_locator="sheet=HK,cell=B7",
    ),
    fact(
        "NBV_MARGIN",
        "ACME_HK",
        "FY",
        "2025",
        55.4,
        source_doc_id="ACME_5Y.xlsx",
        source_locator="sheet=HK,cell=C7",
    ),
    fact("NBV", "ACME_HK", "FY", "2025", 777, channel="AGENCY"),
    fact(
        "REVENUE",
        "ACME_MO",
        "FY",
        "2025",
        333,
        sensitivity="RESTRICTED",
        source_doc_id="board_memo.docx",
        source_locator="page=1,table=1,row=1,col=2",
    ),
    fact("REVENUE", "ACME_MO", "FY", "2024", 290, review_status="pending"),
]


class CountingStore:
    """A real SQLite store that counts reads, so tests can prove "no store call"."""

    def __init__(self, path: Path, facts: Iterable[Fact] = STANDARD_FACTS) -> None:
        self.inner = FactStore(path)
        self.inner.init_schema()
        self.inner.upsert_facts(list(facts))
        self.get_calls = 0

    def get_fact(
        self,
        metric_code: str,
        entity: str,
        period_type: str,
        period: str,
        channel: str = "TOTAL",
        *,
        clearance: Sensitivity = DEFAULT_CLEARANCE,
    ) -> Fact | None:
        self.get_calls += 1
        return self.inner.get_fact(
            metric_code, entity, period_type, period, channel, clearance=clearance
        )

    def __getattr__(self, name: str) -> object:
        return getattr(self.inner, name)


class ScriptedProvider:
    """Replays turns; each turn sees the messages so far. Records every call's inputs."""

    def __init__(self, turns: Sequence[Turn | ProviderResponse | Exception]) -> None:
        self.turns = list(turns)
        self.prompts: list[dict[str, object]] = []

    @property
    def calls(self) -> int:
        return len(self.prompts)

    def create_message(
        self, *, system: str, messages: list[dict[str, object]], tools: list[dict[str, object]]
    ) -> ProviderResponse:
        self.prompts.append(
            {"system": system, "messages": [dict(m) for m in messages], "tools": tools}
        )
        turn = self.turns[min(len(self.prompts), len(self.turns)) - 1]
        if isinstance(turn, Exception):
            raise turn
        if isinstance(turn, ProviderResponse):
            return turn
        return turn(messages)


def text(answer: str) -> ProviderResponse:
    return ProviderResponse(text=answer, tool_calls=[], stop_reason="end_turn")


def tool_call(call_id: str = "c1", **arguments: object) -> ProviderResponse:
    return ProviderResponse(
        text="",
        tool_calls=[ToolCall(call_id, "query_metric", dict(arguments))],
        stop_reason="tool_use",
    )


def network_error() -> ProviderError:
    return ProviderError("connection refused by 127.0.0.1:9")


def _answers(f: Fact, slots: Slots) -> bool:
    return (f.metric_code, f.entity, f.period_type, f.period, f.channel) == (
        slots.metric,
        slots.entity,
        slots.period.type,
        slots.period.period,
        slots.channel,
    )


def allowed_numbers(
    asked: Iterable[Slots],
    *,
    clearance: Sensitivity = DEFAULT_CLEARANCE,
    facts: Iterable[Fact] = STANDARD_FACTS,
) -> list[float]:
    """The values of the facts that answer the asked slots, as the caller may see them.

    Known before the agent runs, so an agent that answers with another entity's or period's
    fact — however real — is caught. Differences and percentages of these values are allowed
    by ``fabricated_numbers`` itself.
    """
    wanted = list(asked)
    return [
        f.value
        for f in facts
        if f.review_status == ReviewStatus.APPROVED
        and clearance.allows(Sensitivity.parse(f.sensitivity))
        and any(_answers(f, slots) for slots in wanted)
    ]


def assert_no_invented_numbers(
    result: AgentResult, asked: Iterable[Slots], *, clearance: Sensitivity = DEFAULT_CLEARANCE
) -> None:
    """Every number in the answer is a visible fact for the asked slots or our arithmetic on
    them, judged by the eval's own checker; a stated value always comes with a source."""
    allowed = allowed_numbers(asked, clearance=clearance)
    assert fabricated_numbers(result, allowed_values=allowed) == [], result.answer
    if fabricated_numbers(result, allowed_values=[]):
        assert result.sources, f"a number was shown without its source: {result.answer}"


def ask_offline(question: str, store: CountingStore) -> AgentResult:
    """``question`` answered from ``store`` under the example profile with the offline mock
    model, on a fixed day (2026-06-01)."""
    from ragspine.agent.agent import answer_question
    from ragspine.agent.llm_provider import MockProvider
    from tests.profiles import acme

    return answer_question(
        question, store, MockProvider(), profile=acme(), reference_date=date(2026, 6, 1)
    )
