"""CONTRIBUTING's house rules that the code itself can show, checked on every module: a docstring
that says what the module holds, modules small enough to read at once, no `print()` in the
server (stdout is the MCP wire), and nothing that writes in the layers that read the vault."""

from __future__ import annotations

import ast
import re
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support import sources
from tests.support.paths import REPO_ROOT

CODE = ("server", "app")
EVERY = ("server", "app", "tests", "bench")
MAX_LINES = 400
# The server's layers that read a vault: none of them writes anything, anywhere (the config,
# the activity and OAuth stores are written by their own layers, into the state folder).
VAULT_READERS = ("server/vault", "server/obsidian", "server/recall")

# Calls that change a file system: methods of Path and os, and shutil's functions.  (`str.replace`
# and `dict.copy` are no writes: `os.replace` and `shutil.copy` are looked for by their module.)
WRITING_METHODS = {
    *("write_text", "write_bytes", "writelines", "touch", "mkdir", "makedirs", "rmdir", "unlink", "remove"),
    *("rename", "chmod", "symlink_to", "hardlink_to"),
}
MODULE_WRITES = {"os": {"replace"}, "shutil": {"rmtree", "copy", "copy2", "copyfile", "copytree", "move"}}
WRITING_FLAGS = {"O_WRONLY", "O_RDWR", "O_CREAT", "O_APPEND", "O_TRUNC"}


def modules(*folders: str, root: Path = REPO_ROOT) -> Iterator[Path]:
    for folder in folders:
        yield from sorted((root / folder).rglob("*.py"))


def shown(path: Path, root: Path = REPO_ROOT) -> str:
    return path.relative_to(root).as_posix()


def test_every_module_says_what_it_holds_in_a_docstring() -> None:
    """(An empty `__init__.py`, which only makes a folder of tests a package, holds nothing.)"""
    texts = {shown(p): p.read_text(encoding="utf-8") for p in modules(*EVERY)}
    missing = [shown(p) for p in modules(*EVERY) if texts[shown(p)].strip() and not ast.get_docstring(sources.tree(p))]
    assert missing == []


def test_no_module_of_the_server_or_the_app_is_over_400_lines() -> None:
    """Small modules, named for what they hold: a longer one holds two things (split it)."""
    long = {shown(p): n for p in modules(*CODE) if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_LINES}
    assert long == {}


def prints(tree: ast.AST) -> list[int]:
    """The lines of `tree` that call print()."""
    return [
        node.lineno
        for node in sources.walk(tree)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "print"
    ]


def writes(tree: ast.AST) -> list[int]:
    """The lines of `tree` that call something that writes to a file system: a writing method,
    `os.replace`, or `open`/`os.open` for writing."""
    found = []
    for node in sources.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
        module = func.value.id if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) else None
        mode = [a for a in node.args[1:2] if isinstance(a, ast.Constant)] + [
            k.value for k in node.keywords if k.arg == "mode" and isinstance(k.value, ast.Constant)
        ]
        flags = {n.attr if isinstance(n, ast.Attribute) else n.id for n in ast.walk(node) if isinstance(n, ast.Name)}
        flags |= {n.attr for n in ast.walk(node) if isinstance(n, ast.Attribute)}
        if (
            name in WRITING_METHODS
            or name in MODULE_WRITES.get(module or "", ())
            or (name == "open" and any(isinstance(m.value, str) and set(m.value) & set("wax+") for m in mode))
            or (name == "open" and module == "os" and flags & WRITING_FLAGS)
        ):
            found.append(node.lineno)
    return found


def test_the_server_never_prints_stdout_is_the_wire() -> None:
    found = {shown(p): lines for p in modules("server") if (lines := prints(sources.tree(p)))}
    assert found == {}, "serve writes only protocol messages to stdout: log, or write to stderr"


def test_the_layers_that_read_the_vault_write_nothing() -> None:
    found = {shown(p): lines for p in modules(*VAULT_READERS) if (lines := writes(sources.tree(p)))}
    assert found == {}, "nothing writes into the vault: the layers that read it write nowhere"


@pytest.mark.parametrize(
    ("source", "written"),
    [
        ("Path('x').write_text('y')", True),
        ("os.replace(a, b)", True),
        ("open(p, 'wb')", True),
        ("open(p, mode='a')", True),
        ("os.open(p, os.O_WRONLY | os.O_CREAT)", True),
        ("shutil.rmtree(p)", True),
        ("open(p, 'rb').read()", False),
        ("os.open(p, os.O_RDONLY)", False),
        ("'a-b'.replace('-', '')", False),
        ("shutil.copy(a, b)", True),
        ("envelope.copy()", False),
        ("print('x', file=sys.stderr)", False),
    ],
)
def test_the_write_check_knows_a_write_from_a_read(source: str, written: bool) -> None:
    assert bool(writes(ast.parse(source))) == written


