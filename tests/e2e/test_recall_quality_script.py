"""`python -m bench.recall_quality` at a CI size: it prints a table for every method and writes
every query's outcome.  Its figures are for the benchmark run, never asserted here."""

from __future__ import annotations

import json
import subprocess
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


def test_public_vaults_run_when_their_repository_is_found_and_are_skipped_when_not(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """bench.recall_quality over a public vault: a tiny real git repository described as
    bench/recall_eval/public/ describes its vaults, found under the folder given."""
    from bench import recall_quality

    repo = tmp_path / "places" / "tiny"
    repo.mkdir(parents=True)
    files = {
        "Garden/Tomatoes.md": "Tomatoes want full sun and deep watering.\n",
        "Garden/Compost.md": "Turn the compost heap every week.\n",
        "Kitchen/Sauce.md": "A tomato sauce simmers for an hour.\n",
    }
    for path, text in files.items():
        (repo / path).parent.mkdir(parents=True, exist_ok=True)
        (repo / path).write_text(text, encoding="utf-8")
    for args in (
        ["init", "-q"],
        ["add", "-A"],
        ["-c", "user.email=e@x.invalid", "-c", "user.name=e", "commit", "-qm", "v"],
    ):
        subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True)
    commit = subprocess.run(["git", "-C", str(repo), "rev-parse", "HEAD"], check=True, capture_output=True, text=True)
    questions = [
        {"id": "t-kw-1", "style": "keywords", "query": "tomato sun", "expected": ["Garden/Tomatoes.md"]},
        {
            "id": "t-q-1",
            "style": "question",
            "query": "How long does the sauce simmer?",
            "expected": ["Kitchen/Sauce.md"],
        },
        {"id": "t-none-1", "style": "no_answer", "query": "pruning roses", "expected": []},
    ]
    spec = {
        "name": "tiny",
        "repository": "https://github.com/example/tiny",
        "commit": commit.stdout.strip(),
        "commit_date": "2026-12-06",
        "vault": "",
        "description": "d",
        "questions_written": "w",
        "notes": 3,
        "folders": [
            {"folder": "Garden", "subject": "garden", "notes": 2},
            {"folder": "Kitchen", "subject": "kitchen", "notes": 1},
        ],
        "questions": [
            {**q, "folder": "Kitchen" if "Sauce" in str(q["expected"]) else "Garden", "lang": "en"} for q in questions
        ],
    }
    root = tmp_path / "public"
    root.mkdir()
    (root / "tiny.json").write_text(json.dumps(spec), encoding="utf-8")

    skipped = recall_quality.run_public([tmp_path / "elsewhere"], root=root)
    assert skipped == []
    said = capsys.readouterr().out
    assert "tiny: skipped" in said and "git clone https://github.com/example/tiny" in said and "--public-source" in said
    reports = recall_quality.run_public([tmp_path / "places"], root=root)
    assert [r.spec.name for r in reports] == ["tiny"]
    report = reports[0]
    assert report.methods == ["ours (default)", "BM25+stem", "search_notes"]
    assert report.errors() == []
    assert len(report.outcomes) == len(questions) * len(report.methods) * 2
    figures = report.figures()
    assert set(figures) == {f"{m} ({s})" for m in report.methods for s in ("vault", "folder")}
    assert all(v is None or 0 <= v <= 1 for row in figures.values() for v in row.values())
    table = recall_quality.format_public_table(report)
    assert all(row in table for row in report.rows()) and table in capsys.readouterr().out
    written = recall_quality.public_report_json(report)
    assert written["commit"] == spec["commit"] and len(written["outcomes"]) == len(report.outcomes)
