# The README's commands. Each creates the virtual environment and installs what it needs.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
# Extras every test needs; later parts of the project add theirs here.
TEST_EXTRAS ?= dev,rl,server,sim,ray,bench
# Installed before the extras when set, e.g. a CPU-only torch wheel for the train extra
# (PyPI's default torch build pulls in gigabytes of CUDA libraries). .ci/run sets it.
PRE_INSTALL ?=

.PHONY: play serve test lint typecheck bench clean

$(VENV)/.installed-%: pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(if $(PRE_INSTALL),$(BIN)/python -m pip install -q $(PRE_INSTALL))
	$(BIN)/python -m pip install -q -e ".[$*]"
	touch $@

## play: the main job, a game in the terminal against bots (options: make play ARGS="--match")
play: $(VENV)/.installed-dev
	$(BIN)/nomercy play $(ARGS)

## serve: online rooms and the browser game on http://localhost:8000/ (make serve ARGS="--port 9000")
serve: $(VENV)/.installed-server
	$(BIN)/nomercy serve $(ARGS)

## test: lint, type-check the core, run every test
test: $(VENV)/.installed-$(TEST_EXTRAS)
	$(BIN)/ruff check src tests benchmarks
	$(BIN)/mypy
	$(BIN)/pytest

lint: $(VENV)/.installed-dev
	$(BIN)/ruff check src tests benchmarks
	$(BIN)/ruff format --check src tests benchmarks

typecheck: $(VENV)/.installed-dev
	$(BIN)/mypy

## bench: engine throughput (and RLCard's, installed by the bench extra)
bench: $(VENV)/.installed-dev,bench
	$(BIN)/python benchmarks/engine.py

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
