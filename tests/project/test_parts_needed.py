"""`need` fails a test under CI only for parts `.ci/run` installs for this interpreter: Debian's
python3-gi serves Debian's own Python, so a venv of another version skips, saying why."""

from __future__ import annotations

import shutil
import subprocess
import sys

import pytest

from tests.support import parts


def part(installed_here: bool) -> parts.Part:
    return parts.Part("PyGObject", "Debian: python3-gi", lambda: False, lambda: installed_here)


def test_under_ci_a_part_installed_for_this_python_fails_the_test(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CI", "1")
    monkeypatch.setitem(parts.PARTS, "python3-gi", part(installed_here=True))
    with pytest.raises(pytest.fail.Exception, match="CI must run this test, but PyGObject is not installed"):
        parts.need("python3-gi")


def test_under_ci_a_part_served_to_another_python_skips_and_says_why(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CI", "1")
    monkeypatch.setitem(parts.PARTS, "python3-gi", part(installed_here=False))
    with pytest.raises(pytest.skip.Exception, match="serve the system's Python, not 3"):
        parts.need("python3-gi")


def test_the_system_python_version_is_this_one_only_when_the_versions_agree() -> None:
    system = (
        subprocess.run(
            ["/usr/bin/python3", "-c", "import sys; print(sys.version_info[:2])"], capture_output=True, text=True
        ).stdout.strip()
        if shutil.which("python3", path="/usr/bin")
        else ""
    )
    assert parts.is_system_python_version() == (system == str(sys.version_info[:2]))
