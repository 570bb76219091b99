"""Recall quality: how often `recall_context` returns the record a person means, asked the way
AI assistants ask, against plain BM25 over the same records in the same run.

    .venv/bin/python -m bench.recall_quality [--vault dev|holdout|all] [--limit-queries N]
                                             [--show-misses] [--json out.json]

Run from the repository's root.  The vaults, queries, methods and scoring are
tests/support/recall_eval.py's (the tests check them there); this script runs them and prints.

Per vault the table gives hit@1 and hit@3 per answerable style (an expected record first / in
the first three), the shares of answerable queries answered with no records and with records
all marked `weak_match` (BM25 never marks any), and for no_answer
queries the shares answered with nothing, with records all marked `weak_match`, and with
records looking confident (at least one not marked weak).  A call that raises is counted as an
empty answer and listed under the table.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

from tests.support.recall_eval import (
    ANSWERABLE,
    STYLES,
    VAULTS,
    Outcome,
    Report,
    evaluate,
    load_queries,
    query_slice,
)

_COLUMNS = [
    *(
        (f"{style} hit@{k}", f"{short}@{k}")
        for style, short in zip(ANSWERABLE, ("kw", "q", "para", "dist"), strict=True)
        for k in (1, 3)
    ),
    ("answerable empty", "ans:empty"),
    ("answerable weak", "ans:weak"),
    ("no_answer empty", "none:empty"),
    ("no_answer weak", "none:weak"),
    ("no_answer confident", "none:conf"),
]


def format_table(report: Report) -> str:
    counts = report.style_counts()
    lines = [
        f"{report.vault}: {report.records} records, "
        + ", ".join(f"{count} {style}" for style, count in counts.items())
        + f" queries ({len(report.queries)})",
    ]
    width = max(len(name) for name in report.methods) + 2
    header = "method".ljust(width) + " ".join(label.rjust(10) for _, label in _COLUMNS)
    lines += [header, "-" * len(header)]
    figures = report.figures()
    for method in report.methods:
        cells = [_percent(figures[method][metric]).rjust(10) for metric, _ in _COLUMNS]
        lines.append(method.ljust(width) + " ".join(cells))
    for outcome in report.errors()[:10]:
        lines.append(f"  error: {outcome.method} on {outcome.query_id}: {outcome.error}")
    if len(report.errors()) > 10:
        lines.append(f"  … {len(report.errors()) - 10} more errors")
    return "\n".join(lines)


def _percent(value: float | None) -> str:
    return "–" if value is None else f"{100 * value:.0f}%"


def format_misses(report: Report, methods: Sequence[str]) -> str:
    by_id = {q.id: q for q in report.queries}
    lines: list[str] = []
    for method in methods:
        for outcome in report.outcomes_of(method, STYLES):
            query = by_id[outcome.query_id]
            missed = outcome.confident if query.style == "no_answer" else not outcome.hit_at_3
            if not missed:
                continue
            shown = [f"{p}{' (weak)' if w else ''}" for p, w in zip(outcome.paths, outcome.weak, strict=True)]
            lines.append(f"[{method}] {query.id} ({query.subject}) {query.query!r}")
            lines.append(f"    expected: {list(query.expected) or 'nothing'}")
            lines.append(f"    returned: {shown or 'nothing'}" + (f"  error: {outcome.error}" if outcome.error else ""))
    return "\n".join(lines)


def report_json(report: Report) -> dict[str, Any]:
    by_id = {q.id: q for q in report.queries}

    def outcome(o: Outcome) -> dict[str, Any]:
        query = by_id[o.query_id]
        return {"subject": query.subject, "query": query.query, "expected": list(query.expected), **asdict(o)}

    return {
        "vault": report.vault,
        "records": report.records,
        "active_decisions_per_subject": report.decisions,
        "queries_per_style": report.style_counts(),
        "figures": report.figures(),
        "errors": {m: sum(1 for o in report.errors() if o.method == m) for m in report.methods},
        "outcomes": [outcome(o) for o in report.outcomes],
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--vault", choices=[*VAULTS, "all"], default="all")
    parser.add_argument("--limit-queries", type=int, metavar="N", help="only N queries per vault and style")
    parser.add_argument("--show-misses", action="store_true", help="print each query ours missed and what it returned")
    parser.add_argument("--json", type=Path, metavar="PATH", help="write every figure and per-query outcome")
    args = parser.parse_args(argv)

    queries = load_queries()
    if args.limit_queries is not None:
        queries = query_slice(queries, args.limit_queries)
    reports = [evaluate(name, queries) for name in (VAULTS if args.vault == "all" else (args.vault,))]
    for report in reports:
        print(format_table(report))
        if args.show_misses:
            print(format_misses(report, [m for m in report.methods if m.startswith("ours")]))
        print()
    if args.json is not None:
        args.json.write_text(json.dumps([report_json(r) for r in reports], indent=1, ensure_ascii=False) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
