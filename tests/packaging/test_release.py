"""A release as anyone cuts it (.ci/release): `python -m build` makes an sdist and a wheel that
`twine check` accepts, named for the version written once in server/__init__.py; the sdist holds
what README and the tests need — every file git tracks: the code, the tests and what they read
(bench/, assets/, docs/, packaging/, .ci/, .github/), README, the changelog — and nothing the
machine adds beside the checkout (a venv, caches, npm tools); and the release refuses a version
whose changelog section is not dated.  Built here as the release builds it, from the
environment's own setuptools (no build environment to download)."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tarfile
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.support.paths import REPO_ROOT
from vault_recall.server import __version__

pytestmark = pytest.mark.e2e

CACHES = r"\.venv|__pycache__|\.hypothesis|\.pytest_cache|\.mypy_cache|\.ruff_cache"
NEVER = re.compile(rf"(^|/)({CACHES})(/|$)|^\.ci/npm/|^\.real-clients/")


@dataclass(frozen=True)
class Built:
    tracked: set[str]  # what git tracks in this checkout
    sdist: Path
    wheel: Path


def tracked_files() -> set[str]:
    if shutil.which("git") is None or not (REPO_ROOT / ".git").exists():
        pytest.skip("the files an sdist must hold are what git tracks, and this is not a git checkout")
    listed = subprocess.run(
        ["git", "-c", "core.quotepath=off", "ls-files", "-z"], cwd=REPO_ROOT, capture_output=True, text=True, check=True
    )
    return {name for name in listed.stdout.split("\0") if name and (REPO_ROOT / name).exists()}


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Built:
    """`python -m build` (the sdist, then the wheel from it) in a copy holding only the tracked
    files: a build in the checkout would reuse the file list an earlier build left in its
    egg-info."""
    tracked = tracked_files()
    work = tmp_path_factory.mktemp("release")
    source, out = work / "source", work / "dist"
    for name in tracked:
        (source / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(REPO_ROOT / name, source / name, follow_symlinks=False)
    done = subprocess.run(
        [sys.executable, "-m", "build", "--no-isolation", "--outdir", str(out), str(source)],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    named = out / f"vault_recall-{__version__}"
    return Built(tracked, named.with_name(named.name + ".tar.gz"), named.with_name(named.name + "-py3-none-any.whl"))


def sdist_members(sdist: Path) -> set[str]:
    with tarfile.open(sdist) as archive:
        return {name.split("/", 1)[1] for name in archive.getnames() if "/" in name}


def test_the_sdist_holds_every_tracked_file_and_nothing_the_machine_adds(built: Built) -> None:
    members = sdist_members(built.sdist)
    assert sorted(built.tracked - members) == []
    assert sorted(name for name in members if NEVER.search(name)) == []
    # What README's commands and links name is there.
    readme = (REPO_ROOT / "README.md").read_text(encoding="utf-8")
    linked = {link.split("#")[0] for link in re.findall(r"\]\(([^):#]+(?:#[^)]*)?)\)", readme)}
    assert {"pyproject.toml", "LICENSE", "CHANGELOG.md", "tests/conftest.py", ".ci/run"} <= members
    assert sorted(link for link in linked if link and link not in members and not link.endswith("/")) == []


def test_the_sdist_and_the_wheel_are_named_for_the_version_and_twine_accepts_both(built: Built) -> None:
    assert built.sdist.is_file() and built.wheel.is_file(), sorted(p.name for p in built.sdist.parent.iterdir())
    twine = shutil.which("twine", path=str(Path(sys.executable).parent)) or shutil.which("twine")
    assert twine is not None, "twine is in the test extra: pip install -e '.[test]'"
    checked = subprocess.run(
        [twine, "check", "--strict", str(built.sdist), str(built.wheel)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert checked.stdout.count("PASSED") == 2, checked.stdout


def release_check(folder: Path, changelog: str) -> subprocess.CompletedProcess[str]:
    """.ci/release --check in a folder holding only what it reads."""
    (folder / ".ci").mkdir(parents=True)
    (folder / "server").mkdir()
    shutil.copy2(REPO_ROOT / ".ci" / "release", folder / ".ci" / "release")
    shutil.copy2(REPO_ROOT / "server" / "__init__.py", folder / "server" / "__init__.py")
    (folder / "CHANGELOG.md").write_text(changelog, encoding="utf-8")
    return subprocess.run(
        ["bash", str(folder / ".ci" / "release"), "--check"], capture_output=True, text=True, timeout=60, check=False
    )


def test_a_release_needs_the_version_s_changelog_section_dated(tmp_path: Path) -> None:
    if shutil.which("bash") is None:
        pytest.skip(".ci/release is a bash script, and this machine has no bash")
    undated = f"# Changelog\n\n## [Unreleased]\n\n## [{__version__}]\n\n- First.\n"
    refused = release_check(tmp_path / "undated", undated)
    assert refused.returncode == 1
    assert f"no dated section for {__version__}" in refused.stderr, refused.stderr

    dated = undated.replace(f"## [{__version__}]\n", f"## [{__version__}] - 2026-12-05\n")
    accepted = release_check(tmp_path / "dated", dated)
    assert accepted.returncode == 0, accepted.stderr
    assert f"has ## [{__version__}] - 2026-12-05" in accepted.stdout

    unreleased_gone = dated.replace("## [Unreleased]\n\n", "")
    assert release_check(tmp_path / "no-unreleased", unreleased_gone).returncode == 1
