"""The compiled kernels are the Python kernels: ``_engine.c`` is what the translator makes
of today's sources, the extension loaded exports every kernel, and the portable and the
x86-64-v3 builds of it play the same cards."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

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
