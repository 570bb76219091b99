"""The tools benchmark (`python -m bench.tools`) still runs end to end at a CI size, every tool
answers, and freshness holds every time.  Times are printed by the benchmark, never asserted
here."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.benchmarks import run_benchmark
from tests.support.synthetic_vault import generate, generate_realistic
from tests.support.vaults import snapshot

pytestmark = pytest.mark.e2e

TOOLS = {
    "recall_context",
    "recall_activity",
    "list_subjects",
    "search_notes (word)",
    "search_notes (title)",
    "read_note (path)",
    "read_note (name)",
    "get_backlinks",
}


def test_the_benchmark_runs_every_tool_and_every_edit_is_seen_at_once(tmp_path: Path) -> None:
    out = tmp_path / "bench.json"
    arguments = ["--sizes", "1000", "--real", "300", "--rounds", "3", "--edits", "4"]
    run = run_benchmark("tools", *arguments, "--workdir", str(tmp_path), "--json", str(out), timeout=600)
    assert run.returncode == 0, run.stdout + run.stderr
    printed = run.stdout
    assert "synthetic (1,000 notes" in printed and "real-shaped (300 notes" in printed
    data = json.loads(out.read_text(encoding="utf-8"))
    assert [r["vault"] for r in data["results"]] == ["synthetic", "real-shaped"]
    for result in data["results"]:
        assert {t["tool"] for t in result["tools"]} == TOOLS
        assert all(t["calls"] == 3 and t["p50_ms"] > 0 for t in result["tools"])
        # Each call's own time, as the server recorded it, was found for every tool.
        assert all(t["server_p50_ms"] is not None for t in result["tools"])
        assert (result["fresh"], result["fresh_of"]) == (4, 4)
        assert result["first_answer_ms"] > 0
    assert data["machine"]["cpus"] >= 1


def test_the_synthetic_vaults_are_the_same_every_time(tmp_path: Path) -> None:
    first = generate(tmp_path / "a", 120, seed=5, invalid=3)
    second = generate(tmp_path / "b", 120, seed=5, invalid=3)
    assert (first.notes, first.bytes, first.records) == (second.notes, second.bytes, second.records)
    files_a = {k: (v[1], v[2]) for k, v in snapshot(tmp_path / "a").items() if k.endswith(".md")}
    files_b = {k: (v[1], v[2]) for k, v in snapshot(tmp_path / "b").items() if k.endswith(".md")}
    assert len(files_a) == 120 and files_a == files_b  # same paths, bytes and times
    real_a = generate_realistic(tmp_path / "ra", 200)
    real_b = generate_realistic(tmp_path / "rb", 200)
    assert real_a == real_b.__class__(tmp_path / "ra", real_b.notes, real_b.bytes, real_b.records)
    shaped = snapshot(tmp_path / "ra")
    assert sum(k.endswith(".md") and not k.startswith(".") for k in shaped) == 200
    assert any(k.endswith((".png", ".jpg", ".pdf")) for k in shaped)  # attachments beside the notes
    assert max(k.count("/") for k in shaped) >= 3  # folders several deep
    assert any(b"\r\n" in (v[2] or b"") for k, v in shaped.items() if k.endswith(".md"))
