"""server.json, our entry for the MCP Registry: it holds what the registry's schema
(static.modelcontextprotocol.io/schemas/2025-09-29/server.schema.json) requires of a server and
of a package, with nothing a package may not have; it names our PyPI package at the newest
release of the changelog, started as `serve`; and README, which PyPI shows, carries the
`mcp-name:` line by which the registry checks that the package is ours."""

from __future__ import annotations

import json
import re
import tomllib
from typing import Any

from tests.support.paths import REPO_ROOT
from vault_recall.server.config.client_id import CLIENT_ID_PATTERN

SCHEMA = "https://static.modelcontextprotocol.io/schemas/2025-09-29/server.schema.json"
# The schema's required fields and a package's allowed ones (its `additionalProperties: false`).
SERVER_REQUIRED = {"name", "description", "version"}
PACKAGE_REQUIRED = {"registryType", "identifier", "version", "transport"}
PACKAGE_ALLOWED = PACKAGE_REQUIRED | {
    "registryBaseUrl", "fileSha256", "runtimeHint", "runtimeArguments", "packageArguments", "environmentVariables",
}  # fmt: skip
NAME = re.compile(r"^[a-zA-Z0-9.-]+/[a-zA-Z0-9._-]+$")
RANGE = re.compile(r"[\^~<>=*]|\.x$|^latest$")


def entry() -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads((REPO_ROOT / "server.json").read_text(encoding="utf-8"))
    return loaded


def newest_release() -> str:
    changelog = (REPO_ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    found = re.search(r"^## \[(\d+\.\d+\.\d+)\] - \d{4}-\d{2}-\d{2}$", changelog, re.M)
    assert found is not None, "CHANGELOG.md has no dated release"
    return found[1]


def test_the_entry_has_what_the_registry_schema_requires() -> None:
    server = entry()
    assert server["$schema"] == SCHEMA
    assert server.keys() >= SERVER_REQUIRED
    assert NAME.match(server["name"]) and 3 <= len(server["name"]) <= 200
    assert re.fullmatch(r"io\.github\.[A-Za-z0-9-]+/vault-recall", server["name"])
    assert 1 <= len(server["description"]) <= 100
    assert not RANGE.search(server["version"])
    assert server["repository"]["source"] == "github" and server["repository"]["url"].startswith("https://github.com/")
    for package in server["packages"]:
        assert PACKAGE_REQUIRED <= package.keys() <= PACKAGE_ALLOWED, sorted(package)
        assert package["transport"] == {"type": "stdio"}
        assert package["version"] != "latest" and not RANGE.search(package["version"])
        for argument in package.get("packageArguments", []):
            assert argument["type"] in ("positional", "named"), argument
            assert "name" in argument if argument["type"] == "named" else {"value", "valueHint"} & argument.keys()


def test_the_entry_is_our_pypi_package_at_the_newest_release_started_as_serve() -> None:
    server = entry()
    (package,) = server["packages"]
    project = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert (package["registryType"], package["identifier"]) == ("pypi", project["name"])
    assert server["version"] == package["version"] == newest_release()
    arguments = package["packageArguments"]
    assert arguments[0] == {"type": "positional", "value": "serve"}
    client = next(argument for argument in arguments if argument.get("name") == "--client")
    assert client["isRequired"] and CLIENT_ID_PATTERN.fullmatch(client["default"])
    assert package["runtimeHint"] == "uvx"  # `uvx vault-recall serve …`


def test_readme_carries_the_registry_s_ownership_line() -> None:
    readme = (REPO_ROOT / "README.md").read_text(encoding="utf-8")
    assert f"mcp-name: {entry()['name']}" in readme
