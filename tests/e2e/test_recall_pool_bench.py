"""The pool benchmark (`python -m bench.recall_pool`) runs end to end at a CI size: both ways
timed over a vault split in two shares, one share's pickled weight printed.  Times are
printed, never asserted."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.benchmarks import run_benchmark

pytestmark = pytest.mark.e2e


def test_the_pool_benchmark_times_recall_with_and_without_workers(tmp_path: Path) -> None:
    arguments = ["--sizes", "300", "--rounds", "2", "--shares", "2", "--workdir", str(tmp_path)]
    run = run_benchmark("recall_pool", *arguments, timeout=600)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "whole vault, no pool" in run.stdout and "whole vault, pool" in run.stdout
    assert "one share's result" in run.stdout and "kB pickled" in run.stdout
