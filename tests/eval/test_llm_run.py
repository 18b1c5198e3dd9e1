"""The budgeted run for a slow provider: only model-calling cases are planned, every prefix of
the order is balanced over routes and splits, the budget stops between cases, and the coverage
floor fails a run that asked too few."""

from __future__ import annotations

from itertools import count

from ragspine.agent.types import AgentResult, AnswerKind, Route
from ragspine.eval.cases import GoldenCase, Split
from ragspine.eval.llm_run import (
    Asked,
    Planned,
    ask_planned,
    coverage,
    plan,
    stratified_order,
    take_turns,
)
from ragspine.eval.scoring import score_case
from tests.eval.answers import result


def _case(cid: str, tag: str = "found") -> GoldenCase:
    return GoldenCase(id=cid, question="q", tags=(tag, "zh"))


def _asked(cid: str, route: Route, split: Split = Split.DEV, *, calls: int = 1) -> Asked:
    case = _case(cid, tag=cid.split("-")[0])
    answer = result("无", kind=AnswerKind.NOT_FOUND, route=route, trace={"llm_calls": calls})
    return Asked(Planned(split, case), answer, 1.0, score_case(case, answer))


def test_take_turns_interleaves_queues_of_any_length() -> None:
    assert take_turns([[1, 2, 3], [], [10], [20, 21]]) == [1, 10, 20, 2, 21, 3]


def test_order_skips_cases_without_a_model_call_and_balances_every_prefix() -> None:
    mock_run = [
        *(_asked(f"found-{i}", Route.STRUCTURED) for i in range(6)),
        *(_asked(f"growth-{i}", Route.STRUCTURED, Split.REGRESSION) for i in range(2)),
        _asked("units-0", Route.STRUCTURED, calls=0),
        *(_asked(f"narrative-{i}", Route.NARRATIVE) for i in range(2)),
        _asked("composite-0", Route.COMPOSITE, Split.REGRESSION),
    ]

    order = [p.case.id for p in stratified_order(mock_run)]

    assert "units-0" not in order and len(order) == 11
    # Routes take turns, then within the structured route the dev and held-out splits do.
    assert order[:6] == [
        "found-0",
        "narrative-0",
        "composite-0",
        "growth-0",
        "narrative-1",
        "found-1",
    ]
    assert order[6:] == ["growth-1", "found-2", "found-3", "found-4", "found-5"]


def test_budget_stops_between_cases_and_says_so() -> None:
    planned = plan({Split.DEV: [_case("a"), _case("b")], Split.REGRESSION: [_case("c")]})
    asked: list[str] = []

    def ask(case: GoldenCase) -> AgentResult:
        asked.append(case.id)
        return result("无", kind=AnswerKind.NOT_FOUND)

    run, exhausted = ask_planned(planned, ask, budget=0.0)
    assert (run, exhausted, asked) == ([], True, [])

    run, exhausted = ask_planned(planned, ask)
    assert not exhausted and asked == ["a", "b", "c"]
    assert [(a.planned.split, a.case.id) for a in run] == [
        (Split.DEV, "a"),
        (Split.DEV, "b"),
        (Split.REGRESSION, "c"),
    ]


def test_coverage_counts_per_route_and_fails_below_the_floor() -> None:
    ids = count()
    candidates = [
        *(_asked(f"s-{next(ids)}", Route.STRUCTURED) for _ in range(4)),
        *(_asked(f"n-{next(ids)}", Route.NARRATIVE) for _ in range(2)),
    ]
    ran = [candidates[0], candidates[4]]

    short = coverage(ran, candidates, floor=3, budget_exhausted=True)
    enough = coverage(ran, candidates, floor=2, budget_exhausted=True)

    assert (short.total, short.ok, enough.ok) == (2, False, True)
    assert short.ran == {Route.STRUCTURED: 1, Route.NARRATIVE: 1}
    assert short.explain() == (
        "2 of 6 model-calling cases (structured 1/4, narrative 1/2): below the floor of 3 "
        "because the time budget ran out"
    )
    assert short.to_dict()["by_route"]["narrative"] == {"ran": 1, "available": 2}
