"""The project's own Python files, parsed once per test process: the tests of the project
itself (tests/project) each read every module's syntax tree, and parsing was most of their
time.  A tree is shared: read it, never change it."""

from __future__ import annotations

import ast
import functools
from collections.abc import Iterable
from pathlib import Path

# Every node of each tree parsed here, in ast.walk's order, by the tree's id: a walk over a
# module's whole tree cost as much as parsing it, and the project's tests walk each one several
# times.  The trees stay alive in _parsed's cache, so no id is ever reused for another.
_NODES: dict[int, tuple[ast.AST, ...]] = {}


def tree(path: Path) -> ast.Module:
    """The file's syntax tree, parsed again only when the file changed (its size or mtime)."""
    stat = path.stat()
    return _parsed(path, stat.st_mtime_ns, stat.st_size)


def nodes(path: Path) -> tuple[ast.AST, ...]:
    """Every node of the file's tree, in ast.walk's order."""
    return _nodes(tree(path))


def walk(node: ast.AST) -> Iterable[ast.AST]:
    """ast.walk(node), walked once for a whole tree parsed here (`tree`): any other node, such as
    a test's own `ast.parse` of a snippet, is walked afresh."""
    return _nodes(node) if id(node) in _NODES else ast.walk(node)


def _nodes(parsed: ast.AST) -> tuple[ast.AST, ...]:
    if not _NODES[id(parsed)]:
        _NODES[id(parsed)] = tuple(ast.walk(parsed))
    return _NODES[id(parsed)]


@functools.cache
def _parsed(path: Path, mtime_ns: int, size: int) -> ast.Module:
    parsed = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    _NODES[id(parsed)] = ()  # walked when first asked
    return parsed
