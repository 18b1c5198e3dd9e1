"""The guard against a real, misbehaving model: gemma-3-270m (a base model) via llama-cpp-python.

The model echoes prompts, loops on tool calls and rambles; whatever it does, a structured answer
must be exactly the one our code renders from the found fact, and a failing server — a timeout,
a process killed mid-answer — must end in the number-free degrade message.
"""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Iterator
from datetime import date
from pathlib import Path

import pytest

from ragspine.agent.agent import AgentResult
from ragspine.agent.messages import en, zh
from ragspine.agent.narrative import NARRATIVE_SYSTEM_PROMPT
from ragspine.agent.query_tools import query_metric_spec
from ragspine.errors import ProviderError
from ragspine.eval.fabrication import fabricated_numbers
from ragspine.facade import RAGSpine
from ragspine.llm import LLMProvider, MockProvider, OpenAIProvider, ProviderResponse
from ragspine.llm.local import LocalLLMServer
from ragspine.profile.loader import load_profile

pytestmark = pytest.mark.llm

REFERENCE_DATE = date(2026, 11, 26)
CLEARANCE = "CONFIDENTIAL"
# Enough for the model's tool arguments; its prose is discarded or truncated anyway.
MAX_TOKENS = 64
_CODE = re.compile(r"\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\b")
_DIGITS = re.compile(r"\d+")
# A number as the answer states it, thousands separators included (3,105 is one number).
_NUMBER = re.compile(r"\d{1,3}(?:,\d{3})+(?!\d)|\d+")


def provider(
    server: LocalLLMServer,
    *,
    timeout: float = 60.0,
    max_tokens: int = MAX_TOKENS,
    stream: bool = False,
) -> OpenAIProvider:
    return OpenAIProvider(
        server.model,
        base_url=server.base_url,
        timeout=timeout,
        max_tokens=max_tokens,
        stream=stream,
    )


def ask(workspace: Path, llm: LLMProvider, question: str) -> AgentResult:
    with RAGSpine.open(workspace, provider=llm, clearance=CLEARANCE) as rag:
        return rag.ask(question, reference_date=REFERENCE_DATE)


def stated_digits(result: AgentResult) -> list[str]:
    """Numbers in the answer (grouping commas removed) once sources and upper-snake codes
    (ACME_HK, USD_M) are blanked."""
    text = result.answer
    for source in result.sources:
        text = text.replace(source["doc"], " ").replace(source["locator"], " ")
    return [n.replace(",", "") for n in _NUMBER.findall(_CODE.sub(" ", text))]


def test_structured_answer_states_only_the_found_fact(
    llm_server: LocalLLMServer, demo_workspace: Path
) -> None:
    question = "香港FY2025的收入是多少"

    real = ask(demo_workspace, provider(llm_server), question)
    mock = ask(demo_workspace, MockProvider(), question)

    assert real.answer == mock.answer
    assert real.answer_kind == "found"
    assert set(stated_digits(real)) == {"2025", "3105"}
    assert real.trace["llm_calls"] >= 1  # the model was consulted, then overruled or agreed
    assert real.trace["provider_error"] is False


def test_not_found_answer_has_no_digits_beyond_the_period(
    llm_server: LocalLLMServer, demo_workspace: Path
) -> None:
    question = "What was ACME CN revenue in FY2019?"

    real = ask(demo_workspace, provider(llm_server), question)

    assert real.answer_kind == "not_found"
    assert set(stated_digits(real)) <= {"2019"}
    assert real.answer == ask(demo_workspace, MockProvider(), question).answer


def test_streamed_tool_call_from_the_real_server(llm_server: LocalLLMServer) -> None:
    hint = '{"metric": "REVENUE", "entity": "ACME_HK", "period": "FY2025", "channel": "TOTAL"}'
    messages: list[dict[str, object]] = [
        {"role": "user", "content": f"香港FY2025的收入是多少\nParsed slots (JSON): {hint}"}
    ]

    reply = provider(llm_server, stream=True).create_message(
        system="Call the query_metric tool.",
        messages=messages,
        tools=[query_metric_spec(load_profile())],
    )

    # The base model copies the slot hint into the call; the stream carries it whole.
    assert [c.name for c in reply.tool_calls] == ["query_metric"]
    assert reply.tool_calls[0].arguments.get("entity") == "ACME_HK"
    assert reply.stop_reason == "tool_use"


