"""The compiled kernels are the Python kernels: ``_engine.c`` is what the translator makes
of today's sources, and the extension loaded is the one built from it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_generated_c_is_current() -> None:
    done = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "native_c.py"), "--check"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr


def test_every_kernel_is_the_compiled_function() -> None:
    from nomercy.native import _compiled, _engine, kernels

    assert kernels.step is _engine.kernels_step
    for kind, fn in _compiled.SOURCES:
        if kind == "kernel":
            assert hasattr(_engine, _compiled.export_name(fn)), fn.__qualname__


def test_a_kernel_refuses_an_array_of_the_wrong_type() -> None:
    import numpy as np
    import pytest

    from nomercy.native import kernels

    with pytest.raises(TypeError, match="int32"):
        kernels.legal_mask(
            np.zeros(10, np.int64), np.zeros(40, np.int64), -1, np.zeros(8, np.uint8), np.zeros(8, np.int64)
        )
