"""Every package the code imports is declared in pyproject.toml: a package that arrives only as
a dependency of a dependency (pydantic and mcp_types came with the MCP SDK) may be dropped or
changed by that project at any release, and our imports would break with no change of ours.
The code's imports are read from its syntax (every `import` in server/ and app/, top level or
not); each is mapped to the distribution that installs it here (importlib.metadata)."""

from __future__ import annotations

import ast
import importlib.metadata
import sys
import tomllib

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from tests.support import sources
from tests.support.paths import REPO_ROOT

# Imported only where installed by hand or by the system, so absent from this environment's
# metadata: the module, and the distribution an extra of pyproject.toml declares for it.
NOT_INSTALLED_HERE = {"gi": "PyGObject"}  # the [gtk] extra; the system's python3-gi otherwise


def imported_top_level_names() -> dict[str, str]:
    """Top-level module name → the first file importing it (absolute imports only)."""
    found: dict[str, str] = {}
    for folder in ("server", "app"):
        for path in sorted((REPO_ROOT / folder).rglob("*.py")):
            for node in sources.nodes(path):
                if isinstance(node, ast.Import):
                    names = [alias.name for alias in node.names]
                elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                    names = [node.module]
                else:
                    continue
                for name in names:
                    found.setdefault(name.split(".")[0], path.relative_to(REPO_ROOT).as_posix())
    return found


def declared() -> set[str]:
    project = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    requirements = [*project["dependencies"], *project["optional-dependencies"]["gtk"]]
    return {canonicalize_name(Requirement(text).name) for text in requirements}


def test_every_imported_package_is_declared_in_pyproject() -> None:
    installed_by = importlib.metadata.packages_distributions()
    ours = {"vault_recall", "__future__"}
    undeclared, unknown = [], []
    for module, where in sorted(imported_top_level_names().items()):
        if module in ours or module in sys.stdlib_module_names:
            continue
        distributions = installed_by.get(module) or [NOT_INSTALLED_HERE.get(module, "")]
        if not distributions[0]:
            unknown.append(f"{module} ({where})")
        elif not {canonicalize_name(d) for d in distributions} & declared():
            undeclared.append(f"{module} from {', '.join(distributions)} ({where})")
    assert unknown == [], "imported, but installed by no distribution here"
    assert undeclared == [], "imported, but not declared in pyproject.toml's dependencies"


def test_the_import_scan_sees_the_sdk_and_its_types() -> None:
    names = imported_top_level_names()
    assert {"mcp", "mcp_types", "pydantic", "yaml"} <= names.keys()
