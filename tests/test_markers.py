"""The markers that select tests (tests/conftest.py) name tests that exist, and the Makefile's
lists of modules agree with them, so that no test silently drops out of a run."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path
from types import ModuleType

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent


def _root_conftest() -> ModuleType:
    """tests/conftest.py, by its path: the name ``conftest`` may be another folder's."""
    spec = importlib.util.spec_from_file_location("nomercy_tests_conftest", TESTS / "conftest.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


conftest = _root_conftest()


def _makefile_list(name: str) -> set[str]:
    """The paths of a ``NAME ?= ...`` variable of the Makefile (continuation lines joined)."""
    text = (ROOT / "Makefile").read_text(encoding="utf-8").replace("\\\n", " ")
    value = re.search(rf"^{name} \?=(.*)$", text, re.M)
    assert value is not None, name
    return {word.removeprefix("tests/") for word in value[1].split() if word.startswith("tests/")}


def test_every_marked_path_and_test_exists() -> None:
    for key in conftest.MARKS:
        path, _, function = key.partition("::")
        assert (TESTS / path).exists(), key
        if function:
            assert re.search(rf"^def {function}\(", (TESTS / path).read_text(encoding="utf-8"), re.M), key


def test_every_marker_given_is_declared() -> None:
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    declared = pyproject.split("markers = [", 1)[1].split("]", 1)[0]
    names = set(re.findall(r'^\s*"([a-z_]+):', declared, re.M))
    given = {mark for marks in conftest.MARKS.values() for mark in marks} | {"postgres"}
    assert given <= names, given - names


def test_make_check_runs_the_modules_marked_check() -> None:
    marked = {key for key, marks in conftest.MARKS.items() if "check" in marks}
    assert _makefile_list("CHECK_TESTS") == marked


def test_the_compiled_run_collects_every_module_marked_core() -> None:
    """``make test-compiled`` selects ``-m core`` from these modules: each marked one is
    among them (a module alone, or below a folder)."""
    collected = _makefile_list("COMPILED_TESTS")
    for key, marks in conftest.MARKS.items():
        if "core" in marks:
            path = key.partition("::")[0]
            assert path in collected or path.split("/")[0] in collected, key
