"""The static site: the solo game with no server (``nomercy site build DIR``).

:func:`bundle` zips the pure-Python modules that the page's engine needs
(``engine/nomercy.zip``: exactly :data:`BUNDLE_MODULES`, which
``tests/solo/test_site.py`` checks by playing a match from the unpacked zip alone),
deterministically: sorted names, one fixed time stamp, so that the same sources give the
same bytes and a service worker's cache sees a change only when there is one.

:func:`build` writes a folder that any static host serves: the browser client as
``nomercy serve`` serves it (``static/``, ``i18n/``, ``index.html`` marked as a site with
the server to link to, ``options.json`` for ``GET /api/options``), the manifest and
the icons (drawn by :mod:`nomercy.server.http.icons`), the engine's zip, Pyodide's core
files (``pyodide/``) and ``sw-files.json``, the list the service worker caches.
"""

from __future__ import annotations

import hashlib
import html
import io
import json
import shutil
import zipfile
from collections.abc import Iterable
from importlib import resources
from pathlib import Path
from typing import Any

__all__ = [
    "BUNDLE_MODULES",
    "PYODIDE_FILES",
    "SiteError",
    "app_files",
    "build",
    "bundle",
    "listing",
    "options",
    "pyodide_dir",
    "service_worker",
    "site_files",
]

#: The modules the solo table imports (``nomercy.solo.worker`` and what it loads, the
#: coach and every offered bot included), as dotted names.
BUNDLE_MODULES = (
    "nomercy",
    "nomercy.actions",
    "nomercy.bots",
    "nomercy.bots.careful",
    "nomercy.bots.expert",
    "nomercy.bots.heuristic",
    "nomercy.bots.inference",
    "nomercy.bots.learned",
    "nomercy.bots.levels",
    "nomercy.bots.memory",
    "nomercy.bots.review",
    "nomercy.bots.runner",
    "nomercy.cards",
    "nomercy.dealing",
    "nomercy.decisions",
    "nomercy.encoding",
    "nomercy.encoding.actions",
    "nomercy.encoding.rules",
    "nomercy.encoding.sections",
    "nomercy.encoding.version",
    "nomercy.engine",
    "nomercy.errors",
    "nomercy.events",
    "nomercy.extras",
    "nomercy.match",
    "nomercy.narration",
    "nomercy.record",
    "nomercy.rules",
    "nomercy.seeding",
    "nomercy.server",
    "nomercy.server.base",
    "nomercy.server.base.settings",
    "nomercy.server.games",
    "nomercy.server.games.frames",
    "nomercy.server.rooms",
    "nomercy.server.rooms.seen",
    "nomercy.solo",
    "nomercy.solo.frames",
    "nomercy.solo.table",
    "nomercy.solo.worker",
    "nomercy.state",
    "nomercy.summary",
    "nomercy.tables",
    "nomercy.views",
)
#: Pyodide's core files (npm package ``pyodide``): the loader, the interpreter and its
#: standard library; no package from any other host. Those marked False are optional
#: (a release ships either the ``.asm.js`` or the ``.asm.mjs`` glue).
PYODIDE_FILES = {
    "pyodide.mjs": True,
    "pyodide.asm.mjs": False,
    "pyodide.asm.js": False,
    "pyodide.asm.wasm": True,
    "python_stdlib.zip": True,
    "pyodide-lock.json": True,
}
#: One time stamp for every file of the zip (the earliest a zip can hold).
ZIP_TIME = (1980, 1, 1, 0, 0, 0)
PACKAGE = Path(str(resources.files("nomercy")))
WEB = PACKAGE / "web"


class SiteError(Exception):
    """The site cannot be built (what is missing, and how to get it)."""


def _source(module: str) -> Path:
    """A module's source file in this installation."""
    parts = module.split(".")[1:]
    base = PACKAGE.joinpath(*parts)
    if (base / "__init__.py").is_file():
        return base / "__init__.py"
    path = base.with_suffix(".py")
    if not path.is_file():
        raise SiteError(f"{module}: no source file at {path} (a compiled install carries none)")
    return path


def bundle(modules: Iterable[str] = BUNDLE_MODULES) -> bytes:
    """The engine's zip: each module's source at its path under ``nomercy/``."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as zf:
        for module in sorted(set(modules)):
            path = _source(module)
            name = path.relative_to(PACKAGE.parent).as_posix()
            info = zipfile.ZipInfo(name, ZIP_TIME)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            zf.writestr(info, path.read_bytes())
    return out.getvalue()


def pyodide_dir() -> Path | None:
    """Pyodide's core files: carried in the wheel (``nomercy/web/pyodide/``), or in a
    checkout's ``node_modules/pyodide`` (``npm ci``); None when neither has them."""
    for where in (WEB / "pyodide", PACKAGE.parent.parent / "node_modules" / "pyodide"):
        if all((where / name).is_file() for name, needed in PYODIDE_FILES.items() if needed):
            return where
    return None


