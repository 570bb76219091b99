"""The Pythons pyproject.toml's classifiers name are the ones the tests run on: requires-python's
oldest runs the whole suite (.ci/run's test command), every newer one the fast loop (.ci/run's
loop over versions)."""

from __future__ import annotations

import re
import tomllib

from tests.support.paths import REPO_ROOT

PYTHON = "Programming Language :: Python :: "


def test_the_classifiers_name_the_pythons_ci_runs() -> None:
    project = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    named = [c.removeprefix(PYTHON) for c in project["classifiers"] if re.fullmatch(re.escape(PYTHON) + r"3\.\d+", c)]
    oldest = project["requires-python"].removeprefix(">=")
    loop = re.search(r"^for version in ([\d. ]+); do$", (REPO_ROOT / ".ci/run").read_text(encoding="utf-8"), re.M)
    assert loop is not None, ".ci/run has no loop over Python versions"
    assert named == [oldest, *loop.group(1).split()]
