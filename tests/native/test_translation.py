"""The compiled kernels are the Python kernels: ``_engine.c`` is what the translator makes
of today's sources, the extension loaded exports every kernel, and the portable and the
x86-64-v3 builds of it play the same cards; and the translation's own semantics, on small
kernels translated and compiled here: Python's floor division and modulo, comparison
chains, boolean values, augmented assignment on elements, int32 and int64 arithmetic, and
parameter types read from annotations (nomercy.native.cdecl), never from names."""

from __future__ import annotations

import importlib.util
import inspect
import os
import shlex
import subprocess
import sys
import sysconfig
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import pytest

from nomercy.native.cdecl import F64Array, I32Array, I64Array, I64Array2
from nomercy.native.layout import CURRENT, HANDS, NUM_ACTIONS

ROOT = Path(__file__).resolve().parents[2]


def test_the_generated_c_is_current() -> None:
    """The C this extension was built from is what the translator makes of today's kernels
    (after a kernel's change, ``make native`` makes and compiles it again)."""
    done = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "native_c.py"), "--check"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr


def test_the_c_is_made_at_build_time_not_committed() -> None:
    """git ignores the generated C and holds no copy of it; the sdist ships it (its
    artifacts), so that a wheel built from the sdist compiles it without the translator."""
    if not (ROOT / ".git").exists():
        pytest.skip("not a git checkout")  # an unpacked sdist: its C is the shipped one
    c_file = "src/nomercy/native/_engine.c"
    tracked = subprocess.run(
        ["git", "ls-files", c_file], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert tracked.stdout == ""
    ignored = subprocess.run(["git", "check-ignore", "-q", c_file], cwd=ROOT, check=False)
    assert ignored.returncode == 0
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert f'[tool.hatch.build.targets.sdist]\nartifacts = ["{c_file}"]' in pyproject
    assert "[tool.hatch.build.targets.sdist.hooks.custom]" in pyproject


def test_the_build_runs_the_translator_in_a_checkout_and_never_from_an_sdist(tmp_path: Path) -> None:
    """A checkout's build makes the C (and asks for the translator's numpy); an sdist's
    (known by its PKG-INFO) keeps the C it ships and asks for nothing more."""
    assert not hatch_build.from_sdist(ROOT)
    sdist = tmp_path / "nomercy-0"
    (sdist / "scripts").mkdir(parents=True)
    # a translator that would fail loudly if it ran
    (sdist / "scripts" / "native_c.py").write_text("raise SystemExit('the translator ran')\n")
    with pytest.raises(RuntimeError, match="the translator ran"):
        hatch_build.generate_c(sdist)
    (sdist / "PKG-INFO").write_text("Metadata-Version: 2.4\nName: nomercy\n")
    assert hatch_build.from_sdist(sdist)
    with pytest.raises(RuntimeError, match=r"this sdist has no src/nomercy/native/_engine\.c"):
        hatch_build.generate_c(sdist)
    shipped = sdist / "src" / "nomercy" / "native" / "_engine.c"
    shipped.parent.mkdir(parents=True)
    shipped.write_text("/* shipped */\n")
    assert hatch_build.generate_c(sdist) == shipped
    assert shipped.read_text() == "/* shipped */\n"


def test_every_kernel_is_the_compiled_function() -> None:
    from nomercy.native import _compiled, kernels

    engine = _compiled._ENGINE
    assert engine is not None and kernels.step is engine.kernels_step
    for kind, fn in _compiled.SOURCES:
        if kind == "kernel":
            assert hasattr(engine, _compiled.export_name(fn)), fn.__qualname__


def test_a_kernel_refuses_an_array_of_the_wrong_type() -> None:
    import numpy as np

    from nomercy.native import kernels

    with pytest.raises(TypeError, match="int32"):
        kernels.legal_mask(
            np.zeros(10, np.int64), np.zeros(40, np.int64), -1, np.zeros(8, np.uint8), np.zeros(8, np.int64)
        )


_PLAY = (
    "import hashlib; from nomercy import Rules; from nomercy.native import Batch, _compiled; "
    "b = Batch(Rules(), 8, 4); b.reset(range(8)); b.random_play(50_000, seed=3); "
    "print(_compiled._ENGINE.__name__, hashlib.sha256(b.tables.tobytes()).hexdigest())"
)


def test_the_portable_and_the_x86_64_v3_builds_play_the_same_cards() -> None:
    """Both extensions (hatch_build.py) are the same kernels: the same tables after the
    same random play, whichever this processor loads."""
    runs = []
    for portable in ("1", "0"):
        env = {**os.environ, "NOMERCY_NATIVE_PORTABLE": portable}
        done = subprocess.run(
            [sys.executable, "-c", _PLAY], capture_output=True, text=True, timeout=120, check=True, env=env
        )
        runs.append(done.stdout.split())
    assert runs[0][0] == "nomercy.native._engine"
    assert runs[0][1] == runs[1][1]


# -- the translation's own semantics ---------------------------------------------------------
# Small kernels, translated by scripts/native_c.py and compiled with the package build's
# flags (hatch_build.FLAGS), then called beside the same functions run as Python. Each
# operation below is one where C's plain operator means something else than Python's, so a
# translator that emitted it naively fails the test.


def _load(name: str, path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


native_c = _load("nomercy_native_c", ROOT / "scripts" / "native_c.py")
hatch_build = _load("nomercy_hatch_build", ROOT / "hatch_build.py")


def floordiv(a: int, b: int) -> int:
    return a // b


def mod(a: int, b: int) -> int:
    return a % b


def float_floordiv(a: float, b: float) -> float:
    return a // b


def float_mod(a: float, b: float) -> float:
    return a % b


def less_chain(a: int, b: int, c: int) -> bool:
    return a < b < c


def equal_chain(a: int, b: int, c: int) -> bool:
    return a == b == c


def or_value(a: int, b: int) -> int:
    return a or b


def and_value(a: int, b: int) -> int:
    return a and b


def not_value(a: int) -> bool:
    return not a


def add_at(s: I32Array, i: int, v: int) -> None:
    s[i] += v


def floordiv_at(s: I32Array, i: int, v: int) -> None:
    s[i] //= v


def mod_at(s: I64Array, i: int, v: int) -> None:
    s[i] %= v


def scale_at(m: I64Array2, i: int, j: int, v: int) -> None:
    m[i, j] -= v
    m[i, j] *= 3


def last_of_range(n: int) -> int:
    i = -1
    for i in range(n):  # noqa: B007 - its value after the loop is the point
        pass
    return i


def countdown(n: int, out: I64Array) -> int:
    k = 0
    for i in range(n, -1, -1):
        out[k] = i
        k += 1
    return k


def last_element(s: I64Array) -> Any:
    return s[-1]


def word32(s: I32Array, i: int) -> Any:
    return np.int64(s[i]) & 0xFFFFFFFF


def store32(s: I32Array, i: int, v: int) -> None:
    s[i] = v


def add64(a: int, b: int) -> int:
    return a + b


def mul64(a: int, b: int) -> int:
    return a * b


def grows(a: int) -> bool:
    return a + 1 > a


def mul_u64(a: int, b: int) -> Any:
    return np.uint64(a) * np.uint64(b)


def renamed(out: I32Array, s: F64Array) -> None:
    out[0] = np.int32(s[0] * 2.0)


def hand_start(seat: int) -> int:
    return HANDS + seat


KERNELS = [
    floordiv, mod, float_floordiv, float_mod, less_chain, equal_chain, or_value, and_value, not_value,
    add_at, floordiv_at, mod_at, scale_at, last_of_range, countdown, last_element, word32, store32,
    add64, mul64, grows, mul_u64, renamed, hand_start,
]  # fmt: skip


@pytest.fixture(scope="module")
def translated() -> str:
    """The C of the kernels above."""
    return str(native_c.generate([("kernel", fn) for fn in KERNELS]))


@pytest.fixture(scope="module")
def compiled(tmp_path_factory: pytest.TempPathFactory, translated: str) -> ModuleType:
    """The kernels above as one extension, built as the package builds ``_engine.c``."""
    folder = tmp_path_factory.mktemp("translation")
    source = folder / "translated.c"
    source.write_text(translated)
    name = "_nomercy_translated"
    target = folder / f"{name}{sysconfig.get_config_var('EXT_SUFFIX')}"
    cc = shlex.split(os.environ.get("CC") or "gcc")
    include = sysconfig.get_paths()["include"]
    command = [
        *cc,
        *hatch_build.FLAGS,
        f"-DNOMERCY_MODULE={name}",
        f"-I{include}",
        str(source),
        "-o",
        str(target),
    ]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    return _load(name, target)


def _c(compiled: ModuleType, fn: Any) -> Any:
    return getattr(compiled, f"test_translation_{fn.__name__}")


SIGNED = [(a, b) for a in (-7, -6, -1, 0, 1, 6, 7) for b in (-3, -2, 2, 3)]


@pytest.mark.parametrize("fn", [floordiv, mod])
def test_integer_floor_division_and_modulo_round_toward_minus_infinity(compiled: ModuleType, fn: Any) -> None:
    """C's ``/`` and ``%`` truncate toward zero (-7 / 2 is -3, -7 % 2 is -1); Python's floor
    (-4 and 1): the translation keeps Python's for every sign of either operand."""
    assert [_c(compiled, fn)(a, b) for a, b in SIGNED] == [fn(a, b) for a, b in SIGNED]


@pytest.mark.parametrize("fn", [float_floordiv, float_mod])
def test_float_floor_division_and_modulo_are_pythons(compiled: ModuleType, fn: Any) -> None:
    """C's ``fmod(-7.5, 2)`` is -1.5; Python's ``-7.5 % 2`` is 0.5."""
    cases = [(a + 0.5, float(b)) for a, b in SIGNED]
    assert [_c(compiled, fn)(a, b) for a, b in cases] == [fn(a, b) for a, b in cases]


def test_comparison_chains_compare_each_pair(compiled: ModuleType) -> None:
    """``a < b < c`` is ``a < b and b < c``; in C it is ``(a < b) < c`` (1 < 2 is true)."""
    triples = [(a, b, c) for a in (0, 1, 2) for b in (0, 1, 2, 3) for c in (0, 1, 2)]
    for fn in (less_chain, equal_chain):
        assert [bool(_c(compiled, fn)(*t)) for t in triples] == [fn(*t) for t in triples], fn.__name__


def test_boolean_operators_give_an_operands_value(compiled: ModuleType) -> None:
    """``3 or 5`` is 3 and ``2 and 5`` is 5 in Python; C's ``||`` and ``&&`` give 1."""
    pairs = [(a, b) for a in (0, 2, 3, -4) for b in (0, 5, -1)]
    for fn in (or_value, and_value):
        assert [_c(compiled, fn)(a, b) for a, b in pairs] == [fn(a, b) for a, b in pairs], fn.__name__
    assert [_c(compiled, not_value)(a) for a in (0, 1, -2)] == [True, False, False]


def test_augmented_assignment_on_array_elements(compiled: ModuleType) -> None:
    """``s[i] op= v`` with Python's operator (``//=`` and ``%=`` floor on negatives), on one
    and two dimensional arrays, touching only that element."""
    cases: list[tuple[Any, Any, int]] = [
        (add_at, np.int32, -9),
        (floordiv_at, np.int32, 2),
        (mod_at, np.int64, 3),
    ]
    for fn, dtype, v in cases:
        native, python = np.array([4, -7, 5], dtype), np.array([4, -7, 5], dtype)
        _c(compiled, fn)(native, 1, v)
        fn(python, 1, v)
        assert native.tolist() == python.tolist(), fn.__name__
    native2, python2 = (
        np.arange(-3, 3, dtype=np.int64).reshape(2, 3),
        np.arange(-3, 3, dtype=np.int64).reshape(2, 3),
    )
    _c(compiled, scale_at)(native2, 1, 2, 7)
    scale_at(python2, 1, 2, 7)
    assert native2.tolist() == python2.tolist() == [[-3, -2, -1], [0, 1, -15]]


def test_range_loops_keep_pythons_bounds_and_variable(compiled: ModuleType) -> None:
    """A loop variable keeps its last value (C's counter ends one past it), a negative
    step counts down to the bound's excluded end, and ``s[-1]`` is the last element."""
    assert [_c(compiled, last_of_range)(n) for n in (0, 1, 5)] == [last_of_range(n) for n in (0, 1, 5)]
    native, python = np.zeros(8, np.int64), np.zeros(8, np.int64)
    assert _c(compiled, countdown)(4, native) == countdown(4, python) == 5
    assert native.tolist() == python.tolist()
    assert _c(compiled, last_element)(np.array([3, 1, 4], np.int64)) == 4


def test_int32_elements_load_signed_and_store_in_range(compiled: ModuleType) -> None:
    """The kernels keep 32-bit words (the generators' state, the hands' card sets) in the
    int32 table as their two's complement: a load is sign-extended to int64, ``& M32`` gives
    the unsigned word back, and a value in int32's range stores as itself. The kernels bring
    every value into that range before storing (``kernels._int32``), as numpy refuses a
    Python int outside it; the C store of one outside wraps as numpy's ``astype`` does."""
    s = np.array([-1, -(2**31), 2**31 - 1, 5], np.int32)
    assert [_c(compiled, word32)(s, i) for i in range(4)] == [word32(s, i) for i in range(4)]
    assert _c(compiled, word32)(s, 0) == 2**32 - 1
    for v in (-(2**31), -1, 0, 2**31 - 1):
        _c(compiled, store32)(s, 3, v)
        assert int(s[3]) == v
    _c(compiled, store32)(s, 3, 2**31 + 5)
    assert int(s[3]) == int(np.array([2**31 + 5]).astype(np.int32)[0])


def test_int64_arithmetic_wraps_as_numpy_int64_does(compiled: ModuleType) -> None:
    """The kernels' integers are int64, as numpy's: exact while the value fits (the kernels
    mask their generators' words, ``& M32``, to stay far below), and wrapping past it, never
    C's undefined signed overflow (``a + 1 > a`` folded to true)."""

    def wrap(x: int) -> int:
        return (x + 2**63) % 2**64 - 2**63

    top = 2**63 - 1
    assert _c(compiled, add64)(top, 1) == wrap(top + 1) == -(2**63)
    assert _c(compiled, grows)(top) is False
    assert _c(compiled, grows)(top - 1) is True
    for a, b in ((3, -5), (2**31, 2**31), (-(2**32), 2**32 - 1), (2**40, 2**40)):
        assert _c(compiled, mul64)(a, b) == wrap(a * b)
    assert _c(compiled, mul_u64)(2**63, 3) == (2**63 * 3) % 2**64


def test_types_come_from_annotations_not_names(compiled: ModuleType) -> None:
    """``out`` and ``s`` are annotated int32 and float64 here (the kernels' table ``s`` is
    int32): the compiled kernel takes what the annotations say and refuses the rest."""
    out = np.zeros(1, np.int32)
    _c(compiled, renamed)(out, np.array([1.5]))
    assert out.tolist() == [3]
    with pytest.raises(TypeError, match="float64"):
        _c(compiled, renamed)(out, np.array([1], np.int32))


def unannotated(s: I32Array, seat):  # type: ignore[no-untyped-def]
    return seat


def misannotated(s: I32Array, seat: list[int]) -> Any:
    return s[0]


def test_the_translator_refuses_a_parameter_without_a_kernel_type() -> None:
    with pytest.raises(native_c.Untranslatable, match="parameter seat has no annotation"):
        native_c.generate([("kernel", unannotated)])
    with pytest.raises(native_c.Untranslatable, match=r"seat: list\[int\] is not a kernel type"):
        native_c.generate([("kernel", misannotated)])


def test_every_kernel_parameter_is_annotated() -> None:
    """Every exported kernel's parameters carry their types (the generation refuses one
    that does not; this names it)."""
    from nomercy.native import _compiled

    for kind, fn in _compiled.SOURCES:
        if kind == "kernel":
            missing = [p.name for p in inspect.signature(fn).parameters.values() if p.annotation is p.empty]
            assert not missing, (fn.__qualname__, missing)


# -- the C as a reader and a debugger see it ------------------------------------------------


def test_the_layouts_names_are_named_constants_in_the_c(translated: str, compiled: ModuleType) -> None:
    """A layout constant is a ``#define`` of its name and the code says the name, not the
    number; the compiled kernel still computes Python's value."""
    assert f"#define HANDS {HANDS}LL\n" in translated
    assert "(HANDS + seat)" in translated
    assert _c(compiled, hand_start)(2) == hand_start(2) == HANDS + 2
    engine = (ROOT / "src" / "nomercy" / "native" / "_engine.c").read_text(encoding="utf-8")
    assert f"#define CURRENT {CURRENT}LL\n" in engine
    assert f"#define NUM_ACTIONS {NUM_ACTIONS}LL\n" in engine
    assert "(action >= NUM_ACTIONS)" in engine


def test_c_lines_map_back_to_the_kernels_lines(translated: str) -> None:
    """Each statement's C follows a ``#line`` naming its file and line, so that a compiler's
    message or a debugger points at the kernel; the C after the kernels names itself again."""
    first = inspect.getsourcelines(floordiv)[1]
    assert f'#line {first + 1} "tests/native/test_translation.py"\nreturn' in translated.replace("    ", "")

    from nomercy.native import _compiled, kernels

    lines, first = inspect.getsourcelines(_compiled.source(kernels.step))
    check = first + next(i for i, line in enumerate(lines) if "action >= NUM_ACTIONS" in line)
    engine = (ROOT / "src" / "nomercy" / "native" / "_engine.c").read_text(encoding="utf-8").split("\n")
    at = engine.index(f'#line {check} "src/nomercy/native/kernels.py"')
    assert "(action >= NUM_ACTIONS)" in engine[at + 1]
    back = [i for i, line in enumerate(engine) if line.endswith('"src/nomercy/native/_engine.c"')]
    assert len(back) == 1 and engine[back[0]] == f'#line {back[0] + 2} "src/nomercy/native/_engine.c"'