def options() -> dict[str, Any]:
    """What ``GET /api/options`` answers, for the bots the page offers (``options.json``)."""
    from nomercy.bots.levels import CHARACTER_LEVELS, CHARACTERS, LEVELS, menu_order
    from nomercy.rules import PRESETS
    from nomercy.server.base.options import rules_options
    from nomercy.solo.table import BOT_LEVELS, PROTOCOL_VERSION, REACTIONS

    return {
        "protocol": PROTOCOL_VERSION,
        "rules": rules_options(),
        "presets": {name: rules.to_dict() for name, rules in PRESETS.items()},
        "bots": menu_order([*BOT_LEVELS, *CHARACTERS]),
        "levels": list(LEVELS),
        "characters": {name: list(CHARACTER_LEVELS) for name in CHARACTERS},
        "reactions": list(REACTIONS),
        "max_turn_seconds": 0,
        "test_options": False,
    }


def _index(server: str | None) -> str:
    """``index.html`` as a site's: marked (``nomercy-site``, the server it links to) and
    with the client's own files named relative to the page."""
    text = (WEB / "index.html").read_text(encoding="utf-8")
    meta = f'<meta name="nomercy-site" content="{html.escape(server or "", quote=True)}">'
    anchor = '<meta charset="utf-8">' if '<meta charset="utf-8">' in text else "<head>"
    text = text.replace(anchor, f"{anchor}\n  {meta}", 1)
    return (
        text.replace('"/static/', '"static/')
        .replace('class="brand" href="/"', 'class="brand" href="./"')
        .replace('href="/manifest', 'href="manifest')
        .replace('href="/favicon', 'href="favicon')
        .replace('href="/icon-', 'href="icon-')
    )


def _manifest() -> dict[str, Any]:
    """The server's manifest with its paths relative to the site's folder."""
    from nomercy.server.http import icons

    data = icons.manifest()
    data["start_url"] = data["scope"] = "./"
    data["icons"] = [{**icon, "src": str(icon["src"]).lstrip("/")} for icon in data["icons"]]  # type: ignore[attr-defined]
    return data


def app_files() -> dict[str, bytes | Path]:
    """The files of the app that a site and ``nomercy serve`` both serve at the same paths
    (the client's, the catalogs, the manifest and icons, the engine, Pyodide's core), by
    path: bytes, or a file to copy. Without Pyodide's files, :class:`SiteError`."""
    from nomercy.server.http import icons

    found = pyodide_dir()
    if found is None:
        raise SiteError(
            "Pyodide's files are missing: run 'npm ci' in the repository (it puts them in "
            "node_modules/pyodide), or install a nomercy wheel built with them"
        )
    files: dict[str, bytes | Path] = {}
    for path in sorted(WEB.rglob("*")):
        rel = path.relative_to(WEB).as_posix()
        if (
            path.is_file()
            and not rel.startswith("pyodide/")
            and rel != "index.html"
            and "__pycache__" not in rel
        ):
            files[f"static/{rel}"] = path
    catalogs = PACKAGE / "i18n" / "catalogs"
    for path in sorted(catalogs.glob("*/*.json")):
        files[f"i18n/{path.parent.name}/{path.name}"] = path
    files["manifest.webmanifest"] = json.dumps(_manifest(), indent=1).encode()
    files["favicon.svg"] = icons.SVG.encode()
    files["favicon.ico"] = icons.png(48)
    files["icon-192.png"] = icons.png(192)
    files["icon-512.png"] = icons.png(512)
    files["engine/nomercy.zip"] = bundle()
    for name in PYODIDE_FILES:
        if (found / name).is_file():
            files[f"pyodide/{name}"] = found / name
    return files


def site_files(server: str | None = None) -> dict[str, bytes | Path]:
    """Every file of the site but the service worker's own two, by its path in the folder."""
    files = app_files()
    files["index.html"] = _index(server).encode()
    files["options.json"] = json.dumps(options(), indent=1, sort_keys=True).encode()
    return files


def _bytes(item: bytes | Path) -> bytes:
    return item if isinstance(item, bytes) else item.read_bytes()


def listing(files: dict[str, bytes | Path]) -> dict[str, Any]:
    """``sw-files.json``: every file the service worker keeps, and a version (a digest of
    them all) that changes when any of them does."""
    digest = hashlib.sha256()
    for rel in sorted(files):
        digest.update(rel.encode() + b"\0" + hashlib.sha256(_bytes(files[rel])).digest())
    return {"version": digest.hexdigest()[:16], "files": sorted(files)}


def service_worker(version: str) -> bytes:
    """``sw.js`` with its ``VERSION`` set: a browser updates a service worker when its
    bytes change, so a new build of any file installs a new one (into its own cache)."""
    text = (WEB / "sw.js").read_text(encoding="utf-8")
    marker = 'const VERSION = "dev";'
    if marker not in text:
        raise SiteError(f"sw.js has no line {marker!r} to set the version in")
    return text.replace(marker, f"const VERSION = {json.dumps(version)};", 1).encode()


def build(folder: Path, server: str | None = None) -> dict[str, int]:
    """Write the site into ``folder`` (created; files of an earlier build are replaced);
    each file's size by its path, ``sw.js`` and ``sw-files.json`` included."""
    files = site_files(server)
    listed = listing(files)
    files["sw.js"] = service_worker(listed["version"])
    listed["files"] = sorted(files)
    files["sw-files.json"] = json.dumps(listed, indent=1).encode()
    sizes: dict[str, int] = {}
    folder.mkdir(parents=True, exist_ok=True)
    for rel in sorted(files):
        target = folder / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        item = files[rel]
        if isinstance(item, Path):
            shutil.copyfile(item, target)
            sizes[rel] = item.stat().st_size
        else:
            target.write_bytes(item)
            sizes[rel] = len(item)
    return sizes
