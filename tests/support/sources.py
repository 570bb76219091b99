"""The project's own Python files, parsed once per test process: the tests of the project
itself (tests/project) each read every module's syntax tree, and parsing was most of their
time.  A tree is shared: read it, never change it."""

from __future__ import annotations

import ast
import functools
from pathlib import Path


def tree(path: Path) -> ast.Module:
    """The file's syntax tree, parsed again only when the file changed (its size or mtime)."""
    stat = path.stat()
    return _parsed(path, stat.st_mtime_ns, stat.st_size)


def nodes(path: Path) -> tuple[ast.AST, ...]:
    """Every node of the file's tree, in ast.walk's order."""
    stat = path.stat()
    return _walked(path, stat.st_mtime_ns, stat.st_size)


@functools.cache
def _parsed(path: Path, mtime_ns: int, size: int) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"), filename=str(path))


@functools.cache
def _walked(path: Path, mtime_ns: int, size: int) -> tuple[ast.AST, ...]:
    return tuple(ast.walk(_parsed(path, mtime_ns, size)))
