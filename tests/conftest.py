"""The suite's set-up: Hypothesis profiles, markers by directory, parallel groups.

Hypothesis: ``nomercy`` (the default) runs each property with its full example count;
``fast`` runs a few examples of each, for ``make check``. Pick one with
``NOMERCY_HYPOTHESIS_PROFILE`` (or pytest's ``--hypothesis-profile``).

Markers (declared in pyproject.toml): a test's directory or module gives it its markers
here (:data:`MARKS`), so that the Makefile and CI select tests by what they need rather
than by lists of paths; a module may add its own (``pytestmark``, or a decorator).

Parallel runs (pytest-xdist, ``-n 2 --dist loadgroup``): tests that share something a
parallel worker must not touch at the same time run on one worker, one after another
(:func:`_group`): the PostgreSQL database (its tests drop every table), the local Ray
clusters, the browser, and each server module's module-scoped server.

The native engine is a C extension compiled by the package build (``make`` builds it in
place before the tests): nothing compiles at test time, so native tests need no warm-up
and keep the common time limit.
"""

from __future__ import annotations

import os
from collections.abc import Generator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, settings

import needs

settings.register_profile(
    "nomercy", max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile("fast", max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("NOMERCY_HYPOTHESIS_PROFILE", "nomercy"))

HERE = Path(__file__).resolve().parent

#: Markers by path under tests/: a directory, a module, or ``module::test`` (a test function
#: by name, every parametrized case of it). ``check`` is ``make check``'s fast set, ``core``
#: the tests run again on the mypyc-compiled wheel (``make test-compiled``, an environment
#: without the fast or server extras), ``native`` the tests that run the native kernels
#: (in this process or in a program they start), ``server`` and ``browser`` the ones that
#: start servers and Chromium, ``terminal`` the pseudo-terminal ones, ``ray`` the ones that
#: start Ray, ``slow`` the ones that take tens of seconds. ``postgres`` comes from
#: :func:`_needs_postgres`.
MARKS: dict[str, tuple[str, ...]] = {
    "rules": ("check", "core"),
    "golden": ("check", "core"),
    "test_api.py": ("check", "core"),
    "test_properties.py": ("check", "core"),
    "test_core_isolation.py": ("check",),
    "test_match.py": ("check",),
    "test_seeding.py": ("check",),
    "test_markers.py": ("check",),
    # Every encoder writes every section and maps every action (the native one included).
    "encoding": ("check", "native"),
    # The native translator's own semantics (floor division, modulo, wrap-around, annotations).
    "native/test_translation.py": ("check",),
    "bots": ("core",),
    # The expert bot plays out on the native engine when the fast extra is installed (and in
    # Python without it, as in the compiled wheel's environment).
    "bots/test_expert.py": ("native",),
    "test_build.py": ("core",),
    "test_invariants.py": ("core",),
    "test_rlcard_preset.py": ("core",),
    "test_shuffle.py": ("core",),
    "test_benchmarks.py::test_engine_benchmark_prints_every_case_the_targets_and_the_command": ("core",),
    "test_benchmarks.py::test_engine_benchmark_refuses_bad_options": ("core",),
    "test_benchmarks.py::test_instruction_count_prints_a_positive_figure_and_the_command": ("core",),
    "test_benchmarks.py::test_fingerprint_is_deterministic": ("core",),
    "test_benchmarks.py::test_expert_ceiling_worlds_are_the_true_state_or_its_hands": ("core",),
    "test_benchmarks.py::test_room_updates_benchmark_prints_its_figures_and_command": ("server",),
    "test_benchmarks.py::test_native_benchmark_prints_every_ratio_and_the_command": ("native",),
    "test_benchmarks.py::test_native_start_benchmark_prints_the_build_first_decision_and_sizes": ("native",),
    "test_benchmarks.py::test_expert_native_benchmark_prints_both_speeds_and_both_tournaments": ("native",),
    "test_benchmarks.py::test_expert_ceiling_prints_every_mode_and_the_command": ("native",),
    "test_benchmarks.py::test_tune_policy_prints_the_weights_both_duels_and_the_command": ("native",),
    "test_benchmarks.py::test_differential_run_counts_what_it_compared": ("native",),
    "test_benchmarks.py::test_rl_benchmark_writes_every_case_as_json": ("native",),
    "test_benchmarks.py::test_findings_script_prints_every_question_and_the_command": ("native",),
    "test_benchmarks.py::test_findings_script_refuses_bad_sizes": ("native",),
    "test_benchmarks.py::test_learned_benchmark_prints_every_pairing_its_time_and_the_command": ("native",),
    "test_benchmarks.py::test_browser_frames_benchmark_prints_both_moments_and_the_command": (
        "browser",
        "server",
    ),
    "native": ("native",),
    "rl/test_native_vector.py": ("native",),
    "rl/test_train_smoke.py": ("native", "slow"),
    "rl/test_selfplay.py": ("native",),
    "rl/test_learned_train.py": ("native", "slow"),
    "rl/test_train_seats.py": ("native", "slow"),
    "sim/test_native_engine.py": ("native",),
    "sim/test_tournament.py::test_results_do_not_depend_on_the_number_of_workers": ("native",),
    "sim/test_ray_cluster.py": ("ray", "slow"),
    "server": ("server",),
    # The room logic on the in-memory storage: milliseconds, no database.
    "server/test_room_logic.py": ("check",),
    "browser": ("browser", "server", "slow"),
    # Solo play from nomercy serve's pages, in Chromium.
    "solo/test_serve_browser.py": ("browser", "server", "slow"),
    "terminal": ("terminal",),
}

#: Tests that start a local Ray cluster (``RayBackend(address="local")``), by name.
RAY_TESTS = ("local_ray",)

#: The modules whose tests share one module-scoped server: kept on one worker.
SHARED_SERVER = ("server",)


def _needs_postgres(item: pytest.Item) -> bool:
    """The tests that skip without ``NOMERCY_TEST_POSTGRES_URL`` (they carry ``needs.POSTGRES``)."""
    return any(mark.kwargs.get("reason") == needs.POSTGRES_REASON for mark in item.iter_markers("skipif"))


def _marks(item: pytest.Item) -> set[str]:
    parts = Path(str(item.path)).resolve().relative_to(HERE).parts
    names: set[str] = set()
    for depth in range(1, len(parts) + 1):
        names.update(MARKS.get("/".join(parts[:depth]), ()))
    function = getattr(item, "originalname", item.name)
    names.update(MARKS.get(f"{'/'.join(parts)}::{function}", ()))
    if _needs_postgres(item):
        names.add("postgres")
    if any(name in item.name for name in RAY_TESTS):
        names.add("ray")
    return names


def _group(item: pytest.Item) -> str | None:
    """The xdist group of a test that shares a resource with others, or None."""
    if item.get_closest_marker("postgres"):
        return "postgres"  # one database: its tests reset it
    if item.get_closest_marker("ray"):
        return "ray"  # local Ray clusters, each using the whole machine
    if item.get_closest_marker("browser"):
        return "browser"  # Chromium and a module-scoped server
    fixtures = getattr(item, "fixturenames", ())
    if any(name in fixtures for name in SHARED_SERVER) and item.get_closest_marker("server"):
        return f"server:{Path(str(item.path)).name}"  # the module's one server
    return None


def _order(item: pytest.Item) -> int:
    """Long groups first (they are the tail of a parallel run), everything else after."""
    if any(item.get_closest_marker(name) for name in ("browser", "postgres", "ray")):
        return 0
    return 1


def pytest_itemcollected(item: pytest.Item) -> None:
    """Markers, time limit and xdist group, as each test is collected: before any hook
    that selects or distributes tests by them (``-m``, xdist's ``loadgroup``) runs."""
    for name in sorted(_marks(item)):
        item.add_marker(name)
    group = _group(item)
    if group is not None and not item.get_closest_marker("xdist_group"):
        item.add_marker(pytest.mark.xdist_group(group))


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    items.sort(key=_order)  # stable: the collection order within each part


@pytest.hookimpl(trylast=True)
def pytest_collection_finish(session: pytest.Session) -> None:
    """xdist tells a worker's groups to its scheduler through the test's node id; a pytest
    whose node ids drop them would spread a group over the workers without a word."""
    if getattr(session.config.option, "loadgroup", False):
        for item in session.items:
            if item.get_closest_marker("xdist_group") and "@" not in item.nodeid:
                raise pytest.UsageError(
                    f"{item.nodeid} lost its xdist group: this pytest ({pytest.__version__}) and "
                    "pytest-xdist do not keep groups together; install the versions pyproject.toml asks for"
                )


# -- no skips where everything is installed -------------------------------------------------

#: Set by CI (.ci/run), which installs everything every test needs: there a skipped test is
#: a failure, so that a missing package or service cannot quietly shrink the suite.
NO_SKIPS = os.environ.get("NOMERCY_NO_SKIPS") == "1"


def _refuse_skip(report: pytest.TestReport | pytest.CollectReport) -> None:
    if NO_SKIPS and report.skipped and not hasattr(report, "wasxfail"):
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
        report.outcome = "failed"
        report.longrepr = f"skipped, but NOMERCY_NO_SKIPS=1 says everything is installed: {reason}"


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Generator[None, Any, None]:
    outcome = yield
    _refuse_skip(outcome.get_result())


@pytest.hookimpl(hookwrapper=True)
def pytest_make_collect_report(collector: pytest.Collector) -> Generator[None, Any, None]:
    outcome = yield
    _refuse_skip(outcome.get_result())
