"""The test environment's pins (.ci/constraints.txt, which .ci/run installs through) follow
pyproject.toml: every runtime dependency and every package of the test extra is pinned to one
version inside its range.  A dependency added or a range moved without `bash .ci/lock` fails
here, naming it.  pyproject.toml's own ranges stay what a library user needs; only CI is pinned."""

from __future__ import annotations

import tomllib

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

from tests.support.paths import REPO_ROOT

CONSTRAINTS = REPO_ROOT / ".ci" / "constraints.txt"


def pins() -> dict[str, Version]:
    """name → pinned version, from `name==version ; marker` lines."""
    pinned: dict[str, Version] = {}
    for line in CONSTRAINTS.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            requirement = Requirement(line)
            (spec,) = requirement.specifier
            assert spec.operator == "==", f"not a pin: {line}"
            pinned[canonicalize_name(requirement.name)] = Version(spec.version)
    return pinned


def declared() -> list[Requirement]:
    project = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    return [Requirement(r) for r in [*project["dependencies"], *project["optional-dependencies"]["test"]]]


def test_every_dependency_and_test_package_is_pinned_inside_its_range() -> None:
    pinned = pins()
    unpinned = [str(r) for r in declared() if canonicalize_name(r.name) not in pinned]
    assert unpinned == [], f"run `bash .ci/lock`: no pin for {unpinned}"
    outside = [
        f"{r.name}=={pinned[canonicalize_name(r.name)]} is outside {r.specifier}"
        for r in declared()
        if not r.specifier.contains(pinned[canonicalize_name(r.name)], prereleases=True)
    ]
    assert outside == [], f"run `bash .ci/lock`: {outside}"


def test_the_pins_leave_the_project_itself_to_its_checkout() -> None:
    # A pin of vault-recall would make pip fetch a release instead of installing the checkout.
    assert "vault-recall" not in pins()


def test_pyproject_s_ranges_stay_ranges() -> None:
    # A library user installs beside other packages: a pin there would fight theirs.
    pinned_in_pyproject = [str(r) for r in declared() if any(s.operator in ("==", "===") for s in r.specifier)]
    assert pinned_in_pyproject == []


def test_every_runtime_dependency_is_a_compatible_range() -> None:
    """A lower bound that was tested and an upper one before the next release that may break us
    (`>=tested,<next major`, or tighter): an install months later gets what we tested against."""
    project = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    runtime = [Requirement(r) for r in [*project["dependencies"], *project["optional-dependencies"]["gtk"]]]
    open_ended = [str(r) for r in runtime if {s.operator for s in r.specifier} != {">=", "<"}]
    assert open_ended == []
