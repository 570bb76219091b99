"""Recall at the default budget: does a long record ranked first hide the one meant?

    .venv/bin/python -m bench.recall_budget [--budget 4096] [--public-source DIR]
    .venv/bin/python -m bench.recall_budget --budgets 4096,6144,8192,12288 [--vaults NAME,…] [--public-source DIR]

Run from the repository's root.  Every answerable query of the recall-quality evaluation
(bench/recall_eval/: the hand-written vaults, and the public vaults whose repositories are
found, as bench.recall_quality finds them, by folder subject) is asked twice: at `--budget`
(the default 4,096 bytes, limit 3) and at the largest budget (65,536), which ranks the same
records with room for all three.  Counted, for the queries whose expected record is among the
first three at the largest budget: answers holding one record only; answers that lost the
expected record to the budget — named in `omitted_best` (path, title, bytes), or only counted
in `omitted` — and of those, the ones holding a single record.

With `--budgets`, every answerable query instead (and the public vaults over the whole vault,
with no subject, for a client exposed the whole vault, as well as by folder subject), at each
budget: the share of answers with records whose first record carries text (`text`, or
`passages`), the share whose every record does, the records an answer holds, the share of
those records given whole, and the text bytes an answer holds (`text` and the passages'
texts), on average.  `--vaults NAME,…` runs only those (dev, holdout, obsidian-help, …).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from tests.support import public_vaults as pv
from tests.support.paths import REPO_ROOT
from tests.support.recall_eval import ANSWERABLE, VAULTS, load_queries, prepared_vault
from vault_recall.server.recall.answers.recall_records import recall_context
from vault_recall.server.recall.scope import Exposure, Scope

LARGEST = 65536
LIMIT = 3


@dataclass
class Tally:
    name: str
    asked: int = 0  # answerable queries whose expected record is in the first three at LARGEST
    one_record: int = 0  # of those, answered with one record at the budget
    lost: int = 0  # the expected record returned at LARGEST, not at the budget
    lost_named: int = 0  # ... and named in omitted_best
    lost_one_record: int = 0  # ... in an answer holding one record
    examples: list[str] = field(default_factory=list)

    def line(self) -> str:
        return (
            f"{self.name:28} {self.asked:6} {self.one_record:11} {self.lost:5} {self.lost_named:11}"
            f" {self.lost - self.lost_named:13} {self.lost_one_record:15}"
        )


HEADER = (
    f"{'vault':28} {'asked':>6} {'one record':>11} {'lost':>5} {'lost, named':>11} {'lost, counted':>13}"
    f" {'lost, 1 record':>15}"
)


def tally(name: str, asks: Iterator[tuple[Scope, str | None, str, tuple[str, ...]]], budget: int) -> Tally:
    counted = Tally(name)
    for scope, subject, query, expected in asks:
        full = recall_context(scope, subject, query, budget=LARGEST, limit=LIMIT)
        if not any(r["path"] in expected for r in full["records"]):
            continue
        counted.asked += 1
        small: dict[str, Any] = dict(recall_context(scope, subject, query, budget=budget, limit=LIMIT))
        records = [r["path"] for r in small["records"]]
        counted.one_record += len(records) == 1
        if any(path in expected for path in records):
            continue
        counted.lost += 1
        named = {entry["path"] for entry in small.get("omitted_best", [])}
        counted.lost_named += any(path in expected for path in named)
        counted.lost_one_record += len(records) == 1
        if len(counted.examples) < 5:
            sizes = [r.get("bytes", len(r.get("text", ""))) for r in small["records"]]
            counted.examples.append(f"{query!r}: returned {records} ({sizes} bytes), expected {list(expected)}")
    return counted


def hand_written(name: str, budget: int) -> Tally:
    queries = [q for q in load_queries() if q.vault == name and q.style in ANSWERABLE]
    with prepared_vault(name) as vault:
        scope = Scope(client="bench", vault=vault, exposure=Exposure())
        return tally(name, ((scope, q.subject, q.query, q.expected) for q in queries), budget)


def public(spec: pv.PublicVault, source: Path, budget: int) -> Tally:
    questions = [q for q in spec.questions if q.style in ANSWERABLE]
    with pv.materialised_vault(spec, source) as vault:
        rules = replace(pv.folder_rules(spec), root=vault)
        scope = Scope(client="bench", vault=vault, exposure=Exposure(rules=rules))
        asks = ((scope, spec.subject_of(q.folder), q.query, q.expected) for q in questions)
        return tally(f"{spec.name} (folder)", asks, budget)


Ask = tuple[Scope, str | None, str, tuple[str, ...]]


def carries_text(record: dict[str, Any]) -> bool:
    return "text" in record or bool(record.get("passages"))


def text_bytes(record: dict[str, Any]) -> int:
    texts = [record["text"]] if "text" in record else [p["text"] for p in record.get("passages", [])]
    return sum(len(text.encode("utf-8")) for text in texts)


@dataclass
class Shares:
    """At one budget, over every answerable query of one set: what the answers carry."""

    answered: int = 0  # answers with records
    first_text: int = 0  # ... whose first record carries text
    all_text: int = 0  # ... whose every record carries text
    records: int = 0
    whole: int = 0  # records given whole
    text: int = 0  # text bytes, all answers

    def cells(self) -> str:
        n = max(self.answered, 1)
        return (
            f"{100 * self.first_text / n:6.0f}% {100 * self.all_text / n:5.0f}%"
            f" {self.records / n:5.2f} {100 * self.whole / max(self.records, 1):5.0f}% {self.text / n:6.0f}"
        )


def shares(asks: Sequence[Ask], budgets: Sequence[int]) -> dict[int, Shares]:
    found = {budget: Shares() for budget in budgets}
    for scope, subject, query, _ in asks:
        for budget in budgets:
            result: dict[str, Any] = dict(recall_context(scope, subject, query, budget=budget, limit=LIMIT))
            records = result["records"]
            if not records:
                continue
            counted = found[budget]
            counted.answered += 1
            counted.first_text += carries_text(records[0])
            counted.all_text += all(carries_text(r) for r in records)
            counted.records += len(records)
            counted.whole += sum(1 for r in records if "text" in r)
            counted.text += sum(text_bytes(r) for r in records)
    return found


def hand_written_asks(name: str) -> Iterator[tuple[str, list[Ask]]]:
    queries = [q for q in load_queries() if q.vault == name and q.style in ANSWERABLE]
    with prepared_vault(name) as vault:
        scope = Scope(client="bench", vault=vault, exposure=Exposure())
        yield name, [(scope, q.subject, q.query, q.expected) for q in queries]


def public_asks(spec: pv.PublicVault, source: Path) -> Iterator[tuple[str, list[Ask]]]:
    questions = [q for q in spec.questions if q.style in ANSWERABLE]
    with pv.materialised_vault(spec, source) as vault:
        whole = Scope(client="bench", vault=vault, exposure=Exposure(mode="vault"))
        yield f"{spec.name} (vault)", [(whole, None, q.query, q.expected) for q in questions]
        rules = replace(pv.folder_rules(spec), root=vault)
        ruled = Scope(client="bench", vault=vault, exposure=Exposure(rules=rules))
        yield f"{spec.name} (folder)", [(ruled, spec.subject_of(q.folder), q.query, q.expected) for q in questions]


def print_shares(budgets: Sequence[int], places: Sequence[Path], only: Sequence[str] = ()) -> None:
    print(f"{'':36} " + " ".join(f"{f'budget {b}':>34}" for b in budgets))
    columns = f"{'1st text':>7} {'all':>5} {'recs':>5} {'whole':>6} {'bytes':>6}"
    print(f"{'vault':28} {'answers':>7} " + " ".join(columns for _ in budgets))
    sets: list[Iterator[tuple[str, list[Ask]]]] = [
        hand_written_asks(name) for name in VAULTS if not only or name in only
    ]
    for name in pv.public_vault_names():
        if only and name not in only:
            continue
        spec = pv.load_public_vault(name)
        source = pv.find_source(spec, [*places, REPO_ROOT.parent])
        if source is None:
            print(f"{name}: skipped, its repository was not found (bench.recall_quality says how to get it)")
            continue
        sets.append(public_asks(spec, source))
    for each in sets:
        for name, asks in each:
            found = shares(asks, budgets)
            answered = found[budgets[0]].answered
            print(f"{name:28} {answered:7} " + " ".join(found[b].cells() for b in budgets), flush=True)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--budget", type=int, default=4096)
    parser.add_argument("--budgets", metavar="B,B,…", help="the shares of answers carrying text at each budget")
    parser.add_argument("--vaults", metavar="NAME,…", help="with --budgets: only these vaults")
    parser.add_argument("--public-source", type=Path, action="append", default=[], metavar="DIR")
    args = parser.parse_args(argv)
    if args.budgets:
        only = args.vaults.split(",") if args.vaults else ()
        print_shares([int(b) for b in args.budgets.split(",")], args.public_source, only)
        return 0
    print(HEADER)
    tallies = [hand_written(name, args.budget) for name in VAULTS]
    for counted in tallies:
        print(counted.line())
    for name in pv.public_vault_names():
        spec = pv.load_public_vault(name)
        source = pv.find_source(spec, [*args.public_source, REPO_ROOT.parent])
        if source is None:
            print(f"{name}: skipped, its repository was not found (bench.recall_quality says how to get it)")
            continue
        counted = public(spec, source, args.budget)
        print(counted.line())
        tallies.append(counted)
    for counted in tallies:
        for example in counted.examples:
            print(f"  {counted.name}: {example}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
