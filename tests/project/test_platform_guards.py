"""No name that one supported platform lacks is used outside a platform guard.

Which names a platform lacks is read from typeshed's standard-library stubs (the copy mypy
brings): a name the stub defines only under `sys.platform` conditions false for Windows, macOS
or Linux on Python 3.11 (`os.fchmod`, `os.geteuid`, `os.mkfifo`, `signal.SIGKILL`, every name of
`fcntl`, …; `msvcrt` the other way) is platform-only, and a module none of whose names a
platform has (`fcntl`, `termios`, `pwd` on Windows; `msvcrt`, `winreg` elsewhere) may not be
imported there.  A guard is what both Python and mypy take for one: an `if`, a conditional
expression or an `and` testing `sys.platform`, `os.name` or `hasattr`, an earlier
`if <such test>: <skip, return or raise>` in the same block (or `assert <such test>`), or a
skipif on the test, its class or its module (`pytestmark`).  mypy run for each platform
(tests/support/typecheck.py) checks the typing; this checks the names the running code and the
tests reach, wherever they are.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

from tests.support import sources
from tests.support.paths import REPO_ROOT
from tests.support.platform_names import PLATFORMS, missing_module, missing_name

SCANNED = ("server", "app", "tests", "bench")


def _is_guard(test: ast.expr) -> bool:
    for node in ast.walk(test):
        if isinstance(node, ast.Attribute) and ast.unparse(node) in ("sys.platform", "os.name"):
            return True
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "hasattr":
            return True
    return False


def _is_skipif(decorator: ast.expr) -> bool:
    return (
        isinstance(decorator, ast.Call)
        and ast.unparse(decorator.func).endswith("skipif")
        and any(_is_guard(argument) for argument in decorator.args)
    )


def _ends_the_block(statement: ast.stmt) -> bool:
    """`if <guard>: …` whose body ends in a skip, a return or a raise, or `assert <guard>`."""
    if isinstance(statement, ast.Assert):
        return _is_guard(statement.test)
    if not isinstance(statement, ast.If) or not _is_guard(statement.test):
        return False
    last = statement.body[-1]
    if isinstance(last, ast.Return | ast.Raise | ast.Continue):
        return True
    return isinstance(last, ast.Expr) and isinstance(last.value, ast.Call) and "skip" in ast.unparse(last.value.func)


def _guarded(node: ast.AST, parents: dict[ast.AST, ast.AST]) -> bool:
    child, parent = node, parents.get(node)
    while parent is not None:
        if isinstance(parent, ast.If | ast.IfExp | ast.While) and child is not parent.test and _is_guard(parent.test):
            return True
        # `hasattr(os, "x") and os.x`, `not hasattr(os, "x") or os.x()`
        if isinstance(parent, ast.BoolOp) and child in parent.values:
            earlier = parent.values[: parent.values.index(child)]  # type: ignore[arg-type]
            if any(_is_guard(operand) for operand in earlier):
                return True
        if isinstance(parent, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) and any(
            _is_skipif(decorator) for decorator in parent.decorator_list
        ):
            return True
        for field in ("body", "orelse", "finalbody"):
            block = getattr(parent, field, None)
            if (
                isinstance(block, list)
                and child in block
                and any(_ends_the_block(earlier) for earlier in block[: block.index(child)])
            ):
                return True
        child, parent = parent, parents.get(parent)
    return False


def _module_skipped(tree: ast.Module) -> bool:
    for statement in tree.body:
        if isinstance(statement, ast.Assign) and any(
            isinstance(target, ast.Name) and target.id == "pytestmark" for target in statement.targets
        ):
            return any(isinstance(node, ast.Call) and _is_skipif(node) for node in ast.walk(statement.value))
    return False


# In the tests: exact permission bits, which Windows does not keep (only a read-only bit);
# tests/support/posix.py's assert_mode checks them where they exist.
MODE_BITS = "stat.S_IMODE"


def unguarded(source: str | Path, name: str = "<source>", *, modes: bool = False) -> list[str]:
    """Each use in `source` (a module's text, or its file) of a name some platform lacks, outside
    a guard: 'file:line: what'; with `modes`, each reading of exact permission bits too."""
    tree = ast.parse(source) if isinstance(source, str) else sources.tree(source)
    if _module_skipped(tree):
        return []
    modules: dict[str, str] = {}  # local name -> standard-library module
    found: list[tuple[ast.AST, str]] = []
    for node in sources.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                modules[alias.asname or alias.name] = alias.name
                if (platform := missing_module(alias.name)) is not None:
                    found.append((node, f"import {alias.name} (no such module on {platform})"))
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if (platform := missing_module(node.module)) is not None:
                found.append((node, f"from {node.module} import … (no such module on {platform})"))
            for alias in node.names:
                if (platform := missing_name(node.module, alias.name)) is not None:
                    found.append((node, f"{node.module}.{alias.name} (not on {platform})"))
    for node in sources.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in modules:
            module = modules[node.value.id]
            if (platform := missing_name(module, node.attr)) is not None:
                found.append((node, f"{module}.{node.attr} (not on {platform})"))
            elif modes and f"{module}.{node.attr}" == MODE_BITS:
                found.append((node, f"{MODE_BITS} (Windows keeps a read-only bit only)"))
    if not found:
        return []  # most modules: no platform-only name, so no guard to look for
    parents = {child: parent for parent in sources.walk(tree) for child in ast.iter_child_nodes(parent)}
    found.sort(key=lambda each: (getattr(each[0], "lineno", 0), each[1]))
    return [f"{name}:{getattr(node, 'lineno', 0)}: {what}" for node, what in found if not _guarded(node, parents)]


def test_the_stubs_know_what_windows_and_macos_lack() -> None:
    # The stubs read as expected: these are the names Windows lacks under Python 3.11.
    assert missing_name("os", "fchmod") == "win32" and missing_name("os", "geteuid") == "win32"
    assert missing_name("signal", "SIGKILL") == "win32" and missing_module("fcntl") == "win32"
    assert missing_module("msvcrt") == "linux" and missing_name("os", "chmod") is None
    assert missing_name("os", "sched_getaffinity") == "darwin"


def test_an_unguarded_use_is_found_and_a_guarded_one_is_not() -> None:
    bare = "import os\nimport signal\nos.fchmod(3, 0o600)\nX = signal.SIGKILL\nimport fcntl\n"
    assert [line.split(": ", 1)[1] for line in unguarded(bare)] == [
        "os.fchmod (not on win32)",
        "signal.SIGKILL (not on win32)",
        "import fcntl (no such module on win32)",
    ]
    guarded = """
import os, sys, pytest
if sys.platform != "win32":
    import fcntl
ROOT = hasattr(os, "geteuid") and os.geteuid() == 0

@pytest.mark.skipif(sys.platform == "win32", reason="POSIX")
def test_a() -> None:
    os.mkfifo("p")

def test_b() -> None:
    if os.name == "nt":
        pytest.skip("POSIX")
    os.mkfifo("p")
"""
    assert unguarded(guarded) == []
    mode = "import stat\nassert stat.S_IMODE(0o100600) == 0o600\n"
    assert unguarded(mode) == [] and unguarded(mode, modes=True) == [
        "<source>:2: stat.S_IMODE (Windows keeps a read-only bit only)"
    ]


def test_every_platform_only_name_is_guarded() -> None:
    found = [
        problem
        for folder in SCANNED
        for path in sorted((REPO_ROOT / folder).rglob("*.py"))
        for problem in unguarded(path, str(path.relative_to(REPO_ROOT)), modes=folder == "tests")
    ]
    assert found == [], f"guard these with a sys.platform, os.name or hasattr check (or a skipif): {found}"


def test_the_platforms_are_the_ones_mypy_is_run_for() -> None:
    assert sys.platform in PLATFORMS or sys.platform.startswith("freebsd")
