"""A golden run for a slow provider: which model-calling cases it gets, asked within a time
budget, and how many of each route that budget reached.

The mock answers both splits in seconds, and its traces say which cases call the model at all.
A real model gets those cases in ``stratified_order`` — routes taking turns, within a route the
splits, within a split the leading tags — so whatever prefix a budget leaves is a balanced
sample of structured, narrative and composite answers from every split.
``Coverage`` counts what ran per route and holds the run to a floor, so a budget that admits
only a handful of cases fails instead of passing on them.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from ragspine.agent.types import AgentResult, Route
from ragspine.eval.cases import GoldenCase, Split
from ragspine.eval.runner import Asker
from ragspine.eval.scoring import CaseScore, score_case
from ragspine.storage.facts import DEFAULT_CHANNEL

T = TypeVar("T")


@dataclass(frozen=True)
class Planned:
    """One golden case and the split it comes from (case ids are unique across splits)."""

    split: Split
    case: GoldenCase


@dataclass(frozen=True)
class Asked:
    """One planned case asked with one provider: the answer, its score and how long it took."""

    planned: Planned
    result: AgentResult
    seconds: float
    score: CaseScore

    @property
    def case(self) -> GoldenCase:
        return self.planned.case

    @property
    def llm_calls(self) -> int:
        calls = self.result.trace.get("llm_calls", 0)
        return calls if isinstance(calls, int) else 0


def plan(cases_by_split: dict[Split, list[GoldenCase]]) -> list[Planned]:
    """Every case of every split, splits in the order given."""
    return [Planned(split, case) for split, cases in cases_by_split.items() for case in cases]


def ask_planned(
    planned: Iterable[Planned],
    ask: Asker,
    *,
    budget: float | None = None,
    default_channel: str = DEFAULT_CHANNEL,
    on_case: Callable[[Asked], None] | None = None,
) -> tuple[list[Asked], bool]:
    """Ask and score each case in order; stop before a case once ``budget`` seconds are spent.

    Returns the cases asked and whether the budget stopped the run.
    """
    asked: list[Asked] = []
    started = time.monotonic()
    for item in planned:
        if budget is not None and time.monotonic() - started >= budget:
            return asked, True
        begin = time.monotonic()
        result = ask(item.case)
        seconds = time.monotonic() - begin
        score = score_case(item.case, result, default_channel=default_channel)
        asked.append(Asked(item, result, seconds, score))
        if on_case is not None:
            on_case(asked[-1])
    return asked, False


def stratified_order(mock_run: Sequence[Asked]) -> list[Planned]:
    """The cases the mock run sent to the model, ordered so that every prefix is balanced.

    Routes take turns; within a route the splits take turns, and within a split the cases'
    leading tags (``found``, ``growth``, ``adversarial``, ...) do.
    """
    tree: dict[Route, dict[Split, dict[str, list[Planned]]]] = {}
    for asked in mock_run:
        if asked.llm_calls:
            tag = asked.case.tags[0] if asked.case.tags else ""
            splits = tree.setdefault(asked.result.route, {})
            splits.setdefault(asked.planned.split, {}).setdefault(tag, []).append(asked.planned)
    return take_turns(
        [
            take_turns([take_turns(list(tags.values())) for tags in splits.values()])
            for splits in tree.values()
        ]
    )


def take_turns(queues: Sequence[Sequence[T]]) -> list[T]:
    """Round-robin over ``queues``: the first of each, then the second of each, and so on."""
    longest = max((len(queue) for queue in queues), default=0)
    return [queue[i] for i in range(longest) for queue in queues if i < len(queue)]


@dataclass(frozen=True)
class Coverage:
    """How many model-calling cases ran per route, of how many available, against a floor."""

    ran: dict[Route, int]
    available: dict[Route, int]
    floor: int
    budget_exhausted: bool

    @property
    def total(self) -> int:
        return sum(self.ran.values())

    @property
    def ok(self) -> bool:
        return self.total >= self.floor

    def explain(self) -> str:
        """One line: what ran per route and, below the floor, why that fails."""
        routes = ", ".join(
            f"{route} {self.ran.get(route, 0)}/{count}" for route, count in self.available.items()
        )
        ran = f"{self.total} of {sum(self.available.values())} model-calling cases ({routes})"
        if self.ok:
            return f"{ran}; floor {self.floor}"
        why = "the time budget ran out" if self.budget_exhausted else "no more cases to ask"
        return f"{ran}: below the floor of {self.floor} because {why}"

    def to_dict(self) -> dict[str, Any]:
        return {
            "ran": self.total,
            "floor": self.floor,
            "budget_exhausted": self.budget_exhausted,
            "by_route": {
                route.value: {"ran": self.ran.get(route, 0), "available": count}
                for route, count in self.available.items()
            },
        }


def coverage(
    llm_run: Sequence[Asked], candidates: Sequence[Asked], *, floor: int, budget_exhausted: bool
) -> Coverage:
    """What ``llm_run`` covered of ``candidates`` (the mock's model-calling cases)."""
    return Coverage(_by_route(llm_run), _by_route(candidates), floor, budget_exhausted)


def _by_route(asked: Iterable[Asked]) -> dict[Route, int]:
    routes = [a.result.route for a in asked]
    return {route: routes.count(route) for route in Route if route in routes}
