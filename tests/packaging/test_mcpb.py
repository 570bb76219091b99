"""The MCP Bundle (`.mcpb`, packaging/build_mcpb.py): its manifest asks for the vault folder as
user configuration and starts `vault-recall serve` through uv from the wheel inside the bundle;
`mcpb validate` accepts it and `mcpb pack` packs it; and the command its manifest names, run with
the person's choice substituted as Claude's apps substitute it, serves that vault over stdio."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from tests.support.built_wheel import build_wheel
from tests.support.e2e import call, copy_sample_vault
from tests.support.npm_tools import MCPB, node_command
from tests.support.parts import beside_python, need
from tests.support.paths import REPO_ROOT

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]

VERSION = "1.2.3"
BUILDER = REPO_ROOT / "packaging" / "build_mcpb.py"


@pytest.fixture(scope="module")
def bundle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The bundle's folder, as `mcpb pack` takes it."""
    work = tmp_path_factory.mktemp("mcpb")
    wheel = build_wheel(work, VERSION)
    subprocess.run([sys.executable, str(BUILDER), str(wheel), str(work / "out")], check=True, timeout=120)
    return work / "out" / "vault-recall"


def manifest_of(folder: Path) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    return loaded


def test_the_manifest_asks_for_the_vault_folder_and_starts_serve_through_uv(bundle: Path) -> None:
    manifest = manifest_of(bundle)
    assert manifest["version"] == VERSION and manifest["manifest_version"] == "0.4"
    vault = manifest["user_config"]["vault"]
    assert vault["type"] == "directory" and vault["required"] is True
    server = manifest["server"]
    assert server["type"] == "uv" and (bundle / server["entry_point"]).is_file()
    command = [server["mcp_config"]["command"], *server["mcp_config"]["args"]]
    assert command[:4] == ["uv", "run", "--directory", "${__dirname}"]
    assert server["entry_point"] in command
    assert command[-2:] == ["--vault", "${user_config.vault}"]
    # uv installs our package from the wheel the bundle carries, at the bundle's own version.
    project = tomllib.loads((bundle / "pyproject.toml").read_text(encoding="utf-8"))
    assert project["project"]["dependencies"] == [f"vault-recall=={VERSION}"]
    wheel = bundle / project["tool"]["uv"]["sources"]["vault-recall"]["path"]
    assert wheel.is_file() and wheel.name.startswith(f"vault_recall-{VERSION}-")


def test_mcpb_validates_the_manifest_and_packs_the_bundle(bundle: Path, tmp_path: Path) -> None:
    need("mcpb")
    mcpb = node_command(MCPB)
    validated = subprocess.run(
        [*mcpb, "validate", str(bundle / "manifest.json")], capture_output=True, text=True, timeout=120, check=False
    )
    assert validated.returncode == 0, validated.stdout + validated.stderr
    assert "validation passes" in validated.stdout
    packed = tmp_path / f"vault-recall-{VERSION}.mcpb"
    done = subprocess.run(
        [*mcpb, "pack", str(bundle), str(packed)], capture_output=True, text=True, timeout=300, check=False
    )
    assert done.returncode == 0, done.stdout + done.stderr
    with zipfile.ZipFile(packed) as archive:
        names = set(archive.namelist())
    wheel = f"wheels/vault_recall-{VERSION}-py3-none-any.whl"
    assert {"manifest.json", "pyproject.toml", "server/main.py", wheel} <= names
    assert not any(re.match(r"\.venv/|uv\.lock$", name) for name in names)


def substituted(value: str, dirname: Path, choices: dict[str, str]) -> str:
    """Claude's apps' substitution of `${__dirname}` and `${user_config.KEY}` in the manifest."""
    value = value.replace("${__dirname}", str(dirname))
    return re.sub(r"\$\{user_config\.([a-z_]+)\}", lambda found: choices[found[1]], value)


async def test_the_manifest_s_command_serves_the_vault_the_person_chose(bundle: Path, tmp_path: Path) -> None:
    need("uv")
    uv = beside_python("uv")
    assert uv is not None
    vault = copy_sample_vault(tmp_path / "My vault")
    manifest = manifest_of(bundle)
    config = manifest["server"]["mcp_config"]
    args = [substituted(arg, bundle, {"vault": str(vault)}) for arg in config["args"]]
    env = {
        **os.environ,
        "VAULT_RECALL_HOME": str(tmp_path / "home"),
        # The host brings its own Python; here, this interpreter's, never a download.
        "UV_PYTHON": getattr(sys, "_base_executable", sys.executable),
        "UV_PYTHON_DOWNLOADS": "never",
    }
    parameters = StdioServerParameters(command=str(uv), args=args, env=env)
    # The first start makes the bundle's environment (uv fetches the wheel's dependencies).
    async with Client(parameters, read_timeout_seconds=600) as session:
        tools = await session.list_tools()
        assert sorted(tool.name for tool in tools.tools) == sorted(tool["name"] for tool in manifest["tools"])
        subjects = await call(session, "list_subjects")
    assert subjects["status"] == "ok", subjects
    assert subjects["subjects"], subjects  # the sample vault's subjects: the chosen vault was served
