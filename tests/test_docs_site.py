"""The reference manual's structure, without building it (``make docs`` builds it strictly).

Every guide in docs/ must be a page of mkdocs.yml's nav and have its row in the home
page's tables, and every page the nav names must exist, so that a new guide cannot be
left out of the manual unnoticed. The link hook's rebasing (docs/_tools/links.py) is
checked here too: it decides where a guide's links out of docs/ go in the manual.
"""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
REPO = "https://github.com/nomercy-game/nomercy"


def _links() -> ModuleType:
    spec = importlib.util.spec_from_file_location("docs_links", DOCS / "_tools" / "links.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _nav_pages() -> set[str]:
    """The .md files named in the ``nav:`` section of mkdocs.yml."""
    text = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    match = re.search(r"^nav:\n(?P<body>(?:[ \t]+.*\n|\n)*)", text, re.MULTILINE)
    assert match, "mkdocs.yml has no nav section"
    return set(re.findall(r":\s*(\S+\.md)\s*(?:#.*)?$", match["body"], re.MULTILINE))


def _guides() -> set[str]:
    return {
        path.relative_to(DOCS).as_posix()
        for path in DOCS.rglob("*.md")
        if "_tools" not in path.relative_to(DOCS).parts
    }


def test_every_guide_is_in_the_nav() -> None:
    missing = _guides() - _nav_pages()
    assert not missing, f"pages in docs/ that mkdocs.yml's nav leaves out: {sorted(missing)}"


def test_every_nav_page_exists() -> None:
    generated = _links().GENERATED
    for page in _nav_pages():
        if page in generated:
            assert (ROOT / generated[page]).is_file(), f"{page} is made from {generated[page]}, which is gone"
        else:
            assert (DOCS / page).is_file(), f"mkdocs.yml's nav names {page}, which is not in docs/"


def _index_table(heading: str) -> set[str]:
    """The pages linked from the first column of the table under ``## heading`` in index.md."""
    text = (DOCS / "index.md").read_text(encoding="utf-8")
    match = re.search(rf"^## {re.escape(heading)}\n(?P<body>(?:(?!^## ).*\n?)*)", text, re.MULTILINE)
    assert match, f"index.md has no section {heading!r}"
    return set(re.findall(r"^\|\s*\[[^\]]*\]\(([^)#]+\.md)[^)]*\)\s*\|", match["body"], re.MULTILINE))


def test_every_page_is_in_the_index_tables() -> None:
    """The home page's guide table is how a reader finds a guide: a new page in docs/ must
    get its row there (the API pages and the module map theirs in the reference table)."""
    guides, reference = _index_table("The guides"), _index_table("The reference")
    assert guides and reference
    pages = _guides() - {"index.md"}
    missing = {p for p in pages if p not in guides and p not in reference}
    assert not missing, f"pages in docs/ that index.md's guide table leaves out: {sorted(missing)}"
    misplaced = {p for p in pages if p.startswith("reference/") and p not in reference}
    assert not misplaced, f"API pages missing from index.md's reference table: {sorted(misplaced)}"
    generated = set(_links().GENERATED)
    stale = {p for p in guides | reference if not (DOCS / p).is_file() and p not in generated}
    assert not stale, f"index.md's tables link pages that do not exist: {sorted(stale)}"


def test_links_out_of_docs_go_to_the_repository_or_to_a_generated_page() -> None:
    rebase = _links()._rebase
    pages = {"engine.md", "rules.md", "reference/core.md"}

    def where(target: str, origin: str = "docs/engine.md", page: str = "engine.md") -> str | None:
        result: str | None = rebase(target, origin, page, pages, REPO, ROOT)
        return result

    # Inside docs/: left as written, for the strict build to check.
    assert where("rules.md#2-setup-s") is None
    assert where("missing.md") is None
    assert where("#anchor") is None
    assert where("https://example.org/x.md") is None
    # Out of docs/: the generated page, or the file (or folder) on the repository.
    assert where("../benchmarks/README.md#engine") == "benchmarks.md#engine"
    assert (
        where("../../benchmarks/README.md", "docs/reference/core.md", "reference/core.md")
        == "../benchmarks.md"
    )
    assert where("../src/nomercy/engine.py#L3") == f"{REPO}/blob/main/src/nomercy/engine.py#L3"
    assert where("../tests") == f"{REPO}/tree/main/tests"
    # From a generated page: its own folder's files, and docs/ pages as pages of the manual.
    assert (
        where("engine.py", "benchmarks/README.md", "benchmarks.md")
        == f"{REPO}/blob/main/benchmarks/engine.py"
    )
    assert where("../docs/rules.md#t2", "benchmarks/README.md", "benchmarks.md") == "rules.md#t2"
    # Above the repository: left as written, so the build reports it.
    assert where("../../elsewhere.md") is None
