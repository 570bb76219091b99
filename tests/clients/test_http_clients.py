"""Real third-party MCP clients against a real `vault-recall http`: the MCP Inspector's CLI
(`--transport http`, with the token as a header) and the official conformance suite (npm
`@modelcontextprotocol/conformance`, `server --url`), on 127.0.0.1."""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

import pytest

from tests.support.auth_proxy import auth_proxy
from tests.support.e2e import copy_sample_vault
from tests.support.http_e2e import running_endpoint
from tests.support.npm_tools import CONFORMANCE, INSPECTOR, node_command
from tests.support.parts import need
from vault_recall.app.state.config_store import issue_token, update_config
from vault_recall.server.config.config_file import Config, VaultEntry

pytestmark = [pytest.mark.e2e]

# The conformance scenarios that apply to a server with our tools and no prompts, resources,
# logging, completion, sampling or elicitation (the others call the suite's own fixture tools).
# tools-call-simple-text and tools-call-error are left out although they pass: they call tools
# named test_* that we do not have, and pass on our "unknown tool" error — they test nothing here.
SCENARIOS = (
    "server-initialize",
    "ping",
    "tools-list",
    "resources-list",
    "prompts-list",
    "server-sse-multiple-streams",
    "dns-rebinding-protection",
)


RECALL_ARGS = ("--tool-arg", "subject=build-system", "--tool-arg", "query=bazel")


def setup_vault(tmp_path: Path, client: str) -> str:
    vault = copy_sample_vault(tmp_path / "Sample vault")
    update_config(lambda c: Config(vaults=(VaultEntry("Sample", str(vault)),), active_vault="Sample"))
    return issue_token(client)[0]


def tool_env(tmp_path: Path) -> dict[str, str]:
    """The npm tools write catalogs and results under HOME: a temporary one."""
    home = tmp_path / "npm-home"
    home.mkdir(exist_ok=True)
    return {**os.environ, "HOME": str(home), "MCP_CATALOG_PATH": str(home / "catalog.json")}


def test_the_inspector_cli_lists_and_calls_our_tools_over_http_with_a_token(tmp_path: Path) -> None:
    need("inspector")
    node = node_command(INSPECTOR)
    token = setup_vault(tmp_path, "inspector")
    with running_endpoint() as endpoint:
        base = [*node, "--cli", endpoint.url, "--transport", "http", "--header", f"Authorization: Bearer {token}"]
        listed = subprocess.run(
            [*base, "--method", "tools/list"], capture_output=True, text=True, timeout=120, env=tool_env(tmp_path)
        )
        assert listed.returncode == 0, listed.stderr
        names = {tool["name"] for tool in json.loads(listed.stdout)["tools"]}
        assert names == {
            "recall_context",
            "list_subjects",
            "recall_activity",
            "read_note",
            "search_notes",
            "get_backlinks",
        }
        called = subprocess.run(
            [*base, "--method", "tools/call", "--tool-name", "recall_context", *RECALL_ARGS],
            capture_output=True,
            text=True,
            timeout=120,
            env=tool_env(tmp_path),
        )
        assert called.returncode == 0, called.stderr
        result = json.loads(called.stdout)
        assert result["structuredContent"]["records"][0]["path"] == "Projects/Build/Build decision.md"
        refused = subprocess.run(
            [*node, "--cli", endpoint.url, "--transport", "http", "--method", "tools/list"],
            capture_output=True,
            text=True,
            timeout=120,
            env=tool_env(tmp_path),
        )
        assert refused.returncode != 0  # no token: 401
        assert token not in endpoint.log()


def test_the_official_conformance_scenarios_that_apply_to_our_server_pass(tmp_path: Path) -> None:
    need("conformance")
    node = node_command(CONFORMANCE)
    token = setup_vault(tmp_path, "conformance")
    out = tmp_path / "conformance"
    with running_endpoint() as endpoint, auth_proxy(endpoint.port, token) as port:
        # One run of the whole active suite (one Node start); the scenarios that do not apply fail
        # on missing fixtures, so the exit code is not ours to judge: each applicable check is.
        run = subprocess.run(
            [*node, "server", "--url", f"http://127.0.0.1:{port}/mcp", "-o", str(out)],
            capture_output=True,
            text=True,
            timeout=300,
            env=tool_env(tmp_path),
        )
    results: dict[str, list[str]] = {}
    for checks in out.glob("server-*/checks.json"):
        scenario = scenario_of(checks.parent.name)
        results[scenario] = [f"{c['id']}: {c['status']}" for c in json.loads(checks.read_text(encoding="utf-8"))]
    assert set(SCENARIOS) <= set(results), (sorted(results), run.stdout[-2000:])
    for scenario in SCENARIOS:
        # INFO: a check that does not apply (the SSE one, as we answer calls with plain JSON)
        lines = results[scenario]
        assert any(line.endswith(": SUCCESS") for line in lines), lines
        assert all(line.endswith((": SUCCESS", ": INFO")) for line in lines), lines


# The suite names each result folder `server-<scenario>-<ISO time with dashes>Z`.
_RESULT_FOLDER = re.compile(r"server-(?P<scenario>.+)-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-\d{3}Z")


def scenario_of(folder: str) -> str:
    """The scenario a result folder holds (the time after it may itself hold '-20')."""
    found = _RESULT_FOLDER.fullmatch(folder)
    assert found is not None, folder
    return found["scenario"]


@pytest.mark.parametrize(
    ("folder", "scenario"),
    [
        ("server-resources-list-2026-12-01T02-49-22-206Z", "resources-list"),  # once misread
        ("server-server-initialize-2026-12-01T20-20-20-020Z", "server-initialize"),
        ("server-ping-2026-12-01T02-49-21-802Z", "ping"),
    ],
)
def test_a_result_folder_names_its_scenario_whatever_the_time(folder: str, scenario: str) -> None:
    assert scenario_of(folder) == scenario
