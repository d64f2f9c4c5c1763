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


def extension_path() -> Path:
    """Where the compiled extension goes: beside its source, named for this Python."""
    return SOURCE.with_name("_engine" + str(sysconfig.get_config_var("EXT_SUFFIX")))


def compile_extension(force: bool = False) -> Path:
    """Compile ``_engine.c`` into the extension in place, when it is missing or older."""
    target = extension_path()
    if not force and target.exists() and target.stat().st_mtime >= SOURCE.stat().st_mtime:
        return target
    cc = shlex.split(os.environ.get("CC") or "gcc")
    include = sysconfig.get_paths()["include"]
    flags = ["-O2", "-shared", "-fPIC", "-fno-strict-aliasing", "-fwrapv", f"-I{include}"]
    tmp = target.with_suffix(".tmp")
    command = [*cc, *flags, str(SOURCE), "-o", str(tmp)]
    result = subprocess.run(command, capture_output=True, text=True, check=False)  # noqa: S603 - the compiler
    if result.returncode != 0:
        raise RuntimeError(
            f"compiling nomercy's native engine failed ({' '.join(command)}):\n{result.stderr}"
        )
    tmp.replace(target)
    return target


class NativeBuildHook(BuildHookInterface):  # type: ignore[misc,valid-type]
    """Builds the extension for wheels and editable installs; the wheel is then tagged
    for this platform and Python."""

    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        if self.target_name != "wheel":
            return
        target = compile_extension()
        build_data["pure_python"] = False
        build_data["infer_tag"] = True
        if version != "editable":  # an editable install finds it in the source tree
            build_data["force_include"][str(target)] = f"nomercy/native/{target.name}"


if __name__ == "__main__":
    path = compile_extension(force="--force" in sys.argv)
    print(f"native engine: {path.relative_to(ROOT)}")