def test_the_print_check_finds_a_print_and_only_that() -> None:
    tree = ast.parse("import logging\n\nlogging.info('x')\nprint('to stdout')\nsys.stdout.write('x')\n")
    assert prints(tree) == [4]


def names_of_tests(tree: ast.AST) -> Iterator[str]:
    for node in sources.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name.startswith("test_"):
            yield node.name


def test_every_test_s_name_is_a_sentence_of_three_words_or_more() -> None:
    """A sentence that says what holds ('test_a_code_expires'), not a topic ('test_links'):
    three words is what a test can check of it; whether they say what holds, a reviewer does."""
    short = [
        f"{shown(p)}::{name}"
        for p in modules("tests")
        for name in names_of_tests(sources.tree(p))
        if len(name.split("_")) - 1 < 3
    ]
    assert short == []


def test_no_test_uses_a_mock_object() -> None:
    """Mocks only where a real part cannot run here: such a test sets what it needs by hand
    (monkeypatch, a stand-in process); none takes unittest.mock's objects that accept any call."""
    mocking = [shown(p) for p in modules("tests") if "unittest.mock" in p.read_text(encoding="utf-8")]
    mocking += [shown(p) for p in modules("tests") if "from unittest import mock" in p.read_text(encoding="utf-8")]
    assert [p for p in mocking if p != shown(Path(__file__))] == []


# A test count or a suite's running time in prose: the next test or the next machine makes it
# false.  pytest's last line says both.  (docs/benchmarks.md reports measured figures, each with
# how it was measured: benchmarks, not the suite.)
SUITE_WORDS = re.compile(r"\b(?:tests?|suite|fast loop|pytest)\b", re.IGNORECASE)
COUNT_OR_TIME = re.compile(
    r"\b\d[\d,]*\s+(?:tests|test cases|property tests)\b(?!/)"
    r"|\b(?:in|under|about|takes?|within)\s+(?:well\s+under\s+)?(?:a|an|\d+(?:\.\d+)?)\s+(?:seconds?|minutes?|hours?)\b",
    re.IGNORECASE,
)


def counts_and_times(text: str) -> list[str]:
    """The paragraphs of `text` that speak of the tests and give a count of them or a time."""
    return [
        " ".join(paragraph.split())[:120]
        for paragraph in re.split(r"\n\s*\n", text)
        if SUITE_WORDS.search(paragraph) and COUNT_OR_TIME.search(paragraph)
    ]


def test_no_page_gives_a_test_count_or_a_suite_time() -> None:
    pages = [REPO_ROOT / "README.md", REPO_ROOT / "CONTRIBUTING.md", REPO_ROOT / "tests" / "README.md"]
    pages += [p for p in sorted((REPO_ROOT / "docs").glob("*.md")) if p.name != "benchmarks.md"]
    found = {shown(p): said for p in pages if (said := counts_and_times(p.read_text(encoding="utf-8")))}
    assert found == {}


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("The fast loop runs the unit tests\nin well under a minute.", True),
        ("It has 1,234 tests.", True),
        ("pytest -q -n 2 tests/server tests/app", False),
        ("The full suite must stay under 15 minutes on 2 cores.", True),
        ("Requests not approved expire after 15 minutes.", False),
        ("The fast loop runs the unit tests on both cores.", False),
    ],
)
def test_the_count_check_finds_a_suite_time_and_not_a_product_s_time(text: str, found: bool) -> None:
    assert bool(counts_and_times(text)) == found


def test_no_symlink_is_tracked() -> None:
    """A symlink committed by mistake — a developer's `.venv` pointing at a venv elsewhere, as
    once happened — breaks README's `python3 -m venv .venv` in every fresh clone."""
    if not (REPO_ROOT / ".git").exists() or shutil.which("git") is None:
        pytest.skip("not a git checkout with git installed (a wheel or an sdist has no index to read)")
    index = subprocess.run(
        ["git", "ls-files", "--stage"], cwd=REPO_ROOT, capture_output=True, text=True, check=True
    ).stdout
    assert [line.split("\t", 1)[1] for line in index.splitlines() if line.startswith("120000 ")] == []
