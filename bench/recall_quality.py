"""Recall quality: how often `recall_context` returns the record a person means, asked the way
AI assistants ask, against plain BM25 over the same records in the same run.

    .venv/bin/python -m bench.recall_quality [--vault dev|holdout|cjk|public|all] [--limit-queries N]
                                             [--public-source DIR] [--no-search] [--budget N]
                                             [--show-misses] [--json out.json]

Run from the repository's root.  The vaults, queries, methods and scoring are
tests/support/recall_eval.py's (the tests check them there); this script runs them and prints.

Per vault the table gives hit@1 and hit@3 per answerable style (an expected record first / in
the first three), the shares of answerable queries answered with no records and with records
all marked `weak_match` (BM25 never marks any), the weak mark's calibration — of the
answerable queries answered with records, the share holding a record meant in the first three
among those not marked (unm@3) and among those marked (mrk@3) — and for no_answer
queries the shares answered with nothing, with records all marked `weak_match`, and with
records looking confident (at least one not marked weak).  A call that raises is counted as an
empty answer and listed under the table.

The public real vaults (bench/recall_eval/public/, tests/support/public_vaults.py) run with
`--vault public` and in `all`, each materialised from a git directory holding its pinned
commit, looked for under `--public-source DIR` (repeatable) and the folder holding this
repository (`../obsidian-help`, `../obsidian-help.git` or a mirror `OWNER+NAME/repo`); a vault
whose repository is not found is skipped with a sentence saying how to get it.  Each question
is asked over the whole vault (recall with no subject, for a client exposed the whole vault;
BM25+stem and search over every note) and within its top-level folder (the subject of one
folder rule per top-level folder; BM25+stem over that folder's notes; search_notes given that
subject).  `search_notes` is what a model can do with search alone (public_vaults.py);
`--no-search` leaves it out.

Ours is asked with `--budget` (by default the evaluation's 65,536 bytes, room for three whole
records: the ranking alone); `--budget 4096` asks as a client does by default, the records
sharing the budget (a large one as its passages).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from tests.support import public_vaults as pv
from tests.support.paths import REPO_ROOT
from tests.support.recall_eval import (
    ANSWERABLE,
    BUDGET,
    STYLES,
    VAULTS,
    Outcome,
    Report,
    default_methods,
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
    ("unmarked hit@3", "unm@3"),
    ("marked hit@3", "mrk@3"),
    ("no_answer empty", "none:empty"),
    ("no_answer weak", "none:weak"),
    ("no_answer confident", "none:conf"),
]


def format_rows(methods: Sequence[str], figures: dict[str, dict[str, float | None]]) -> list[str]:
    width = max(len(name) for name in methods) + 2
    header = "method".ljust(width) + " ".join(label.rjust(10) for _, label in _COLUMNS)
    lines = [header, "-" * len(header)]
    for method in methods:
        cells = [_percent(figures[method][metric]).rjust(10) for metric, _ in _COLUMNS]
        lines.append(method.ljust(width) + " ".join(cells))
    return lines


def format_table(report: Report) -> str:
    counts = report.style_counts()
    lines = [
        f"{report.vault}: {report.records} records, "
        + ", ".join(f"{count} {style}" for style, count in counts.items())
        + f" queries ({len(report.queries)})",
    ]
    lines += format_rows(report.methods, report.figures())
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


# ---------------------------------------------------------------------------------------------
# Public real vaults


@dataclass
class PublicReport:
    spec: pv.PublicVault
    methods: list[str]
    outcomes: list[pv.PublicOutcome]

    def rows(self) -> list[str]:
        """`method (scope)` for every method in both scopes, in the table's order."""
        return [f"{method} ({scope})" for scope in pv.SCOPES for method in self.methods]

    def figures(self) -> dict[str, dict[str, float | None]]:
        return {
            f"{method} ({scope})": pv.public_figures(self.outcomes, method, scope)
            for scope in pv.SCOPES
            for method in self.methods
        }

    def errors(self) -> list[pv.PublicOutcome]:
        return [o for o in self.outcomes if o.error is not None]


def evaluate_public_vault(
    spec: pv.PublicVault, source: Path, search: bool = True, budget: int = BUDGET
) -> PublicReport:
    with pv.materialised_vault(spec, source) as vault:
        methods = pv.public_methods(spec, search=search, budget=budget)
        outcomes = pv.evaluate_public(spec, vault, methods)
    return PublicReport(spec, list(methods), outcomes)


