"""The golden set through a real local LLM, against the mock on the same cases.

    python scripts/eval_llm.py [--budget 180] [--out bench/results/eval_llm.json]

A demo workspace is built in a temporary folder and a small base model (gemma-3-270m, which
follows neither chat nor tool instructions) is served by llama-cpp-python on 127.0.0.1
(``ragspine.eval.local_llm``). Every golden case is asked with the mock; the real model gets
every case that makes no LLM call (instant) and then the cases that do — structured, narrative
and composite taking turns, and within each the leading tags — until ``--budget`` seconds are
spent, so a slow model cannot overrun the CI step and any cut-off leaves a balanced sample.

Reported for both providers, on the same cases: the four gates, the fabrication and leak
counters, numeric grounding of narrative text, how often the guard overrode the model and why
(from the traces), and per-question latency. Grounding is rechecked here from the answer text
and the stored chunks, not taken from the guard's own count, at two strengths: every number in a
narrative answer or a composite's attribution section must appear in one of the snippets the
model was shown (what ``narrative.ground_numbers`` enforces; gated), and — DESIGN §2's wording —
in one of the snippets the answer cites (reported; the guard does not enforce it yet).

Exits 1 when the real run fabricated a number, leaked a forbidden string, stated a number that
none of its snippets holds, called the model on a case that must not, or when its numeric
accuracy or citation validity on the structured cases differs from the mock run's.
"""

from __future__ import annotations

import json
import re
import signal
import statistics
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from itertools import zip_longest
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

from ragspine.agent.agent import AgentResult
from ragspine.agent.llm_provider import LLMProvider, MockProvider, OpenAIProvider
from ragspine.agent.messages import en, zh
from ragspine.cli import guarded, use_utf8_output
from ragspine.demo.tour import build_demo_workspace
from ragspine.eval.gates import (
    GATE_CITATION,
    GATE_NUMERIC,
    GATES,
    CaseScore,
    Summary,
    score_case,
    summarize,
)
from ragspine.eval.golden import GoldenCase, ask_with, load_golden
from ragspine.eval.local_llm import LocalLLMServer
from ragspine.workspace import Workspace

DEFAULT_OUT = Path("bench/results/eval_llm.json")
STRUCTURED_GATES = (GATE_NUMERIC, GATE_CITATION)
_HEADINGS = (zh.NARRATIVE_HEADING, en.NARRATIVE_HEADING)
# force_citations ends narrative text with this heading and one "[n] doc · locator" per source.
_SOURCE_HEADINGS = ("来源：", "Sources:")
_CITATION = re.compile(r"\[\d+\]")
_NUMBER = re.compile(r"\d[\d,]*(?:\.\d+)?")


@dataclass
class Asked:
    """One case asked with one provider."""

    case: GoldenCase
    result: AgentResult
    seconds: float
    score: CaseScore
    # Numbers in the narrative text outside every snippet shown / outside the cited ones.
    ungrounded: list[str] = field(default_factory=list)
    uncited: list[str] = field(default_factory=list)

    @property
    def llm_calls(self) -> int:
        return _count(self.result, "llm_calls")

    @property
    def tool_loop(self) -> bool:
        """The model was offered the query tool for exactly one lookup."""
        return self.result.trace.get("subtasks") == 1


def _count(result: AgentResult, key: str) -> int:
    value = result.trace.get(key, 0)
    return value if isinstance(value, int) else 0


def ask_all(
    cases: Iterable[GoldenCase],
    workspace: Path,
    provider: LLMProvider,
    *,
    budget: float | None = None,
    on_case: Callable[[Asked], None] | None = None,
) -> tuple[list[Asked], bool]:
    """Ask ``cases`` in order; stop before a case once ``budget`` seconds are spent."""
    asked: list[Asked] = []
    started = time.monotonic()
    with ask_with(workspace, provider) as ask, Workspace.open(workspace).fact_store() as store:
        for case in cases:
            if budget is not None and time.monotonic() - started > budget:
                return asked, True
            begin = time.monotonic()
            result = ask(case)
            seconds = time.monotonic() - begin
            entry = Asked(case, result, seconds, score_case(case, result))
            entry.ungrounded, entry.uncited = ungrounded_numbers(result, store)
            asked.append(entry)
            if on_case is not None:
                on_case(entry)
    return asked, False


