"""The load benchmark (`python -m bench.http_load`) at a CI size: many clients at once over HTTP
and over stdio while notes are edited — every call answered, exactly one activity row each.
Counts only; its timings are for the benchmark run, never asserted."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.benchmarks import run_benchmark

pytestmark = [pytest.mark.e2e]


def test_concurrent_clients_lose_no_call_and_no_activity_row_over_http_or_stdio(tmp_path: Path) -> None:
    out = tmp_path / "load.json"
    run = run_benchmark("http_load", "--clients", "3", "--calls", "12", "--json", str(out))
    assert run.returncode == 0, run.stdout + run.stderr
    results = {r["transport"]: r for r in json.loads(out.read_text(encoding="utf-8"))["results"]}
    for transport in ("http", "stdio"):
        r = results[transport]
        assert (r["calls"], r["answered"], r["failed"]) == (36, 36, 0), r
        assert (r["activity_rows"], r["lost_rows"], r["extra_rows"]) == (36, 0, 0), r
