"""The one-folder bundle (PyInstaller): its single executable answers --version, serves recall
over stdio to a real client, runs the demo, and writes snippets that point at itself."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.e2e import SAMPLE_VAULT, call

pytestmark = [pytest.mark.e2e, pytest.mark.anyio]
ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def bundle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    try:
        import PyInstaller  # noqa: F401
    except ImportError:
        if os.environ.get("CI"):
            pytest.fail("CI must build the bundle: PyInstaller is missing from the test extra")
        pytest.skip("PyInstaller is not installed")
    out = tmp_path_factory.mktemp("bundle")
    env = {**os.environ, "PYTHON": sys.executable, "DIST": str(out / "dist"), "WORK": str(out / "work")}
    subprocess.run(
        ["bash", str(ROOT / "packaging/build-linux.sh")], env=env, check=True, timeout=900, capture_output=True
    )
    executable = out / "dist/vault-recall/vault-recall"
    assert executable.is_file()
    return executable


def test_the_bundle_answers_version(bundle: Path) -> None:
    done = subprocess.run([str(bundle), "--version"], capture_output=True, text=True, timeout=60, check=True)
    assert done.stdout.strip().startswith("vault-recall ")


async def test_the_bundle_serves_recall_to_a_real_client(bundle: Path) -> None:
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters

    params = StdioServerParameters(
        command=str(bundle), args=["serve", "--client", "bundle", "--vault", str(SAMPLE_VAULT)], env=dict(os.environ)
    )
    async with Client(params, read_timeout_seconds=60) as session:
        result = await call(session, "recall_context", {"subject": "build-system", "query": "bazel"})
    assert result["status"] == "ok" and "Projects/Build/Build decision.md" in [r["path"] for r in result["records"]]


def test_the_bundles_snippets_point_at_the_bundle_and_its_demo_passes(bundle: Path) -> None:
    snippet = subprocess.run([str(bundle), "snippet", "cursor"], capture_output=True, text=True, timeout=60, check=True)
    assert json.loads(snippet.stdout)["mcpServers"]["vault-recall"]["command"] == str(bundle)
    demo = subprocess.run([str(bundle), "demo"], capture_output=True, text=True, timeout=180, check=False)
    assert demo.returncode == 0 and demo.stdout.splitlines()[-1] == "demo: all steps passed", demo.stdout
