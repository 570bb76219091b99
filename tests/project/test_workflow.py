"""The GitHub Actions workflows are valid by actionlint (the test extra installs it on Linux), and
run what docs/install.md says they run: the whole of .ci/run on Linux; on current macOS and
Windows runners the unit and end-to-end tiers (the desktop tier skipping), a wheel build, and the
installed wheel's `--help`, `demo` and `snippet --list`.  Every action is pinned to a commit,
Dependabot keeps those pins and the Python dependencies current, pip's downloads are cached, and
every checkout that runs the same-answers test brings the history it reads.  A release tag runs
.ci/release, publishes to PyPI by trusted publishing and builds the MCP Bundle apart from it."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path
from typing import Any

import yaml

from tests.support.parts import beside_python, need
from tests.support.paths import REPO_ROOT

WORKFLOWS = REPO_ROOT / ".github" / "workflows"


# Runner images GitHub has retired (a job naming one never starts), and the oldest macOS it runs.
RETIRED = {"macos-12", "macos-13", "macos-14", "windows-2019", "ubuntu-18.04", "ubuntu-20.04"}
OLDEST_MACOS = 15
PINNED = re.compile(r"^[\w.-]+/[\w./-]+@[0-9a-f]{40}$")


def workflow(name: str = "ci.yml") -> dict[str, Any]:
    loaded: dict[str, Any] = yaml.safe_load((WORKFLOWS / name).read_text(encoding="utf-8"))
    return loaded


def workflow_files() -> list[Path]:
    return sorted(WORKFLOWS.glob("*.y*ml"))


def every_job() -> list[tuple[str, dict[str, Any]]]:
    return [
        (f"{path.name}:{name}", job)
        for path in workflow_files()
        for name, job in yaml.safe_load(path.read_text(encoding="utf-8"))["jobs"].items()
    ]


def runners(job: dict[str, Any]) -> list[str]:
    """The runner labels a job may run on, its matrix spelled out."""
    label = str(job["runs-on"])
    if label.startswith("${{ matrix."):
        key = label.removeprefix("${{ matrix.").removesuffix("}}").strip()
        return [str(value) for value in job["strategy"]["matrix"][key]]
    return [label]


def commands(job: dict[str, Any]) -> str:
    return "\n".join(str(step.get("run", "")) for step in job["steps"])


def test_every_workflow_passes_actionlint() -> None:
    need("actionlint")
    actionlint = beside_python("actionlint")
    assert actionlint is not None
    files = workflow_files()
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


def test_macos_and_windows_run_the_unit_and_end_to_end_tiers_a_wheel_and_its_first_commands() -> None:
    unit = workflow()["jobs"]["macos-windows"]
    systems = unit["strategy"]["matrix"]["os"]
    assert any(s.startswith("macos") for s in systems) and any(s.startswith("windows") for s in systems)
    run = commands(unit)
    assert "pytest -q -p no:cacheprovider tests/server tests/app tests/project" in run
    assert "pytest -q -p no:cacheprovider tests/e2e tests/desktop" in run
    assert "-m build --wheel" in run and "pip install -q dist/*.whl" in run
    for command in ("--help", "demo", "snippet --list"):
        assert f'"$bin/vault-recall" {command}' in run, command
    assert unit["env"]["PIP_CONSTRAINT"].endswith(".ci/constraints.txt")
    # GitHub sets CI, under which a test missing a part fails: none of .ci/run's parts is there.
    assert unit["env"]["CI"] == ""


def test_every_action_is_pinned_to_a_full_commit_with_its_version_beside_it() -> None:
    unpinned = []
    for path in workflow_files():
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            found = re.match(r"^\s*(?:-\s+)?uses:\s*(\S+)(.*)$", line)
            if found is None or found[1].startswith("./"):
                continue
            if not PINNED.match(found[1]) or not re.search(r"#\s*v\d", found[2]):
                unpinned.append(f"{path.name}:{number}: {line.strip()}")
    assert unpinned == []
    assert any("uses:" in path.read_text(encoding="utf-8") for path in workflow_files())


def test_no_job_runs_on_a_retired_runner() -> None:
    labels = {label for _, job in every_job() for label in runners(job)}
    assert labels & RETIRED == set()
    for label in labels:
        if found := re.fullmatch(r"macos-(\d+)(?:-\w+)?", label):
            assert int(found[1]) >= OLDEST_MACOS, label
    assert any(label.startswith("windows-") for label in labels)


def test_pip_downloads_are_cached_where_setup_python_installs_a_python() -> None:
    setups = [step for _, job in every_job() for step in job["steps"] if "setup-python@" in str(step.get("uses", ""))]
    assert setups
    for step in setups:
        assert step["with"]["cache"] == "pip", step
        assert "pyproject.toml" in step["with"]["cache-dependency-path"], step


def test_checkouts_that_run_the_same_answers_test_bring_the_whole_history() -> None:
    for name in ("linux", "macos-windows"):
        (checkout,) = [step for step in workflow()["jobs"][name]["steps"] if "checkout@" in str(step.get("uses", ""))]
        assert checkout["with"]["fetch-depth"] == 0, name


def test_dependabot_updates_the_actions_and_the_python_dependencies() -> None:
    config = yaml.safe_load((REPO_ROOT / ".github" / "dependabot.yml").read_text(encoding="utf-8"))
    assert config["version"] == 2
    watched = {(update["package-ecosystem"], update["directory"]) for update in config["updates"]}
    assert {("github-actions", "/"), ("pip", "/")} <= watched


def test_a_release_tag_builds_with_ci_release_and_publishes_to_pypi_by_trusted_publishing() -> None:
    release = workflow("release.yml")
    keys = {str(key): value for key, value in release.items()}
    on = keys.get("on") or keys["True"]  # YAML 1.1 reads a bare `on` as true
    assert set(on) == {"push"} and on["push"]["tags"] == ["v[0-9]+.[0-9]+.[0-9]+"]
    assert release["permissions"] == {"contents": "read"}
    jobs = release["jobs"]
    assert "bash .ci/release" in commands(jobs["build"])
    (checkout,) = [step for step in jobs["build"]["steps"] if "checkout@" in str(step.get("uses", ""))]
    assert checkout["with"]["fetch-depth"] == 0  # the version is read from the tags
    pypi = jobs["pypi"]
    assert pypi["needs"] == "build" and pypi["environment"]["name"] == "pypi"
    assert pypi["permissions"] == {"id-token": "write"}
    assert any("pypa/gh-action-pypi-publish@" in str(step.get("uses", "")) for step in pypi["steps"])
    # No token: trusted publishing is the job's OIDC token alone.
    assert "password" not in str(pypi["steps"]) and "secrets." not in str(pypi)
    # PyPI takes only the sdist and the wheel: the publish job downloads the `dist` artifact alone.
    (download,) = [step for step in pypi["steps"] if "download-artifact@" in str(step.get("uses", ""))]
    assert download["with"]["name"] == "dist"
    assert jobs["github-release"]["permissions"] == {"contents": "write"}


def test_the_release_builds_the_mcp_bundle_from_its_wheel_apart_from_what_pypi_takes() -> None:
    build = workflow("release.yml")["jobs"]["build"]
    run = commands(build)
    (pinned,) = re.findall(r"@anthropic-ai/mcpb@[\d.]+", (REPO_ROOT / ".ci" / "run").read_text(encoding="utf-8"))
    assert pinned in run  # the CLI the tests ran (.ci/run), at the same version
    assert "packaging/build_mcpb.py dist/vault_recall-*.whl bundle --mcpb" in run
    uploads = {
        step["with"]["name"]: step["with"]["path"]
        for step in build["steps"]
        if "upload-artifact@" in str(step.get("uses", ""))
    }
    assert uploads == {"dist": "dist/", "bundle": "bundle/*.mcpb"}
    release = commands(workflow("release.yml")["jobs"]["github-release"])
    assert "gh release create" in release and "artifacts/*/*" in release
