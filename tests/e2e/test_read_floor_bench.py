"""The read-floor benchmark (`python -m bench.read_floor`) runs end to end at a CI size: every
way is timed, every note is read by both reading passes (the benchmark stops otherwise), and
ripgrep is the baseline where it is installed.  Times are printed, never asserted."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from bench.read_floor import WAYS
from tests.support.benchmarks import run_benchmark

pytestmark = pytest.mark.e2e


def test_the_read_floor_benchmark_times_every_way_against_ripgrep(tmp_path: Path) -> None:
    out = tmp_path / "floor.json"
    arguments = ["--sizes", "600", "--rounds", "2", "--workdir", str(tmp_path), "--json", str(out)]
    run = run_benchmark("read_floor", *arguments, timeout=600)
    assert run.returncode == 0, run.stdout + run.stderr
    results = json.loads(out.read_text(encoding="utf-8"))["results"]
    assert [r["way"] for r in results] == list(WAYS)
    assert all(r["notes"] == 600 and r["p50_ms"] > 0 for r in results)
    for way in WAYS:
        assert way in run.stdout
    if shutil.which("rg"):
        assert all(r["rg_p50_ms"] > 0 and r["ratio"] is not None for r in results)
    else:
        assert "ripgrep (rg) is not installed" in run.stdout
        assert all(r["ratio"] is None for r in results)
