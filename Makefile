# The two commands of the README's Quick start: `make run` and `make test`.
# Both create the virtual environment in .venv on first use (or when
# pyproject.toml changes) and reuse it afterwards.

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test lint typecheck unit benchmark clean

$(STAMP): pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "Recall needs Python 3.11 or newer: run make PYTHON=python3.11 ...")'
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	@touch $(STAMP)

run: $(STAMP)  ## open the window on the bundled deck
	$(BIN)/recall $(ARGS)

test: lint typecheck unit  ## every check CI runs

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: $(STAMP)
	$(BIN)/mypy

unit: $(STAMP)
	QT_QPA_PLATFORM=offscreen $(BIN)/pytest

benchmark: $(STAMP)
	$(BIN)/python -m benchmarks

clean:
	rm -rf $(VENV) build dist .mypy_cache .pytest_cache .ruff_cache
