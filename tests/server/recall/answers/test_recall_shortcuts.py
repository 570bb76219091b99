"""Ranked recall takes shortcuts — only records that can answer are kept as matches, a note
becomes a record once — and must answer exactly as the straightforward way does
(tests/support/straight_recall.py): the same records in the same order, with the same
matched words, coverage, weak mark, omitted count and names, on the synthetic and the
realistic vaults, for queries common, rare, absent, framing-only, accented and phrased."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from tests.support import straight_recall
from tests.support.depth import cases, crossed, in_turn
from tests.support.synthetic_vault import generate, generate_realistic
from tests.support.tricky_notes import TRICKY
from tests.support.vaults import write_vault
from vault_recall.server.recall.answers import recall_records, unheld
from vault_recall.server.recall.ranking.query_terms import parse_query
from vault_recall.server.recall.ranking.relevance import Ranked
from vault_recall.server.recall.records import MemoryRecord
from vault_recall.server.recall.results import Problem
from vault_recall.server.recall.scope import Exposure, ExposureMode, Scope
from vault_recall.server.recall.subject_rules import SubjectRule, SubjectRules
from vault_recall.server.vault.listing import list_notes

QUERIES = (
    "cache",  # most notes hold it
    "cache deploy latency",
    "what did we decide",  # framing words only: every record answers
    "kubernetes rollback zzzqx",  # one word no note holds
    "zzzqx",  # nothing holds it: an empty answer
    "deploy latncy",  # a misspelling: the nearest word a record holds
    "café straße",  # accents and a sharp s (the realistic vault's words)
    "api k8s",  # abbreviations: a phrase they stand for, and a word
    "build system decision",  # the subject's own words, asked in build-system
    "000123 policy",  # a number few notes hold (in titles and links), and a word most do
    "000123",  # only that: most notes are counted from their bytes (answers/unheld.py)
    "项目预算 plan",  # Chinese, as bigrams (words.py), and a word
)
SUBJECTS = (None, "projects", "build-system")  # none, a rule's, a property's
# Each query asked in each exposure mode with each budget and limit, for each subject, under
# `ci`; in the fast loop a third of the queries' pairs with the modes and budgets, each pair for
# one subject in turn: every query, mode, budget and subject still in one (tests/support/depth.py).
ASKED = [
    (query, mode, budget, limit, tuple(in_turn(SUBJECTS, case)))
    for case, (query, (mode, (budget, limit))) in enumerate(
        crossed(
            QUERIES, [(mode, sized) for mode in ("records", "vault") for sized in ((4096, 3), (65536, 20), (512, 1))]
        )
    )
]
# Each query counted across the whole vault, every record a client sees, or one subject's.
COUNTED = [
    (query, *where)
    for query, where in crossed(
        QUERIES,
        [("vault", None), ("records", None), ("subjects", None), ("records", "build-system"), ("records", "projects")],
    )
]
# Ordinary notes the folder rule takes, whose own properties say what record it makes.
RULED: dict[str, str | bytes] = {
    "Archived plan.md": "---\nstatus: archived\n---\nthe plan, archived\n",
    "Event plan.md": "---\nkind: event\ndate: 2026-01-02\n---\nthe plan, an event\n",
    "Tagged plan.md": "---\ntags: [plan]\n---\nthe plan, tagged\r\n",
    "Unwritten plan.md": "the plan, with no properties\r\n",
    "Accented plan.md": "the plan — déjà vu\n",
    "项目预算讨论.md": "本季度的项目预算需要重新分配\n",
    "Japanese plan.md": "---\ntags: [予算]\n---\nthe plan: 会議の预算\n",
    # Properties YAML cannot read: ranked across the whole vault as Obsidian shows it, unless
    # its block may make it a record (unheld.shown_anyway).
    "Broken plan.md": "---\naliases:\n- @plan\n---\nthe plan, its properties broken\n",
    "Broken archived plan.md": "---\nstatus: archived\naliases: [@plan\n---\nthe plan, archived and broken\n",
    "Broken old plan.md": b"---\rkind: event\raliases:\r- @plan\r---\rthe plan, an old Mac's\r",
}


@pytest.fixture(scope="module", params=["synthetic", "realistic"])
def vault(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("shortcuts") / "v"
    if request.param == "synthetic":
        generate(root, 300, seed=5, invalid=6)
    else:
        generate_realistic(root, 300, seed=8)
    write_vault(root / "Tricky", TRICKY)
    write_vault(root / "Projects", RULED)
    return root


def scope(vault: Path, mode: ExposureMode) -> Scope:
    rules = SubjectRules(
        (
            SubjectRule("projects", folder="Projects"),
            # Decided on the bytes read beside the folder's (answers/unheld.py).
            SubjectRule("tagged", tag="plan"),
            SubjectRule("named", property_name="aliases", value="Other name"),
        ),
        vault,
    )
    return Scope(client="t", vault=vault, exposure=Exposure(mode=mode, rules=rules))


@pytest.mark.parametrize("query", cases(QUERIES))
def test_the_ranking_is_the_straightforward_one(vault: Path, query: str) -> None:
    listing = list_notes(vault)
    records = [r for r in recall_records._every_note(listing, scope(vault, "vault"), []) if isinstance(r, MemoryRecord)]
    assert len(records) > 250
    for subject in ("", "build-system"):
        parsed = parse_query(query, ["english"], subject)
        if not parsed.terms:
            continue
        shortcut, straight = Ranked(parsed, dated=False), straight_recall.StraightRanked(parsed, dated=False)
        for record in records:
            shortcut.measure(record)
            straight.measure(record)
        assert shortcut.count == straight.count == len(records)
        # A record holding no term is counted with its length, never listed (bm25.scores).
        assert all(any(e.weights) for e in shortcut.every) or not parsed.required
        assert shortcut.rank() == straight.rank()


@pytest.mark.parametrize(
    ("query", "mode", "budget", "limit", "subjects"),
    ASKED,
    ids=lambda value: "+".join(str(subject) for subject in value) if isinstance(value, tuple) else None,
)
def test_recall_answers_as_the_straightforward_way(
    vault: Path,
    mode: ExposureMode,
    query: str,
    budget: int,
    limit: int,
    subjects: tuple[str | None, ...],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    asked = scope(vault, mode)
    answers = [recall_records.recall_context(asked, subject, query, budget=budget, limit=limit) for subject in subjects]
    monkeypatch.setattr(recall_records, "Ranked", straight_recall.StraightRanked)
    monkeypatch.setattr(recall_records, "_every_note", straight_recall.every_note)
    monkeypatch.setattr(recall_records, "_unheld_gates", lambda fresh: None)  # every record parsed
    assert answers == [
        recall_records.recall_context(asked, subject, query, budget=budget, limit=limit) for subject in subjects
    ]


def test_the_whole_vault_is_every_note_as_each_note_shows_it(vault: Path) -> None:
    listing = list_notes(vault)
    asked = scope(vault, "vault")
    problems: list[object] = []
    straight_problems: list[object] = []
    records = list(recall_records._every_note(listing, asked, problems))  # type: ignore[arg-type]
    straight = list(straight_recall.every_note(listing, asked, straight_problems))  # type: ignore[arg-type]
    assert records == straight and problems == straight_problems
    assert problems and all(isinstance(r, MemoryRecord) for r in records)


@pytest.mark.parametrize(("query", "mode", "subject"), COUNTED)
def test_notes_counted_from_their_bytes_rank_as_every_note_parsed(
    vault: Path, query: str, mode: ExposureMode, subject: str | None
) -> None:
    """A pass counting the records that hold no query word from their bytes
    (answers/unheld.py) — across the whole vault, every record a client sees, or a property or
    rule subject's: the same count, the same matches with the same scores (every length enters
    the average), the same problems."""
    listing = list_notes(vault)
    asked = scope(vault, mode)
    if mode == "subjects":
        asked = replace(asked, exposure=replace(asked.exposure, subjects=frozenset({"build-system", "projects"})))
    parsed = parse_query(query, ["english"], subject or "")
    if not parsed.required:
        return  # only a query with meaningful words counts notes from their bytes

    def current(record: MemoryRecord) -> bool:
        return record.status == "active" and record.kind == "decision"

    shortcut, straight = Ranked(parsed, dated=False), straight_recall.StraightRanked(parsed, dated=False)
    problems: list[Problem] = []
    straight_problems: list[Problem] = []
    shown: dict[str, Problem] = {}  # broken notes ranked: a problem if returned
    straight_shown: dict[str, Problem] = {}
    recall_records._measure(
        shortcut, problems, shown, scope=asked, listing=listing, subject=subject, keep=current, unheld=True
    )
    if subject is None and mode == "vault":
        holds = unheld.asked_words(straight)  # what "holds a word asked" is, the same for both
        records = list(straight_recall.every_note(listing, asked, straight_problems, None, holds, straight_shown))
    else:
        records = [
            r
            for r in recall_records._candidates(asked, listing, subject, straight_problems)
            if isinstance(r, MemoryRecord)
        ]
    for record in records:
        if current(record):
            straight.measure(record)
    assert shortcut.count == straight.count
    assert shortcut.rank() == straight.rank()
    assert problems == straight_problems and shown == straight_shown
