"""README's test command spreads the test files over two processes (pyproject's `-n auto`,
made two by tests/conftest.py), a file's tests in one of them; what a person asks for instead
(`-n N`, PYTEST_XDIST_AUTO_NUM_WORKERS) still rules."""

from __future__ import annotations

import os
import shlex
import tomllib

import pytest

from tests.support.paths import REPO_ROOT


def test_every_run_is_spread_over_processes_a_files_tests_in_one() -> None:
    options = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["pytest"]
    addopts = shlex.split(options["ini_options"]["addopts"])
    assert addopts[addopts.index("-n") + 1] == "auto"
    assert addopts[addopts.index("--dist") + 1] == "loadfile"


@pytest.mark.parametrize(("cores", "workers"), [(1, 1), (2, 2), (16, 2)])
def test_auto_is_two_processes_or_one_on_a_single_core(
    pytestconfig: pytest.Config, monkeypatch: pytest.MonkeyPatch, cores: int, workers: int
) -> None:
    monkeypatch.delenv("PYTEST_XDIST_AUTO_NUM_WORKERS", raising=False)
    monkeypatch.setattr(os, "cpu_count", lambda: cores)
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: set(range(cores)), raising=False)
    assert pytestconfig.hook.pytest_xdist_auto_num_workers(config=pytestconfig) == workers


def test_a_number_of_workers_asked_for_by_name_is_taken(
    pytestconfig: pytest.Config, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PYTEST_XDIST_AUTO_NUM_WORKERS", "5")
    assert pytestconfig.hook.pytest_xdist_auto_num_workers(config=pytestconfig) == 5