def ungrounded_numbers(result: AgentResult, store: Any) -> tuple[list[str], list[str]]:
    """Numbers in the narrative text outside every snippet shown, and outside the cited ones."""
    text = narrative_text(result)
    if text is None:
        return [], []
    traced = result.trace.get("chunk_ids")
    chunks = store.get_chunks([str(c) for c in traced] if isinstance(traced, list) else [])
    cited = {(s["doc"], s["locator"]) for s in result.sources}
    shown = _numbers(chunk.text for chunk in chunks.values())
    in_cited = _numbers(c.text for c in chunks.values() if (c.doc_id, c.locator) in cited)
    stated = [_canonical(n) for n in _NUMBER.findall(_CITATION.sub(" ", text))]
    return [n for n in stated if n not in shown], [n for n in stated if n not in in_cited]


def _numbers(texts: Iterable[str]) -> set[str]:
    return {_canonical(n) for text in texts for n in _NUMBER.findall(text)}


def narrative_text(result: AgentResult) -> str | None:
    """The model-written part of a narrative answer or attribution section, footer removed."""
    if result.route not in ("narrative", "composite") or not result.trace.get("chunk_ids"):
        return None
    text = result.answer
    for heading in _HEADINGS:
        if heading in text:
            text = text.split(heading, 1)[1]
    for heading in _SOURCE_HEADINGS:
        if f"\n{heading}\n" in text:
            text = text.rsplit(f"\n{heading}\n", 1)[0]
    return text


def _canonical(number: str) -> str:
    return number.replace(",", "")


def llm_order(mock_run: list[Asked]) -> list[GoldenCase]:
    """The cases that call the model, routes taking turns and, within a route, leading tags.

    Any prefix is then balanced: a budget that stops the run early still leaves structured,
    narrative and composite answers of several kinds.
    """
    by_route: dict[str, dict[str, list[GoldenCase]]] = {}
    for asked in mock_run:
        if asked.llm_calls:
            tag = asked.case.tags[0] if asked.case.tags else ""
            by_route.setdefault(asked.result.route, {}).setdefault(tag, []).append(asked.case)
    return _take_turns([_take_turns(list(tags.values())) for tags in by_route.values()])


def _take_turns(queues: list[list[GoldenCase]]) -> list[GoldenCase]:
    return [case for row in zip_longest(*queues) for case in row if case is not None]


# --------------------------------------------------------------------------- reporting


def gates_of(summary: Summary) -> dict[str, dict[str, Any]]:
    return {name: summary.gates[name].to_dict() for name in GATES}


def guard_stats(asked: list[Asked]) -> dict[str, Any]:
    loops = [a for a in asked if a.tool_loop]
    overrides = [a for a in loops if a.result.trace.get("guard_override")]
    reasons = Counter(str(a.result.trace.get("guard_override_reason")) for a in overrides)
    narrative = [a for a in asked if narrative_text(a.result) is not None]
    return {
        "tool_loop_cases": len(loops),
        "overrides": len(overrides),
        "override_fraction": round(len(overrides) / len(loops), 4) if loops else None,
        "reasons": dict(reasons.most_common()),
        "llm_calls_per_tool_loop": _mean([a.llm_calls for a in loops]),
        "model_text_discarded": sum(1 for a in loops if a.result.trace.get("model_text_discarded")),
        "provider_errors": sum(1 for a in asked if a.result.trace.get("provider_error")),
        "narrative_answers": len(narrative),
        "narrative_sentences_dropped": sum(_count(a.result, "numbers_stripped") for a in narrative),
    }


def latency(asked: list[Asked]) -> dict[str, Any]:
    seconds = sorted(a.seconds for a in asked if a.llm_calls)
    if not seconds:
        return {"llm_cases": 0}
    by_route: dict[str, list[float]] = {}
    for a in asked:
        if a.llm_calls:
            by_route.setdefault(a.result.route, []).append(a.seconds)
    return {
        "llm_cases": len(seconds),
        "mean": _mean(seconds),
        "median": round(statistics.median(seconds), 2),
        "p90": round(seconds[min(len(seconds) - 1, int(0.9 * len(seconds)))], 2),
        "max": round(seconds[-1], 2),
        "total": round(sum(a.seconds for a in asked), 1),
        "mean_by_route": {route: _mean(values) for route, values in by_route.items()},
    }


def _mean(values: list[float] | list[int]) -> float | None:
    return round(statistics.fmean(values), 2) if values else None


