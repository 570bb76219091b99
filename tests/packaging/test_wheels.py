"""Every dependency resolves to binary wheels on the platforms people run Vault Recall on
besides Linux — Windows amd64, macOS arm64 and macOS x86_64 — for Python 3.11 to 3.13, so
nothing needs a compiler there.  The dependencies are pyproject.toml's own (each taken or left
by its marker for that platform), resolved by pip from PyPI with `--only-binary=:all:`.

pip evaluates environment markers for the machine it runs on, whatever `--platform` says, so a
Windows-only dependency of a dependency would never be fetched; the download runs pip with the
target's marker environment instead (MARKERS_RUNNER), which pip's resolver then uses for every
requirement it meets.  The three platforms resolve side by side, each one's Pythons in turn
into one folder for the run, so a wheel all three Pythons take is fetched once."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
import tomllib
import urllib.error
import urllib.request
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import cast

import pytest
from packaging.markers import Marker
from packaging.requirements import Requirement

from tests.support import head_start
from tests.support.paths import REPO_ROOT

PYTHONS = ("3.11", "3.12", "3.13")
# pip's --platform (macOS tags stand for that version and every earlier one), and the marker
# environment the platform's own Python reports.
PLATFORMS: dict[str, tuple[str, dict[str, str]]] = {
    "windows-amd64": (
        "win_amd64",
        {"sys_platform": "win32", "platform_system": "Windows", "os_name": "nt", "platform_machine": "AMD64"},
    ),
    "macos-arm64": (
        "macosx_14_0_arm64",
        {"sys_platform": "darwin", "platform_system": "Darwin", "os_name": "posix", "platform_machine": "arm64"},
    ),
    "macos-x86_64": (
        "macosx_14_0_x86_64",
        {"sys_platform": "darwin", "platform_system": "Darwin", "os_name": "posix", "platform_machine": "x86_64"},
    ),
}
MARKERS_RUNNER = """
import json, sys
from pip._vendor.packaging import markers
target = json.loads(sys.argv[1])
host = markers.default_environment
markers.default_environment = lambda: {**host(), **target}
from pip._internal.cli.main import main
sys.exit(main(sys.argv[2:]))
"""
FETCHED = re.compile(r"^(?:Saved \S*/|File was already downloaded \S*/)(\S+)$", re.M)


def dependencies() -> list[str]:
    return list(tomllib.loads((REPO_ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["dependencies"])


def for_target(requirements: list[str], environment: dict[str, str]) -> list[str]:
    """The requirements whose markers hold on the target, without their markers."""
    kept = []
    for text in requirements:
        requirement = Requirement(text)
        if requirement.marker is None or requirement.marker.evaluate(environment):
            requirement.marker = None
            kept.append(str(requirement))
    return kept


@dataclass(frozen=True)
class Resolved:
    returncode: int
    fetched: list[str]  # the files pip saved, or found saved by an earlier run for this platform
    output: str
    seconds: float


def resolve(platform: str, python: str, folder: Path, outer: Mapping[str, str]) -> Resolved:
    """pip download of the dependencies for `platform` and `python`, binary wheels only, in
    the environment `outer` less pip's own settings."""
    tag, markers = PLATFORMS[platform]
    environment = {**markers, "python_version": python, "python_full_version": f"{python}.0"}
    environment["implementation_version"] = environment["python_full_version"]
    env = {k: v for k, v in outer.items() if not k.startswith("PIP_") or k in ("PIP_CERT", "PIP_DEFAULT_TIMEOUT")}
    env.update(PIP_CONFIG_FILE=os.devnull, PIP_DISABLE_PIP_VERSION_CHECK="1")  # PyPI, as people get it
    started = time.monotonic()
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            MARKERS_RUNNER,
            json.dumps(environment),
            "download",
            "--only-binary=:all:",
            *("--platform", tag, "--python-version", python),
            *("--index-url", "https://pypi.org/simple", "--dest", str(folder)),
            *for_target(dependencies(), environment),
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=900,
        check=False,
    )
    seconds = time.monotonic() - started
    return Resolved(done.returncode, FETCHED.findall(done.stdout), done.stdout + done.stderr, seconds)


def resolve_all(root: Path, outer: Mapping[str, str]) -> dict[tuple[str, str], Resolved]:
    """Every (platform, Python) resolved: the platforms side by side, each one's Pythons in
    turn into one folder, so a wheel every Python takes is fetched once.  Started as the run
    begins (tests/support/head_start.py): most of its minute is spent waiting for PyPI."""
    try:
        urllib.request.urlopen("https://pypi.org/simple/pip/", timeout=15).close()
    except (urllib.error.URLError, OSError) as exc:
        pytest.skip(f"PyPI is not reachable from here: {exc}")

    def one_platform(platform: str) -> dict[tuple[str, str], Resolved]:
        folder = root / platform
        return {(platform, python): resolve(platform, python, folder, outer) for python in PYTHONS}

    with ThreadPoolExecutor(max_workers=len(PLATFORMS)) as pool:
        return {key: value for part in pool.map(one_platform, PLATFORMS) for key, value in part.items()}


head_start.register(__name__, "wheels", resolve_all)


@pytest.fixture(scope="module")
def resolved() -> dict[tuple[str, str], Resolved]:
    found = cast("dict[tuple[str, str], Resolved]", head_start.result("wheels", os.environ))
    times = ", ".join(f"{p} {v}: {r.seconds:.0f} s" for (p, v), r in found.items())
    print(f"\nresolved {len(found)} platforms and Pythons ({times})")
    return found


def test_the_marker_environment_decides_the_platform_marked_dependencies() -> None:
    requirements = ["a>=1", "b; sys_platform == 'linux'", "c; sys_platform == 'win32'"]
    assert for_target(requirements, {**PLATFORMS["windows-amd64"][1], "python_version": "3.12"}) == ["a>=1", "c"]
    linux = {"sys_platform": "linux", "python_version": "3.12"}
    assert for_target(requirements, linux) == ["a>=1", "b"]
    assert Marker("sys_platform == 'linux'").evaluate(linux)


@pytest.mark.parametrize("python", PYTHONS)
@pytest.mark.parametrize("platform", list(PLATFORMS))
def test_every_dependency_is_a_binary_wheel_there(
    resolved: dict[tuple[str, str], Resolved], platform: str, python: str
) -> None:
    result = resolved[(platform, python)]
    assert result.returncode == 0, result.output[-5000:]
    assert result.fetched and all(name.endswith(".whl") for name in result.fetched), result.fetched
    tag = PLATFORMS[platform][0]
    arch = tag.rsplit("_", 1)[1] if tag.startswith("macosx") else tag
    built_for_it = [name for name in result.fetched if name.endswith(".whl") and arch in name]
    assert built_for_it, f"no wheel built for {tag} among {result.fetched}"
