"""The architecture's layers, read from the import statements of every module.

`server/` never imports the tray side; inside it, vault ← obsidian ← recall ← config ←
oauth ← activity ← mcp ← http, each importing only what lies below it, and inside recall its
own modules ← finding, ranking ← answers; inside `app/`, state ← clients ←
desktop ← tray ← cli, and inside tray its own modules ← menu ← news, actions, endpoint, views
← running.  No module imports another in a circle, and nothing imports our code
by the generic top-level names `app` or `server`.  No test module imports another (what tests
share lives in tests/support/), and bench/ takes nothing from tests/ but tests.support.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support import sources
from tests.support.layers import APP_ORDER, RECALL_ORDER, SERVER_ORDER, TRAY_ORDER, below, inner_below
from tests.support.paths import REPO_ROOT

FOLDERS = {"server": "vault_recall.server", "app": "vault_recall.app"}
FORBIDDEN_IN_SERVER = {"vault_recall.app", "pystray", "PIL"}

# What each room may import of our own code (besides itself).  A module directly in a top
# folder (errors, __init__, timefmt) is the base everything in that folder may use, and imports
# no room itself; `app/__main__.py` is the entry point, above everything.
SERVER_LAYERS = below(SERVER_ORDER)
# Rooms inside a room, with the same rule one level down: the room's own modules are the base
# its inner rooms share and import none of them.
INNER_LAYERS = {("server", "recall"): inner_below(RECALL_ORDER), ("app", "tray"): inner_below(TRAY_ORDER)}
APP_LAYERS = below(APP_ORDER)


def module_name(path: Path) -> str:
    relative = path.relative_to(REPO_ROOT).with_suffix("")
    parts = list(relative.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join([FOLDERS[parts[0]], *parts[1:]])


def our_modules() -> dict[str, Path]:
    return {module_name(path): path for folder in FOLDERS for path in sorted((REPO_ROOT / folder).rglob("*.py"))}


def imports_of(path: Path) -> Iterator[str]:
    """Every module name an import statement anywhere in the file names (lazy ones too)."""
    for node in sources.nodes(path):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            yield node.module
            # `from package import module` names a module too.
            yield from (f"{node.module}.{alias.name}" for alias in node.names)


def our_imports(path: Path, modules: dict[str, Path]) -> set[str]:
    return {name for name in imports_of(path) if name in modules}


def room(module: str) -> tuple[str, str | None]:
    """('server' | 'app', the sub-package or None for a module directly in the folder)."""
    parts = module.split(".")
    side = parts[1]
    sub = parts[2] if len(parts) > 3 or (len(parts) == 3 and (REPO_ROOT / side / parts[2]).is_dir()) else None
    return side, sub


def test_the_server_never_imports_the_app_pystray_or_pil() -> None:
    offenders = {}
    for module, path in our_modules().items():
        if module.startswith("vault_recall.server"):
            bad = {name for name in imports_of(path) if name.split(".")[0] in {"pystray", "PIL"}}
            bad |= {name for name in imports_of(path) if name.startswith("vault_recall.app")}
            if bad:
                offenders[module] = sorted(bad)
    assert offenders == {}


def test_nothing_imports_our_code_by_a_generic_top_level_name() -> None:
    offenders = {}
    for folder in ("server", "app", "tests", "bench", "packaging"):
        for path in sorted((REPO_ROOT / folder).rglob("*.py")):
            bad = {name for name in imports_of(path) if name.split(".")[0] in {"server", "app"}}
            if bad:
                offenders[str(path.relative_to(REPO_ROOT))] = sorted(bad)
    assert offenders == {}


def relative_imports(tree: ast.AST, package: tuple[str, ...]) -> Iterator[str]:
    """The modules relative imports (`from .test_x import y`) name, spelt out from `package`."""
    for node in sources.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level > 0:
            base = package[: len(package) - (node.level - 1)]
            stem = ".".join([*base, *([node.module] if node.module else [])])
            yield stem
            yield from (f"{stem}.{alias.name}" for alias in node.names)


def absolute_imports_of(path: Path) -> Iterator[str]:
    yield from imports_of(path)
    yield from relative_imports(sources.tree(path), path.relative_to(REPO_ROOT).parent.parts)


def names_a_test_module(name: str) -> bool:
    return any(part.startswith("test_") for part in name.split("."))


def test_no_test_module_imports_another() -> None:
    offenders = {}
    for path in sorted((REPO_ROOT / "tests").rglob("*.py")):
        bad = {name for name in absolute_imports_of(path) if names_a_test_module(name)}
        if bad:
            offenders[str(path.relative_to(REPO_ROOT))] = sorted(bad)
    assert offenders == {}


def test_bench_takes_nothing_from_tests_but_tests_support() -> None:
    offenders = {}
    for path in sorted((REPO_ROOT / "bench").rglob("*.py")):
        bad = {
            name
            for name in absolute_imports_of(path)
            if name.split(".")[0] == "tests" and not (name + ".").startswith("tests.support.")
        }
        if bad:
            offenders[str(path.relative_to(REPO_ROOT))] = sorted(bad)
    assert offenders == {}


def test_the_test_import_check_sees_absolute_and_relative_imports_of_test_modules(tmp_path: Path) -> None:
    written = tmp_path / "m.py"
    written.write_text("from tests.server.recall.finding.test_fast_scan import scope\nimport tests.support.vaults\n")
    assert sorted(n for n in imports_of(written) if names_a_test_module(n)) == [
        "tests.server.recall.finding.test_fast_scan",
        "tests.server.recall.finding.test_fast_scan.scope",
    ]
    tree = ast.parse("from .test_fast_scan import scope\nfrom ..support import vaults\n")
    names = set(relative_imports(tree, ("tests", "server", "recall")))
    assert {n for n in names if names_a_test_module(n)} == {
        "tests.server.recall.test_fast_scan",
        "tests.server.recall.test_fast_scan.scope",
    }
    assert "tests.server.support.vaults" in names


@pytest.mark.parametrize(("side", "layers"), [("server", SERVER_LAYERS), ("app", APP_LAYERS)])
def test_each_room_imports_only_the_rooms_below_it(side: str, layers: dict[str, set[str]]) -> None:
    modules = our_modules()
    assert {room(m)[1] for m in modules if room(m)[0] == side} - {None} == set(layers), "a room is not in the table"
    offenders: dict[str, list[str]] = {}
    for module, path in modules.items():
        own_side, own_room = room(module)
        if own_side != side or module.endswith(".__main__"):
            continue  # `python -m vault_recall.app` is the very top
        for name in our_imports(path, modules):
            other_side, other_room = room(name)
            if other_side != side or other_room is None or other_room == own_room:
                continue  # the other side is checked above; the folder's base modules are for everyone
            if own_room is None or other_room not in layers[own_room]:
                offenders.setdefault(module, []).append(name)
    assert offenders == {}


def inner_room(module: str) -> str | None:
    """The room inside `<side>/<outer>/` a module is in, or None for one directly in it."""
    parts = module.split(".")[3:]
    return parts[0] if len(parts) > 1 else None


@pytest.mark.parametrize("outer", sorted(INNER_LAYERS), ids="/".join)
def test_inside_a_room_each_inner_room_imports_only_those_below_it(outer: tuple[str, str]) -> None:
    layers = INNER_LAYERS[outer]
    modules = our_modules()
    inside = {m: p for m, p in modules.items() if room(m) == outer and m.count(".") > 2}
    assert {inner_room(m) for m in inside} - {None} == set(layers), "an inner room is not in the table"
    offenders: dict[str, list[str]] = {}
    for module, path in inside.items():
        own = inner_room(module)
        for name in our_imports(path, modules):
            if room(name) != outer or name.count(".") <= 2:
                continue  # other rooms are the outer table's business; the package itself is no room
            other = inner_room(name)
            if other is None or other == own:
                continue  # the room's own modules are the base its inner rooms share
            if own is None or other not in layers[own]:
                offenders.setdefault(module, []).append(name)
    assert offenders == {}


def test_no_module_imports_another_in_a_circle() -> None:
    modules = our_modules()
    graph = {module: our_imports(path, modules) - {module} for module, path in modules.items()}
    # A package's __init__ is imported on the way to each of its modules: not an edge of ours.
    graph = {m: {n for n in edges if not m.startswith(n + ".")} for m, edges in graph.items()}
    cycles: list[list[str]] = []
    state: dict[str, int] = {}  # 1 on the current path, 2 done

    def visit(module: str, trail: list[str]) -> None:
        state[module] = 1
        for other in sorted(graph[module]):
            if state.get(other) == 1:
                cycles.append([*trail[trail.index(other) :], other])
            elif other not in state:
                visit(other, [*trail, other])
        state[module] = 2

    for module in sorted(graph):
        if module not in state:
            visit(module, [module])
    assert cycles == []


def test_every_package_says_what_it_holds_and_what_it_may_import() -> None:
    missing = []
    for folder in FOLDERS:
        for init in sorted((REPO_ROOT / folder).rglob("__init__.py")):
            doc = ast.get_docstring(sources.tree(init)) or ""
            if "import" not in doc:
                missing.append(str(init.relative_to(REPO_ROOT)))
    assert missing == []


def test_the_walker_sees_every_import_form(tmp_path: Path) -> None:
    sample = tmp_path / "m.py"
    sample.write_text(
        "import PIL.Image\nfrom pystray import Icon\nimport os, app.cli as c\nfrom . import x\n"
        "def f():\n    from vault_recall.server import errors\n"
    )
    assert set(imports_of(sample)) == {
        "PIL.Image",
        "pystray",
        "pystray.Icon",
        "os",
        "app.cli",
        "vault_recall.server",
        "vault_recall.server.errors",
    }


def test_the_layer_check_catches_an_upward_import(tmp_path: Path) -> None:
    modules = our_modules()
    upward = tmp_path / "listing.py"
    upward.write_text("from vault_recall.server.recall.records import SUBJECT_PATTERN\n")
    found = {room(name)[1] for name in our_imports(upward, modules)}
    assert found == {"recall"} and "recall" not in SERVER_LAYERS["vault"]


def test_the_serve_path_loads_neither_pystray_nor_pil() -> None:
    probe = (
        "import sys, vault_recall.app.cli.main, vault_recall.server.mcp.serve, vault_recall.server.mcp.tools\n"
        "loaded = sorted(m for m in sys.modules if m.split('.')[0] in ('pystray', 'PIL'))\n"
        "print(','.join(loaded))\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True, cwd=REPO_ROOT)
    assert done.stdout.strip() == ""
