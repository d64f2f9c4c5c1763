"""The package build's hook: make the native engine's C from the kernels, then compile it.

``src/nomercy/native/_engine.c`` is generated, never committed: in a checkout this hook
runs the translator (``scripts/native_c.py``, which reads the Python kernels and rewrites
the file only when its text changes), for the sdist as for a wheel or an editable install.
The sdist ships the generated C, so a wheel built from an sdist compiles it with the C
compiler and Python's headers alone: no translator, no numpy (an sdist is known by its
``PKG-INFO``). The C is compiled in place beside itself, so that an editable install
(make's ``.venv``) imports it from the source tree, and a wheel carries it; it is compiled
again only when the C file is newer than the extension. ``python hatch_build.py`` does
both without a package build (``make native``).

No compiler, or a failed compile, fails the build with the compiler's message: the
native engine is part of the package (``CC`` names another compiler).

A wheel also carries Pyodide's core files (:data:`PYODIDE_FILES`) under
``nomercy/web/pyodide/`` when the checkout has them (``npm ci`` puts the npm package in
``node_modules/pyodide``), so that ``nomercy site build`` and ``nomercy serve``'s solo mode
work from a pip install; a wheel built without them builds the site only from a checkout.
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
TRANSLATOR = ROOT / "scripts" / "native_c.py"
#: What the translator imports besides the standard library (the kernels' tables).
TRANSLATOR_NEEDS = ["numpy>=1.24"]


#: Pyodide's core files (the names ``nomercy.site.PYODIDE_FILES`` copies into a site):
#: the loader, its WebAssembly interpreter and glue, the standard library, the lock file.
PYODIDE_FILES = (
    "pyodide.mjs",
    "pyodide.asm.mjs",
    "pyodide.asm.js",
    "pyodide.asm.wasm",
    "python_stdlib.zip",
    "pyodide-lock.json",
)


def pyodide_files(root: Path = ROOT) -> dict[str, str]:
    """Pyodide's core files in ``node_modules/pyodide`` (those present), as the wheel's
    ``force_include``: source path -> path in the wheel."""
    found = root / "node_modules" / "pyodide"
    return {
        str(found / name): f"nomercy/web/pyodide/{name}" for name in PYODIDE_FILES if (found / name).is_file()
    }


def from_sdist(root: Path = ROOT) -> bool:
    """Whether this tree is an unpacked sdist (hatch writes ``PKG-INFO`` into every sdist,
    a checkout has none): its C is the shipped one, never made again."""
    return (root / "PKG-INFO").is_file()


def generate_c(root: Path = ROOT) -> Path:
    """Make ``_engine.c`` from the kernels, in a process of its own (the translator imports
    the kernels as source, with ``NOMERCY_NATIVE_SOURCE=1``); an sdist keeps its own C."""
    source = root / SOURCE.relative_to(ROOT)
    if from_sdist(root):
        if not source.is_file():
            raise RuntimeError(f"this sdist has no {source.relative_to(root)}: it was built wrongly")
        return source
    translator = root / TRANSLATOR.relative_to(ROOT)
    command = [sys.executable, str(translator), "--out", str(source)]
    result = subprocess.run(command, capture_output=True, text=True, check=False)  # noqa: S603 - our translator
    if result.returncode != 0:
        raise RuntimeError(
            f"translating nomercy's native kernels to C failed ({' '.join(command)}):\n{result.stderr}"
        )
    return source


#: Optimised as far as a portable build goes: -O3 (its vector code is what makes the C as
#: fast as numba's was), wrapping signed arithmetic as the Python kernels' int64 does.
FLAGS = ["-O3", "-shared", "-fPIC", "-fno-strict-aliasing", "-fwrapv"]
#: On x86-64 a second build for x86-64-v3 processors (AVX2, BMI2, FMA: 2015 and later),
#: which ``nomercy.native._compiled`` loads where the processor has them; the first stays
#: the portable fallback, so a wheel runs on any x86-64.
V3 = ["-march=x86-64-v3", "-DNOMERCY_MODULE=_engine_v3"]


def variants() -> list[tuple[str, list[str]]]:
    """The extensions to build: (module name, extra flags)."""
    out: list[tuple[str, list[str]]] = [("_engine", [])]
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
    """Makes the C for the sdist, a wheel and an editable install, and builds the extension
    for wheels and editable installs; the wheel is then tagged for this platform and Python."""

    PLUGIN_NAME = "custom"

    def dependencies(self) -> list[str]:
        """The translator's imports, where this build runs it (a checkout), none from an sdist."""
        return [] if from_sdist(Path(self.root)) else list(TRANSLATOR_NEEDS)

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        generate_c(Path(self.root))
        if self.target_name != "wheel":  # the sdist: ships the C (its artifacts), compiles nothing
            return
        targets = compile_extension()
        build_data["pure_python"] = False
        build_data["infer_tag"] = True
        if version != "editable":  # an editable install finds them in the source tree
            for target in targets:
                build_data["force_include"][str(target)] = f"nomercy/native/{target.name}"
            build_data["force_include"].update(pyodide_files(Path(self.root)))


if __name__ == "__main__":
    generate_c()
    for path in compile_extension(force="--force" in sys.argv):
        print(f"native engine: {path.relative_to(ROOT)}")
