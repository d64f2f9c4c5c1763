"""``nomercy site build``: the static folder, and the engine's zip that the page unpacks.

The zip holds every module the page's engine imports: a fresh interpreter with no
site-packages (``python -S``), only the unpacked zip on its path and pydantic, numpy and
the rest blocked, plays a match and replays it. The zip's bytes depend on the sources
alone; the folder holds the client with relative paths, the options, the manifest and
icons, Pyodide's core files and the service worker's list of them all.
"""

from __future__ import annotations

import io
import json
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from typer.testing import CliRunner

from nomercy.cli import app
from nomercy.site import BUNDLE_MODULES, bundle, options, pyodide_dir

from .test_pyodide_safe import BLOCKED, SCRIPT

needs_pyodide = pytest.mark.skipif(
    pyodide_dir() is None,
    reason="needs Pyodide's npm package: run 'npm ci' (or 'make pyodide') in the repository",
)


def test_the_zip_is_the_same_bytes_every_time_and_holds_the_modules() -> None:
    first = bundle()
    assert bundle() == first
    with zipfile.ZipFile(io.BytesIO(first)) as zf:
        names = zf.namelist()
        assert names == sorted(names)
        assert {info.date_time for info in zf.infolist()} == {(1980, 1, 1, 0, 0, 0)}
    assert "nomercy/solo/worker.py" in names and "nomercy/server/rooms/seen.py" in names
    assert len(names) == len(BUNDLE_MODULES)
    assert not any(name.startswith(("nomercy/server/http", "nomercy/native", "nomercy/rl")) for name in names)


def test_the_unpacked_zip_alone_plays_a_match(tmp_path: Path) -> None:
    zipfile.ZipFile(io.BytesIO(bundle())).extractall(tmp_path / "engine")
    script = SCRIPT.format(blocked=BLOCKED, bots=["random", "careful", "casual", "strong", "gambler"])
    script = f"import sys\nsys.path.insert(0, {str(tmp_path / 'engine')!r})\n" + script
    done = subprocess.run(
        [sys.executable, "-S", "-c", script],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["rounds"] >= 1 and result["hint"] == "hint"


def test_the_options_are_the_servers_for_the_bots_the_page_offers() -> None:
    fastapi = pytest.importorskip("fastapi")
    del fastapi
    from fastapi.testclient import TestClient

    from nomercy.server import create_app
    from nomercy.server.base.settings import Settings

    with TestClient(create_app(Settings(database_url="sqlite://", allowed_hosts=("testserver",)))) as client:
        served = client.get("/api/options").json()
    ours = options()
    assert set(ours["bots"]) < set(served["bots"]) and "learned" not in ours["bots"]
    for key in ("protocol", "rules", "presets", "levels", "characters", "reactions"):
        assert ours[key] == served[key], key


@needs_pyodide
def test_the_site_folder_has_every_file_with_relative_paths(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        app, ["site", "build", str(tmp_path / "site"), "--server", "https://cards.example"]
    )
    assert result.exit_code == 0, result.output
    site = tmp_path / "site"
    index = (site / "index.html").read_text(encoding="utf-8")
    assert '<meta name="nomercy-site" content="https://cards.example">' in index
    assert '"/static/' not in index and 'href="/manifest' not in index
    for name in ("static/js/main.js", "static/style.css", "i18n/nb/game.json", "i18n/en/web.json", "sw.js"):
        assert (site / name).is_file(), name
    for name in ("pyodide.mjs", "pyodide.asm.wasm", "python_stdlib.zip", "pyodide-lock.json"):
        assert (site / "pyodide" / name).is_file(), name
    assert (site / "engine" / "nomercy.zip").read_bytes() == bundle()
    manifest = json.loads((site / "manifest.webmanifest").read_text())
    assert manifest["start_url"] == "./" and all(not i["src"].startswith("/") for i in manifest["icons"])
    for icon in manifest["icons"]:
        assert (site / icon["src"]).is_file()
    assert (site / "icon-192.png").read_bytes().startswith(b"\x89PNG")
    listing = json.loads((site / "sw-files.json").read_text())
    on_disk = sorted(p.relative_to(site).as_posix() for p in site.rglob("*") if p.is_file())
    assert sorted([*listing["files"], "sw-files.json"]) == on_disk
    assert f'const VERSION = "{listing["version"]}";' in (site / "sw.js").read_text()
    again = CliRunner().invoke(
        app, ["site", "build", str(tmp_path / "again"), "--server", "https://cards.example"]
    )
    assert again.exit_code == 0
    assert json.loads((tmp_path / "again" / "sw-files.json").read_text()) == listing
    refused = CliRunner().invoke(app, ["site", "build", str(tmp_path / "x"), "--server", "ftp://x"])
    assert refused.exit_code != 0


def test_the_wheel_carries_pyodide_where_the_site_finds_it(tmp_path: Path) -> None:
    """hatch_build.py puts Pyodide's core files at ``nomercy/web/pyodide/`` of the wheel,
    the first place :func:`pyodide_dir` looks, and the same names the site copies."""
    import importlib.util

    from nomercy.site import PYODIDE_FILES

    spec = importlib.util.spec_from_file_location("hatch_build", Path(__file__).parents[2] / "hatch_build.py")
    assert spec is not None and spec.loader is not None
    hook = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(hook)
    assert set(hook.PYODIDE_FILES) == set(PYODIDE_FILES)
    assert hook.pyodide_files(tmp_path) == {}
    npm = tmp_path / "node_modules" / "pyodide"
    npm.mkdir(parents=True)
    for name in ("pyodide.mjs", "pyodide.asm.wasm", "README.md"):
        (npm / name).write_text("x")
    assert hook.pyodide_files(tmp_path) == {
        str(npm / "pyodide.mjs"): "nomercy/web/pyodide/pyodide.mjs",
        str(npm / "pyodide.asm.wasm"): "nomercy/web/pyodide/pyodide.asm.wasm",
    }
