"""One tree of errors: every exception class of ours derives from `VaultRecallError`
(server/errors.py), and is defined in server/errors.py or, for the app's own, app/app_errors.py —
but for the two below, which never leave the module that raises them."""

from __future__ import annotations

import ast
import builtins
from pathlib import Path

from tests.support import sources
from tests.support.paths import REPO_ROOT

ERROR_MODULES = {"server/errors.py", "app/app_errors.py"}
# Signals inside one module, caught there: one names its module's own Literal (url_probe.py),
# and neither is ever told to anyone.
KEPT_IN_PLACE = {("app/clients/url_probe.py", "_Unreachable"), ("app/clients/guarded_write.py", "Changed")}

Classes = dict[tuple[str, str], list[str]]  # (module, class name) → the names of its bases


def classes_in(module: str, source: str | Path) -> Classes:
    """The classes of `source`: a module's text, or its file (parsed once, tests/support/sources.py)."""
    walked = ast.walk(ast.parse(source)) if isinstance(source, str) else sources.nodes(source)
    return {
        (module, node.name): [b.id if isinstance(b, ast.Name) else ast.unparse(b) for b in node.bases]
        for node in walked
        if isinstance(node, ast.ClassDef)
    }


def our_classes() -> Classes:
    found: Classes = {}
    for folder in ("server", "app"):
        for path in sorted((REPO_ROOT / folder).rglob("*.py")):
            found |= classes_in(str(path.relative_to(REPO_ROOT)), path)
    return found


def ancestry(key: tuple[str, str], known: Classes) -> set[str]:
    """The names of every base of the class, up the tree (a base of the same module first)."""
    names: set[str] = set()
    for base in known.get(key, []):
        names.add(base)
        same = (key[0], base)
        others = [k for k in known if k[1] == base]
        for parent in [same] if same in known else others:
            names |= ancestry(parent, known)
    return names


def is_exception(names: set[str]) -> bool:
    return any(isinstance(b := getattr(builtins, n, None), type) and issubclass(b, BaseException) for n in names)


def errors_of(known: Classes) -> set[tuple[str, str]]:
    return {key for key in known if is_exception(ancestry(key, known))}


def test_every_error_of_ours_derives_from_the_one_base() -> None:
    known = our_classes()
    errors = errors_of(known)
    assert len(errors) > 30  # the walk sees them
    stray = {key for key in errors if "VaultRecallError" not in ancestry(key, known)}
    assert stray == {("server/errors.py", "VaultRecallError")}


def test_every_error_of_ours_lives_in_one_of_the_two_error_modules() -> None:
    elsewhere = {key for key in errors_of(our_classes()) if key[0] not in ERROR_MODULES}
    assert elsewhere == KEPT_IN_PLACE


def test_the_walk_tells_an_error_outside_the_tree_and_a_namesake_that_is_no_error() -> None:
    known = classes_in("a.py", "class Stray(ValueError): ...\nclass Child(Stray): ...\n")
    known |= classes_in("b.py", "class Child: ...\n")
    assert errors_of(known) == {("a.py", "Stray"), ("a.py", "Child")}
    assert "VaultRecallError" not in ancestry(("a.py", "Child"), known)
