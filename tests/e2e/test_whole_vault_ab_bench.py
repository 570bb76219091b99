"""The whole-vault A/B benchmark (`python -m bench.whole_vault_ab`) runs end to end at a CI
size, this install against itself as the baseline: both answer every word, and alike.  Times
are printed, never asserted; without ripgrep its columns are dashes."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.support.benchmarks import run_benchmark

pytestmark = pytest.mark.e2e


def test_the_whole_vault_ab_benchmark_compares_two_installs_answers(tmp_path: Path) -> None:
    arguments = ["--baseline", sys.executable, "--sizes", "300", "--rounds", "2", "--workdir", str(tmp_path)]
    run = run_benchmark("whole_vault_ab", *arguments, timeout=600)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "this/baseline p50" in run.stdout
    assert "answers differing: 0 of 2" in run.stdout
    assert "this " in run.stdout and "baseline " in run.stdout
