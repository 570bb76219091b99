"""Which names of the standard library a supported platform lacks, read from typeshed's stubs
(the copy mypy brings): a name a stub defines only under `sys.platform` conditions false for
Windows, macOS or Linux on Python 3.11 (the oldest we support) is platform-only.  Used by
tests/project/test_platform_guards.py and the Windows imitation (tests/support/cli_walk.py)."""

from __future__ import annotations

import ast
import functools
from collections.abc import Iterator
from pathlib import Path

import mypy

STUBS = Path(mypy.__file__).parent / "typeshed" / "stdlib"
PLATFORMS = ("linux", "darwin", "win32")
OLDEST = (3, 11)  # requires-python's lowest: Windows has os.fchmod only from 3.13


def _condition(test: ast.expr, platform: str) -> bool | None:
    """A stub's `if` condition on `platform` under Python 3.11: True, False or None (unknown)."""
    if isinstance(test, ast.BoolOp):
        values = [_condition(v, platform) for v in test.values]
        if isinstance(test.op, ast.And):
            return False if False in values else (None if None in values else True)
        return True if True in values else (None if None in values else False)
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        inner = _condition(test.operand, platform)
        return None if inner is None else not inner
    if isinstance(test, ast.Compare) and len(test.ops) == 1:
        left, op, right = ast.unparse(test.left), test.ops[0], test.comparators[0]
        try:
            value = ast.literal_eval(right)
        except ValueError:
            return None
        if left == "sys.platform" and isinstance(op, ast.Eq | ast.NotEq):
            return bool((platform == value) == isinstance(op, ast.Eq))
        if left == "sys.version_info" and isinstance(value, tuple):
            compare = {ast.GtE: tuple.__ge__, ast.Gt: tuple.__gt__, ast.Lt: tuple.__lt__, ast.LtE: tuple.__le__}
            for kind, function in compare.items():
                if isinstance(op, kind):
                    return bool(function(OLDEST, value))
    if isinstance(test, ast.Call) and ast.unparse(test.func) == "sys.platform.startswith":
        return platform.startswith(ast.literal_eval(test.args[0]))
    return None


def _defined(body: list[ast.stmt], platform: str) -> Iterator[str]:
    for statement in body:
        if isinstance(statement, ast.If):
            value = _condition(statement.test, platform)
            if value is not False:
                yield from _defined(statement.body, platform)
            if value is not True:
                yield from _defined(statement.orelse, platform)
        elif isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            yield statement.name
        elif isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name):
            yield statement.target.id
        elif isinstance(statement, ast.Assign):
            yield from (target.id for target in statement.targets if isinstance(target, ast.Name))
        elif isinstance(statement, ast.Import | ast.ImportFrom):
            yield from (alias.asname for alias in statement.names if alias.asname)  # re-exports


@functools.cache
def _stub(module: str) -> dict[str, set[str]] | None:
    """The names the stub of `module` defines on each platform, or None when there is no stub."""
    for path in (STUBS / f"{module}.pyi", STUBS / module / "__init__.pyi"):
        if path.exists():
            tree = ast.parse(path.read_text(encoding="utf-8"))
            return {platform: set(_defined(tree.body, platform)) for platform in PLATFORMS}
    return None


def missing_module(module: str) -> str | None:
    """A platform `module` does not exist on (its stub defines nothing there), if any."""
    names = _stub(module)
    if names is None or not any(names.values()):
        return None
    return next((platform for platform in PLATFORMS if not names[platform]), None)


def missing_name(module: str, name: str) -> str | None:
    """A platform lacking `module.name` that another platform has, if any."""
    names = _stub(module)
    if names is None or not any(name in found for found in names.values()):
        return None
    return next((platform for platform in PLATFORMS if name not in names[platform]), None)


def missing_on(module: str, platform: str) -> set[str]:
    """The names of `module` another platform has and `platform` lacks."""
    names = _stub(module)
    if names is None:
        return set()
    return set().union(*names.values()) - names[platform]
