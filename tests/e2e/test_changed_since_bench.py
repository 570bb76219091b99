"""The "changed since" benchmark (`python -m bench.changed_since_cost`) at a CI size: it runs,
the second server really remembers 50 notes and tells all 50 once they are edited, and the
server that handed out none tells nothing.  Its timings are for the benchmark run, never
asserted."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.benchmarks import run_benchmark

pytestmark = [pytest.mark.e2e]


def test_the_benchmark_measures_calls_with_none_and_fifty_remembered_notes(tmp_path: Path) -> None:
    out = tmp_path / "cost.json"
    run = run_benchmark("changed_since_cost", "--notes", "150", "--calls", "6", "--json", str(out))
    assert run.returncode == 0, run.stdout + run.stderr
    data = json.loads(out.read_text(encoding="utf-8"))
    assert (data["remembered"], data["told_after_edit"], data["told_to_the_other_server"]) == (50, 50, False)
    assert [r["tool"] for r in data["results"]] == ["list_subjects", "search_notes", "get_backlinks"]
    assert all(r["calls"] == 6 and r["none_ms"] > 0 and r["fifty_ms"] > 0 for r in data["results"])
    assert "| list_subjects |" in run.stdout and "told 50 of 50" in run.stdout
