"""A release as anyone cuts it (.ci/release): `python -m build` makes an sdist and a wheel that
`twine check` accepts, named for the version git gives (setuptools-scm; handed to it, as .ci/release does, where the
source has no git); the sdist holds
what README and the tests need — every file git tracks: the code, the tests and what they read
(bench/, assets/, docs/, packaging/, .ci/, .github/), README, the changelog — and nothing the
machine adds beside the checkout (a venv, caches, npm tools); and `.ci/release --check` holds the
changelog and git's tags to each other: every release dated, Unreleased on top, the newest
release the last tag or HEAD's own.  Built here as the release builds it, from the
environment's own setuptools (no build environment to download)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tarfile
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.support.paths import REPO_ROOT

VERSION = "1.2.3.dev4"  # what .ci/release hands the build for a source without git

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
        env={**os.environ, "SETUPTOOLS_SCM_PRETEND_VERSION_FOR_VAULT_RECALL": VERSION},
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    named = out / f"vault_recall-{VERSION}"
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


def git(folder: Path, *arguments: str) -> str:
    done = subprocess.run(
        ["git", "-c", "user.name=Release Test", "-c", "user.email=release@example.invalid", *arguments],
        cwd=folder, capture_output=True, text=True, timeout=60, check=True,
    )  # fmt: skip
    return done.stdout.strip()


def commit(folder: Path, changelog: str, message: str) -> None:
    (folder / "CHANGELOG.md").write_text(changelog, encoding="utf-8")
    git(folder, "add", "-A")
    git(folder, "commit", "-q", "-m", message)


def release_check(folder: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", str(folder / ".ci" / "release"), "--check"], capture_output=True, text=True, timeout=60, check=False
    )


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A git repository holding only what .ci/release --check reads: itself and the changelog."""
    if shutil.which("bash") is None or shutil.which("git") is None:
        pytest.skip(".ci/release is a bash script reading git, and this machine lacks bash or git")
    (tmp_path / ".ci").mkdir()
    shutil.copy2(REPO_ROOT / ".ci" / "release", tmp_path / ".ci" / "release")
    git(tmp_path, "init", "-q", "-b", "main")
    return tmp_path


FIRST = "# Changelog\n\n## [Unreleased]\n\n## [0.1.0] - 2026-12-01\n\n- First.\n"


def test_between_releases_the_newest_dated_release_is_the_last_tag(project: Path) -> None:
    commit(project, FIRST, "0.1.0")
    untagged = release_check(project)
    assert untagged.returncode == 1
    assert "newest release, 0.1.0, is not git's last tag (none)" in untagged.stderr, untagged.stderr
    assert "git tag -a v0.1.0 COMMIT" in untagged.stderr

    git(project, "tag", "-a", "v0.1.0", "-m", "0.1.0")
    commit(project, FIRST.replace("## [Unreleased]\n", "## [Unreleased]\n\n- Next.\n"), "next")
    between = release_check(project)
    assert between.returncode == 0, between.stderr
    assert "newest release is ## [0.1.0] - 2026-12-01" in between.stdout
    assert "1 commit(s) after v0.1.0" in between.stdout


def test_a_release_needs_its_section_dated_and_its_tag_on_head(project: Path) -> None:
    commit(project, FIRST, "0.1.0")
    git(project, "tag", "-a", "v0.1.0", "-m", "0.1.0")
    undated = FIRST.replace("## [Unreleased]\n", "## [Unreleased]\n\n## [0.2.0]\n\n- Next.\n")
    commit(project, undated, "0.2.0 undated")
    refused = release_check(project)
    assert refused.returncode == 1
    assert "section '## [0.2.0]' has no date, such as '## [0.2.0] - " in refused.stderr, refused.stderr

    commit(project, undated.replace("## [0.2.0]\n", "## [0.2.0] - 2026-12-24\n"), "0.2.0")
    git(project, "tag", "-a", "v0.2.0", "-m", "0.2.0")
    released = release_check(project)
    assert released.returncode == 0, released.stderr
    assert "HEAD is tagged v0.2.0: this is release 0.2.0" in released.stdout

    git(project, "tag", "-a", "v0.3.0", "-m", "a tag ahead of the changelog")
    git(project, "tag", "-d", "v0.2.0")
    ahead = release_check(project)
    assert ahead.returncode == 1
    assert "HEAD is tagged v0.3.0, but CHANGELOG.md's newest release is 0.2.0" in ahead.stderr


