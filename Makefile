# The README's commands. Each creates the virtual environment and installs what it needs.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
# Extras every test needs; later parts of the project add theirs here.
TEST_EXTRAS ?= dev,rl,server,sim,ray,bench,fast
# Installed before the extras when set, e.g. a CPU-only torch wheel for the train extra
# (PyPI's default torch build pulls in gigabytes of CUDA libraries). .ci/run sets it.
PRE_INSTALL ?=

# The mypyc-compiled engine (make compiled): its own environment, so the editable .venv
# always runs the source you edit.
CVENV ?= .venv-compiled
CBIN := $(CVENV)/bin
# The modules mypyc compiles: the include list of [tool.hatch.build.targets.wheel.hooks.mypyc]
# in pyproject.toml. Only they (and pyproject.toml) make the slow wheel build run again.
COMPILED := $(shell sed -n '/^\[tool\.hatch\.build\.targets\.wheel\.hooks\.mypyc\]/,/^\[/p' pyproject.toml \
	| grep -o '"src/[^"]*\.py"' | tr -d '"')
# Everything else in the package (pure Python, web/, templates) is copied over the
# installed wheel in seconds, so the compiled tests never run stale adapters.
PLAIN := $(filter-out $(COMPILED),$(shell find src/nomercy -type f -not -path "*/__pycache__/*"))
# The tests are selected by the markers tests/conftest.py gives them (pyproject.toml lists
# them; tests/README.md says what each needs). make check: the modules marked check, the
# fast tests a developer runs after every change (see the README).
CHECK_TESTS ?= tests/rules tests/golden tests/test_api.py tests/test_properties.py \
	tests/test_core_isolation.py tests/test_match.py tests/test_seeding.py tests/test_markers.py \
	tests/server/test_room_logic.py tests/encoding \
	tests/native/test_translation.py
# The tests marked core, run again against the compiled wheel, from the modules that hold
# them (its environment has the dev and bench extras only: the others would not import).
COMPILED_TESTS ?= -m core tests/rules tests/golden tests/bots tests/test_api.py tests/test_build.py \
	tests/test_benchmarks.py tests/test_invariants.py tests/test_properties.py tests/test_rlcard_preset.py \
	tests/test_shuffle.py
# make test runs the suite on every core (pytest-xdist); tests that share a database, a
# server, Ray or the browser keep to one worker, and the native kernels compile once, in
# the background (tests/conftest.py). JOBS=0 runs it in one process.
JOBS ?= auto
PARALLEL := -n $(JOBS) --dist loadgroup
# make in a background job of a recipe line; not $(MAKE) itself, which would make
# 'make -n test' run that whole line, the suite included.
BACKGROUND_MAKE := $(MAKE) --no-print-directory

.PHONY: play serve check test test-web test-compiled compiled lint typecheck bench docs clean native pyodide

$(VENV)/.installed-%: pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(if $(PRE_INSTALL),$(BIN)/python -m pip install -q $(PRE_INSTALL))
	$(BIN)/python -m pip install -q -e ".[$*]"
	touch $@

## native: the native engine's C extension, in place (hatch_build.py, as the package build does):
## _engine.c (generated, not committed) made again from the kernels when they changed
## (scripts/native_c.py), then compiled when it changed
native: $(VENV)/.installed-$(TEST_EXTRAS)
	$(BIN)/python hatch_build.py

## pyodide: Pyodide's core files from npm (the version package-lock.json pins), in
## node_modules/pyodide: the offline game runs the engine in the page with them, served from
## our own files (nomercy site build and the wheel's build copy them; docs/offline.md)
pyodide: node_modules/.package-lock.json
node_modules/.package-lock.json: package.json package-lock.json
	npm ci --no-audit --no-fund --ignore-scripts
	touch $@

## play: the main job, a game in the terminal against bots (options: make play ARGS="--match")
play: $(VENV)/.installed-dev
	$(BIN)/nomercy play $(ARGS)

## serve: online rooms and the browser game on http://localhost:8000/ (make serve ARGS="--port 9000")
serve: $(VENV)/.installed-server
	$(BIN)/nomercy serve $(ARGS)

## check: after every change, under 30 s on one core: lint, format, types, the fast tests
## (rules, golden games, API, properties with a few examples each)
check: $(VENV)/.installed-$(TEST_EXTRAS) native
	$(BIN)/ruff check src tests benchmarks docs/_tools
	$(BIN)/ruff format --check src tests benchmarks docs/_tools
	$(BIN)/mypy
	NOMERCY_HYPOTHESIS_PROFILE=fast $(BIN)/pytest -q -p no:cacheprovider -m check $(CHECK_TESTS)

