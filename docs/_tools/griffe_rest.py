"""The docstrings' reStructuredText idioms as the Markdown that mkdocstrings renders.

The package's docstrings are written for ``help()`` and Sphinx habits: ``:class:`~x.Y```
roles, ``>>>`` examples, ``::`` literal blocks and simple ``=====`` tables. mkdocstrings
reads docstrings as Markdown, so this griffe extension rewrites those four idioms when the
package is loaded (the source files stay as they are):

- a role becomes an *optional* cross-reference: a link where the target is on a page of
  the manual, plain code where it is not (so ``mkdocs build --strict`` never fails on a
  reference to a private helper). Relative targets (``:meth:`choose```) are looked up from
  the object that holds the docstring outwards, as Sphinx does;
- ``>>>`` examples become ``pycon`` code blocks;
- a paragraph's closing ``::`` becomes ``:`` (the indented block after it is already a
  Markdown code block);
- a simple table becomes a Markdown table.
"""

from __future__ import annotations

import html
import re
from typing import Any

import griffe

_ROLE = re.compile(r":(?:class|func|meth|mod|data|attr|exc|obj|const):`(?P<body>[^`]+)`")
_TABLE_RULE = re.compile(r"^(\s*)(=+)((?:\s+=+)+)\s*$")


class RestToMarkdown(griffe.Extension):
    """Rewrite every docstring of the loaded package (see the module's docstring)."""

    def on_package(self, *, pkg: griffe.Module, loader: griffe.GriffeLoader, **kwargs: Any) -> None:
        for obj in _walk(pkg):
            if obj.docstring is not None:
                obj.docstring.value = convert(obj.docstring.value, obj, loader.modules_collection)


def _walk(obj: griffe.Object) -> list[griffe.Object]:
    found = [obj]
    for member in obj.members.values():
        if not member.is_alias and isinstance(member, griffe.Object):
            found.extend(_walk(member))
    return found


def convert(text: str, obj: griffe.Object, collection: griffe.ModulesCollection) -> str:
    """The docstring ``text`` of ``obj`` as Markdown."""
    lines = _tables(_doctests(text.splitlines()))
    out = "\n".join(_literal_marker(line) for line in lines)
    return _ROLE.sub(lambda m: _reference(m["body"], obj, collection), out)


def _doctests(lines: list[str]) -> list[str]:
    """Fence each run of ``>>>`` lines (and their output, up to a blank line) as pycon."""
    out: list[str] = []
    fenced = False
    in_example = False
    indent = ""
    for line in lines:
        stripped = line.lstrip()
        if stripped.startswith("```"):
            fenced = not fenced
        if not fenced and not in_example and stripped.startswith(">>>"):
            indent = line[: len(line) - len(stripped)]
            out.append(f"{indent}```pycon")
            in_example = True
        elif in_example and not stripped:
            out.append(f"{indent}```")
            in_example = False
        out.append(line)
    if in_example:
        out.append(f"{indent}```")
    return out


def _literal_marker(line: str) -> str:
    if line.strip() == "::":
        return ""
    if line.endswith("::") and not line.lstrip().startswith((">>>", "...")):
        return line[:-1]
    return line


def _tables(lines: list[str]) -> list[str]:
    """Rewrite reST simple tables (rules of ``=``, an optional header) as Markdown tables."""
    out: list[str] = []
    i = 0
    while i < len(lines):
        rule = _TABLE_RULE.match(lines[i])
        if rule is None:
            out.append(lines[i])
            i += 1
            continue
        spans = [(m.start(), m.end()) for m in re.finditer(r"=+", lines[i])]
        rules = [i]
        j = i + 1
        while j < len(lines) and len(rules) < 3:
            if _TABLE_RULE.match(lines[j]):
                rules.append(j)
            elif not lines[j].strip():
                break
            j += 1
        if len(rules) < 2:
            out.append(lines[i])
            i += 1
            continue
        if len(rules) == 2 or rules[1] != i + 2:  # no header: the second rule closes the table
            header: list[str] = [""] * len(spans)
            body = lines[i + 1 : rules[1]]
            end = rules[1]
        else:
            header = _cells(lines[i + 1], spans)
            body = lines[rules[1] + 1 : rules[2]]
            end = rules[2]
        rows: list[list[str]] = []
        for line in body:
            cells = _cells(line, spans)
            if rows and not cells[0]:  # a continuation line of the row above
                rows[-1] = [f"{a} {b}".strip() for a, b in zip(rows[-1], cells, strict=True)]
            else:
                rows.append(cells)
        indent = rule.group(1)
        out.append(indent + "| " + " | ".join(header) + " |")
        out.append(indent + "|" + "---|" * len(spans))
        out.extend(indent + "| " + " | ".join(c.replace("|", "\\|") for c in row) + " |" for row in rows)
        i = end + 1
    return out


def _cells(line: str, spans: list[tuple[int, int]]) -> list[str]:
    starts = [start for start, _ in spans]
    ends = [*starts[1:], None]
    return [line[start:end].strip() for start, end in zip(starts, ends, strict=True)]


def _reference(body: str, obj: griffe.Object, collection: griffe.ModulesCollection) -> str:
    """An optional autorefs cross-reference for the role's ``body``."""
    title_target = re.fullmatch(r"(?P<title>.+?)\s*<(?P<target>[^>]+)>", body)
    if title_target:
        title, target = title_target["title"], title_target["target"]
    else:
        target = body.lstrip("~").rstrip("()")
        title = target.rsplit(".", 1)[-1] if body.startswith("~") else target
        if body.endswith("()"):
            title += "()"
    identifier = _resolve(target.lstrip("."), obj, collection)
    code = f"<code>{html.escape(title)}</code>"
    return f'<autoref identifier="{html.escape(identifier)}" optional>{code}</autoref>'


def _resolve(target: str, obj: griffe.Object, collection: griffe.ModulesCollection) -> str:
    """The full path of ``target`` seen from ``obj``: itself, then each enclosing scope."""
    scope: griffe.Object | None = obj
    while scope is not None:
        candidate = f"{scope.path}.{target}"
        if _exists(candidate, collection):
            return candidate
        scope = scope.parent
    return target


def _exists(path: str, collection: griffe.ModulesCollection) -> bool:
    try:
        collection.get_member(path)
    except (KeyError, ValueError, griffe.AliasResolutionError, griffe.CyclicAliasError):
        return False
    return True
