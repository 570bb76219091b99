"""Names in server/ and app/: each used, each for one thing.

Every module-level name — function, class, constant — is used by the code that ships or
measures it (server/, app/, bench/, packaging/).  A name that only the tests use is code the
tests keep alive: it goes, or moves into the tests (tests/support/ holds such helpers).  A use
is the name read in its own module outside its definition, or in a file that imports its
module or the name from it: as a name, an attribute (`module.name`), an imported name, or a
string that is exactly the name (`getattr`).  Prose (docstrings) is no use.

And no two modules define a type (a class, a type alias, a type variable) of the same name: a
reader who meets `Record` should not have to ask which one.  Functions may share a name, as
`store.connect` and `session_bus.connect` do: the module names them apart where they are called."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

from tests.support import sources
from tests.support.paths import REPO_ROOT

DEFINING = ("server", "app")
USING = ("server", "app", "bench", "packaging")

# Names used from outside the Python code, each with the reason.  Dunder names (`__version__`,
# `__all__`) are left out anyway: Python and the build read them.
ALLOWED: dict[str, str] = {}


def python_files(root: Path, folders: tuple[str, ...]) -> Iterator[Path]:
    for folder in folders:
        for path in sorted((root / folder).rglob("*")):
            if path.suffix in (".py", ".spec") and ".venv" not in path.parts:
                yield path


def defined(tree: ast.Module) -> Iterator[tuple[str, int]]:
    """The module-level names `tree` defines, with their lines; those under a module-level
    `if` or `try` too (a definition per platform)."""
    body = list(tree.body)
    while body:
        node = body.pop(0)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            yield node.name, node.lineno
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                for name in ast.walk(target):
                    if isinstance(name, ast.Name):
                        yield name.id, node.lineno
        elif isinstance(node, ast.If | ast.Try):
            handlers = [h.body for h in node.handlers] if isinstance(node, ast.Try) else []
            body[:0] = [*node.body, *node.orelse, *(n for h in handlers for n in h)]


def _docstrings(tree: ast.Module) -> set[int]:
    """The ids of the docstring nodes in `tree`: prose that may name a name without using it;
    and of the strings of `__all__`, which name what a module offers, not what it uses."""
    found = set()
    for node in sources.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                found.add(id(first.value))
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets):
            found |= {id(item) for item in ast.walk(node.value) if isinstance(item, ast.Constant)}
    return found


def used(tree: ast.Module) -> Iterator[str]:
    """Every name `tree` reads: names, attributes, imported names, strings that are a name, and
    the names inside string annotations (`cast("Scope", x)`)."""
    prose = _docstrings(tree)
    for node in sources.walk(tree):
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Store):
            yield node.id
        elif isinstance(node, ast.Attribute):
            yield node.attr
        elif isinstance(node, ast.alias):
            yield node.name.rsplit(".", 1)[-1]
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in prose:
            yield from _names_in_string(node.value)


def _names_in_string(text: str) -> Iterator[str]:
    if text.isidentifier():
        yield text
        return
    try:
        expression = ast.parse(text, mode="eval")
    except SyntaxError:
        return
    for node in ast.walk(expression):
        if isinstance(node, ast.Name):
            yield node.id
        elif isinstance(node, ast.Attribute):
            yield node.attr


def module_name(where: str) -> str:
    """The import name of the module at `where` (a path under the root, with '/')."""
    parts = where.removesuffix(".py").removesuffix(".spec").split("/")
    parts = parts[:-1] if parts[-1] == "__init__" else parts
    return ".".join(["vault_recall", *parts] if parts[0] in DEFINING else parts)


def imported(tree: ast.Module) -> set[str]:
    """The modules `tree` imports, and each name it imports from one as `module.name` (which
    may be a module too)."""
    found = set()
    for node in sources.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            found |= {node.module, *(f"{node.module}.{alias.name}" for alias in node.names)}
        elif isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
    return found


def unused_names(root: Path, defining: tuple[str, ...] = DEFINING, using: tuple[str, ...] = USING) -> list[str]:
    """`path:line name` for each module-level name under `defining` that neither its own module
    nor a file under `using` importing it reads, dunder and allowed names aside."""
    trees = {
        path.relative_to(root).as_posix(): sources.tree(path)
        for path in python_files(root, tuple(dict.fromkeys((*defining, *using))))
    }
    reads = {where: set(used(tree)) for where, tree in trees.items()}
    imports = {where: imported(tree) for where, tree in trees.items() if where.split("/", 1)[0] in using}
    unused = []
    for where, tree in trees.items():
        if where.split("/", 1)[0] not in defining:
            continue
        module = module_name(where)
        for name, line in defined(tree):
            if name in ALLOWED or (name.startswith("__") and name.endswith("__")) or name in reads[where]:
                continue
            users = (other for other, names in imports.items() if module in names or f"{module}.{name}" in names)
            if not any(name in reads[other] for other in users if other != where):
                unused.append(f"{where}:{line} {name}")
    return unused


def test_every_module_level_name_of_server_and_app_is_used_outside_the_tests() -> None:
    unused = unused_names(REPO_ROOT)
    assert unused == [], "used by nothing, or only by tests (remove it, or move it into the tests):\n" + "\n".join(
        unused
    )


def types_named_twice(root: Path, defining: tuple[str, ...] = DEFINING) -> dict[str, list[str]]:
    """Each capitalised module-level name (not a CONSTANT) defined in more than one module."""
    where: dict[str, list[str]] = {}
    for path in python_files(root, defining):
        for name, _ in defined(sources.tree(path)):
            if name.lstrip("_")[:1].isupper() and not name.isupper():
                where.setdefault(name, []).append(path.relative_to(root).as_posix())
    return {name: paths for name, paths in where.items() if len(paths) > 1}


def test_no_two_modules_of_server_and_app_define_a_type_of_the_same_name() -> None:
    assert types_named_twice(REPO_ROOT) == {}


def test_a_type_defined_twice_is_found(tmp_path: Path) -> None:
    (tmp_path / "server").mkdir()
    (tmp_path / "app").mkdir()
    (tmp_path / "server/results.py").write_text("class Record:\n    pass\n\n\nLIMIT = 1\n", encoding="utf-8")
    (tmp_path / "app/tally.py").write_text("Record = tuple[str, int]\nLIMIT = 2\n", encoding="utf-8")
    assert types_named_twice(tmp_path) == {"Record": ["server/results.py", "app/tally.py"]}


def test_a_name_only_a_test_uses_is_found(tmp_path: Path) -> None:
    files = {
        "server/parts.py": '"""Parts."""\n\nLIMIT = 3\n\n\ndef used() -> int:\n    return LIMIT\n\n\n'
        'def only_tested() -> int:\n    """used() is not this."""\n    return 1\n\n\nclass _Left:\n    pass\n',
        "app/main.py": "from vault_recall.server.parts import used\n\n__version__ = '1'\nprint(used())\n",
        "tests/test_parts.py": "from vault_recall.server.parts import _Left, only_tested\n\nprint(only_tested())\n",
        # The same spelling in a file that does not import the module is no use.
        "bench/run.py": "def only_tested() -> None:\n    print(_Left)\n",
    }
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text, encoding="utf-8")
    assert unused_names(tmp_path) == ["server/parts.py:10 only_tested", "server/parts.py:15 _Left"]
    (tmp_path / "app/more.py").write_text(
        "from vault_recall.server import parts\n\ngetattr(parts, '_Left')\nparts.only_tested()\n", encoding="utf-8"
    )
    assert unused_names(tmp_path) == []


def test_a_name_under_a_module_level_if_or_try_counts_and_a_string_annotation_uses() -> None:
    tree = ast.parse(
        "import sys\nif sys.platform == 'linux':\n    def a() -> None: ...\nelse:\n    B = 1\n"
        "try:\n    import c\nexcept ImportError:\n    C = None\n"
    )
    assert [name for name, _ in defined(tree)] == ["a", "B", "C"]
    assert {"Scope", "dict", "Any"} <= set(used(ast.parse("cast('Scope', x)\ny: 'dict[str, Any]'\n")))
    assert "hidden" not in set(used(ast.parse('def f() -> None:\n    """hidden"""\n')))
    assert "offered" not in set(used(ast.parse("__all__ = ['offered']\n")))
