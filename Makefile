# The README's commands. Each creates the virtual environment and installs what it needs.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
# Extras every test needs; later parts of the project add theirs here.
TEST_EXTRAS ?= dev,rl,server,sim,ray,bench
# Installed before the extras when set, e.g. a CPU-only torch wheel for the train extra
# (PyPI's default torch build pulls in gigabytes of CUDA libraries). .ci/run sets it.
PRE_INSTALL ?=

# The mypyc-compiled engine (make compiled): its own environment, so the editable .venv
# always runs the source you edit.
CVENV ?= .venv-compiled
CBIN := $(CVENV)/bin
SOURCES := $(shell find src -type f -not -path "*/__pycache__/*")
# The tests that exercise the core, run again against the compiled wheel.
COMPILED_TESTS ?= tests/rules tests/golden tests/bots tests/test_api.py tests/test_build.py \
	tests/test_benchmarks.py tests/test_invariants.py tests/test_properties.py tests/test_rlcard_preset.py \
	tests/test_shuffle.py

.PHONY: play serve test test-compiled compiled lint typecheck bench clean

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

## test: lint, type-check the core, run every test, then the core's tests compiled
test: $(VENV)/.installed-$(TEST_EXTRAS)
	$(BIN)/ruff check src tests benchmarks
	$(BIN)/mypy
	$(BIN)/pytest
	$(MAKE) test-compiled

## test-compiled: the core's tests against the mypyc-compiled wheel, and the same behaviour
## fingerprint from both builds
test-compiled: $(CVENV)/.installed
	mkdir -p build
	NOMERCY_EXPECT_COMPILED=1 $(CBIN)/python -m pytest -p no:cacheprovider $(COMPILED_TESTS)
	$(BIN)/python benchmarks/fingerprint.py --games 100 > build/fingerprint-pure.txt
	$(CBIN)/python benchmarks/fingerprint.py --games 100 > build/fingerprint-compiled.txt
	pure=$$(awk '/^overall/ {print $$2}' build/fingerprint-pure.txt); \
	compiled=$$(awk '/^overall/ {print $$2}' build/fingerprint-compiled.txt); \
	test -n "$$pure" && test "$$pure" = "$$compiled" && echo "behaviour fingerprints match: $$pure" \
		|| { echo "the compiled build behaves differently: $$pure != $$compiled"; exit 1; }

## compiled: build the mypyc-compiled wheel (dist/) and install it in .venv-compiled
compiled: $(CVENV)/.installed

# python -m build makes the sdist first and compiles from it in a temporary directory,
# so no extension module is ever written into src/ to shadow the sources.
$(CVENV)/.installed: pyproject.toml $(SOURCES) | $(VENV)/.installed-dev
	mkdir -p build dist
	rm -f dist/nomercy-*.whl
	HATCH_BUILD_HOOK_ENABLE_MYPYC=true $(BIN)/python -m build --outdir dist . > build/compile.log 2>&1 \
		|| { tail -n 40 build/compile.log; exit 1; }
	test -x $(CBIN)/python || $(PYTHON) -m venv $(CVENV)
	$(CBIN)/python -m pip install -q --upgrade pip
	$(CBIN)/python -m pip install -q "$$(ls dist/nomercy-*-cp*.whl)[dev,bench]"
	$(CBIN)/python -m pip install -q --force-reinstall --no-deps dist/nomercy-*-cp*.whl
	touch $@

lint: $(VENV)/.installed-dev
	$(BIN)/ruff check src tests benchmarks
	$(BIN)/ruff format --check src tests benchmarks

typecheck: $(VENV)/.installed-dev
	$(BIN)/mypy

## bench: engine throughput, pure Python then compiled (and RLCard's, from the bench extra)
bench: $(VENV)/.installed-dev,bench $(CVENV)/.installed
	$(BIN)/python benchmarks/engine.py
	$(CBIN)/python benchmarks/engine.py

clean:
	rm -rf $(VENV) $(CVENV) build dist .pytest_cache .mypy_cache .ruff_cache