def side(asked: list[Asked]) -> dict[str, Any]:
    """Everything reported for one provider's run."""
    scores = [a.score for a in asked]
    structured = [a.score for a in asked if a.case.expect.values or a.case.expect.derived]
    overall = summarize(scores)
    return {
        "cases": len(asked),
        "gates": gates_of(overall),
        "structured_cases": len(structured),
        "structured_gates": {
            name: summarize(structured).gates[name].to_dict() for name in STRUCTURED_GATES
        },
        "fabrication": overall.fabrication,
        "forbidden": overall.forbidden,
        "narrative_ungrounded": {a.case.id: a.ungrounded for a in asked if a.ungrounded},
        "narrative_uncited": {a.case.id: a.uncited for a in asked if a.uncited},
        "guard": guard_stats(asked),
        "latency": latency(asked),
    }


def case_rows(real: list[Asked], mock: dict[str, Asked]) -> Iterator[dict[str, Any]]:
    for a in real:
        m = mock[a.case.id]
        trace = a.result.trace
        yield {
            "id": a.case.id,
            "tags": list(a.case.tags),
            "route": a.result.route,
            "kind": a.result.answer_kind,
            "mock_kind": m.result.answer_kind,
            "seconds": round(a.seconds, 2),
            "llm_calls": a.llm_calls,
            "guard_override": trace.get("guard_override"),
            "guard_override_reason": trace.get("guard_override_reason") or None,
            "gates": a.score.gates,
            "mock_gates": m.score.gates,
            "ungrounded": a.ungrounded,
            "uncited": a.uncited,
        }


def checks(
    real: list[Asked], mock: dict[str, Asked], report: dict[str, Any]
) -> list[dict[str, Any]]:
    """The pass/fail conditions, each with what was measured."""
    r, m = report["real"], report["mock"]
    differing = [
        a.case.id
        for a in real
        if any(a.score.gates[g] != mock[a.case.id].score.gates[g] for g in STRUCTURED_GATES)
    ]
    stray_calls = [a.case.id for a in real if a.llm_calls and not mock[a.case.id].llm_calls]
    ran_llm = r["latency"]["llm_cases"]
    return [
        _check("fabrication is 0", r["fabrication"] == 0, r["fabrication"]),
        _check("no forbidden string shown", r["forbidden"] == 0, r["forbidden"]),
        _check(
            "structured numeric accuracy and citation validity equal the mock's",
            not differing and r["structured_gates"] == m["structured_gates"],
            differing or r["structured_gates"],
        ),
        _check(
            "narrative numbers appear in a snippet the model was shown",
            not r["narrative_ungrounded"],
            r["narrative_ungrounded"] or f"{r['guard']['narrative_answers']} answers checked",
        ),
        _check("deterministic cases never call the model", not stray_calls, stray_calls),
        _check("the model answered at least one case", ran_llm > 0, ran_llm),
    ]


def _check(name: str, ok: bool, detail: object) -> dict[str, Any]:
    return {"check": name, "ok": ok, "detail": detail}


def render(report: dict[str, Any]) -> list[Table]:
    r, m = report["real"], report["mock"]
    run = report["run"]
    scores = Table(
        title=f"Real model ({report['model']}) vs mock, same {r['cases']} cases",
        caption=f"{run['llm_cases_run']} of {run['llm_cases_available']} model-calling cases run"
        + (f" (budget {run['budget_seconds']:g}s spent)" if run["budget_exhausted"] else ""),
    )
    for column in ("", "real", "mock"):
        scores.add_column(column, justify="right" if column else "left")
    for name in GATES:
        scores.add_row(name, _fraction(r["gates"][name]), _fraction(m["gates"][name]))
    for name in STRUCTURED_GATES:
        label = f"{name} (structured, {r['structured_cases']})"
        scores.add_row(
            label, _fraction(r["structured_gates"][name]), _fraction(m["structured_gates"][name])
        )
    scores.add_row("fabrication", str(r["fabrication"]), str(m["fabrication"]))
    scores.add_row("forbidden shown", str(r["forbidden"]), str(m["forbidden"]))
    scores.add_row(
        "narrative answers with numbers in no snippet shown",
        str(len(r["narrative_ungrounded"])),
        str(len(m["narrative_ungrounded"])),
    )
    scores.add_row(
        "… with numbers in no cited snippet (not gated)",
        str(len(r["narrative_uncited"])),
        str(len(m["narrative_uncited"])),
    )
    guard = Table(title="Guard (from the traces)")
    guard.add_column("")
    guard.add_column("real", justify="right")
    guard.add_column("mock", justify="right")
    for key in r["guard"]:
        guard.add_row(key, _cell(r["guard"][key]), _cell(m["guard"][key]))
    speed = Table(title="Latency of model-calling cases (seconds)")
    speed.add_column("")
    speed.add_column("real", justify="right")
    for key, value in r["latency"].items():
        speed.add_row(key, _cell(value))
    verdict = Table(title="Checks")
    verdict.add_column("")
    verdict.add_column("check")
    verdict.add_column("measured")
    for item in report["checks"]:
        verdict.add_row("ok" if item["ok"] else "FAIL", item["check"], _cell(item["detail"]))
    return [scores, guard, speed, verdict]


