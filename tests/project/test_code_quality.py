"""ruff (lint and format) and mypy stay clean: part of the one test command."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.paths import REPO_ROOT
from tests.support.typecheck import OTHER_PLATFORMS, run_mypy

TYPED = ("server", "app", "tests", "bench")


def tool(name: str) -> str:
    # Beside this Python first (`name.exe` in Scripts on Windows: which() tries PATHEXT's endings).
    found = shutil.which(name, path=str(Path(sys.executable).parent))
    if found is not None:
        return found
    on_path = shutil.which(name)
    if on_path is None:
        pytest.fail(f"{name} is not installed: install the test extra (pip install -e '.[test]')")
    return on_path


@pytest.mark.parametrize("args", [["check", "."], ["format", "--check", "."]], ids=["lint", "format"])
def test_ruff_is_clean(args: list[str]) -> None:
    done = subprocess.run([tool("ruff"), *args], cwd=REPO_ROOT, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.parametrize("platform", [None, *OTHER_PLATFORMS], ids=lambda p: p or "here")
def test_mypy_is_clean(platform: str | None) -> None:
    tool("mypy")
    done = run_mypy(platform=platform)
    assert done.returncode == 0, done.stdout + done.stderr
    # mypy did look at every folder (a wrong link would check nothing and succeed).
    checked = int(done.stdout.rsplit("in ", 1)[1].split()[0]) if " source file" in done.stdout else 0
    assert checked >= sum(len(list((REPO_ROOT / folder).rglob("*.py"))) for folder in TYPED)


def test_no_property_test_sets_its_own_number_of_cases() -> None:
    """HYPOTHESIS_PROFILE alone says how many cases a property test tries (tests/conftest.py):
    a test of its own number would run as long in the fast loop as in CI, or as short in CI.
    A test whose every case starts a server takes a share of the profile's (costly_cases)."""
    marker = "max_" + "examples="  # spelled apart, or this line would be found
    own = [
        f"{path.relative_to(REPO_ROOT)}:{number}"
        for path in sorted((REPO_ROOT / "tests").rglob("*.py"))
        if path.name != "conftest.py"
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if marker in line and marker + "costly_cases()" not in line
    ]
    assert own == []


@pytest.mark.parametrize(("subject", "refused"), [("x" * 71, False), ("x" * 72, True), ("é" * 71, False)])
def test_the_commit_hook_refuses_a_subject_of_72_characters_or_more(
    tmp_path: Path, subject: str, refused: bool
) -> None:
    message = tmp_path / "COMMIT_EDITMSG"
    message.write_text(f"# a comment line git adds\n{subject}\n\nFigures in the body.\n", encoding="utf-8")
    hook = REPO_ROOT / ".githooks" / "commit-msg"
    done = subprocess.run([str(hook), str(message)], capture_output=True, text=True, check=False)
    assert (done.returncode != 0) == refused, done.stderr
    assert ("keep it under 72" in done.stderr) == refused
