"""The quickstart tour: a throwaway workspace with the ACME facts and one question per answer kind.

The reference date is fixed so that "the latest complete fiscal year" in the assumption example
is the same on every machine and every day.
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from datetime import date

from ragspine.agent.types import AgentResult
from ragspine.demo.fixtures import load_quickstart_facts
from ragspine.facade import RAGSpine
from ragspine.workspace import Workspace

QUICKSTART_REFERENCE_DATE = date(2026, 11, 26)
# Suggested after the showcase, to try `ragspine ask` on a workspace with the same facts.
TRY_QUESTION = "澳门FY2025的收入是多少"


@dataclass(frozen=True)
class Showcase:
    title: str
    question: str


SHOWCASES = (
    Showcase("Found, with its source", "中国内地FY2024的REVENUE是多少"),
    Showcase("Not found, said honestly", "中国内地FY2025的REVENUE是多少"),
    Showcase("Missing period assumed and surfaced", "香港的收入是多少"),
    Showcase("Missing metric: a clarifying question", "香港FY2024的数据是多少"),
    Showcase("Competitor: refused", "竞安保险FY2024的收入是多少"),
    Showcase("English question, English answer", "What was ACME HK revenue in FY2025?"),
    Showcase("Growth computed from two facts", "香港FY2025收入同比增长多少"),
)


@dataclass(frozen=True)
class QuickstartRun:
    facts_loaded: int
    answers: list[tuple[Showcase, AgentResult]]


def run_quickstart() -> QuickstartRun:
    """Answer every showcase question offline (mock provider) in a temporary workspace."""
    with tempfile.TemporaryDirectory(prefix="ragspine-quickstart-") as tmp:
        workspace = Workspace.create(tmp)
        with workspace.fact_store() as store:
            loaded = load_quickstart_facts(store)
        with RAGSpine.open(workspace) as rag:
            answers = [
                (showcase, rag.ask(showcase.question, reference_date=QUICKSTART_REFERENCE_DATE))
                for showcase in SHOWCASES
            ]
    return QuickstartRun(loaded, answers)