def _fraction(gate: dict[str, Any]) -> str:
    return f"{gate['passed']}/{gate['applicable']} ({gate['score']:.3f})"


def _cell(value: object) -> str:
    if isinstance(value, dict | list):
        return json.dumps(value, ensure_ascii=False)
    return "—" if value is None else str(value)


# --------------------------------------------------------------------------- main


@guarded
def main(
    out: Annotated[Path, typer.Option(help="Where to write the JSON report.")] = DEFAULT_OUT,
    budget: Annotated[
        float, typer.Option(help="Seconds the real model may spend on model-calling cases.")
    ] = 180.0,
    timeout: Annotated[float, typer.Option(help="Per-request timeout in seconds.")] = 60.0,
    max_tokens: Annotated[int, typer.Option(help="Completion cap per model request.")] = 64,
    log: Annotated[Path, typer.Option(help="The model server's log.")] = Path(
        "bench/results/eval_llm_server.log"
    ),
) -> None:
    """Golden set through a real local LLM and through the mock; exit 1 if the guard failed."""
    started = time.monotonic()
    cases = load_golden()
    console = Console(highlight=False)
    with tempfile.TemporaryDirectory(prefix="ragspine-eval-llm-") as tmp:
        workspace = Path(tmp) / "ws"
        build_demo_workspace(workspace)
        mock_run, _ = ask_all(cases, workspace, MockProvider())
        mock = {a.case.id: a for a in mock_run}
        free = [a.case for a in mock_run if not a.llm_calls]
        paid = llm_order(mock_run)
        with LocalLLMServer(log_path=log) as server:
            console.print(f"model server ready at {server.base_url} (log: {server.log_path})")
            provider = OpenAIProvider(
                server.model, base_url=server.base_url, timeout=timeout, max_tokens=max_tokens
            )
            deterministic, _ = ask_all(free, workspace, provider)
            progress = _progress(console, len(paid))
            llm_run, exhausted = ask_all(paid, workspace, provider, budget=budget, on_case=progress)
    real = deterministic + llm_run
    report: dict[str, Any] = {
        "model": server.model,
        "settings": {"timeout": timeout, "max_tokens": max_tokens, "temperature": 0.0},
        "run": {
            "golden_cases": len(cases),
            "deterministic_cases": len(deterministic),
            "llm_cases_available": len(paid),
            "llm_cases_run": len(llm_run),
            "budget_seconds": budget,
            "budget_exhausted": exhausted,
        },
        "real": side(real),
        "mock": side([mock[a.case.id] for a in real]),
    }
    report["checks"] = checks(real, mock, report)
    report["cases"] = list(case_rows(real, mock))
    report["run"]["wall_seconds"] = round(time.monotonic() - started, 1)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(report, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    for table in render(report):
        console.print(table)
    console.print(f"report: {out} · {report['run']['wall_seconds']}s in all")
    if not all(item["ok"] for item in report["checks"]):
        raise typer.Exit(1)


def _progress(console: Console, total: int) -> Callable[[Asked], None]:
    done = 0

    def show(asked: Asked) -> None:
        nonlocal done
        done += 1
        trace = asked.result.trace
        reason = trace.get("guard_override_reason") or "-"
        console.print(
            f"  [{done}/{total}] {asked.case.id:<16} {asked.result.answer_kind:<10} "
            f"{asked.seconds:5.1f}s llm_calls={asked.llm_calls} override={reason}"
        )

    return show


def _exit_on_sigterm(signum: int, frame: object) -> None:
    # `timeout` sends SIGTERM, to this process and then to its group: exit normally on the
    # first, so the server's context manager stops it, and let the second not cut that short.
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    sys.exit(128 + signum)


if __name__ == "__main__":
    signal.signal(signal.SIGTERM, _exit_on_sigterm)
    use_utf8_output()
    typer.run(main)
