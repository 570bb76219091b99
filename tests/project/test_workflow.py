"""The GitHub Actions workflow is valid by actionlint (the test extra installs it on Linux), and
runs what docs/install.md says it runs: the whole of .ci/run on Linux; on macOS and Windows the
unit tiers, a wheel build, and the installed wheel's `--help`, `demo` and `snippet --list`."""

from __future__ import annotations

import subprocess
from typing import Any

import yaml

from tests.support.parts import beside_python, need
from tests.support.paths import REPO_ROOT

WORKFLOWS = REPO_ROOT / ".github" / "workflows"


def workflow() -> dict[str, Any]:
    loaded: dict[str, Any] = yaml.safe_load((WORKFLOWS / "ci.yml").read_text(encoding="utf-8"))
    return loaded


def commands(job: dict[str, Any]) -> str:
    return "\n".join(str(step.get("run", "")) for step in job["steps"])


def test_every_workflow_passes_actionlint() -> None:
    need("actionlint")
    actionlint = beside_python("actionlint")
    assert actionlint is not None
    files = sorted(WORKFLOWS.glob("*.y*ml"))
    assert files, "no workflow under .github/workflows"
    done = subprocess.run(
        [str(actionlint), "-no-color", *map(str, files)], cwd=REPO_ROOT, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_linux_runs_the_whole_of_ci_run_as_root_in_debian() -> None:
    linux = workflow()["jobs"]["linux"]
    assert linux["container"]["image"].startswith("debian:12")
    assert "--privileged" in linux["container"]["options"]  # the fresh run's mount namespace
    assert "bash .ci/run" in commands(linux)
    assert linux["timeout-minutes"] <= 90


def test_macos_and_windows_run_the_unit_tiers_a_wheel_and_its_first_commands() -> None:
    unit = workflow()["jobs"]["unit"]
    systems = unit["strategy"]["matrix"]["os"]
    assert any(s.startswith("macos") for s in systems) and any(s.startswith("windows") for s in systems)
    run = commands(unit)
    assert "pytest -q -p no:cacheprovider tests/server tests/app tests/project" in run
    assert "-m build --wheel" in run and "pip install -q dist/*.whl" in run
    for command in ("--help", "demo", "snippet --list"):
        assert f'"$bin/vault-recall" {command}' in run, command
    assert unit["env"]["PIP_CONSTRAINT"].endswith(".ci/constraints.txt")
    # GitHub sets CI, under which a test missing a part fails: none of .ci/run's parts is there.
    assert unit["env"]["CI"] == ""
