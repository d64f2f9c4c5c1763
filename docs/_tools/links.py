"""mkdocs hooks: pages from outside docs/, and links that leave docs/ pointed at the repository.

The guides are written to be read on the repository too, so they link with paths relative
to their own file: ``rules.md``, ``../benchmarks/README.md``, ``../src/nomercy/engine.py``.
In the manual only docs/ is a page, and ``mkdocs build --strict`` refuses a link to
anything else. These hooks keep both readings right without a second copy of any text:

- :data:`GENERATED` pages are Markdown files kept elsewhere in the repository, added to
  the manual under a page name of their own (``benchmarks/README.md`` is ``benchmarks.md``);
- a link that leaves docs/ goes to the page generated from its target when there is one,
  and to the file on the repository otherwise (``repo_url``, branch ``main``);
- a link inside docs/ is left alone, so the strict build still checks it.
"""

from __future__ import annotations

import posixpath
import re
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mkdocs.config.defaults import MkDocsConfig
    from mkdocs.structure.files import Files
    from mkdocs.structure.pages import Page

#: Page name in the manual -> the Markdown file in the repository it is made from.
GENERATED = {"benchmarks.md": "benchmarks/README.md", "changelog.md": "CHANGELOG.md"}

_INLINE = re.compile(r"(?P<open>!?\[[^\]]*\]\()(?P<target><[^>]+>|[^)\s]+)")
_DEFINITION = re.compile(r"^(?P<open> {0,3}\[[^\]]+\]:\s+)(?P<target>\S+)", re.MULTILINE)
_FENCE = re.compile(r"^\s*(```|~~~)")


def on_files(files: Files, config: MkDocsConfig) -> Files:
    """Add the :data:`GENERATED` pages, read from their files in the repository."""
    from mkdocs.structure.files import File

    root = _root(config)
    for page, origin in GENERATED.items():
        files.append(File.generated(config, page, abs_src_path=str(root / origin)))
    return files


def on_page_markdown(markdown: str, page: Page, config: MkDocsConfig, files: Files) -> str:
    """The page's Markdown with its links that leave docs/ rewritten (see the module)."""
    origin = GENERATED.get(page.file.src_uri, f"docs/{page.file.src_uri}")
    repo = str(config.repo_url or "").rstrip("/")
    pages = {f.src_uri for f in files.documentation_pages()}

    def rewrite(match: re.Match[str]) -> str:
        raw = match["target"]
        target = raw[1:-1] if raw.startswith("<") else raw
        new = _rebase(target, origin, page.file.src_uri, pages, repo, _root(config))
        return match["open"] + (raw if new is None else new)

    out: list[str] = []
    fenced = False
    for line in markdown.splitlines(keepends=True):
        if _FENCE.match(line):
            fenced = not fenced
        out.append(line if fenced else _DEFINITION.sub(rewrite, _INLINE.sub(rewrite, line)))
    return "".join(out)


def _rebase(target: str, origin: str, page: str, pages: set[str], repo: str, root: Path) -> str | None:
    """Where ``target``, written in the repository file ``origin``, points in the manual.

    None where the link stays as written: an address, an anchor on the same page, or a
    page of docs/ linked from a page of docs/.
    """
    if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.IGNORECASE) or target.startswith(("#", "/")):
        return None
    path, _, anchor = target.partition("#")
    resolved = posixpath.normpath(posixpath.join(posixpath.dirname(origin), path))
    fragment = f"#{anchor}" if anchor else ""
    for name, source in GENERATED.items():
        if resolved == source:
            return posixpath.relpath(name, posixpath.dirname(page) or ".") + fragment
    if resolved.startswith("docs/") and resolved[len("docs/") :] in pages:
        if origin.startswith("docs/"):
            return None
        return posixpath.relpath(resolved[len("docs/") :], posixpath.dirname(page) or ".") + fragment
    if resolved.startswith("docs/") or resolved.startswith("../") or not repo:
        return None  # a broken link: the strict build reports it as written
    kind = "tree" if (root / resolved).is_dir() else "blob"
    return f"{repo}/{kind}/main/{resolved}{fragment}"


def _root(config: MkDocsConfig) -> Path:
    return Path(config.config_file_path).resolve().parent