def test_the_registry_entry_names_the_newest_release(project: Path) -> None:
    entry = '{\n  "version": "0.1.0",\n  "packages": [{\n    "version": "0.0.9"\n  }]\n}\n'
    (project / "server.json").write_text(entry, encoding="utf-8")
    commit(project, FIRST, "0.1.0")
    git(project, "tag", "-a", "v0.1.0", "-m", "0.1.0")
    refused = release_check(project)
    assert refused.returncode == 1
    assert 'server.json\'s versions must be the newest release, 0.1.0, not: "version": "0.0.9"' in refused.stderr
    (project / "server.json").write_text(entry.replace("0.0.9", "0.1.0"), encoding="utf-8")
    assert release_check(project).returncode == 0


def test_the_changelog_keeps_an_unreleased_section_on_top(project: Path) -> None:
    commit(project, FIRST.replace("## [Unreleased]\n\n", ""), "no unreleased")
    git(project, "tag", "-a", "v0.1.0", "-m", "0.1.0")
    refused = release_check(project)
    assert refused.returncode == 1
    assert "first section must be '## [Unreleased]'" in refused.stderr


def test_a_build_from_git_is_named_for_the_last_tag_or_the_next_minor_s_development_version(
    tmp_path: Path,
) -> None:
    """setuptools-scm reads the version from git: a tag vX.Y.Z on HEAD is X.Y.Z, and each commit
    after it is a development version of X.(Y+1).0; the wheel and `--version` say it."""
    if shutil.which("git") is None:
        pytest.skip("the version is read from git, and this machine has no git")
    source = tmp_path / "source"
    for name in tracked_files():
        (source / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(REPO_ROOT / name, source / name, follow_symlinks=False)
    git(source, "init", "-q", "-b", "main")
    git(source, "add", "-A")
    git(source, "commit", "-q", "-m", "release")
    git(source, "tag", "-a", "v9.8.7", "-m", "9.8.7")
    scm = [sys.executable, "-m", "setuptools_scm"]
    assert subprocess.run(scm, cwd=source, capture_output=True, text=True, check=True).stdout.strip() == "9.8.7"
    git(source, "commit", "-q", "--allow-empty", "-m", "after the release")
    after = subprocess.run(scm, cwd=source, capture_output=True, text=True, check=True).stdout.strip()
    assert re.fullmatch(r"9\.9\.0\.dev1\+g[0-9a-f]+", after), after

    git(source, "checkout", "-q", "v9.8.7")
    env = {key: value for key, value in os.environ.items() if not key.startswith("SETUPTOOLS_SCM")}
    done = subprocess.run(
        [sys.executable, "-m", "build", "--no-isolation", "--wheel", "--outdir", str(tmp_path / "dist"), str(source)],
        env=env, capture_output=True, text=True, timeout=600, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    (wheel,) = (tmp_path / "dist").glob("*.whl")
    assert wheel.name == "vault_recall-9.8.7-py3-none-any.whl"
    target = tmp_path / "site"
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(target), str(wheel)],
        env={key: value for key, value in env.items() if key != "PIP_CONSTRAINT"}, check=True, timeout=300,
        capture_output=True,
    )  # fmt: skip
    probe = "from vault_recall.server import __version__; print(__version__)"
    said = subprocess.run(
        [sys.executable, "-S", "-c", probe], env={**env, "PYTHONPATH": str(target)}, cwd=tmp_path,
        capture_output=True, text=True, timeout=120, check=True,
    )  # fmt: skip
    assert said.stdout.strip() == "9.8.7"
