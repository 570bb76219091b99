"""The benchmark still runs end to end at a CI size, and freshness holds every time.  Times are
printed by the benchmark, never asserted here."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests import bench

pytestmark = pytest.mark.e2e


def test_the_benchmark_runs_and_every_edit_is_seen_at_once(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "bench.json"
    assert (
        bench.main(["--sizes", "1000", "--rounds", "4", "--edits", "5", "--workdir", str(tmp_path), "--json", str(out)])
        == 0
    )
    printed = capsys.readouterr().out
    assert "| 1,000 " in printed and "recall p50/p95" in printed
    data = json.loads(out.read_text(encoding="utf-8"))
    (result,) = data["results"]
    assert result["notes"] == 1000 and result["calls"] >= 9
    assert (result["fresh"], result["fresh_of"]) == (5, 5)
    assert result["recall_p50_ms"] > 0 and result["first_answer_ms"] > 0
    assert data["machine"]["cpus"] >= 1


def test_the_synthetic_vault_is_the_same_every_time(tmp_path: Path) -> None:
    from tests.synthetic_vault import generate
    from tests.vaults import snapshot

    first = generate(tmp_path / "a", 120, seed=5, invalid=3)
    second = generate(tmp_path / "b", 120, seed=5, invalid=3)
    assert (first.notes, first.bytes, first.records) == (second.notes, second.bytes, second.records)
    files_a = {k: (v[1], v[2]) for k, v in snapshot(tmp_path / "a").items() if k.endswith(".md")}
    files_b = {k: (v[1], v[2]) for k, v in snapshot(tmp_path / "b").items() if k.endswith(".md")}
    assert len(files_a) == 120 and files_a == files_b  # same paths, bytes and times
