"""The package build's hook: compile the native engine's C extension ahead of time.

``src/nomercy/native/_engine.c`` (generated from the Python kernels by
``scripts/native_c.py``, and shipped in the sdist) is compiled with the C compiler and
Python's headers alone, in place beside it, so that an editable install (make's ``.venv``)
imports it from the source tree, and a wheel carries it. It is compiled again only when
the C file is newer than the extension. ``python hatch_build.py`` does the same without a
package build (``make`` runs it before the tests).

No compiler, or a failed compile, fails the build with the compiler's message: the
native engine is part of the package (``CC`` names another compiler).
"""

from __future__ import annotations

import os
import platform
import shlex
import subprocess
import sys
import sysconfig
from pathlib import Path
from typing import Any

try:
    from hatchling.builders.hooks.plugin.interface import BuildHookInterface
except ImportError:  # run as a script: only the compiler is needed
    BuildHookInterface = object  # type: ignore[assignment,misc]

ROOT = Path(__file__).resolve().parent
SOURCE = ROOT / "src" / "nomercy" / "native" / "_engine.c"


#: Optimised as far as a portable build goes: -O3 (its vector code is what makes the C as
#: fast as numba's was), wrapping signed arithmetic as the Python kernels' int64 does.
FLAGS = ["-O3", "-shared", "-fPIC", "-fno-strict-aliasing", "-fwrapv"]
#: On x86-64 a second build for x86-64-v3 processors (AVX2, BMI2, FMA: 2015 and later),
#: which ``nomercy.native._compiled`` loads where the processor has them; the first stays
#: the portable fallback, so a wheel runs on any x86-64.
V3 = ["-march=x86-64-v3", "-DNOMERCY_MODULE=_engine_v3"]


def variants() -> list[tuple[str, list[str]]]:
    """The extensions to build: (module name, extra flags)."""
    out = [("_engine", [])]
    if platform.machine().lower() in ("x86_64", "amd64") and sys.platform == "linux":
        out.append(("_engine_v3", V3))
    return out


def extension_path(name: str = "_engine") -> Path:
    """Where an extension goes: beside its source, named for this Python."""
    return SOURCE.with_name(name + str(sysconfig.get_config_var("EXT_SUFFIX")))


def compile_command(target: Path, extra: list[str]) -> list[str]:
    cc = shlex.split(os.environ.get("CC") or "gcc")
    include = sysconfig.get_paths()["include"]
    return [*cc, *FLAGS, *extra, f"-I{include}", str(SOURCE), "-o", str(target)]


def compile_extension(force: bool = False) -> list[Path]:
    """Compile ``_engine.c`` into each extension in place, when missing or older than it."""
    built = []
    for name, extra in variants():
        target = extension_path(name)
        built.append(target)
        if not force and target.exists() and target.stat().st_mtime >= SOURCE.stat().st_mtime:
            continue
        tmp = target.with_suffix(".tmp")
        command = compile_command(tmp, extra)
        result = subprocess.run(command, capture_output=True, text=True, check=False)  # noqa: S603 - the compiler
        if result.returncode != 0:
            raise RuntimeError(
                f"compiling nomercy's native engine failed ({' '.join(command)}):\n{result.stderr}"
            )
        tmp.replace(target)
    return built


class NativeBuildHook(BuildHookInterface):  # type: ignore[misc,valid-type]
    """Builds the extension for wheels and editable installs; the wheel is then tagged
    for this platform and Python."""

    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        if self.target_name != "wheel":
            return
        targets = compile_extension()
        build_data["pure_python"] = False
        build_data["infer_tag"] = True
        if version != "editable":  # an editable install finds them in the source tree
            for target in targets:
                build_data["force_include"][str(target)] = f"nomercy/native/{target.name}"


if __name__ == "__main__":
    for path in compile_extension(force="--force" in sys.argv):
        print(f"native engine: {path.relative_to(ROOT)}")