def test_streamed_narrative_answer_end_to_end(
    llm_server: LocalLLMServer, demo_workspace: Path
) -> None:
    real = ask(
        demo_workspace,
        provider(llm_server, stream=True),
        "What is the regulatory impact on ACME HK?",
    )

    assert real.answer_kind == "narrative"
    assert real.sources
    assert real.trace["provider_error"] is False
    # Every number the model wrote is in a passage its sentence cites (the eval's checker).
    assert fabricated_numbers(real) == []


def test_composite_answer_states_only_found_facts_and_cited_numbers(
    llm_server: LocalLLMServer, demo_workspace: Path
) -> None:
    # One lookup, so the model gets both the tool loop and the attribution.
    question = "Hong Kong NBV margin in H1 2025, and what drove it?"

    real = ask(demo_workspace, provider(llm_server), question)

    assert (real.route, real.answer_kind) == ("composite", "found")
    assert real.narrative is not None and real.narrative.citations
    assert real.trace["llm_calls"] >= 2
    assert fabricated_numbers(real) == []


def test_streamed_text_without_tools(llm_server: LocalLLMServer) -> None:
    reply = provider(llm_server, stream=True).create_message(
        system=NARRATIVE_SYSTEM_PROMPT,
        messages=[{"role": "user", "content": "Question: why did revenue grow?\nSnippets:"}],
        tools=[],
    )

    assert reply.stop_reason in ("end_turn", "max_tokens")
    assert reply.tool_calls == []


@pytest.mark.parametrize(
    ("question", "message"),
    [
        ("What was ACME HK revenue in FY2025?", en.PROVIDER_UNAVAILABLE),
        ("香港FY2025的收入是多少", zh.PROVIDER_UNAVAILABLE),
    ],
    ids=["en", "zh"],
)
@pytest.mark.parametrize("stream", [False, True], ids=["plain", "stream"])
def test_tiny_timeout_degrades_without_numbers(
    llm_server: LocalLLMServer, demo_workspace: Path, question: str, message: str, stream: bool
) -> None:
    real = ask(demo_workspace, provider(llm_server, timeout=0.01, stream=stream), question)

    assert (real.answer, real.answer_kind) == (message, "degraded")
    assert real.trace["provider_error"] is True
    assert not _DIGITS.search(real.answer)


def test_a_server_that_cannot_start_names_its_log(tmp_path: Path) -> None:
    model = tmp_path / "not-a-model.gguf"
    model.write_bytes(b"not a model")
    log = tmp_path / "server.log"
    server = LocalLLMServer(model, log_path=log, startup_timeout=60)

    with pytest.raises(ProviderError, match=re.escape(str(log))):
        server.start()
    assert not server.running


class _Recorder:
    """Passes calls through and remembers the provider errors, which the agent swallows."""

    def __init__(self, inner: LLMProvider) -> None:
        self.inner = inner
        self.called = threading.Event()
        self.errors: list[str] = []

    def create_message(
        self, *, system: str, messages: list[dict[str, object]], tools: list[dict[str, object]]
    ) -> ProviderResponse:
        self.called.set()
        try:
            return self.inner.create_message(system=system, messages=messages, tools=tools)
        except ProviderError as err:
            self.errors.append(str(err))
            raise


@pytest.fixture
def doomed_server(tmp_path: Path) -> Iterator[LocalLLMServer]:
    with LocalLLMServer(log_path=tmp_path / "server.log") as server:
        yield server


@pytest.mark.parametrize(("stream", "error"), [(False, "could not connect"), (True, "broke off")])
def test_server_killed_mid_answer_degrades(
    doomed_server: LocalLLMServer, demo_workspace: Path, stream: bool, error: str
) -> None:
    # A long generation (the base model echoes its snippets until the cap) killed after 2 s.
    recorder = _Recorder(provider(doomed_server, max_tokens=1500, stream=stream))

    def kill_once_asked() -> None:
        recorder.called.wait(timeout=30)
        time.sleep(2.0)
        doomed_server.kill()

    killer = threading.Thread(target=kill_once_asked)
    killer.start()
    real = ask(demo_workspace, recorder, "What is the regulatory impact on ACME HK?")
    killer.join()

    assert not doomed_server.running
    assert real.answer_kind == "degraded"
    assert not _DIGITS.search(real.answer.split("\n")[0])
    assert len(recorder.errors) == 1 and error in recorder.errors[0], recorder.errors
