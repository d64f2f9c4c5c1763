"""Where the native kernels come from: the C extension ``nomercy.native._engine``.

The kernels are written once, in the restricted, C-like Python of ``kernels.py`` and its
siblings (int32 table vectors, constants from ``layout.py``, loops over ranges). That
source is the one definition: ``scripts/native_c.py`` translates it to ``_engine.c``,
which the package build compiles ahead of time (``hatch_build.py``), so a fresh install
decides at once, with nothing compiled at first use.

:func:`kernel` marks a function the extension exports under the module's short name
(``kernels.step`` is ``_engine.kernels_step``) and returns that compiled function;
:func:`inline` marks a helper the translation inlines into its callers. Both also record
the Python function in :data:`SOURCES`, which the translator reads. With
``NOMERCY_NATIVE_SOURCE=1`` (the translator sets it) the Python functions stay in place,
so the source imports without a built extension. On x86-64 the build makes a second
extension, ``_engine_v3``, for processors with AVX2, BMI2 and FMA, loaded where the
processor has them (``NOMERCY_NATIVE_PORTABLE=1`` keeps the portable one).
"""

from __future__ import annotations

import os
import types
from collections.abc import Callable
from types import ModuleType
from typing import Any

#: Every kernel and inline helper, in definition order: (kind, function).
SOURCES: list[tuple[str, Callable[..., Any]]] = []

_SOURCE_ONLY = os.environ.get("NOMERCY_NATIVE_SOURCE") == "1"


def _load() -> ModuleType | None:
    if _SOURCE_ONLY:
        return None
    try:
        from nomercy.native import _engine  # type: ignore[attr-defined,unused-ignore]
    except ImportError as exc:  # pragma: no cover - depends on the build
        raise ImportError(
            "nomercy.native's C extension (nomercy.native._engine) is not built: install the "
            f"package with pip (pip install -e . in a checkout; it needs gcc) ({exc})"
        ) from exc
    if _engine.cpu_v3() and os.environ.get("NOMERCY_NATIVE_PORTABLE") != "1":
        try:  # the same kernels built for x86-64-v3 processors (hatch_build.py): faster
            from nomercy.native import _engine_v3  # type: ignore[attr-defined,unused-ignore]
        except ImportError:  # pragma: no cover - not built here (not x86-64, or not Linux)
            return _engine  # type: ignore[no-any-return]
        return _engine_v3  # type: ignore[no-any-return]
    return _engine  # type: ignore[no-any-return]


_ENGINE = _load()


def export_name(fn: Callable[..., Any]) -> str:
    """The extension's name for the kernel ``fn``: its module's last part and its name."""
    return f"{fn.__module__.rsplit('.', 1)[-1]}_{fn.__name__}"


_SOURCE_OF: dict[int, Callable[..., Any]] = {}


def kernel(fn: Callable[..., Any]) -> Any:
    """A kernel callable from Python: the compiled function of the same name."""
    SOURCES.append(("kernel", fn))
    compiled = fn if _ENGINE is None else getattr(_ENGINE, export_name(fn))
    _SOURCE_OF[id(compiled)] = fn
    return compiled


def source(compiled: Any) -> Callable[..., Any]:
    """The Python source function of a kernel (for inlining a kernel elsewhere too)."""
    return _SOURCE_OF[id(compiled)]


def inline(fn: Callable[..., Any]) -> Any:
    """A helper compiled into its callers; from Python, its compiled export where the
    extension has one (its parameters' types are known by name), else the source."""
    if any(f is fn for _, f in SOURCES):  # a kernel inlined elsewhere too: its own copy
        fn = types.FunctionType(fn.__code__, fn.__globals__, fn.__name__, fn.__defaults__, fn.__closure__)
    SOURCES.append(("inline", fn))
    compiled = getattr(_ENGINE, export_name(fn), None) if _ENGINE is not None else None
    return fn if compiled is None else compiled