def format_public_table(report: PublicReport) -> str:
    spec = report.spec
    counts = {style: sum(1 for q in spec.questions if q.style == style) for style in STYLES}
    lines = [
        f"{spec.name} ({spec.repository} at {spec.commit[:12]}): {spec.notes} notes, "
        f"{len(spec.folders)} folder subjects, "
        + ", ".join(f"{count} {style}" for style, count in counts.items())
        + f" questions ({len(spec.questions)}); (vault): every note, (folder): the question's folder subject",
    ]
    lines += format_rows(report.rows(), report.figures())
    for outcome in report.errors()[:10]:
        lines.append(f"  error: {outcome.method} ({outcome.scope}) on {outcome.question_id}: {outcome.error}")
    if len(report.errors()) > 10:
        lines.append(f"  … {len(report.errors()) - 10} more errors")
    return "\n".join(lines)


def format_public_misses(report: PublicReport, method: str) -> str:
    by_id = {q.id: q for q in report.spec.questions}
    lines: list[str] = []
    for o in report.outcomes:
        query = by_id[o.question_id]
        if o.method != method:
            continue
        missed = bool(o.paths) and not all(o.weak) if o.style == "no_answer" else not o.hit_at_3
        if not missed:
            continue
        shown = [f"{p}{' (weak)' if w else ''}" for p, w in zip(o.paths, o.weak, strict=True)]
        lines.append(f"[{method} ({o.scope})] {query.id} ({query.folder}) {query.query!r}")
        lines.append(f"    expected: {list(query.expected) or 'nothing'}")
        lines.append(f"    returned: {shown or 'nothing'}" + (f"  error: {o.error}" if o.error else ""))
    return "\n".join(lines)


def public_report_json(report: PublicReport) -> dict[str, Any]:
    by_id = {q.id: q for q in report.spec.questions}

    def outcome(o: pv.PublicOutcome) -> dict[str, Any]:
        query = by_id[o.question_id]
        return {"folder": query.folder, "query": query.query, "expected": list(query.expected), **asdict(o)}

    return {
        "vault": report.spec.name,
        "repository": report.spec.repository,
        "commit": report.spec.commit,
        "figures": report.figures(),
        "outcomes": [outcome(o) for o in report.outcomes],
    }


def run_public(
    places: Sequence[Path],
    search: bool = True,
    show_misses: bool = False,
    root: Path = pv.PUBLIC_ROOT,
    budget: int = BUDGET,
) -> list[PublicReport]:
    """Every public vault described under `root` whose repository is found under `places`,
    printed as it is done."""
    reports: list[PublicReport] = []
    for name in pv.public_vault_names(root):
        spec = pv.load_public_vault(name, root)
        source = pv.find_source(spec, places)
        if source is None:
            owner_name = "/".join(spec.repository.rstrip("/").split("/")[-2:])
            print(
                f"{name}: skipped, no git directory holding {spec.repository} at {spec.commit} under "
                f"{', '.join(str(p) for p in places)}; clone it beside this repository "
                f"(git clone {spec.repository} ../{owner_name.split('/')[1]}) or name its folder with --public-source"
            )
            print()
            continue
        report = evaluate_public_vault(spec, source, search=search, budget=budget)
        print(format_public_table(report))
        if show_misses:
            print(format_public_misses(report, "ours (default)"))
        print()
        reports.append(report)
    return reports


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--vault", choices=[*VAULTS, "public", "all"], default="all")
    parser.add_argument(
        "--public-source",
        type=Path,
        action="append",
        default=[],
        metavar="DIR",
        help="a folder holding clones or mirrors of the public vaults' repositories (repeatable)",
    )
    parser.add_argument("--no-search", action="store_true", help="leave the search_notes baseline out (public vaults)")
    parser.add_argument("--limit-queries", type=int, metavar="N", help="only N queries per vault and style")
    parser.add_argument("--budget", type=int, default=BUDGET, metavar="N", help="the budget ours is asked with")
    parser.add_argument("--show-misses", action="store_true", help="print each query ours missed and what it returned")
    parser.add_argument("--json", type=Path, metavar="PATH", help="write every figure and per-query outcome")
    args = parser.parse_args(argv)

    queries = load_queries()
    if args.limit_queries is not None:
        queries = query_slice(queries, args.limit_queries)
    names = {"all": VAULTS, "public": ()}.get(args.vault, (args.vault,))
    reports = [evaluate(name, queries, default_methods(args.budget)) for name in names]
    for report in reports:
        print(format_table(report))
        if args.show_misses:
            print(format_misses(report, [m for m in report.methods if m.startswith("ours")]))
        print()
    public: list[PublicReport] = []
    if args.vault in ("public", "all"):
        places = [*args.public_source, REPO_ROOT.parent]
        public = run_public(places, search=not args.no_search, show_misses=args.show_misses, budget=args.budget)
    if args.json is not None:
        written = [report_json(r) for r in reports] + [public_report_json(r) for r in public]
        args.json.write_text(json.dumps(written, indent=1, ensure_ascii=False) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
