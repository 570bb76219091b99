"""`python -m bench.recall_quality` at a CI size: it prints a table for every method and writes
every query's outcome.  Its figures are for the benchmark run, never asserted here."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.benchmarks import run_benchmark
from tests.support.recall_eval import STYLES, load_queries

pytestmark = [pytest.mark.e2e]
METHODS = ["ours (default)", "ours (match=all)", "BM25", "BM25+stem"]


def test_the_script_prints_its_table_and_writes_every_outcome(tmp_path: Path) -> None:
    out = tmp_path / "quality.json"
    run = run_benchmark(
        "recall_quality", "--vault", "holdout", "--limit-queries", "1", "--show-misses", "--json", str(out)
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert all(method in run.stdout for method in METHODS)
    written = json.loads(out.read_text(encoding="utf-8"))
    assert [r["vault"] for r in written] == ["holdout"]
    assert len(written[0]["outcomes"]) == len(STYLES) * len(METHODS)
    assert written[0]["errors"] == dict.fromkeys(METHODS, 0)
    by_id = {q.id: q for q in load_queries()}
    described = [(o["query"], o["subject"], tuple(o["expected"])) for o in written[0]["outcomes"]]
    asked = [by_id[o["query_id"]] for o in written[0]["outcomes"]]
    assert described == [(q.query, q.subject, q.expected) for q in asked]
