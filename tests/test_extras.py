"""The extras: a missing one is named in one line, and every declared extra is checked.

The install of each extra set into a fresh virtual environment runs in the release check
(``scripts/extras_check.sh``, from ``make release-check``, which CI runs): it needs the
built wheel and the package index. Here, in seconds: that its list covers what
``pyproject.toml`` declares, and what a user without an extra sees, with the extra's
package hidden from the import system.
"""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from nomercy.extras import MissingExtra, require

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "scripts" / "extras_check.sh"


def _listed(name: str) -> set[str]:
    found = re.search(rf'^{name}="([^"]*)"', SCRIPT.read_text(encoding="utf-8"), re.M)
    assert found, f"{name} is missing from {SCRIPT.name}"
    return {extra for group in found.group(1).split() for extra in group.split(",")}


def test_every_declared_extra_is_checked_or_named_with_its_reason() -> None:
    declared = set(
        tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"][
            "optional-dependencies"
        ]
    )
    checked, not_checked = _listed("EXTRAS_CHECKED") - {"core"}, _listed("EXTRAS_NOT_CHECKED")
    assert not checked & not_checked
    assert checked | not_checked == declared, "scripts/extras_check.sh lists other extras than pyproject.toml"
    release = (ROOT / "scripts" / "release_check.sh").read_text(encoding="utf-8")
    assert 'bash scripts/extras_check.sh "$wheel"' in release


def test_every_extra_the_install_guide_documents_is_declared() -> None:
    guide = (
        (ROOT / "docs" / "install.md").read_text(encoding="utf-8").split("## The extras")[1].split("\n## ")[0]
    )
    documented = set(re.findall(r"^\| `([a-z]+)` \|", guide, re.M))
    declared = set(
        tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"][
            "optional-dependencies"
        ]
    )
    assert documented == declared


def test_a_missing_extra_is_one_line_naming_it_and_how_to_install_it() -> None:
    with pytest.raises(MissingExtra) as caught:
        require("nomercy_no_such_module", "sim", "reports")
    error = caught.value
    assert (
        str(error)
        == "reports needs the sim extra: pip install 'nomercy[sim]' (nomercy_no_such_module is not installed)"
    )
    assert isinstance(error, ImportError) and isinstance(error, RuntimeError) and error.extra == "sim"


def _without(modules: list[str], code: str) -> subprocess.CompletedProcess[str]:
    """``code`` in a fresh interpreter where ``modules`` cannot be imported (as without their extra)."""
    hide = "import sys\n" + "".join(f"sys.modules[{m!r}] = None\n" for m in modules)
    return subprocess.run([sys.executable, "-c", hide + code], capture_output=True, text=True, timeout=120)


def test_nomercy_play_with_the_learned_bot_and_no_numpy_says_which_extra_in_one_line() -> None:
    done = _without(
        ["numpy"],
        "sys.argv = ['nomercy', 'play', '--bots', 'learned', '--seed', '1']\n"
        "from nomercy.cli import main\nmain()",
    )
    assert done.returncode == 1
    assert done.stderr.strip().splitlines() == [
        "error: the learned bot needs the learned extra: "
        "pip install 'nomercy[learned]' (numpy is not installed)"
    ]


def test_nomercy_rl_without_gymnasium_names_the_rl_extra() -> None:
    done = _without(["gymnasium"], "import nomercy.rl")
    assert done.returncode == 1
    last = done.stderr.strip().splitlines()[-1]
    assert last.endswith("needs the rl extra: pip install 'nomercy[rl]' (gymnasium is not installed)"), last
