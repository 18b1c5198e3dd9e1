"""Test doubles for the agent: scripted and spying LLM providers, a counting store.

Only the LLM is faked; the fact store is a real SQLite store (wrapped to count calls).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

from ragspine.agent.agent import AgentResult
from ragspine.agent.llm_provider import ProviderResponse, ToolCall
from ragspine.errors import ProviderError
from ragspine.profile.sensitivity import DEFAULT_CLEARANCE, Sensitivity
from ragspine.storage.fact_store import Fact, FactStore

Turn = Callable[[list[dict[str, object]]], ProviderResponse]


def fact(
    metric: str, entity: str, period_type: str, period: str, value: float, **kw: object
) -> Fact:
    unit = str(kw.pop("unit", "PCT" if metric.endswith("MARGIN") else "USD_M"))
    channel = str(kw.pop("channel", "TOTAL"))
    doc = str(kw.pop("doc", f"ACME_{period_type}{period}_Review.pptx"))
    slide = {"ACME_CN": 2, "ACME_HK": 3, "ACME_MO": 4}.get(entity, 1)
    locator = str(
        kw.pop("locator", f"slide={slide},table=1,row={metric},col={period_type}{period}")
    )
    return Fact(
        metric,
        entity,
        entity.removeprefix("ACME_"),
        channel,
        period_type,
        period,
        value,
        unit,
        doc,
        locator,
        **kw,
    )


STANDARD_FACTS = [
    fact("REVENUE", "ACME_CN", "FY", "2024", 1320, doc="ACME_FY2024_Review.pptx"),
    fact("REVENUE", "ACME_HK", "FY", "2024", 2210.5),
    fact("REVENUE", "ACME_HK", "FY", "2025", 2480),
    fact("REVENUE", "ACME_GROUP", "FY", "2025", 6120),
    fact("OPERATING_PROFIT", "ACME_HK", "FY", "2024", 610),
    fact("OPERATING_PROFIT", "ACME_CN", "FY", "2024", 402),
    fact(
        "NBV_MARGIN", "ACME_HK", "FY", "2024", 52.0, doc="ACME_5Y.xlsx", locator="sheet=HK,cell=B7"
    ),
    fact(
        "NBV_MARGIN", "ACME_HK", "FY", "2025", 55.4, doc="ACME_5Y.xlsx", locator="sheet=HK,cell=C7"
    ),
    fact("NBV", "ACME_HK", "FY", "2025", 777, channel="AGENCY"),
    fact(
        "REVENUE",
        "ACME_MO",
        "FY",
        "2025",
        333,
        sensitivity="RESTRICTED",
        doc="board_memo.docx",
        locator="page=1,table=1,row=1,col=2",
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


_SOURCE = re.compile(r"（来源：[^）]*）|\(source: [^)]*\)")
_PERIOD = re.compile(r"FY\d{4}|\d{4}(?:H[12]|Q[1-4])")
_NUMBER = re.compile(r"\d+(?:\.\d+)?")


def numbers_outside_sources(answer: str) -> list[float]:
    """Numbers in an answer, ignoring source locators and period labels."""
    stripped = _PERIOD.sub(" ", _SOURCE.sub(" ", answer))
    return [float(n) for n in _NUMBER.findall(stripped)]


def allowed_numbers(result: AgentResult) -> set[float]:
    """Found fact values plus our own arithmetic on them (differences and percentages)."""
    values = [float(r["value"]) for r in result.tool_results if r["status"] == "found"]
    allowed = {abs(v) for v in values}
    for a in values:
        for b in values:
            allowed.add(round(abs(a - b), 6))
            if b:
                allowed.add(round(abs((a - b) / b * 100), 1))
    return allowed


def assert_no_invented_numbers(result: AgentResult) -> None:
    allowed = allowed_numbers(result)
    for number in numbers_outside_sources(result.answer):
        assert round(number, 6) in allowed or round(number, 1) in allowed, (number, result.answer)
    if numbers_outside_sources(result.answer):
        assert result.sources, "a number was shown without its source"