## test: lint, type-check, run every test (the browser client's modules under Node too),
## then the core's tests compiled
# mypy and the compiled wheel's build (one core each) run beside the suite, filling the
# moments its workers wait on servers and browsers; their output is shown if they fail.
# Pyodide for the offline game's tests where npm is there (without it they skip, saying so)
test: $(VENV)/.installed-$(TEST_EXTRAS) $(VENV)/.installed-dev native $(if $(shell command -v npm),pyodide)
	$(BIN)/ruff check src tests benchmarks docs/_tools
	mkdir -p build
	$(BIN)/mypy > build/mypy.log 2>&1 & mypy=$$!; \
	$(BACKGROUND_MAKE) compiled > build/compiled-make.log 2>&1 & compiled=$$!; \
	$(BIN)/pytest $(PARALLEL) -m "not solo_game" --durations=25; status=$$?; \
	wait $$mypy && cat build/mypy.log || { cat build/mypy.log; status=1; }; \
	wait $$compiled || { tail -n 40 build/compiled-make.log; status=1; }; \
	exit $$status
	$(BIN)/pytest -q -p no:cacheprovider -n 0 -m solo_game
	$(MAKE) test-web
	$(MAKE) test-compiled

## test-web: the pure modules of the browser client (src/nomercy/web/js) under Node's test runner
test-web:
	@if command -v node >/dev/null; then node --test tests/web/; \
	elif [ "$$NOMERCY_NO_SKIPS" = 1 ]; then echo "test-web: node is missing (apt-get install nodejs)"; exit 1; \
	else echo "test-web: SKIPPED, needs Node.js: apt-get install nodejs, then make test-web"; fi

## test-compiled: the core's tests against the mypyc-compiled wheel, and the same behaviour
## fingerprint from both builds
test-compiled: $(CVENV)/.synced
	mkdir -p build
	NOMERCY_EXPECT_COMPILED=1 $(CBIN)/python -m pytest -p no:cacheprovider $(PARALLEL) $(COMPILED_TESTS)
	$(BIN)/python benchmarks/fingerprint.py --games 100 > build/fingerprint-pure.txt & pure=$$!; \
		$(CBIN)/python benchmarks/fingerprint.py --games 100 > build/fingerprint-compiled.txt; wait $$pure
	pure=$$(awk '/^overall/ {print $$2}' build/fingerprint-pure.txt); \
	compiled=$$(awk '/^overall/ {print $$2}' build/fingerprint-compiled.txt); \
	test -n "$$pure" && test "$$pure" = "$$compiled" && echo "behaviour fingerprints match: $$pure" \
		|| { echo "the compiled build behaves differently: $$pure != $$compiled"; exit 1; }

## compiled: build the mypyc-compiled wheel (dist/) and install it in .venv-compiled
compiled: $(CVENV)/.synced

# python -m build makes the sdist first and compiles from it in a temporary directory,
# so no extension module is ever written into src/ to shadow the sources.
$(CVENV)/.installed: pyproject.toml $(COMPILED) | $(VENV)/.installed-dev
	mkdir -p build dist
	rm -f dist/nomercy-*.whl
	HATCH_BUILD_HOOK_ENABLE_MYPYC=true $(BIN)/python -m build --outdir dist . > build/compile.log 2>&1 \
		|| { tail -n 40 build/compile.log; exit 1; }
	test -x $(CBIN)/python || $(PYTHON) -m venv $(CVENV)
	$(CBIN)/python -m pip install -q --upgrade pip
	$(CBIN)/python -m pip install -q "$$(ls dist/nomercy-*-cp*.whl)[dev,bench]"
	$(CBIN)/python -m pip install -q --force-reinstall --no-deps dist/nomercy-*-cp*.whl
	touch $@

# The package's other files as they are now, over the installed wheel (whose compiled
# modules stay): a change to an adapter or to web/js/main.js costs a copy, not a build.
$(CVENV)/.synced: $(CVENV)/.installed $(PLAIN)
	dest=$$($(CBIN)/python -c 'import nomercy, os; print(os.path.dirname(nomercy.__file__))') \
		&& cd src/nomercy && for f in $(patsubst src/nomercy/%,%,$(PLAIN)); do \
			mkdir -p "$$dest/$$(dirname $$f)" && cp "$$f" "$$dest/$$f" || exit 1; done
	touch $@

## release-check: build the sdist and, from it, the wheel (no mypyc; the native engine's C extension
## compiled, so it needs gcc), install the wheel in a fresh venv with the core dependencies only,
## and run nomercy there (scripts/release_check.sh; CI runs it after make test)
.PHONY: release-check
release-check: $(VENV)/.installed-dev
	bash scripts/release_check.sh $(BIN)/python

lint: $(VENV)/.installed-dev
	$(BIN)/ruff check src tests benchmarks docs/_tools
	$(BIN)/ruff format --check src tests benchmarks docs/_tools

typecheck: $(VENV)/.installed-dev
	$(BIN)/mypy

## bench: engine throughput, pure Python then compiled (and RLCard's, from the bench extra),
## then the native engine against both (the fast extra)
bench: $(VENV)/.installed-dev,bench,fast $(CVENV)/.synced
	$(BIN)/python benchmarks/engine.py
	$(CBIN)/python benchmarks/engine.py
	$(BIN)/python benchmarks/native.py

## docs: the reference manual (guides and API) into build/site, strictly: a broken link,
## a page missing from the nav or an unresolved reference fails
docs: $(VENV)/.installed-docs
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict

clean:
	rm -rf $(VENV) $(CVENV) build dist .pytest_cache .mypy_cache .ruff_cache
